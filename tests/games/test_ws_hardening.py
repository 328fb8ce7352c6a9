"""Issue 8 on the table's socket, through the real ASGI stack in this process: a committed move is
acknowledged whatever the broadcast does, NUL in text fields, rate limits, logout closing sockets."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import services
from games.models import Match, MatchEvent
from tests.games.test_ws_errors import expect_error
from tests.games.wsclient import choose, connect, recv_until, send

pytestmark = pytest.mark.django_db(transaction=True)


async def friend_match(alice: Any, bob: Any) -> Match:
    table = await database_sync_to_async(services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=None
    )
    return await database_sync_to_async(services.table_join)(user=bob, token=table.invite_token)


@database_sync_to_async
def stored_ids(match_id: int) -> list[str]:
    rows = MatchEvent.objects.filter(match_id=match_id).exclude(msg_id="")
    return list(rows.values_list("msg_id", flat=True))


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


@pytest.mark.parametrize("mode", ["raise", "hang"])
async def test_committed_move_is_acked_when_the_broadcast_fails(
    mode: str, alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Redis failure (or a stall) after the commit answered ``server_error`` ("nothing was applied") for
    a stored move: the answer is the ``ack``, the event is stored, one warning line is logged."""
    match = await friend_match(alice, bob)
    users = {0: alice, 1: bob}
    probe, state = await connect(alice, match.pk)
    await probe.disconnect()
    mover = state["hand"]["to_act"]
    comm, state = await connect(users[mover], match.pk)
    layer = BrokenLayer(mode)
    monkeypatch.setattr(services, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(services, "BROADCAST_TIMEOUT", 0.3)
    records = Records()
    logging.getLogger("games.services").addHandler(records)
    await send(comm, {"type": "action", "action": choose(state["hand"]), "seq": state["seq"], "id": "m-1"})
    ack, seen = await recv_until(comm, "ack", timeout=5)
    assert ack == {"type": "ack", "id": "m-1", "seq": state["seq"] + 1, "repeat": False}, seen
    assert not [m for m in seen if m["type"] == "error"]
    assert await stored_ids(match.pk) == ["m-1"]
    assert layer.calls == 1
    logging.getLogger("games.services").removeHandler(records)
    warnings = [r for r in records.seen if "broadcast after commit failed" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].exc_info is None, records.seen
    await comm.disconnect()


async def test_nul_in_a_text_field_is_bad_field(alice: Any, bob: Any) -> None:
    """``\\u0000`` in ``id`` (action or resign) or ``action``: ``bad_field`` before any write (PostgreSQL
    refuses NUL: it was a ``server_error`` with a traceback there), and the match plays on."""
    match = await friend_match(alice, bob)
    users = {0: alice, 1: bob}
    probe, state = await connect(alice, match.pk)
    await probe.disconnect()
    mover = state["hand"]["to_act"]
    comm, state = await connect(users[mover], match.pk)
    move = choose(state["hand"])
    seq = state["seq"]
    for message in [
        {"type": "action", "action": move, "seq": seq, "id": "a\u0000b"},
        {"type": "action", "action": move, "seq": seq, "id": "\u0000"},
        {"type": "action", "action": move + "\u0000", "seq": seq, "id": "nul-2"},
        {"type": "action", "action": "\u0000" + move, "seq": seq, "id": "nul-3"},
        {"type": "resign", "id": "r\u0000"},
    ]:
        reply = await expect_error(comm, message, "bad_field", match.pk, message["id"])
        assert "NUL" in reply["message"]
    await send(comm, {"type": "action", "action": move, "seq": seq, "id": "ok-1"})
    ack, _ = await recv_until(comm, "ack")
    assert ack["id"] == "ok-1" and ack["seq"] == seq + 1
    assert await stored_ids(match.pk) == ["ok-1"]
    await comm.disconnect()
