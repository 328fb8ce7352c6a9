"""Fixtures of the open- and direct-challenge tests (imported by name into each test module, so this
part's fixtures stay out of the lobby's shared conftest).

``make_member(name, rating=None)``: a member, with a ``PlayerRating`` of ``rating`` (established: 20
rated matches) when given. ``alice``, ``bob``, ``carol``: members; ``guest``: a guest.
``lobby_clean`` (use it autouse in the module): an empty cache (socket slots, presence stamps) before and
after, short-lived database connections (threads and sockets close theirs), and the in-process sweep
off (tests drive ``challenge_sweep.sweep_once`` with their own clock) unless ``sweep_on`` is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.browser_waits import SOCKET_WAIT_S


@pytest.fixture
def make_member(django_user_model: Any) -> Callable[..., Any]:
    def make(username: str, rating: float | None = None) -> Any:
        from ratings.models import PlayerRating

        user = django_user_model.objects.create_user(username=username, password="pw-for-tests-1")
        if rating is not None:
            PlayerRating.objects.create(
                user=user, rating=rating, peak=rating, rated_matches=20, wins=10, losses=10
            )
        return user

    return make


@pytest.fixture
def alice(make_member: Callable[..., Any]) -> Any:
    return make_member("alice", 1500)


@pytest.fixture
def bob(make_member: Callable[..., Any]) -> Any:
    return make_member("bob", 1600)


@pytest.fixture
def carol(make_member: Callable[..., Any]) -> Any:
    return make_member("carol", 1400)


@pytest.fixture
def guest(db: None) -> Any:
    from accounts.services import guest_create

    return guest_create()


@pytest.fixture
def lobby_clean(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[None]:
    from django.core.cache import cache
    from django.db import connections

    from lobby import challenge_sweep

    settings.GAMES_BOT_DELAY = (0.0, 0.0)
    settings.GAMES_HAND_PAUSE = 0.0
    monkeypatch.setattr(challenge_sweep, "socket_opened", lambda: None)
    settings_dict = connections.settings["default"]
    before = settings_dict.get("CONN_MAX_AGE", 0)
    settings_dict["CONN_MAX_AGE"] = 0
    cache.clear()
    yield
    cache.clear()
    challenge_sweep.stop_all()
    settings_dict["CONN_MAX_AGE"] = before


async def ws_connect(user: Any | None, path: str, *, language: str | None = None) -> Any:
    """A ``WebsocketCommunicator`` on ``path`` through the real ASGI stack, as ``user`` (None: anonymous),
    connected; ``language``: the language cookie. Disconnect it at the end."""
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from tests.games.wsclient import ORIGIN, session_cookie

    headers = [(b"origin", ORIGIN), (b"host", b"testserver")]
    cookies = []
    if user is not None:
        cookies.append(await database_sync_to_async(session_cookie)(user))
    if language:
        cookies.append(f"django_language={language}")
    if cookies:
        headers.append((b"cookie", "; ".join(cookies).encode()))
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect()
    assert connected
    return comm


async def recv(comm: Any, timeout: float = SOCKET_WAIT_S) -> dict[str, Any]:
    import json

    return dict(json.loads(await comm.receive_from(timeout=timeout)))


async def recv_type(comm: Any, kind: str, timeout: float = SOCKET_WAIT_S) -> dict[str, Any]:
    """The next message of type ``kind`` (others before it are skipped)."""
    for _ in range(50):
        message = await recv(comm, timeout)
        if message.get("type") == kind:
            return message
    raise AssertionError(f"no {kind} message")
