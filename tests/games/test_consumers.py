"""The table's consumer (``games.consumers.MatchConsumer``) when the broadcast after a committed move fails
(the channel layer raises or stalls), through the real ASGI stack in this process: the move is
acknowledged, one warning is logged, and the mover gets its new state from the consumer's own read (or,
when that read fails too, at its next ``sync``)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from channels.db import database_sync_to_async

from push import send as push_send
from tests.factories import FriendMatchFactory
from tests.games.test_ws_errors import stored_ids
from tests.games.wsclient import choose, connect_mover, drain, recv, recv_until, send

pytestmark = pytest.mark.django_db(transaction=True)


class BrokenLayer:
    """Stands in for the channel layer the services broadcast with: its ``group_send`` raises or hangs."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.calls = 0

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.calls += 1
        if self.mode == "raise":
            raise ConnectionError("Redis is down")
        await asyncio.sleep(3600)


class Records(logging.Handler):
    """Collects log records (pytest's caplog loses its handler when ``config.asgi`` first runs
    ``django.setup()``, which reconfigures logging)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record)


@pytest.mark.push_failure
@pytest.mark.parametrize("mode", ["raise", "hang"])
async def test_committed_move_is_acked_when_the_broadcast_fails(
    mode: str, alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Redis failure (or a stall) after the commit answered ``server_error`` ("nothing was applied") for
    a stored move: the answer is the ``ack``, the event is stored, one warning line is logged. Then the
    consumer sends the mover its new ``state`` itself (the broadcast that carries it failed): issue 14's
    fault run had a client acknowledged and then silent for 15 s, waiting for it."""
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    comm, state, mover = await connect_mover({0: alice, 1: bob}, match.pk)
    layer = BrokenLayer(mode)
    monkeypatch.setattr(push_send, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(push_send, "PUSH_TIMEOUT", 0.3)
    records = Records()
    logging.getLogger("push.send").addHandler(records)
    await send(comm, {"type": "action", "action": choose(state["hand"]), "seq": state["seq"], "id": "m-1"})
    ack, seen = await recv_until(comm, "ack")
    assert ack == {"type": "ack", "id": "m-1", "seq": state["seq"] + 1, "repeat": False}, seen
    assert not [m for m in seen if m["type"] == "error"]
    assert await stored_ids(match.pk) == ["m-1"]
    assert layer.calls == 1
    logging.getLogger("push.send").removeHandler(records)
    warnings = [r for r in records.seen if r.getMessage().startswith(
        f"push of match.update to match_{match.pk}_seat0, match_{match.pk}_seat1, watch_{match.pk} not sent: "
        + ("ConnectionError: Redis is down" if mode == "raise" else "TimeoutError"))]
    assert len(warnings) == 1 and warnings[0].exc_info is None, records.seen
    after = await recv(comm)  # the state the failed broadcast carried, from the consumer's own read
    assert (after["type"], after["seq"]) == ("state", state["seq"] + 1), after
    assert after == await state_now(match.pk, mover)  # the whole state: this seat's cards and all
    assert await drain(comm) == []  # nothing else: no error frame after the ack
    await comm.disconnect()


@database_sync_to_async
def state_now(match_id: int, seat: int) -> dict[str, Any]:
    """``seat``'s ``state`` as the selectors build it now (what the failed broadcast would have carried)."""
    from games import selectors

    match = selectors.match_get(match_id=match_id)
    assert match is not None
    return json.loads(json.dumps(selectors.match_state_payload(match=match, seat=seat)))  # as sent


@pytest.mark.push_failure
async def test_failed_broadcast_and_failed_state_read_is_one_warning_not_an_error(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The broadcast fails and so does the consumer's own read of the state (the database went away
    too): the committed move's answer stays the ``ack`` alone (no ``server_error``: it was applied), one
    WARNING line; the client's next ``sync`` gets the state."""
    from django.db import OperationalError

    from games.consumers import MatchConsumer

    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    comm, state, _ = await connect_mover({0: alice, 1: bob}, match.pk)
    monkeypatch.setattr(push_send, "get_channel_layer", lambda: BrokenLayer("raise"))
    payload = MatchConsumer._state_payload

    def unreachable(self: Any) -> None:
        raise OperationalError("connection failed: connection refused")

    monkeypatch.setattr(MatchConsumer, "_state_payload", unreachable)
    records = Records()
    logging.getLogger("games.consumers").addHandler(records)
    await send(comm, {"type": "action", "action": choose(state["hand"]), "seq": state["seq"], "id": "m-2"})
    ack, _ = await recv_until(comm, "ack")
    assert ack == {"type": "ack", "id": "m-2", "seq": state["seq"] + 1, "repeat": False}
    assert await drain(comm, settle=0.3) == []
    logging.getLogger("games.consumers").removeHandler(records)
    lines = [r.getMessage() for r in records.seen if r.levelno >= logging.WARNING]
    assert lines == [f"match {match.pk}: state after a failed broadcast not sent: OperationalError: "
                     "connection failed: connection refused"]
    monkeypatch.setattr(MatchConsumer, "_state_payload", payload)
    await send(comm, {"type": "sync"})
    synced, _ = await recv_until(comm, "state")
    assert synced["seq"] == state["seq"] + 1
    await comm.disconnect()
