"""Fixtures for the tournaments tests: members, a guest, the house bots, zero pauses."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures import no_pauses, short_lived_connections

__all__ = ["no_pauses", "short_lived_connections"]  # autouse fixtures (tests/fixtures.py)


@pytest.fixture
def members(django_user_model: Any) -> list[Any]:
    return [django_user_model.objects.create_user(username=f"member{i}", password="pw-123456!")
            for i in range(6)]


@pytest.fixture
def guest(django_user_model: Any) -> Any:
    return django_user_model.objects.create(username="guest-abc", is_guest=True)


@pytest.fixture(autouse=True)
def shipped_schedules(request: Any) -> None:
    """The data migration's schedules (a transactional test's flush removes them after each test)."""
    names = request.fixturenames
    if not request.node.get_closest_marker("django_db"):
        if "transactional_db" in names or "daphne_server_factory" in names or "daphne_server" in names:
            request.getfixturevalue("transactional_db")
        elif "db" in names:
            request.getfixturevalue("db")
        else:
            return
    import importlib

    from tournaments.models import TournamentSchedule

    defaults = importlib.import_module("tournaments.migrations.0002_default_schedules").DEFAULTS
    for row in defaults:
        TournamentSchedule.objects.get_or_create(name_en=row["name_en"], defaults=row)
