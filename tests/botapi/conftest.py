"""Fixtures for the bot API's tests: BOT accounts with tokens.

``make_bot(username, scopes=..., bot=True)``: a member made a BOT account (``bot_account`` True unless
``bot`` is False) with a live token made by ``accounts.tokens.token_create``; returns a :class:`Bot`
(``user``, ``token`` text, ``headers`` for Django's test clients). ``bot_a`` / ``bot_b``: two of them.
``no_pauses`` and ``short_lived_connections`` (autouse, tests/fixtures.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.fixtures import no_pauses, short_lived_connections

__all__ = ["no_pauses", "short_lived_connections"]  # fixtures

ALL_SCOPES = ("bot:play", "challenge:write")


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
