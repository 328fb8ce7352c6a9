"""Quick chat at the table (issue 22, item 5; docs/protocol.md "Quick chat"): preset messages only.

A seated player sends a preset's id (``PRESET_IDS``); the server checks it, its limits and the match,
stores it (``ChatMessage``, for moderation: never a ``MatchEvent``, so replays and their verification
do not see it) and sends ``{"type": "chat", "seat": k, "preset": id}`` to both seats' table sockets.
No text crosses the socket: each reader's page holds the id -> text table in its own language
(:func:`preset_texts`, rendered into the table page), so a pt-BR reader sees Portuguese whatever the
sender's language. Spectators get nothing (the watch socket refuses ``chat``).

Limits, per player per match, across all their sockets and server processes (Django's cache: Redis in
production): ``WINDOW_MAX`` messages per ``WINDOW_SECONDS`` s, ``MATCH_MAX`` per match. :func:`admit`
reads the clock through :func:`now` so tests move time without sleeping.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.cache import cache
from django.utils.translation import gettext_lazy as _

from games import selectors
from games.models import ChatMessage, MatchStatus

PRESETS: tuple[tuple[str, Any], ...] = (
    ("hello", _("Hello!")),
    ("good_luck", _("Good luck!")),
    ("nice_move", _("Nice move!")),
    ("oops", _("Oops!")),
    ("thanks", _("Thanks!")),
    ("well_played", _("Well played!")),
    ("good_game", _("Good game!")),
    ("rematch", _("Rematch?")),
)
PRESET_IDS: tuple[str, ...] = tuple(pid for pid, _text in PRESETS)
WINDOW_MAX = 3
WINDOW_SECONDS = 10.0
MATCH_MAX = 20
COUNT_TTL = 2 * 24 * 3600  # the match total outlives any match; a key left behind expires on its own


class ChatRefused(Exception):
    """A chat message refused before anything was sent or stored: ``code`` and ``message`` as in an
    ``error`` frame (``unknown_preset``, ``chat_rate_limited``, ``chat_match_limit``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def now() -> float:
    """Wall-clock seconds (patched in tests). Wall clock, not monotonic: the window is shared by every
    server process through the cache."""
    return time.time()


def preset_texts() -> dict[str, str]:
    """``{id: text}`` in the active language (the table page renders it for its reader)."""
    return {pid: str(text) for pid, text in PRESETS}


def check_preset(value: Any) -> str:
    """``value`` if it is a preset id.

    :raises ChatRefused: ``unknown_preset`` (anything else: free text is never relayed)."""
    if not isinstance(value, str) or value not in PRESET_IDS:
        shown = repr(value)[:40]
        raise ChatRefused("unknown_preset", f"'preset' must be one of {', '.join(PRESET_IDS)}; got {shown}")
    return value


def _keys(match_id: int, user_id: int) -> tuple[str, str]:
    return f"chat-window:{match_id}:{user_id}", f"chat-total:{match_id}:{user_id}"


def admit(*, match_id: int, user_id: int) -> None:
    """Count one message of ``user_id`` in ``match_id``, or refuse it (counting nothing).

    The window is the list of the send times (seconds) of the last ``WINDOW_SECONDS``; a read-modify-
    write, so two sockets of one player sending in the same instant may both pass: a guard against
    spamming, not an exact meter.

    :raises ChatRefused: ``chat_rate_limited`` (``WINDOW_MAX`` in the last ``WINDOW_SECONDS`` s; the
        message says in how many seconds the next one is accepted), ``chat_match_limit`` (``MATCH_MAX``
        sent in this match).
    """
    window_key, total_key = _keys(match_id, user_id)
    t = now()
    total = cache.get(total_key, 0)
    if total >= MATCH_MAX:
        raise ChatRefused("chat_match_limit", f"at most {MATCH_MAX} chat messages per player per match")
    recent = [s for s in cache.get(window_key, []) if t - s < WINDOW_SECONDS]
    if len(recent) >= WINDOW_MAX:
        wait = max(0.1, WINDOW_SECONDS - (t - recent[0]))
        raise ChatRefused("chat_rate_limited",
                          f"at most {WINDOW_MAX} chat messages per {WINDOW_SECONDS:g} s: wait {wait:.1f} s")
    recent.append(t)
    cache.set(window_key, recent, timeout=int(WINDOW_SECONDS) + 1)
    if not cache.add(total_key, 1, timeout=COUNT_TTL):
        cache.incr(total_key)


def chat_send(*, match_id: int, user: Any, preset: Any) -> int:
    """Check and store ``user``'s chat message ``preset`` in ``match_id``; returns the sender's seat (the
    caller then sends it to the match's group). Order of the checks: preset, seat, match, limits.

    Allowed while the match is played and after it ended (finished or aborted: "good game",
    "rematch?"); refused before the second player sat down and in a match against a house bot (nobody
    reads it; a bot never chats).

    :raises ChatRefused: ``unknown_preset``, ``not_seated``, ``not_started``, ``chat_unavailable``
        (a bot match), ``chat_rate_limited``, ``chat_match_limit``; nothing stored or counted.
    """
    preset_id = check_preset(preset)
    match = selectors.match_get(match_id=match_id)
    seat = None if match is None else match.seat_of(user.pk)
    if match is None or seat is None:
        raise ChatRefused("not_seated", "only the match's two players chat")
    if match.bot_seats or match.bot_level is not None:
        raise ChatRefused("chat_unavailable", "no chat in a match against a house bot")
    if match.status == MatchStatus.WAITING:
        raise ChatRefused("not_started", "the table is still waiting for the second player")
    admit(match_id=match_id, user_id=user.pk)
    ChatMessage.objects.create(match=match, seat=seat, user=user, preset=preset_id)
    return seat
