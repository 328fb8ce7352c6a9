"""Stop and restart the real server process (a Daphne subprocess) mid-hand: the clients reconnect,
get the state rebuilt from the database, and finish the match (plain ``websockets`` clients)."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from engine.match import replay
from engine.rules import RuleSet
from games import services
from games.live import engine_event
from games.models import Match, MatchEvent
from tests.browser_waits import SOCKET_WAIT_S
from tests.games.wsclient import due_move, is_due, session_cookie

pytestmark = [pytest.mark.slow]


def _open(stack: ExitStack, server: Any, user: Any, match_id: int) -> tuple[ClientConnection, dict[str, Any]]:
    ws = stack.enter_context(
        connect(
            f"{server.ws_url}/ws/match/{match_id}/",
            origin=server.url,  # type: ignore[arg-type]
            additional_headers={"Cookie": session_cookie(user)},
            open_timeout=SOCKET_WAIT_S,
        )
    )
    first = json.loads(ws.recv(timeout=SOCKET_WAIT_S))
    assert first["type"] == "state", first
    return ws, first


def _play(
    conns: dict[int, ClientConnection], latest: dict[int, dict[str, Any]], *, actions: int | None, tag: str
) -> int:
    """Both seats play :func:`choose`; stop after ``actions`` accepted actions (None: the match's end)."""
    acted: set[tuple[int, int]] = set()
    done = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if all(latest[s]["match"]["status"] != "active" for s in (0, 1)):
            return done
        for seat in (0, 1):
            if is_due(seat, latest[seat], acted) and actions is not None and done >= actions:
                return done
            move = due_move(seat, latest[seat], acted)
            if move is not None:
                conns[seat].send(json.dumps({**move, "id": f"{tag}-{seat}-{move['seq']}"}))
            while True:
                try:
                    msg = json.loads(conns[seat].recv(timeout=0.02))
                except TimeoutError:
                    break
                # "rating": the finished match is rated (both seats are members) and its change is pushed;
                # "rematch": a friend match's end says where its rematch stands; "opponent_gone": the
                # restart closed both seats' sockets, and on a loaded machine one seat may reconnect after
                # the server has told the other it is gone (then "gone": false once it is back)
                assert msg["type"] in ("state", "ack", "rating", "rematch", "opponent_gone"), msg
                if msg["type"] == "ack":
                    done += 1
                elif msg["type"] == "state":
                    latest[seat] = msg
    raise AssertionError("timed out")


def test_restart_mid_hand_and_finish(
    transactional_db: None, daphne_server: Any, alice: Any, bob: Any
) -> None:
    table = services.table_create(user=alice, rules_preset="classic", target=50, turn_timer=None)
    match = services.table_join(user=bob, token=table.invite_token)
    users = {0: alice, 1: bob}
    conns: dict[int, ClientConnection] = {}
    latest: dict[int, dict[str, Any]] = {}
    with ExitStack() as stack:
        for seat in (0, 1):
            conns[seat], latest[seat] = _open(stack, daphne_server, users[seat], match.pk)
        assert _play(conns, latest, actions=5, tag="a") == 5
        # the deal is random: a hand dealt near gin can end within 5 actions, and the next is dealt
        hand_before = latest[0]["match"]["hand_number"]
    before = Match.objects.get(pk=match.pk)
    assert before.status == "active"
    events_before = MatchEvent.objects.filter(match=match).count()
    assert events_before == before.last_seq >= 6

    daphne_server.restart()

    with ExitStack() as stack:
        for seat in (0, 1):
            conns[seat], latest[seat] = _open(stack, daphne_server, users[seat], match.pk)
        # the state after the restart is the one before it: same seq, same cards, mid-hand
        assert latest[0]["seq"] == before.last_seq and latest[0]["hand"]["phase"] != "ended"
        assert latest[0]["match"]["hand_number"] == hand_before
        _play(conns, latest, actions=None, tag="b")
    done = Match.objects.get(pk=match.pk)
    assert done.status == "finished" and done.result_reason == "target" and max(done.scores) >= 50
    rows = list(MatchEvent.objects.filter(match=match).order_by("seq"))
    assert [r.seq for r in rows] == list(range(1, done.last_seq + 1))
    state = replay(RuleSet.from_dict(done.rules), done.first_dealer, [engine_event(r.payload) for r in rows])
    assert state.is_over and list(state.final_scores) == done.scores
    assert {r.msg_id.split("-")[0] for r in rows if r.msg_id} == {"a", "b"}
