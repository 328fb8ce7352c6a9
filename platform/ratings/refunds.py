"""Rating refunds after a fair-play closure: the rule's numbers and arithmetic (framework-free).

The rule (docs/fairplay.md "Consequences and refunds"; lichess's, with our numbers): when an account is
closed for a fair-play violation, every opponent who lost Elo points to it in its last
:data:`REFUND_MATCHES` rated matches played within :data:`REFUND_WINDOW_DAYS` days before the closure
gets those points back, at most :data:`REFUND_CAP` points per opponent in total, except for a match in
which that opponent was provisional (fewer than ``ratings.elo.PROVISIONAL_MATCHES`` rated matches before
it: its rating was still moving fast, lichess skips those too). Each match is refunded once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["REFUND_CAP", "REFUND_MATCHES", "REFUND_WINDOW_DAYS", "Loss", "Refund", "plan"]

REFUND_MATCHES = 40
"""The closed account's latest rated matches looked at (lichess: 40 games)."""
REFUND_WINDOW_DAYS = 5
"""Only matches rated within this many days before the closure (lichess: 5 days)."""
REFUND_CAP = 150.0
"""Most Elo points given back to one opponent for one closed account's matches (lichess: 150)."""


@dataclass(frozen=True, slots=True)
class Loss:
    """One opponent's side of one of the closed account's matches.

    - ``lost``: Elo points the opponent's rating changed by in the match (its ``delta``; only a negative
      one is a loss to refund);
    - ``provisional``: the opponent was provisional when the match was rated;
    - ``refunded``: points already given back for this match (0.0: none; a rerun of the refund).
    """

    match_id: int
    player_id: int
    lost: float
    provisional: bool
    refunded: float = 0.0


@dataclass(frozen=True, slots=True)
class Refund:
    """Give ``points`` (> 0) back to ``player_id`` for ``match_id``."""

    match_id: int
    player_id: int
    points: float


def plan(losses: Iterable[Loss], *, cap: float = REFUND_CAP) -> list[Refund]:
    """The refunds still to make for ``losses`` (the closed account's matches, newest first: the cap
    keeps the latest losses whole and trims the oldest one it reaches).

    Per opponent: a match won (``lost`` >= 0), played while provisional, or already refunded gives
    nothing; the others give back their points lost, until the opponent's total (already refunded
    included) reaches ``cap``. Worked example, cap 150: losses of 60, 50 (provisional), 70, 40 newest
    first -> 60, 70, 20 (150 in total; the provisional match skipped).

    :raises ValueError: ``cap`` negative, or a negative ``refunded``.
    """
    if cap < 0:
        raise ValueError(f"refund cap must be >= 0, got {cap}")
    rows = list(losses)
    budget: dict[int, float] = {}
    for row in rows:
        if row.refunded < 0:
            raise ValueError(f"refunded points must be >= 0, got {row.refunded} (match {row.match_id})")
        budget[row.player_id] = budget.get(row.player_id, cap) - row.refunded
    out: list[Refund] = []
    for row in rows:
        if row.refunded > 0 or row.provisional or row.lost >= 0:
            continue
        points = min(-row.lost, budget[row.player_id])
        if points <= 0:
            continue
        budget[row.player_id] -= points
        out.append(Refund(row.match_id, row.player_id, points))
    return out
