"""How a finished match ended, as a match list says it beside "Won" / "Lost" (My matches, a profile's last
rated matches, the home page's last matches): one wording for each ``Match.result_reason``, from the
listed player's side, in the active language.

A claimed win over a player who left (``left``, issue 21 section 3) is stored as the engine's resignation
(docs/protocol.md "Leaving"); it is never shown as one.
"""

from __future__ import annotations

from django.utils.translation import gettext

from games.models import ResultReason


def end_note(reason: str | None, won: bool | str | None) -> str:
    """The note for a match that ended by ``reason`` (a :class:`ResultReason` value, ``""`` or None) for
    the player who ``won`` (True / False, or a list's ``"won"`` / ``"lost"``): "the opponent left",
    "left the table", "the opponent resigned", "resigned", "the opponent ran out of time", "ran out of
    time", "no winner, not rated"; ``""`` for a match played to its target (or unknown)."""
    if isinstance(won, str):
        won = won == "won"
    if reason == ResultReason.LEFT:
        return gettext("the opponent left") if won else gettext("left the table")
    if reason == ResultReason.RESIGN:
        return gettext("the opponent resigned") if won else gettext("resigned")
    if reason == ResultReason.TIMEOUT:
        return gettext("the opponent ran out of time") if won else gettext("ran out of time")
    if reason == ResultReason.ABANDONED:
        return gettext("no winner, not rated")
    return ""
