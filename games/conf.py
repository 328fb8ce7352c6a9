"""Tunable live-play timings, read from Django settings with defaults (tests set them to 0).

- ``GAMES_BOT_DELAY``: (low, high) seconds the bot "thinks" before a move (default (0.6, 1.2)).
- ``GAMES_HAND_PAUSE``: seconds the finished hand stays face up before the next one (default 8.0);
  the bot waits this long after a hand ended, and a turn timer adds it to a new hand's first move.
"""

from __future__ import annotations

from django.conf import settings

MAX_FRAME_BYTES = 4096
"""Largest WebSocket frame accepted from a client (docs/protocol.md, ``frame_too_large``)."""


def bot_delay_range() -> tuple[float, float]:
    """(low, high) seconds of the bot's pause before a move."""
    low, high = getattr(settings, "GAMES_BOT_DELAY", (0.6, 1.2))
    return float(low), float(high)


def hand_pause_seconds() -> float:
    """Seconds a finished hand is shown before the next is played."""
    return float(getattr(settings, "GAMES_HAND_PAUSE", 8.0))
