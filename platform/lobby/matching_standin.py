"""A stand-in for :mod:`lobby.matching` (same interface) until the weighted matching lands: pairs
neighbours by rating when each is inside the other's window, skipping a repeat of last opponents
unless they are the only two waiting. Replaced by ``lobby.matching`` at merge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Waiter:
    key: int
    user_id: int
    rating: float
    waited: float
    last_opponent: int | None


def window(waited: float, *, start: float, growth: float) -> float:
    """± rating points of a player who waited ``waited`` seconds."""
    return start + growth * max(0.0, waited)


def pair_wave(waiters: Sequence[Waiter], *, start: float, growth: float) -> list[tuple[int, int]]:
    """Pairs of keys, adjacent by rating."""
    ordered = sorted(waiters, key=lambda w: (w.rating, w.key))
    pairs: list[tuple[int, int]] = []
    i = 0
    while i + 1 < len(ordered):
        a, b = ordered[i], ordered[i + 1]
        gap = abs(a.rating - b.rating)
        repeat = (a.last_opponent == b.user_id or b.last_opponent == a.user_id) and len(waiters) > 2
        if (not repeat and gap <= window(a.waited, start=start, growth=growth)
                and gap <= window(b.waited, start=start, growth=growth)):
            pairs.append((a.key, b.key))
            i += 2
        else:
            i += 1
    return pairs
