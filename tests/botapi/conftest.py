"""Fixtures for the bot API's tests: BOT accounts with tokens.

``make_bot(username, scopes=..., bot=True)``: a member made a BOT account (``bot_account`` True unless
``bot`` is False) with a live token made by ``accounts.tokens.token_create``; returns a :class:`Bot`
(``user``, ``token`` text, ``headers`` for Django's test clients). ``bot_a`` / ``bot_b``: two of them.
``make_token(user, scopes=("bot:play", "challenge:write"), name="test")``: another live token's text.
``BotApi(token)``: Django's test client speaking to ``/api/v1/bot/`` with that token (None: no header);
``error_of(response)``: ``(status, error code)``. ``clean_cache`` (autouse): an empty cache before and
after each test (the limits' counts, the move locks). ``alice`` / ``bob`` / ``carol`` (members),
``house_bots``, ``no_pauses`` and ``short_lived_connections`` (autouse): tests/fixtures.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from tests.fixtures import alice, bob, carol, house_bots, no_pauses, short_lived_connections

__all__ = ["alice", "bob", "carol", "house_bots", "no_pauses", "short_lived_connections"]  # fixtures

ALL_SCOPES = ("bot:play", "challenge:write")
PREFIX = "/api/v1/bot/"


@dataclass
class Bot:
    user: Any
    token: str

    @property
    def headers(self) -> dict[str, str]:
        """For ``Client.get(..., headers=...)``."""
        return {"Authorization": f"Bearer {self.token}"}


@pytest.fixture
def make_bot(db: None) -> Callable[..., Bot]:
    from accounts.models import User
    from accounts.tokens import token_create
    from tests.factories import UserFactory

    def make(username: str, scopes: Iterable[str] = ALL_SCOPES, bot: bool = True) -> Bot:
        user = UserFactory(username=username)
        if bot:
            User.objects.filter(pk=user.pk).update(bot_account=True)
            user.refresh_from_db()
        _, text = token_create(user=user, name=f"{username}'s bot", scopes=scopes)
        return Bot(user, text)

    return make


@pytest.fixture
def bot_a(make_bot: Callable[..., Bot]) -> Bot:
    return make_bot("bota")


@pytest.fixture
def bot_b(make_bot: Callable[..., Bot]) -> Bot:
    return make_bot("botb")


@pytest.fixture(autouse=True)
def clean_cache() -> Iterator[None]:
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_token(db: None) -> Callable[..., str]:
    def make(user: Any, scopes: Sequence[str] = ALL_SCOPES, name: str = "test") -> str:
        from accounts.tokens import token_create

        return token_create(user=user, name=name, scopes=scopes)[1]

    return make


class BotApi:
    """Django's test client speaking to ``/api/v1/bot/`` with a token: ``get(path)``, ``post(path,
    data)`` (``data`` JSON-encoded; ``raw``: the body's bytes as given); ``path`` is relative to the
    API's root. Returns the response (``.json()`` for the body)."""

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


def error_of(response: Any) -> tuple[int, str]:
    """``(status, error code)`` of a refused request."""
    return response.status_code, response.json()["error"]


def pair(bot: Bot) -> tuple[Any, str]:
    """``(user, token)`` of a :class:`Bot`."""
    return bot.user, bot.token


@pytest.fixture
def bot_api() -> Callable[[str | None], BotApi]:
    """:class:`BotApi` itself: ``bot_api(token).post(path, data)``."""
    return BotApi
