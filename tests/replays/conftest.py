"""Fixtures for the replays tests: finished bot matches of every preset, played through the services.

``finished_match(preset, level=1, target=50, user=alice)`` plays a whole match (seeded decks) and returns
the fresh ``Match``. The games fixtures (users, house bots, seeded decks, zero pauses) are shared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.fixtures import alice, bob, guest, house_bots, no_pauses, short_lived_connections
from tests.games.conftest import seeded_decks

__all__ = [  # fixtures
    "alice", "bob", "guest", "house_bots", "no_pauses", "seeded_decks", "short_lived_connections",
]


@pytest.fixture(autouse=True)
def fresh_replay_cache() -> Any:
    from django.core.cache import cache

    from replays import shared_view

    cache.clear()
    shared_view.forget()  # the spectators' views kept per process: match ids repeat between tests
    yield
    cache.clear()
    shared_view.forget()


@pytest.fixture
def finished_match(house_bots: Any, seeded_decks: Any, alice: Any) -> Callable[..., Any]:
    from tests.factories import BotMatchFactory
    from tests.games.play import play_until

    def make(preset: str = "classic", *, level: int = 1, target: int = 50, user: Any = None) -> Any:
        player = user or alice
        match = BotMatchFactory(user=player, level=level, rules_preset=preset, target=target)
        done = play_until(match.pk, {0: player})
        assert done.status == "finished"
        return done

    return make
