"""Fixtures of the bot API tests (docs/bot-api.md).

``make_token(user, scopes=("bot:play", "challenge:write"))``: a live token's text for ``user``
(``accounts.tokens.token_create``). ``make_bot(username)``: a member upgraded to a BOT account
(``botapi.upgrade.bot_upgrade``), returned with a token of both scopes: ``(user, token)``.
``bot_api``: ``bot_api(token)`` is a :class:`BotApi` client sending ``Authorization: Bearer <token>``
(None: no header). ``alice`` / ``bob`` / ``carol`` (members), ``guest``, ``house_bots``, ``no_pauses``
and ``short_lived_connections``: tests/fixtures.py. ``clean_cache`` (autouse): an empty cache before and
after each test (the limits' counts, the move locks).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from tests.fixtures import alice, bob, carol, guest, house_bots, no_pauses, short_lived_connections

__all__ = ["alice", "bob", "carol", "guest", "house_bots", "no_pauses", "short_lived_connections"]  # fixtures

BOTH_SCOPES = ("bot:play", "challenge:write")
PREFIX = "/api/v1/bot/"


@pytest.fixture(autouse=True)
def clean_cache() -> Iterator[None]:
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_token(db: None) -> Callable[..., str]:
    def make(user: Any, scopes: Sequence[str] = BOTH_SCOPES, name: str = "test") -> str:
        from accounts.tokens import token_create

        return token_create(user=user, name=name, scopes=scopes)[1]

    return make


@pytest.fixture
def make_bot(db: None, make_token: Callable[..., str]) -> Callable[..., tuple[Any, str]]:
    def make(username: str) -> tuple[Any, str]:
        from botapi.upgrade import bot_upgrade
        from tests.factories import UserFactory

        user = bot_upgrade(UserFactory(username=username))
        return user, make_token(user)

    return make


class BotApi:
    """The Django test client speaking to ``/api/v1/bot/`` with a token. ``get(path)``,
    ``post(path, data)`` (``data``: JSON-encoded; ``raw``: the body's bytes as given); ``path`` is
    relative to the API's root. Returns the response (``.json()`` for the body)."""

    def __init__(self, token: str | None) -> None:
        from django.test import Client

        self.client = Client()
        self.headers = {} if token is None else {"Authorization": f"Bearer {token}"}

    def get(self, path: str) -> Any:
        return self.client.get(PREFIX + path, headers=self.headers)

    def post(self, path: str, data: Any = None, *, raw: bytes | str | None = None,
             content_type: str = "application/json") -> Any:
        payload = raw if raw is not None else ("" if data is None else json.dumps(data))
        return self.client.post(PREFIX + path, data=payload, content_type=content_type, headers=self.headers)


@pytest.fixture
def bot_api() -> Callable[[str | None], BotApi]:
    return BotApi


def error_of(response: Any) -> tuple[int, str]:
    """``(status, error code)`` of a refused request."""
    return response.status_code, response.json()["error"]
