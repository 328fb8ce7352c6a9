"""However a table socket ends, its background tasks stop and its slot is released (issue 14, item 1:
"ghost" slots after a Redis outage; ``web.socket_end``). On the real Redis in CI (``REDIS_URL``)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
import redis.exceptions
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games import ratelimit, services
from games.models import Match
from push.groups import match_group
from tests.games.wsclient import connect, send
from web import socket_end

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def asgi_loaded() -> None:
    """Load the ASGI application before ``caplog`` attaches: its ``django.setup()`` re-applies LOGGING,
    which replaces the root logger's handlers (caplog's among them)."""
    import config.asgi  # noqa: F401


async def _table(alice: Any, bob: Any) -> Match:
    table = await database_sync_to_async(services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=None, rated=False,
    )
    return await database_sync_to_async(services.table_join)(user=bob, token=table.invite_token)


@pytest.fixture
def consumers(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every consumer that starts a background task, in order (to look at its tasks afterwards)."""
    seen: list[Any] = []
    spawn = socket_end.EndsCleanly.spawn

    def recording(self: Any, coro: Any) -> Any:
        if self not in seen:
            seen.append(self)
        return spawn(self, coro)

    monkeypatch.setattr(socket_end.EndsCleanly, "spawn", recording)
    return seen


def _slots(match_id: int, user_id: int) -> int | None:
    return ratelimit.socket_count(match_id=match_id, user_id=user_id)


slots = database_sync_to_async(_slots)


async def test_channel_layer_failure_releases_the_slot(
    alice: Any, bob: Any, consumers: list[Any], monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    match = await _table(alice, bob)
    layer = get_channel_layer()
    real_receive = layer.receive
    boom = asyncio.Event()

    async def failing_receive(channel: str) -> dict[str, Any]:
        await boom.wait()
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(layer, "receive", failing_receive)
    comm, _ = await connect(alice, match.pk)
    assert await slots(match.pk, alice.pk) == 1

    async def discard_down(group: str, channel: str) -> None:
        raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(layer, "group_discard", discard_down)
    [consumer] = consumers
    # the slot refresh (and, while the opponent has been gone less than GAMES_GONE_NOTICE_AFTER, a
    # later look at its presence: how many tasks there are depends on how fast the test ran)
    assert consumer._slot_task in consumer.live_tasks()
    with caplog.at_level(logging.WARNING):
        boom.set()
        closed = await comm.receive_output()
    assert closed == {"type": "websocket.close", "code": 4503}
    assert consumer.live_tasks() == []
    assert consumer._slot_task.cancelled()
    assert await slots(match.pk, alice.pk) == 0
    ended = [r for r in caplog.records if r.name == "web.socket_end"]
    assert [r.getMessage() for r in ended] == [
        f"socket /ws/match/{match.pk}/: ended by an outage (ConnectionError: Error 111 connecting to"
        " 127.0.0.1:6379. Connection refused.): close 4503"
    ]
    assert ended[0].levelno == logging.WARNING and ended[0].exc_info is None
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    await comm.wait(timeout=1)
    monkeypatch.setattr(layer, "receive", real_receive)  # Redis is back
    monkeypatch.undo()  # (the group_discard too; and the consumers fixture's spawn: not needed now)
    # the player's next sockets are not refused: every slot is free
    again = [await connect(alice, match.pk) for _ in range(ratelimit.SOCKETS_PER_USER_PER_MATCH)]
    assert await slots(match.pk, alice.pk) == ratelimit.SOCKETS_PER_USER_PER_MATCH
    for other, _ in again:
        await other.disconnect()
    assert await slots(match.pk, alice.pk) == 0


async def test_failing_handler_releases_the_slot(alice: Any, bob: Any, consumers: list[Any]) -> None:
    """A bug in a group handler still ends the socket with its traceback, and its slot is released."""
    match = await _table(alice, bob)
    comm, _ = await connect(alice, match.pk)
    [consumer] = consumers
    layer = get_channel_layer()
    await layer.group_send(match_group(match.pk), {"type": "spectators.update", "count": "many"})
    with pytest.raises(ValueError, match="invalid literal for int"):
        await comm.receive_output()
    assert consumer.live_tasks() == []
    assert await slots(match.pk, alice.pk) == 0


async def test_cancelled_consumer_releases_the_slot(alice: Any, bob: Any, consumers: list[Any]) -> None:
    """The server's shutdown cancels the application: the slot is released all the same."""
    match = await _table(alice, bob)
    comm, _ = await connect(alice, match.pk)
    [consumer] = consumers
    comm.future.cancel()
    with pytest.raises(asyncio.CancelledError):
        await comm.future
    assert consumer.live_tasks() == []
    assert await slots(match.pk, alice.pk) == 0


async def test_closed_socket_releases_once(alice: Any, bob: Any, consumers: list[Any]) -> None:
    match = await _table(alice, bob)
    comm, _ = await connect(alice, match.pk)
    await send(comm, {"type": "ping", "id": "p"})
    assert (await comm.receive_json_from()) == {"type": "pong", "id": "p"}
    await comm.disconnect()
    [consumer] = consumers
    assert consumer._ended and consumer.live_tasks() == []
    assert await slots(match.pk, alice.pk) == 0


async def test_failed_release_step_is_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    consumer = socket_end.EndsCleanly()
    consumer.scope = {"path": "/ws/x/", "type": "websocket"}

    async def down() -> None:
        raise redis.exceptions.ConnectionError("Connection refused")

    with caplog.at_level(logging.DEBUG, logger="web.socket_end"):
        assert await consumer.step("slot release", down()) is False
        assert await consumer.step("group discard", down()) is False
    assert [(r.levelno, r.getMessage(), r.exc_info) for r in caplog.records] == [
        (logging.WARNING, "socket /ws/x/: slot release failed: ConnectionError: Connection refused", None),
        (logging.DEBUG, "socket /ws/x/: group discard failed: ConnectionError: Connection refused", None),
    ]


async def test_database_down_on_a_frame_is_one_warning_line(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """PostgreSQL down under an open table: each failed frame is answered ``server_error`` (the socket
    stays) and logged as one WARNING line without a traceback (it was an ERROR with ~6.6 KB of it)."""
    import psycopg
    from django.db import OperationalError

    from games.consumers import MatchConsumer

    match = await _table(alice, bob)
    comm, _ = await connect(alice, match.pk)

    def down(self: Any) -> None:
        try:
            raise psycopg.OperationalError("connection failed: connection refused\nIs the server running?")
        except psycopg.OperationalError as cause:
            raise OperationalError("connection failed: connection refused") from cause

    monkeypatch.setattr(MatchConsumer, "_state_payload", down)
    with caplog.at_level(logging.WARNING):
        await send(comm, {"type": "sync"})
        reply = await comm.receive_json_from()
    assert reply == {"type": "error", "code": "server_error", "id": None,
                     "message": "unexpected failure; nothing was applied"}
    mine = [r for r in caplog.records if r.name == "games.consumers"]
    assert [(r.levelno, r.getMessage(), r.exc_info) for r in mine] == [
        (logging.WARNING, f"match {match.pk}: sync failed: database unavailable (OperationalError:"
                          " connection failed: connection refused)", None)
    ]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    await comm.disconnect()
    assert await slots(match.pk, alice.pk) == 0
