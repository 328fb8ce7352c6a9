"""Elo arithmetic of the site's ratings (docs/ratings.md), framework-free: pure functions over numbers.

Ratings are floats (stored exactly, shown rounded). A match is a win (score 1) or a loss (score 0);
Gin Rummy matches never tie. The K-factor follows FIDE's bands: 40 for a player's first
:data:`K_NEW_MATCHES` rated matches, 20 after, 10 once the player has ever reached :data:`K_TOP_RATING`.
A rating never drops below :data:`RATING_FLOOR`.

Source: FIDE Handbook B.02 "Rating Regulations" 8.3 (expected score and K bands); the 400-point logistic
form is the one ``engine.tools.roundrobin`` fits the house bots' Elo with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

INITIAL_RATING = 1500.0
"""Rating of a player with no rated match (a member; a guest who signs up starts here too)."""
RATING_FLOOR = 100.0
"""No rating goes below this."""
K_NEW = 40
"""K while a player has played fewer than :data:`K_NEW_MATCHES` rated matches."""
K_NEW_MATCHES = 30
K_ESTABLISHED = 20
"""K after the first :data:`K_NEW_MATCHES` rated matches, below :data:`K_TOP_RATING`."""
K_TOP = 10
"""K once the player has reached :data:`K_TOP_RATING` (for good, as in FIDE's rule)."""
K_TOP_RATING = 2400.0
PROVISIONAL_MATCHES = 10
"""A player with fewer rated matches than this is provisional (left off the boards by default)."""


class EloError(ValueError):
    """A rating, score, count or K outside its domain (negative count, score not 0/1, NaN rating)."""


@dataclass(frozen=True, slots=True)
class EloUpdate:
    """One player's side of a rated match: ``before`` and ``after`` ratings (exact), ``delta`` =
    ``after - before`` (Elo points), ``k`` the K-factor used, ``expected`` the expected score (0..1)."""

    before: float
    after: float
    delta: float
    k: int
    expected: float


def _check_rating(name: str, value: float) -> None:
    if not math.isfinite(value):
        raise EloError(f"{name} must be a finite number, got {value!r}")


def expected_score(rating: float, opponent: float) -> float:
    """Expected score (0..1) of a player rated ``rating`` against ``opponent``:
    ``1 / (1 + 10 ** ((opponent - rating) / 400))``.

    >>> expected_score(1500, 1500)
    0.5
    >>> round(expected_score(1900, 1500), 4)
    0.9091

    :raises EloError: a rating is NaN or infinite.
    """
    _check_rating("rating", rating)
    _check_rating("opponent", opponent)
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def k_factor(*, rated_matches: int, peak_rating: float) -> int:
    """The K-factor of a player who has played ``rated_matches`` rated matches (before this one) and whose
    highest rating so far is ``peak_rating``: 10 once the peak reached 2400, else 40 for the first 30
    matches, else 20.

    >>> k_factor(rated_matches=0, peak_rating=1500)
    40
    >>> k_factor(rated_matches=30, peak_rating=1500)
    20
    >>> k_factor(rated_matches=3, peak_rating=2400)
    10

    :raises EloError: ``rated_matches`` is negative.
    """
    if rated_matches < 0:
        raise EloError(f"rated_matches must be >= 0, got {rated_matches}")
    _check_rating("peak_rating", peak_rating)
    if peak_rating >= K_TOP_RATING:
        return K_TOP
    return K_NEW if rated_matches < K_NEW_MATCHES else K_ESTABLISHED


def rate(*, rating: float, opponent: float, score: int, k: int) -> EloUpdate:
    """The new rating after one match: ``max(RATING_FLOOR, rating + k * (score - E))``.

    >>> rate(rating=1500, opponent=1500, score=1, k=40).after
    1520.0

    :param score: 1 for a win, 0 for a loss.
    :raises EloError: ``score`` not 0/1, ``k`` not positive, a rating NaN or infinite.
    """
    if score not in (0, 1) or isinstance(score, bool):
        raise EloError(f"score must be 0 or 1, got {score!r}")
    if k <= 0:
        raise EloError(f"k must be positive, got {k}")
    expected = expected_score(rating, opponent)
    after = max(RATING_FLOOR, rating + k * (score - expected))
    return EloUpdate(before=rating, after=after, delta=after - rating, k=k, expected=expected)


def is_provisional(rated_matches: int) -> bool:
    """Whether a player with ``rated_matches`` rated matches is still provisional (fewer than 10)."""
    return rated_matches < PROVISIONAL_MATCHES


def shown(rating: float) -> int:
    """A rating as shown: rounded half away from zero to whole points (1512.5 -> 1513)."""
    return int(rating + 0.5) if rating >= 0 else -int(-rating + 0.5)


def shown_change(before: float, after: float) -> str:
    """A change as shown: the difference of the SHOWN ratings, signed (``+15``, ``-7``, ``0``), so
    ``1512 -> 1527 (+15)`` always adds up on screen.

    >>> shown_change(1511.6, 1527.3)
    '+15'
    """
    points = shown(after) - shown(before)
    return f"+{points}" if points > 0 else str(points)
