"""Fixtures for the lobby tests.

``alice`` / ``bob`` / ``carol``: members; ``guest``: a guest; ``house_bots``: bot-1..bot-5.
``rated_pool`` / ``casual_pool``: pools made here (a transactional test's flush removes the migration's).
``no_pauses`` (autouse): no bot pause, no hand pause. ``short_lived_connections`` (autouse): threads'
database connections close after each call (PostgreSQL drops the test database only without them).
All but the pools: tests/fixtures.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures import alice, bob, carol, guest, house_bots, no_pauses, short_lived_connections

__all__ = ["alice", "bob", "carol", "guest", "house_bots", "no_pauses", "short_lived_connections"]  # fixtures


@pytest.fixture
def rated_pool(db: None) -> Any:
    from lobby.models import Pool

    return Pool.objects.create(slug="t-100-60-rated", name="100 · 60 s · rated", target=100,
                               turn_timer_seconds=60, rated=True, window_start=100, window_growth=10.0,
                               bot_after_seconds=30)


@pytest.fixture
def casual_pool(db: None) -> Any:
    from lobby.models import Pool

    return Pool.objects.create(slug="t-50-20-casual", name="50 · 20 s · casual", target=50,
                               turn_timer_seconds=20, rated=False, window_start=100, window_growth=10.0,
                               bot_after_seconds=30)


def set_rating(user: Any, rating: float, matches: int = 20) -> None:
    """Give ``user`` an established (or, with ``matches`` < 10, provisional) rating."""
    from ratings.models import PlayerRating

    PlayerRating.objects.update_or_create(user=user, defaults={"rating": rating, "rated_matches": matches,
                                                               "wins": matches,
                                                               "peak": rating})
