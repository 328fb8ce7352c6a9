"""The table's socket against a real Daphne subprocess (plain ``websockets`` clients), where the behaviour
depends on the real server: the Redis channel layer (an idle socket stays open), the origin check, frame
sizes, reconnect storms (issue 8)."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from games import services
from games.models import Match
from tests.browser_waits import SOCKET_WAIT_S
from tests.games.test_ratelimit import clear_slots
from tests.games.wsclient import choose, session_cookie

pytestmark = [pytest.mark.slow]


def open_socket(server: Any, user: Any, match_id: int, *, origin: str | None = None) -> ClientConnection:
    """A socket to ``ws/match/<id>/`` as ``user`` (page origin ``server.url`` unless ``origin``)."""
    return connect(
        f"{server.ws_url}/ws/match/{match_id}/",
        origin=origin or server.url,  # type: ignore[arg-type]
        additional_headers={"Cookie": session_cookie(user)},
        open_timeout=SOCKET_WAIT_S,
    )


def recv_json(ws: ClientConnection, timeout: float = SOCKET_WAIT_S) -> dict[str, Any]:
    return json.loads(ws.recv(timeout=timeout))


def recv_type(ws: ClientConnection, kind: str, timeout: float = SOCKET_WAIT_S) -> dict[str, Any]:
    """Receive until a message of ``type`` ``kind`` (states may come before an ack)."""
    deadline = time.monotonic() + timeout
    while True:
        msg = recv_json(ws, max(0.1, deadline - time.monotonic()))
        if msg["type"] == kind:
            return msg


def recv_state_at(ws: ClientConnection, seq: int, timeout: float = SOCKET_WAIT_S) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        msg = recv_type(ws, "state", max(0.1, deadline - time.monotonic()))
        if msg["seq"] == seq:
            return msg


def friend_match(alice: Any, bob: Any) -> Match:
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    return services.table_join(user=bob, token=table.invite_token)


def play_one(ws: ClientConnection, state: dict[str, Any], msg_id: str) -> dict[str, Any]:
    """Send the seat's move for ``state`` and return its ack."""
    move = {"type": "action", "action": choose(state["hand"]), "seq": state["seq"], "id": msg_id}
    ws.send(json.dumps(move))
    ack = recv_type(ws, "ack")
    assert ack["id"] == msg_id and ack["repeat"] is False, ack
    return ack


def test_idle_socket_stays_open_on_redis(
    transactional_db: None, redis_url: str, daphne_server_factory: Any, alice: Any, bob: Any
) -> None:
    """A player who thinks for 20 s keeps the socket (redis-py 8's 5 s socket timeout closed it with
    1011 every 5.5 s: channels_redis's blocking pop waits 5 s), receives the opponent's move, acts."""
    server = daphne_server_factory(REDIS_URL=redis_url)
    match = friend_match(alice, bob)
    with open_socket(server, alice, match.pk) as ws0, open_socket(server, bob, match.pk) as ws1:
        conns = {0: ws0, 1: ws1}
        states = {seat: recv_json(conns[seat]) for seat in (0, 1)}
        assert all(s["type"] == "state" for s in states.values())
        mover = states[0]["hand"]["to_act"]
        idle = 1 - mover
        time.sleep(20)  # nobody sends anything: both sockets idle
        play_one(conns[mover], states[mover], "idle-1")
        seq = states[mover]["seq"] + 1
        got = recv_state_at(conns[idle], seq)  # the idle socket is still open and served
        assert got["hand"]["last_action"]["seat"] == mover, got
        if got["hand"]["your_turn"]:
            play_one(conns[idle], got, "idle-2")
        else:  # the mover acts twice in a row (e.g. after a pass of the upcard)
            conns[idle].send(json.dumps({"type": "sync"}))
            assert recv_type(conns[idle], "state")["seq"] == seq
    assert "TimeoutError" not in server.log(), server.log()


def test_reconnect_storm_leaves_the_bot_match_playable(
    transactional_db: None, daphne_server: Any, alice: Any, house_bots: Any
) -> None:
    """40 sockets opened and dropped (half without a close frame) while it may be the bot's turn: the
    match still moves, the player then plays 6 actions each answered by the bot's state."""
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    for n in range(40):
        with open_socket(daphne_server, alice, match.pk) as ws:
            recv_json(ws)
            if n % 2:
                ws.socket.close()  # a dropped connection: no close frame
    with open_socket(daphne_server, alice, match.pk) as ws:
        state = recv_json(ws)
        played = 0
        deadline = time.monotonic() + 60
        while played < 6 and time.monotonic() < deadline:
            if state["hand"] and state["hand"]["your_turn"]:
                play_one(ws, state, f"storm-{played}")
                played += 1
            state = recv_type(ws, "state")
        assert played == 6
    assert Match.objects.get(pk=match.pk).last_seq >= 1 + 2 * 6 - 1


@pytest.mark.parametrize("origin", ["http://127.0.0.1:9999", "http://localhost:1234", "https://127.0.0.1"])
def test_a_page_on_another_origin_cannot_open_the_table_socket(
    transactional_db: None, daphne_server: Any, alice: Any, bob: Any, origin: str
) -> None:
    """With the victim's cookie, a page on another port or scheme of the same host is refused at the
    handshake (HTTP 403: the host-only check let it read the cards and resign); the real page is not."""
    match = friend_match(alice, bob)
    with pytest.raises(InvalidStatus) as refused:
        open_socket(daphne_server, alice, match.pk, origin=origin)
    assert refused.value.response.status_code == 403
    with open_socket(daphne_server, alice, match.pk) as ws:
        assert recv_json(ws)["type"] == "state"
    assert Match.objects.get(pk=match.pk).status == "active"


def test_socket_cap_holds_across_two_daphne_processes(
    transactional_db: None, redis_url: str, daphne_server_factory: Any, alice: Any, bob: Any
) -> None:
    """5 sockets of one player spread over two server processes (counted in the shared Redis cache):
    the 6th is refused on either process with ``too_many_sockets`` and close code 4409 (100 were
    accepted before); closing one frees a slot."""
    servers = [daphne_server_factory(REDIS_URL=redis_url) for _ in range(2)]
    match = friend_match(alice, bob)
    clear_slots(match.pk, alice)
    with ExitStack() as stack:
        socks = []
        for n in range(5):
            ws = stack.enter_context(open_socket(servers[n % 2], alice, match.pk))
            assert recv_json(ws)["type"] == "state"
            socks.append(ws)
        for server in servers:
            with open_socket(server, alice, match.pk) as extra:
                refusal = recv_json(extra)
                assert (refusal["type"], refusal["code"]) == ("error", "too_many_sockets"), refusal
                with pytest.raises(ConnectionClosed) as closed:
                    extra.recv(timeout=SOCKET_WAIT_S)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4409
        socks[0].close()
        deadline = time.monotonic() + SOCKET_WAIT_S
        while True:  # the slot is freed by the server's disconnect handler, just after the close
            with open_socket(servers[1], alice, match.pk) as again:
                first = recv_json(again)
            if first["type"] == "state" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert first["type"] == "state", first


@pytest.mark.parametrize("size", [64 * 1024, 1024 * 1024, 1024 * 1024 + 1, 4 * 1024 * 1024])
def test_oversized_frames_are_answered_or_closed_1009(
    transactional_db: None, daphne_server: Any, alice: Any, bob: Any, size: int
) -> None:
    """Up to Daphne's 1 MiB message limit a frame over 4096 bytes is answered ``frame_too_large`` and
    the socket stays open; above it the server closes with 1009 "message too big" (it dropped the TCP
    connection without a close frame)."""
    match = friend_match(alice, bob)
    with open_socket(daphne_server, alice, match.pk) as ws:
        assert recv_json(ws)["type"] == "state"
        frame = json.dumps({"type": "ping", "id": "x" * (size - 26)})
        assert len(frame) == size
        ws.send(frame)
        if size <= 1024 * 1024:
            reply = recv_json(ws, timeout=30)
            assert (reply["type"], reply["code"]) == ("error", "frame_too_large"), reply
            ws.send(json.dumps({"type": "ping", "id": 1}))
            assert recv_json(ws) == {"type": "pong", "id": 1}
        else:
            with pytest.raises(ConnectionClosed) as closed:
                recv_json(ws, timeout=30)
            assert closed.value.rcvd is not None, "dropped without a close frame"
            assert closed.value.rcvd.code == 1009
    with open_socket(daphne_server, alice, match.pk) as ws:  # the server is fine
        assert recv_json(ws)["type"] == "state"
