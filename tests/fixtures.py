"""Fixtures the apps' conftests share: a conftest imports them by name (pytest finds a fixture where it
is imported, and an imported autouse fixture is autouse for that conftest's tests).

``no_pauses`` (autouse): the bot's thinking pause and the hand pause set to 0 (``GAMES_BOT_DELAY``,
``GAMES_HAND_PAUSE``). ``short_lived_connections`` (autouse): worker-thread database connections
(``database_sync_to_async``, race threads) close after each call, so none is left open on the test
database at teardown (PostgreSQL refuses to drop it then).

``alice`` / ``bob`` / ``carol``: members without a password (``tests.factories.UserFactory``); ``guest``:
a guest (``GuestFactory``); ``house_bots``: bot-1..bot-5, ordered by level.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def no_pauses(settings: Any) -> None:
    settings.GAMES_BOT_DELAY = (0.0, 0.0)
    settings.GAMES_HAND_PAUSE = 0.0


@pytest.fixture(autouse=True)
def short_lived_connections() -> Iterator[None]:
    from django.db import connections

    settings_dict = connections.settings["default"]
    before = settings_dict.get("CONN_MAX_AGE", 0)
    settings_dict["CONN_MAX_AGE"] = 0
    yield
    settings_dict["CONN_MAX_AGE"] = before


@pytest.fixture
def alice(db: None) -> Any:
    from tests.factories import UserFactory

    return UserFactory(username="alice")


@pytest.fixture
def bob(db: None) -> Any:
    from tests.factories import UserFactory

    return UserFactory(username="bob")


@pytest.fixture
def carol(db: None) -> Any:
    from tests.factories import UserFactory

    return UserFactory(username="carol")


@pytest.fixture
def guest(db: None) -> Any:
    from tests.factories import GuestFactory

    return GuestFactory()


@pytest.fixture
def house_bots(db: None) -> list[Any]:
    from accounts.services import house_bots_ensure

    return house_bots_ensure()
