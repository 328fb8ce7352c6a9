"""Spectator sockets under load (issue 20, findings 2 and 9; ``replays.audience``, ``replays.consumers``):

- per-IP and per-match caps, across processes (shared cache seats), refused with ``watch_ip_limit`` /
  4429 and ``watch_full`` / 4409; a killed process's seats expire (no leak);
- the spectator count is coalesced: N joins and leaves with M watchers send one count to the players'
  and the spectators' groups (O(N + M) frames), not one per change to everyone (O(N * M));
- a frame for a spectator whose client has left (Daphne: autobahn's ``Disconnected``) is skipped, no
  ERROR, and its seat is freed;
- on the real Redis channel layer, many spectators opening and closing at once leave no group member
  behind and raise no ``MaxConnectionsError``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import Any

import pytest
from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from push.groups import match_group
from replays import audience
from replays import consumers as replay_consumers
from tests.browser_waits import SOCKET_WAIT_S
from tests.conftest import skip_or_fail
from tests.games.wsclient import ORIGIN, connect, drain, recv
from tests.replays.test_watch import public_friend_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def asgi_loaded() -> None:
    """Load the ASGI application before ``caplog`` attaches (its ``django.setup()`` re-applies LOGGING)."""
    import config.asgi  # noqa: F401


def _communicator(match_id: int, ip: str, app: Any = None) -> WebsocketCommunicator:
    from config.asgi import application

    comm = WebsocketCommunicator(app or application, f"/ws/watch/{match_id}/",
                                 headers=[(b"origin", ORIGIN), (b"host", b"testserver")])
    comm.scope["client"] = (ip, 50000)  # Daphne's scope: the client's address (--proxy-headers behind nginx)
    return comm


async def watch(match_id: int, ip: str) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    comm = _communicator(match_id, ip)
    connected, _ = await comm.connect()
    assert connected
    return comm, await recv(comm)


async def refused(match_id: int, ip: str) -> tuple[dict[str, Any], Any]:
    comm = _communicator(match_id, ip)
    connected, _ = await comm.connect()
    assert connected
    error = await recv(comm)
    closed = await comm.receive_output()
    await comm.disconnect()
    return error, closed


async def flush() -> None:
    """Send the pending coalesced counts now (today's code has none: it sent one per change)."""
    flush_counts = getattr(replay_consumers, "flush_counts", None)
    if flush_counts is not None:
        await flush_counts()


@override_settings(SPECTATORS_PER_IP=3, SPECTATORS_PER_MATCH=100)
async def test_per_ip_cap_refuses_the_fourth_socket_of_one_address(alice: Any, bob: Any, seeded_decks: Any
                                                                   ) -> None:
    table = await database_sync_to_async(public_friend_table)(alice, bob, "classic")
    other = await database_sync_to_async(public_friend_table)(alice, bob, "classic")
    mine = [await watch(table.pk, "203.0.113.7"), await watch(table.pk, "203.0.113.7"),
            await watch(other.pk, "203.0.113.7")]  # the cap counts the address's sockets on every match
    assert [first["type"] for _, first in mine] == ["watch"] * 3
    error, closed = await refused(table.pk, "203.0.113.7")
    assert error["type"] == "error" and error["code"] == "watch_ip_limit"
    assert "at most 3 spectator connections per address" in error["message"]
    assert closed == {"type": "websocket.close", "code": 4429}
    elsewhere, first = await watch(table.pk, "198.51.100.2")  # another address is not limited
    assert first["type"] == "watch" and first["match"]["spectators"] == 3
    await mine[0][0].disconnect()  # a closed socket frees its seat at once
    again, first = await watch(table.pk, "203.0.113.7")
    assert first["type"] == "watch"
    for comm in (mine[1][0], mine[2][0], elsewhere, again):
        await comm.disconnect()
    assert await database_sync_to_async(audience.count)(match_id=table.pk) == 0


@override_settings(SPECTATORS_PER_IP=100, SPECTATORS_PER_MATCH=2)
async def test_per_match_cap_refuses_the_third_spectator(alice: Any, bob: Any, seeded_decks: Any) -> None:
    table = await database_sync_to_async(public_friend_table)(alice, bob, "classic")
    first, _ = await watch(table.pk, "192.0.2.1")
    second, view = await watch(table.pk, "192.0.2.2")
    assert view["match"]["spectators"] == 2
    error, closed = await refused(table.pk, "192.0.2.3")
    assert error["code"] == "watch_full" and "2 spectators already" in error["message"]
    assert closed == {"type": "websocket.close", "code": 4409}
    await first.disconnect()
    third, view = await watch(table.pk, "192.0.2.3")
    assert view["match"]["spectators"] == 2
    await second.disconnect()
    await third.disconnect()


def test_seats_of_a_killed_process_expire(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    """A process killed with -9 releases nothing: its seats stop being renewed and count for nothing
    ``SEAT_TTL`` s after their last renewal (worked example: cap 2, two seats at t=1000)."""
    settings.SPECTATORS_PER_IP = 2
    now = [1000.0]
    monkeypatch.setattr(audience.time, "time", lambda: now[0])
    assert isinstance(audience.admit(match_id=7, ip="10.1.1.1", member="dead-a"), audience.Seat)
    assert isinstance(audience.admit(match_id=7, ip="10.1.1.1", member="dead-b"), audience.Seat)
    assert audience.admit(match_id=7, ip="10.1.1.1", member="new") == "ip"
    assert audience.count(match_id=7) == 2
    now[0] = 1000.0 + audience.SEAT_TTL - 1  # still within the TTL: still counted
    assert audience.admit(match_id=7, ip="10.1.1.1", member="new") == "ip"
    now[0] = 1000.0 + audience.SEAT_TTL + 1
    assert audience.count(match_id=7) == 0
    assert isinstance(audience.admit(match_id=7, ip="10.1.1.1", member="new"), audience.Seat)
    assert audience.count(match_id=7) == 1


def test_seats_on_redis_are_shared_and_expire(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The production path (Lua on Redis): two "processes" (two cache clients) share the sets; a seat
    not renewed expires; a renewal keeps it."""
    caches = {"default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url,
        "KEY_PREFIX": f"gin-test-{secrets.token_hex(6)}",
    }}
    now = [5000.0]
    monkeypatch.setattr(audience.time, "time", lambda: now[0])
    with override_settings(CACHES=caches, SPECTATORS_PER_IP=2, SPECTATORS_PER_MATCH=3):
        a = audience.admit(match_id=9, ip="10.2.2.2", member="p1-a")
        b = audience.admit(match_id=9, ip="10.2.2.2", member="p2-b")
        assert isinstance(a, audience.Seat) and isinstance(b, audience.Seat)
        assert audience.admit(match_id=9, ip="10.2.2.2", member="p2-c") == "ip"
        assert isinstance(audience.admit(match_id=9, ip="10.3.3.3", member="p2-d"), audience.Seat)
        assert audience.admit(match_id=9, ip="10.4.4.4", member="p2-e") == "match"
        assert audience.count(match_id=9) == 3
        audience.release(b)
        assert audience.count(match_id=9) == 2
        now[0] += audience.SEAT_REFRESH
        audience.refresh(a)  # a stays; p2-d (its process killed) is not renewed
        now[0] += audience.SEAT_TTL - audience.SEAT_REFRESH + 1
        assert audience.count(match_id=9) == 1
        assert isinstance(audience.admit(match_id=9, ip="10.4.4.4", member="p2-e"), audience.Seat)
        assert audience.count(match_id=9) == 2


class LayerSpy:
    """Every ``(group, message)`` the channel layer is asked to send, by either send method."""

    def __init__(self, layer: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        one = layer.group_send

        async def group_send(group: str, message: dict[str, Any]) -> None:
            self.sent.append((group, message))
            await one(group, message)

        monkeypatch.setattr(layer, "group_send", group_send)
        many = getattr(layer, "group_send_many", None)
        if many is not None:
            async def group_send_many(messages: list[tuple[str, dict[str, Any]]]) -> None:
                self.sent.extend(messages)
                await many(messages)

            monkeypatch.setattr(layer, "group_send_many", group_send_many)

    def counts(self) -> list[tuple[str, int]]:
        return [(group, m["count"]) for group, m in self.sent if m.get("type") == "spectators.update"]


def _counts(frames: list[dict[str, Any]]) -> list[int]:
    return [f["count"] for f in frames if f["type"] == "spectators"]


async def frames(comm: WebsocketCommunicator, last: int) -> list[dict[str, Any]]:
    """Every frame for ``comm``: those until a ``spectators`` frame says ``last`` (each waited for: on a
    busy machine one can come later than any settle), then those still on their way (until 0.3 s pass
    without one; a count after it would be among them)."""
    return await drain(comm, 0.3, until=lambda seen: _counts(seen)[-1:] == [last])


@override_settings(SPECTATORS_COUNT_INTERVAL=3600.0, SPECTATORS_PER_IP=100)
async def test_joins_and_leaves_send_one_coalesced_count(
    alice: Any, bob: Any, seeded_decks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """M = 6 watchers and a player; then N = 10 spectators join and leave. Before: every join and leave
    went to every watcher and the players (2 group sends per change: 40 sends, each watcher got 20
    ``spectators`` frames). Now: one batch of 2 (the players' group and the spectators') with the final
    count, one frame per socket. The interval is an hour here: :func:`flush_counts` sends at once."""
    table = await database_sync_to_async(public_friend_table)(alice, bob, "classic")
    player, _ = await connect(alice, table.pk)
    watchers = [(await watch(table.pk, f"198.51.100.{i}"))[0] for i in range(6)]
    await flush()
    for comm in [player, *watchers]:
        assert _counts(await frames(comm, 6))[-1:] == [6]
    spy = LayerSpy(get_channel_layer(), monkeypatch)
    for i in range(10):
        comm, view = await watch(table.pk, f"203.0.113.{i}")
        assert view["match"]["spectators"] == 7
        await comm.disconnect()
    await flush()
    assert spy.counts() == [(match_group(table.pk), 6), (f"watch_{table.pk}", 6)]
    for comm in [player, *watchers]:
        assert _counts(await frames(comm, 6)) == [6]
    for comm in [player, *watchers]:
        await comm.disconnect()


@override_settings(SPECTATORS_COUNT_INTERVAL=3600.0, SPECTATORS_PER_IP=100)
async def test_a_change_during_a_count_send_gets_its_own_send(
    alice: Any, bob: Any, seeded_decks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sender clears the flag before it reads the count; a spectator who joins while it reads or
    sends wins the flag again and must get a send of its own. (A first version kept one pending send per
    match and process: that join found the old send still running and started none, so the count stood
    still until the flag expired: 3 counts in 30 s in the 1,000-spectator benchmark.)"""
    table = await database_sync_to_async(public_friend_table)(alice, bob, "classic")
    first, _ = await watch(table.pk, "198.51.100.1")
    sent: list[list[tuple[str, dict[str, Any]]]] = []
    late: list[WebsocketCommunicator] = []
    from infra import channel_layer

    real = channel_layer.group_send_many

    async def joined_meanwhile(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
        sent.append(messages)
        if len(sent) == 1:  # a second spectator's join lands while the first count is on its way
            comm, _ = await watch(table.pk, "198.51.100.2")
            late.append(comm)
        await real(layer, messages)

    monkeypatch.setattr(channel_layer, "group_send_many", joined_meanwhile)
    await flush()
    await flush()
    assert [[m["count"] for _, m in batch] for batch in sent] == [[1, 1], [2, 2]]
    assert _counts(await frames(first, 2)) == [1, 2]
    await first.disconnect()
    await late[0].disconnect()


async def test_a_frame_for_a_departed_spectator_is_skipped_without_error(
    alice: Any, bob: Any, seeded_decks: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Daphne delivers a group message after the client's close frame and before its
    ``websocket.disconnect``: autobahn's protocol is CLOSING and its send raises ``Disconnected``
    ("Attempt to send on a closed protocol"). Before: the exception ended the consumer, and Daphne
    logged an ERROR with the traceback (115 of them in issue 20's run). Now the frame is skipped (no
    ERROR, no exception) and the socket's seat is freed when its disconnect comes."""
    from config.asgi import application

    table = await database_sync_to_async(public_friend_table)(alice, bob, "classic")
    closing = asyncio.Event()
    raised: list[str] = []

    async def daphne_like(scope: Any, receive: Any, send: Any) -> None:
        async def protocol_send(message: dict[str, Any]) -> None:
            if closing.is_set() and message["type"] == "websocket.send":
                raised.append(json.loads(message["text"])["type"])
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)

        await application(scope, receive, protocol_send)

    comm = _communicator(table.pk, "192.0.2.50", app=daphne_like)
    connected, _ = await comm.connect()
    assert connected and (await recv(comm))["type"] == "watch"
    caplog.set_level(logging.DEBUG)
    closing.set()  # the client's close frame arrived
    layer = get_channel_layer()
    await layer.group_send(f"watch_{table.pk}", {"type": "spectators.update", "count": 5})
    await layer.group_send(f"watch_{table.pk}", {"type": "spectators.update", "count": 6})
    deadline = time.monotonic() + SOCKET_WAIT_S
    while not raised and time.monotonic() < deadline:  # the consumer tried the first frame (and skips
        await asyncio.sleep(0.05)  # the second without trying)
    assert raised == ["spectators"]
    await comm.send_input({"type": "websocket.disconnect", "code": 1000})
    await comm.wait(timeout=SOCKET_WAIT_S)  # the consumer ended normally: an exception would be raised here
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert raised == ["spectators"]
    assert await database_sync_to_async(audience.count)(match_id=table.pk) == 0


SPECTATORS = 250


async def test_many_spectators_at_once_on_the_redis_layer(
    redis_url: str, alice: Any, bob: Any, seeded_decks: Any, caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """250 spectator sockets open, then all close at once, in one process (one event loop: one layer
    pool). Before: each close's ``group_discard`` took a connection of the layer's pool at the same time;
    redis-py's pool (at most 100) raised ``MaxConnectionsError: Too many connections`` for the rest, so
    their discards failed (WARNING) and they stayed in the group. Now the pool waits for a connection:
    every member leaves, no step fails."""
    from infra.channel_layer import BatchingRedisChannelLayer

    layer = get_channel_layer()
    if not isinstance(layer, BatchingRedisChannelLayer):
        skip_or_fail("REDIS_URL is not set: the production channel layer is what this test is about")
    monkeypatch.setattr(audience, "per_ip", lambda: SPECTATORS + 1)
    monkeypatch.setattr(audience, "per_match", lambda: SPECTATORS + 1)
    table = await database_sync_to_async(public_friend_table)(alice, bob, "classic")
    comms = [_communicator(table.pk, "192.0.2.99") for _ in range(SPECTATORS)]
    opened = await asyncio.gather(*(comm.connect(timeout=60) for comm in comms))
    assert all(ok for ok, _ in opened)
    firsts = await asyncio.gather(*(recv(comm, 60) for comm in comms))
    assert {f["type"] for f in firsts} == {"watch"}
    group_key = layer._group_key(f"watch_{table.pk}")
    assert await layer.connection(0).zcard(group_key) == SPECTATORS
    caplog.set_level(logging.WARNING)
    await asyncio.gather(*(comm.disconnect(timeout=60) for comm in comms))
    assert await layer.connection(0).zcard(group_key) == 0
    failed = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING
              and (r.name == "web.socket_end" or "Too many connections" in r.getMessage())]
    assert failed == []  # before: "group discard failed: MaxConnectionsError: Too many connections"
    assert await database_sync_to_async(audience.count)(match_id=table.pk) == 0
