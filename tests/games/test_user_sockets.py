"""A user's sockets end with their session (``games.user_sockets``, through the real ASGI stack in this
process): a logout or a password change closes every socket of the user (``session_ended``, 4001), only
once the session is gone; a password changed out of band ends the socket at its next session check."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client

from games import ratelimit, user_sockets
from tests.factories import FriendMatchFactory
from tests.games.wsclient import recv

pytestmark = pytest.mark.django_db(transaction=True)


def login_client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


async def open_with(client: Client, match_id: int) -> tuple[Any, dict[str, Any]]:
    """A socket carrying ``client``'s session cookie (``connect`` makes a new session per socket)."""
    from config.asgi import application

    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie.encode())]
    comm = WebsocketCommunicator(application, f"/ws/match/{match_id}/", headers=headers)
    connected, _ = await comm.connect()
    assert connected
    return comm, await recv(comm)


async def expect_session_ended(comm: Any) -> None:
    msg = await recv(comm)
    assert (msg["type"], msg["code"]) == ("error", "session_ended"), msg
    assert (await comm.receive_output()) == {"type": "websocket.close", "code": 4001}


async def test_logout_closes_the_users_sockets(alice: Any, bob: Any) -> None:
    """Two tabs of alice (two sessions) and bob's: alice logs out in tab A; both her sockets get
    ``session_ended`` and close 4001 (they kept acting after logout), bob's stays. Reconnecting with the
    logged-out session is refused (4401), with her other session it works."""
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    tab_a, tab_b = [await database_sync_to_async(login_client)(alice) for _ in range(2)]
    bobs = await database_sync_to_async(login_client)(bob)
    sockets = [await open_with(c, match.pk) for c in (tab_a, tab_b, bobs)]
    assert [state["type"] for _, state in sockets] == ["state"] * 3
    response = await database_sync_to_async(tab_a.post)("/accounts/logout/")
    assert response.status_code == 302
    await expect_session_ended(sockets[0][0])
    await expect_session_ended(sockets[1][0])
    assert await sockets[2][0].receive_nothing(timeout=0.3)
    again, first = await open_with(tab_a, match.pk)
    assert (first["code"], (await again.receive_output())["code"]) == ("not_authenticated", 4401)
    other, state = await open_with(tab_b, match.pk)
    assert state["type"] == "state"
    for comm in (again, other, sockets[2][0]):
        await comm.disconnect()


def test_logout_closes_the_sockets_only_after_the_session_is_gone(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The close (4001) makes the table reconnect at once: if the session still existed then, the
    reconnect was let in and a second one was needed to learn of the logout (CI: three sockets where
    one reconnect was due). logout() sends its signal before its own flush, so the receiver flushes."""
    client = login_client(alice)
    key = client.session.session_key
    seen: list[tuple[int, bool]] = []
    monkeypatch.setattr(user_sockets, "close_user_sockets",
                        lambda user_id: seen.append((user_id, Session.objects.filter(pk=key).exists())))
    assert client.post("/accounts/logout/").status_code == 302
    assert seen == [(alice.pk, False)]


async def test_password_change_closes_the_users_sockets(alice: Any, bob: Any) -> None:
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    tab = await database_sync_to_async(login_client)(alice)
    comm, state = await open_with(tab, match.pk)
    assert state["type"] == "state"

    def change() -> None:
        user = type(alice).objects.get(pk=alice.pk)
        user.set_password("a new long passphrase")
        user.save()

    await database_sync_to_async(change)()
    await expect_session_ended(comm)
    again, first = await open_with(tab, match.pk)  # the old session's password hash no longer matches
    assert first["code"] == "not_authenticated"
    await again.disconnect()


async def test_a_password_changed_out_of_band_ends_the_socket_at_the_next_check(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A password stored with no signal reaching this process (here ``update()``, like
    ``manage.py changepassword`` beside the embedded profile's in-process channel layer: trial of issue 8)
    still ends the socket, at its next periodic session check; the other player's socket stays."""
    from django.contrib.auth.hashers import make_password

    monkeypatch.setattr(ratelimit, "SLOT_REFRESH", 0.2)
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    tab = await database_sync_to_async(login_client)(alice)
    bobs = await database_sync_to_async(login_client)(bob)
    comm, state = await open_with(tab, match.pk)
    other, _ = await open_with(bobs, match.pk)
    assert state["type"] == "state"
    assert await comm.receive_nothing(timeout=0.6)  # checks pass while the password is unchanged
    await database_sync_to_async(
        lambda: type(alice).objects.filter(pk=alice.pk).update(password=make_password("another passphrase"))
    )()
    await expect_session_ended(comm)
    assert await other.receive_nothing(timeout=0.5)
    await other.disconnect()
