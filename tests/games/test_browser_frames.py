"""The table's merge of protocol 2's state frames (docs/protocol.md "State frames";
``games/static/games/js/frames.js``), in a real browser (chromium, Daphne subprocess):

- the module itself: a frame keeps the rules, the last hand and the moves held by its socket; a frame
  that leaves out what the socket does not hold (or any after a new socket) gives nothing to show;
- a table that missed the frame in which a hand ended (dropped on its way) asks for ``sync`` and then
  shows that hand's reveal and the whole move list;
- a table whose socket is closed while a hand ends reconnects and shows the new last hand, not the one
  it held (the new socket's first state is whole; no ``sync`` needed).
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

import pytest

from games import selectors, services
from games.live import cache_clear
from games.models import Match
from tests.browser_pages import log_in, make_user, off_loop, open_table
from tests.games.test_ws_live import open_socket, play_one

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MATCH_SOCKET = re.compile(r".*/ws/match/\d+/$")

MERGE_CHECK = """async () => {
    const base = document.querySelector('script[src*="table.js"]').src.replace(/table\\.js$/, '');
    const { StateFrames, PROTOCOL_VERSION } = await import(base + 'frames.js');
    const f = new StateFrames();
    const mv = (action) => ({ seat: 0, action, card: null, auto: false });
    const lh = { number: 1, ended_at: 'x', moves: [mv('knock 9d')] };
    const whole = { type: 'state', v: 2, seq: 10, match: { id: 1, rules: { knock_limit: 10 } },
                    hand: { number: 2, moves: [mv('pass')] }, last_hand_no: 1, last_hand: lh };
    const a = f.merge(whole);
    const b = f.merge({ type: 'state', v: 2, seq: 11, match: { id: 1 }, last_hand_no: 1,
                        hand: { number: 2, moves_from: 1, moves: [mv('draw stock')] } });
    const c = f.merge({ type: 'state', v: 2, seq: 12, match: { id: 1 }, last_hand_no: 1,
                        hand: { number: 2, moves_from: 2, moves: [] } });
    const lacksLast = f.merge({ type: 'state', v: 2, seq: 13, match: { id: 1 }, last_hand_no: 2,
                                hand: { number: 3, moves: [] } });
    const badFrom = f.merge({ type: 'state', v: 2, seq: 13, match: { id: 1 }, last_hand_no: 1,
                              hand: { number: 2, moves_from: 5, moves: [] } });
    f.reset();
    const afterReset = f.merge({ type: 'state', v: 2, seq: 14, match: { id: 1 }, last_hand_no: null,
                                 last_hand: null, hand: null });
    return { version: PROTOCOL_VERSION, a: a.hand.moves.length, bRules: b.match.rules.knock_limit,
             bLast: b.last_hand.number, bMoves: b.hand.moves.map((m) => m.action),
             bFrom: 'moves_from' in b.hand, cMoves: c.hand.moves.length, lacksLast, badFrom, afterReset,
             held: f.held };
}"""


def test_frames_module_merges_what_its_socket_holds(daphne_server: Any, contexts: Any) -> None:
    alice, bob = make_user("ada"), make_user("ben")
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    off_loop(lambda: services.table_join(user=bob, token=table.invite_token or ""))
    page = contexts(1280, "en")
    log_in(page, daphne_server.url, "ada", "en")
    open_table(page, daphne_server.url, table.pk)
    got = page.evaluate(MERGE_CHECK)
    assert got == {
        "version": 2, "a": 1, "bRules": 10, "bLast": 1, "bMoves": ["pass", "draw stock"], "bFrom": False,
        "cMoves": 2, "lacksLast": None, "badFrom": None, "afterReset": None, "held": None,
    }, got


class DroppingSpy:
    """Route the page's match sockets: while ``dropping``, the server's frames do not reach the page;
    ``syncs`` counts the page's ``sync`` messages; :meth:`close_socket` closes the newest socket (the
    page reconnects)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.dropping = False
        self.syncs = 0
        self.routes: list[tuple[Any, Any]] = []
        page.route_web_socket(MATCH_SOCKET, self._route)

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        self.routes.append((ws, server))

        def from_server(message: str | bytes) -> None:
            if not self.dropping:
                ws.send(message)

        def from_page(message: str | bytes) -> None:
            if json.loads(message).get("type") == "sync":
                self.syncs += 1
            server.send(message)

        server.on_message(from_server)
        ws.on_message(from_page)

    def close_socket(self) -> None:
        ws, server = self.routes[-1]
        server.close()
        ws.close(code=4000, reason="test: connection lost")


def _whole(match_id: int, seat: int = 0) -> dict[str, Any]:
    match = selectors.match_get(match_id=match_id)
    assert match is not None
    return selectors.match_state_payload(match=match, seat=seat, full=True)


def _drain(ws: Any) -> None:
    with contextlib.suppress(TimeoutError):
        while True:
            ws.recv(timeout=0.02)


def _play(socks: dict[int, Any], match_id: int, *, until_hand: int) -> dict[str, Any]:
    """Both players move through their own sockets to the Daphne server (so its broadcasts reach the
    page on both profiles) until hand ``until_hand`` is dealt; returns seat 0's whole state then."""
    for step in range(1000):
        whole = _whole(match_id)
        assert whole["match"]["status"] == "active"
        if whole["hand"]["number"] >= until_hand:
            return whole
        seat = whole["hand"]["to_act"]
        play_one(socks[seat], _whole(match_id, seat), f"h{until_hand}-{step}")
        for ws in socks.values():
            _drain(ws)
    raise AssertionError("the hand did not end")


def _shows(page: Any, whole: dict[str, Any]) -> None:
    """The page shows ``whole`` (seat 0's state): its seq, its last hand and its whole move list."""
    page.wait_for_function(f"document.getElementById('table-app').dataset.seq === '{whole['seq']}'")
    lh = whole["last_hand"]
    assert page.locator("#last-verify").inner_text().startswith(f"Hand {lh['number']}:")
    assert page.locator("#log li").count() == len(lh["moves"]) + 1 + len(whole["hand"]["moves"])


def test_a_table_that_missed_frames_shows_the_hand_that_ended(daphne_server: Any, contexts: Any) -> None:
    alice, bob = make_user("ada"), make_user("ben")
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    # a target no two hands reach: the match is still on when hand 3 is dealt
    Match.objects.filter(pk=table.pk).update(rules={**table.rules, "target": 10_000})
    cache_clear()
    off_loop(lambda: services.table_join(user=bob, token=table.invite_token or ""))
    page = contexts(1280, "en")
    log_in(page, daphne_server.url, "ada", "en")
    spy = DroppingSpy(page)
    open_table(page, daphne_server.url, table.pk)
    socks = off_loop(lambda: {0: open_socket(daphne_server, alice, table.pk),
                              1: open_socket(daphne_server, bob, table.pk)})
    try:
        start = off_loop(lambda: _whole(table.pk))
        page.wait_for_function(f"document.getElementById('table-app').dataset.seq === '{start['seq']}'")

        # Hand 1 ends while the page's frames are dropped: the next frame leaves out the last hand (its
        # socket was sent it), which the page does not hold: it asks for sync.
        spy.dropping = True
        whole = off_loop(lambda: _play(socks, table.pk, until_hand=2))
        page.wait_for_timeout(500)  # the dropped frames pass the route first
        spy.dropping = False
        seat = whole["hand"]["to_act"]
        off_loop(lambda: play_one(socks[seat], _whole(table.pk, seat), "after-1"))
        whole = off_loop(lambda: _whole(table.pk))
        assert whole["last_hand"]["number"] == 1 and whole["hand"]["number"] == 2
        _shows(page, whole)
        assert spy.syncs == 1

        # Hand 2 ends while the page's socket is down: the new socket's first state is whole.
        spy.dropping = True
        whole = off_loop(lambda: _play(socks, table.pk, until_hand=3))
        page.wait_for_timeout(500)
        spy.dropping = False
        spy.close_socket()
        assert whole["last_hand"]["number"] == 2 and whole["hand"]["number"] == 3
        _shows(page, whole)
        assert spy.syncs == 1 and len(spy.routes) == 2
    finally:
        for ws in socks.values():
            ws.close()
