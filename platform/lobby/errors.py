"""The lobby's refusals: one code each, with its message in English (logs, the API, docs/protocol.md)
and, through :func:`text`, in the reader's language (pages and sockets).

Raise :class:`games.services.GameError` (``code``, English message) from services; show
``text(code, **params)`` to people. A code missing here is a bug: :func:`text` raises ``KeyError``.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_noop as N_

from games.services import GameError

MESSAGES: dict[str, str] = {
    # shared by pools, open challenges and direct challenges (lobby.busy)
    "not_authenticated": N_("log in or play as a guest first"),
    "guest_rated": N_("guests play casual games only: sign up to play rated"),
    "match_in_progress": N_("finish your rated match {match_id} first"),
    "already_waiting": N_("you are already waiting in a pool: cancel that first"),
    "already_seeking": N_("you already have an open challenge: cancel that first"),
    "playban": N_("you left rated matches: you can pair again in {minutes} min"),
    "bad_frame": N_("malformed message: {detail}"),
    # leaving (issue 21 section 3): the message of a ``playban`` refusal says why (lobby.playbans);
    # the table's own refusals (claim_too_early, opponent_present, not_between_people) are games'
    "playban_abandoned": N_("you left a rated match: you can pair again in {minutes} min"),
    "playban_timeouts": N_("you let the turn timer run out in a rated match: you can pair again in"
                           " {minutes} min"),
}


def text(code: str, **params: Any) -> str:
    """The message of ``code`` in the active language, with ``params`` filled in (``str.format``)."""
    return gettext(MESSAGES[code]).format(**params)


def refuse(code: str, **params: Any) -> GameError:
    """A :class:`GameError` for ``code`` with its English message (``raise refuse("playban", minutes=5)``)."""
    return GameError(code, MESSAGES[code].format(**params))
