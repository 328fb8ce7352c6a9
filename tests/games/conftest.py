"""Fixtures for the games tests: players, house bots, zero pauses, seeded decks.

``alice`` / ``bob``: registered users; ``guest``: a guest user; ``house_bots``: bot-1..bot-5;
``no_pauses`` (autouse): the bot's thinking pause and the 8 s hand pause set to 0;
``short_lived_connections`` (autouse): threads' database connections close after each call (all from
tests/fixtures.py).
``bot_waits``: the bot's pause set to 10 minutes, for tests that look at a bot match before the server
moves its bot (``games.scheduling`` drives it right after each commit otherwise).
``seeded_decks``: deals come from ``seeded_deck(seed)`` with seed 1000, 1001, ... (deterministic).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from engine.deck import seeded_deck
from tests.fixtures import alice, bob, guest, house_bots, no_pauses, short_lived_connections

__all__ = ["alice", "bob", "guest", "house_bots", "no_pauses", "short_lived_connections"]  # fixtures


@pytest.fixture
def bot_waits(settings: Any) -> None:
    settings.GAMES_BOT_DELAY = (600.0, 600.0)


@pytest.fixture
def seeded_decks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make every deal use ``seeded_deck(1000 + n)``; returns the list of seeds used so far."""
    from games.services import play

    used: list[int] = []
    counter = itertools.count(1000)

    def deck() -> list[int]:
        seed = next(counter)
        used.append(seed)
        return seeded_deck(seed)

    monkeypatch.setattr(play, "new_deck", deck)  # play.deal_hand draws it
    return used


@pytest.fixture(autouse=True)
def _default_language_after() -> Iterator[None]:
    """A test client's pt-BR request leaves pt-BR active in this thread (LocaleMiddleware activates it
    and nothing deactivates it): each test leaves the default language active for the next one."""
    yield
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
