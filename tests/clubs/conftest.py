"""Fixtures for the clubs tests: members, a guest, a bot, zero pauses."""

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
