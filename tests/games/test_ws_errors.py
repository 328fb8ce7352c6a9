"""Every kind of bad WebSocket message gets its specific error code and changes nothing stored
(docs/protocol.md "error"); connection refusals (an unknown path: 4404); a repeated message id is
answered, not re-applied, and one reused by another kind of message is refused (``id_reused``); NUL in a
text field is ``bad_field`` before any write."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import services
from games.live import load
from games.models import Match, MatchEvent
from tests.factories import FriendMatchFactory
from tests.games.wsclient import (
    ORIGIN,
    choose,
    connect,
    connect_mover,
    drain,
    recv,
    recv_state,
    recv_until,
    send,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _snapshot(match_id: int) -> tuple[int, int, list[int], str, list[int]]:
    m = Match.objects.get(pk=match_id)
    return (
        MatchEvent.objects.filter(match_id=match_id).count(),
        m.last_seq,
        m.scores,
        m.status,
        m.timeout_strikes,
    )


snapshot = database_sync_to_async(_snapshot)


async def _table(alice: Any, bob: Any) -> Match:
    # casual: a test resigns after one move, which would abort a rated match
    return await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob, rated=False)


async def expect_error(
    comm: Any, message: Any, code: str, match_id: int, msg_id: Any = None
) -> dict[str, Any]:
    """Send ``message``, expect exactly an error ``code``, and the stored match unchanged."""
    before = await snapshot(match_id)
    await send(comm, message)
    reply = await recv(comm)
    assert reply["type"] == "error", reply
    assert reply["code"] == code, reply
    assert reply["id"] == msg_id
    assert isinstance(reply["message"], str) and reply["message"]
    assert await snapshot(match_id) == before
    assert await comm.receive_nothing(timeout=0.05)
    return reply


async def test_bad_frames_and_fields(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = await _table(alice, bob)
    comm, state = await connect(alice, match.pk)
    try:
        seq = state["seq"]
        assert seq == 1  # the deal of hand 1
        await expect_error(comm, "{not json", "bad_json", match.pk)
        # valid JSON nested deeper than the parser's stack, well within the frame limit
        await expect_error(comm, "[" * 2000 + "]" * 2000, "bad_json", match.pk)
        deep_id = '{"type": "ping", "id": ' + "[" * 1500 + "]" * 1500 + "}"
        await expect_error(comm, deep_id, "bad_json", match.pk)
        # a lone surrogate escape decodes to a string no database accepts: refused before any write
        lone = '{"type": "action", "action": "pass", "seq": ' + str(seq) + ', "id": "\\ud800"}'
        reply = await expect_error(comm, lone, "bad_json", match.pk)
        assert "lone surrogate" in reply["message"]
        reply = await expect_error(
            comm, {"type": "action", "action": "pass", "seq": 10**60, "id": "x7"}, "bad_field", match.pk, "x7"
        )
        assert reply["message"] == "'seq' must be 0..9007199254740991"
        long_action = {"type": "action", "action": ["x"] * 50, "seq": seq, "id": "x8"}
        reply = await expect_error(comm, long_action, "malformed_action", match.pk, "x8")
        assert reply["message"].endswith('got ["x", "x", "x", "x", "x", "x", "x", "...')
        await expect_error(comm, "[1, 2]", "not_an_object", match.pk)
        await expect_error(comm, '"action"', "not_an_object", match.pk)
        await expect_error(comm, {"action": "pass"}, "unknown_type", match.pk)
        await expect_error(comm, {"type": "fold", "id": "x1"}, "unknown_type", match.pk, "x1")
        await expect_error(comm, {"type": "action", "action": "pass", "seq": seq}, "missing_field", match.pk)
        await expect_error(
            comm, {"type": "action", "action": "pass", "id": "x2"}, "missing_field", match.pk, "x2"
        )
        await expect_error(comm, {"type": "action", "seq": seq, "id": "x3"}, "missing_field", match.pk, "x3")
        await expect_error(
            comm, {"type": "action", "action": "pass", "seq": "1", "id": "x4"}, "bad_field", match.pk, "x4"
        )
        reply = await expect_error(
            comm, {"type": "action", "action": "pass", "seq": True, "id": "x5"}, "bad_field", match.pk, "x5"
        )
        assert reply["message"] == "'seq' must be an integer, got true"
        await expect_error(
            comm, {"type": "action", "action": "pass", "seq": seq, "id": 7}, "bad_field", match.pk
        )
        await expect_error(
            comm,
            {"type": "action", "action": "pass", "seq": seq, "id": "x" * 65},
            "bad_field",
            match.pk,
            "x" * 65,
        )
        await expect_error(
            comm, {"type": "action", "action": "pass", "seq": seq, "id": ""}, "bad_field", match.pk, ""
        )
        big = {"type": "action", "action": "pass", "seq": seq, "id": "x6", "pad": "z" * 5000}
        await expect_error(comm, big, "frame_too_large", match.pk)
        before = await snapshot(match.pk)
        await comm.send_to(bytes_data=b'{"type": "ping"}')
        assert (await recv(comm))["code"] == "bad_json"
        await comm.send_to(bytes_data=b"x" * 5000)
        assert (await recv(comm))["code"] == "frame_too_large"
        assert await snapshot(match.pk) == before
        for bad in ("fold", "discard Zz", "draw", "knock 11x", ""):
            await expect_error(
                comm,
                {"type": "action", "action": bad, "seq": seq, "id": "x7"},
                "malformed_action",
                match.pk,
                "x7",
            )
        await expect_error(
            comm, {"type": "action", "action": 5, "seq": seq, "id": "x8"}, "malformed_action", match.pk, "x8"
        )
        # ping / sync change nothing either
        await send(comm, {"type": "ping", "id": 42})
        assert await recv(comm) == {"type": "pong", "id": 42}
        await send(comm, {"type": "sync"})
        again = await recv(comm)
        assert again["type"] == "state" and again["seq"] == seq and again["hand"] == state["hand"]
    finally:
        await comm.disconnect()


async def test_rule_errors_and_repeats(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = await _table(alice, bob)
    users = {0: alice, 1: bob}
    comms = {}
    states = {}
    try:
        for seat in (0, 1):
            comms[seat], states[seat] = await connect(users[seat], match.pk)
        hand = states[0]["hand"]
        seq = states[0]["seq"]
        actor = hand["to_act"]
        other = 1 - actor
        assert actor == 1 - hand["dealer"] and hand["phase"] == "offer_nondealer"
        assert states[actor]["hand"]["legal_actions"] == ["take", "pass"]
        assert states[other]["hand"]["legal_actions"] == []
        a, o = comms[actor], comms[other]

        def act(action: str, seq: int, msg_id: str) -> dict[str, Any]:
            return {"type": "action", "action": action, "seq": seq, "id": msg_id}

        await expect_error(a, act("draw stock", seq, "e1"), "wrong_phase", match.pk, "e1")
        await expect_error(a, act("discard 2c", seq, "e2"), "wrong_phase", match.pk, "e2")
        await expect_error(o, act("pass", seq, "e3"), "out_of_turn", match.pk, "e3")
        reply = await expect_error(a, act("pass", seq - 1, "e4"), "stale_seq", match.pk, "e4")
        assert reply["message"] == f"seq {seq - 1} is stale: the match is at seq {seq}"
        reply = await expect_error(a, act("pass", seq + 5, "e5"), "stale_seq", match.pk, "e5")
        assert reply["message"] == f"seq {seq + 5} is ahead of the match: the match is at seq {seq}"

        # Both pass: the non-dealer must draw from the stock.
        await send(a, act("pass", seq, "p1"))
        ack, _ = await recv_until(a, "ack")
        assert ack == {"type": "ack", "id": "p1", "seq": seq + 1, "repeat": False}
        seq += 1
        await recv_state(a, seq)  # wait for the state itself: a fixed settle time is too short under load
        # the repeated message is answered with the original ack and not applied twice
        before = await snapshot(match.pk)
        await send(a, act("pass", seq - 1, "p1"))
        assert await recv(a) == {"type": "ack", "id": "p1", "seq": seq, "repeat": True}
        assert await a.receive_nothing(timeout=0.1)
        assert await snapshot(match.pk) == before
        await drain(o)
        await send(o, act("pass", seq, "p2"))
        await recv_until(o, "ack")
        seq += 1
        state = await recv_state(a, seq)
        assert state["hand"]["phase"] == "draw" and state["hand"]["to_act"] == actor
        await expect_error(a, act("draw discard", seq, "e6"), "stock_only", match.pk, "e6")
        await send(a, act("draw stock", seq, "d1"))
        await recv_until(a, "ack")
        seq += 1
        state = await recv_state(a, seq)
        hand = state["hand"]
        assert hand["phase"] == "discard" and len(hand["cards"]) == 11
        held = set(hand["cards"])
        not_held = next(c for c in ("As", "2s", "3s", "4s", "5s", "6s", "Ad", "2d", "3d") if c not in held)
        await expect_error(a, act(f"discard {not_held}", seq, "e7"), "card_not_held", match.pk, "e7")
        await expect_error(a, act(f"knock {not_held}", seq, "e8"), "card_not_held", match.pk, "e8")
        over = [c for c, dw in hand["deadwood_if_discarded"].items() if dw > hand["knock_limit"]]
        assert over, hand
        await expect_error(a, act(f"knock {over[0]}", seq, "e9"), "knock_over_limit", match.pk, "e9")
        await expect_error(a, act("knock", seq, "e10"), "not_big_gin", match.pk, "e10")
        await recv_state(o, seq)  # the draw's state: a settle alone could end before it came (busy machine)
        await drain(o)
        await expect_error(o, act(f"discard {over[0]}", seq, "e11"), "out_of_turn", match.pk, "e11")
    finally:
        for comm in comms.values():
            await comm.disconnect()


async def test_taken_card_resign_and_match_over(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = await _table(alice, bob)
    users = {0: alice, 1: bob}
    comm0, state = await connect(alice, match.pk)
    actor = state["hand"]["to_act"]
    comm = comm0
    try:
        if actor == 1:
            await comm0.disconnect()
            comm, state = await connect(bob, match.pk)
        seq = state["seq"]
        upcard = state["hand"]["upcard"]
        await send(comm, {"type": "action", "action": "take", "seq": seq, "id": "t1"})
        ack, _ = await recv_until(comm, "ack")
        assert ack["seq"] == seq + 1
        state, _ = await recv_until(comm, "state")
        assert state["hand"]["taken_card"] == upcard and upcard in state["hand"]["cards"]
        await expect_error(
            comm,
            {"type": "action", "action": f"discard {upcard}", "seq": seq + 1, "id": "t2"},
            "taken_card",
            match.pk,
            "t2",
        )
        # resign: acked, the opponent wins, further actions are refused
        await send(comm, {"type": "resign", "id": "r1"})
        ack, _ = await recv_until(comm, "ack")
        assert ack == {"type": "ack", "id": "r1", "seq": seq + 2, "repeat": False}
        final, _ = await recv_until(comm, "state")
        assert final["match"]["status"] == "finished" and final["match"]["winner"] == 1 - actor
        assert final["match"]["result_reason"] == "resign" and final["hand"] is None
        assert final["last_hand"]["result"] is None and len(final["last_hand"]["deck"]) == 52
        m = await database_sync_to_async(Match.objects.get)(pk=match.pk)
        assert (m.status, m.winner, m.result_reason, m.last_seq) == ("finished", 1 - actor, "resign", seq + 3)
        rematch, _ = await recv_until(comm, "rematch")  # a friend match's end: where its rematch stands
        assert rematch["offer"] is None and rematch["can_offer"]
        await expect_error(
            comm,
            {"type": "action", "action": "discard 2c", "seq": m.last_seq, "id": "t3"},
            "match_over",
            match.pk,
            "t3",
        )
        await expect_error(comm, {"type": "resign", "id": "r2"}, "match_over", match.pk, "r2")
        # the repeated resign id is answered, not re-applied
        await send(comm, {"type": "resign", "id": "r1"})
        assert await recv(comm) == {"type": "ack", "id": "r1", "seq": seq + 2, "repeat": True}
        assert users[actor].pk == (m.player0_id if actor == 0 else m.player1_id)
    finally:
        await comm.disconnect()


async def test_waiting_table_refuses_actions(alice: Any) -> None:
    table = await database_sync_to_async(services.table_create)(
        user=alice,
        rules_preset="classic",
        target=50,
        turn_timer=30,
    )
    comm, state = await connect(alice, table.pk)
    try:
        assert state["match"]["status"] == "waiting" and state["hand"] is None and state["seq"] == 0
        assert state["match"]["invite_url"] == f"http://testserver/t/{table.invite_token}/"
        await expect_error(
            comm, {"type": "action", "action": "pass", "seq": 0, "id": "w1"}, "not_started", table.pk, "w1"
        )
    finally:
        await comm.disconnect()


async def test_connection_refusals(alice: Any, bob: Any, guest: Any, house_bots: Any) -> None:
    match = await database_sync_to_async(services.match_create_vs_bot)(
        user=alice,
        level=1,
        rules_preset="classic",
        target=50,
    )
    for user, code, close in (
        (None, "not_authenticated", 4401),
        (bob, "not_seated", 4403),
        (guest, "not_seated", 4403),
    ):
        comm, first = await connect(user, match.pk, expect_state=False)
        try:
            assert first["type"] == "error" and first["code"] == code
            assert (await comm.receive_output()) == {"type": "websocket.close", "code": close}
        finally:
            await comm.disconnect()
    comm, first = await connect(alice, match.pk + 999, expect_state=False)
    try:
        assert first["code"] == "no_such_match"
        assert (await comm.receive_output()) == {"type": "websocket.close", "code": 4404}
    finally:
        await comm.disconnect()


async def test_foreign_origin_is_refused(alice: Any, house_bots: Any) -> None:
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from tests.games.wsclient import session_cookie

    match = await database_sync_to_async(services.match_create_vs_bot)(
        user=alice, level=1, rules_preset="classic", target=50
    )
    cookie = await database_sync_to_async(session_cookie)(alice)
    headers = [(b"origin", b"http://evil.example"), (b"host", b"testserver"), (b"cookie", cookie.encode())]
    comm = WebsocketCommunicator(application, f"/ws/match/{match.pk}/", headers=headers)
    try:
        connected, _ = await comm.connect()
        assert not connected
    finally:
        await comm.disconnect()


async def test_connected_table_enforces_its_turn_timer(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    """The server drives the deadline (``server_move_at``): the late player's safe move arrives as a state."""
    from datetime import timedelta

    from django.utils import timezone

    table = await database_sync_to_async(services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=15
    )
    match = await database_sync_to_async(services.table_join)(user=bob, token=table.invite_token)
    soon = timezone.now() + timedelta(seconds=0.3)
    await database_sync_to_async(Match.objects.filter(pk=match.pk).update)(
        turn_deadline=soon, server_move_at=soon
    )
    comm, state = await connect(alice, match.pk)
    try:
        late = state["hand"]["to_act"]
        assert state["match"]["turn_deadline"] is not None
        update = await recv(comm)
        assert update["type"] == "state" and update["seq"] == 2
        assert update["hand"]["last_action"] == {"seat": late, "action": "pass", "card": None}
        deadline = update["match"]["turn_deadline"]
        assert deadline is not None and deadline > state["match"]["turn_deadline"]
        row = await database_sync_to_async(MatchEvent.objects.get)(match=match, seq=2)
        assert row.auto and row.seat == late
    finally:
        await comm.disconnect()


async def test_ws_resign_with_a_reused_id_gets_id_reused(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    match = await _table(alice, bob)
    actor = (await database_sync_to_async(load)(match)).state.current_player
    comm, state = await connect({0: alice, 1: bob}[actor], match.pk)
    try:
        await send(comm, {"type": "action", "action": "pass", "seq": state["seq"], "id": "x1"})
        assert (await recv(comm)) == {"type": "ack", "id": "x1", "seq": 2, "repeat": False}
        assert (await recv(comm))["type"] == "state"
        await send(comm, {"type": "resign", "id": "x1"})
        reply = await recv(comm)
        assert (reply["type"], reply["code"], reply["id"]) == ("error", "id_reused", "x1")
        fresh = await database_sync_to_async(Match.objects.get)(pk=match.pk)
        assert (fresh.status, fresh.last_seq) == ("active", 2)
    finally:
        await comm.disconnect()


@pytest.mark.parametrize("path", ["/ws/match/abc/", "/ws/match/-1/", "/ws/nothing/", "/ws/match/1/extra/"])
async def test_unknown_ws_paths_are_refused_with_4404(path: str, alice: Any, caplog: Any) -> None:
    from config.asgi import application

    caplog.set_level(logging.WARNING)
    comm = WebsocketCommunicator(application, path, headers=[(b"origin", ORIGIN), (b"host", b"testserver")])
    connected, _ = await comm.connect()
    assert connected
    reply = await recv(comm)
    assert (reply["type"], reply["code"], reply["id"]) == ("error", "not_found", None)
    assert await comm.receive_output() == {"type": "websocket.close", "code": 4404}
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    await comm.disconnect()


@database_sync_to_async
def stored_ids(match_id: int) -> list[str]:
    rows = MatchEvent.objects.filter(match_id=match_id).exclude(msg_id="")
    return list(rows.values_list("msg_id", flat=True))


async def test_nul_in_a_text_field_is_bad_field(alice: Any, bob: Any) -> None:
    """``\\u0000`` in ``id`` (action or resign) or ``action``: ``bad_field`` before any write (PostgreSQL
    refuses NUL: it was a ``server_error`` with a traceback there), and the match plays on."""
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    comm, state, _ = await connect_mover({0: alice, 1: bob}, match.pk)
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
