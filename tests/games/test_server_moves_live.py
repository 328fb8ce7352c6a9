"""Server moves on real processes: a reconnect storm against a Daphne server cannot stall a bot match
(issue 8), and with the Celery driver a real worker process makes the bot's and the turn timer's moves
(bot-vs-bot to the end; a person who closes the tab loses on time) while Daphne broadcasts them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from websockets.sync.client import connect

from games import services
from games.models import Match, MatchEvent
from tests.browser_waits import SOCKET_WAIT_S
from tests.conftest import ROOT, database_url_of, skip_or_fail
from tests.games.wsclient import choose, session_cookie

pytestmark = [pytest.mark.slow]


def wait_until(predicate: Callable[[], bool], what: str, bound_s: float = 60) -> None:
    """Poll ``predicate`` (a bound against hanging, not a speed target)."""
    deadline = time.monotonic() + bound_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


def _open(server: Any, user: Any, match_id: int) -> Any:
    return connect(f"{server.ws_url}/ws/match/{match_id}/", origin=server.url,
                   additional_headers={"Cookie": session_cookie(user)}, open_timeout=SOCKET_WAIT_S)


def _next(ws: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The socket's next message that is ``wanted`` (others skipped)."""
    while not wanted(message := json.loads(ws.recv(timeout=SOCKET_WAIT_S))):
        pass
    return message


def _keeping_the_hand_going(hand: dict[str, Any]) -> str:
    """A legal move that never ends the hand (no knock): pass the upcard, draw the stock, or discard."""
    legal = hand["legal_actions"]
    for action in ("pass", "draw stock"):
        if action in legal:
            return action
    after = hand["deadwood_if_discarded"]
    return min((a for a in legal if a.startswith("discard")), key=lambda a: (after[a.split()[1]], a))


def _bot_to_act(match_id: int) -> bool:
    from games.live import load

    match = Match.objects.get(pk=match_id)
    return match.status == "active" and load(match).state.current_player == 1


def test_reconnect_storm_cannot_stall_a_bot_match(
    transactional_db: None, daphne_server_factory: Any, alice: Any, house_bots: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """40 connect/disconnect cycles while the bot is to act, ending with no socket open: the bot still
    makes exactly one move for that seq (the consumer used to own the bot's timer, and each disconnect
    cancelled it). Only Daphne drives the match: this process schedules nothing."""
    from games import scheduling

    monkeypatch.setattr(scheduling, "schedule", lambda *args, **kwargs: None)
    server = daphne_server_factory(GAMES_BOT_DELAY="0.5,0.5")
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100,
                                         rated=False)
    # The seq at which the bot is to act, from the server's own answers (the first state when it is not
    # alice's turn, else the ack of her move that hands the turn over), never read from the row later:
    # the bot moves 0.5 s after its turn begins, at once when that time passed before Daphne's first
    # connection, and a seq read after its move was alice's turn, for which no bot move ever came (the
    # test waited 60 s in vain on a busy machine).
    with _open(server, alice, match.pk) as ws:
        state = json.loads(ws.recv(timeout=SOCKET_WAIT_S))
        assert state["type"] == "state" and state["match"]["status"] == "active", state
        seq = state["seq"]
        while state["hand"]["your_turn"]:
            action = _keeping_the_hand_going(state["hand"])
            ws.send(json.dumps({"type": "action", "action": action, "seq": seq, "id": f"a{seq}"}))
            ack = _next(ws, lambda m: m["type"] == "ack")
            assert ack["id"] == f"a{seq}" and not ack["repeat"], ack
            seq = ack["seq"]
            if action != "draw stock":
                break  # the upcard passed or a card discarded: the bot is to act at seq
            state = _next(ws, lambda m, at=seq: m["type"] == "state" and m["seq"] == at)  # her discard
    for _ in range(40):
        with _open(server, alice, match.pk) as ws:
            json.loads(ws.recv(timeout=SOCKET_WAIT_S))
    wait_until(lambda: Match.objects.get(pk=match.pk).last_seq > seq, "the bot's move with no socket open")
    time.sleep(1.0)  # a duplicate move, if any driver misbehaved, would be stored by now
    after = [r for r in MatchEvent.objects.filter(match=match, seq__gt=seq).order_by("seq")
             if r.type == "action"]
    assert after and after[0].seq == seq + 1 and after[0].seat == 1
    assert all(r.seat == 1 for r in after)  # only the bot moved: alice has no socket and no timer


# --- the Celery driver through a real worker ------------------------------------------------------
@pytest.fixture
def celery_worker(transactional_db: None, redis_url: str, tmp_path: Path, settings: Any) -> Iterator[Path]:
    """A real ``celery -A config worker`` (solo pool) on the test database and the Redis broker; the
    test's own writes enqueue for it (``GAMES_SERVER_MOVES_IN_PROCESS = False``). Yields its log path."""
    from django.db import connection

    if not os.environ.get("REDIS_URL"):
        skip_or_fail("REDIS_URL is not set: the worker and this process must share one Redis broker")
    settings.GAMES_SERVER_MOVES_IN_PROCESS = False
    log_path = tmp_path / "worker.log"
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update({
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "platform")]),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url_of(connection.settings_dict),
        "CELERY_TASK_ALWAYS_EAGER": "0", "GAMES_BOT_DELAY": "0,0", "GAMES_HAND_PAUSE": "0",
        "GAMES_BOT_VS_BOT_DELAY": "0",  # engine speed, as the suite's own settings (the default paces 1.5 s)
        "PYTHONUNBUFFERED": "1",
    })
    with log_path.open("wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--loglevel", "INFO",
             "--purge", "-Q", settings.TASK_QUEUE_REALTIME, "-n", f"test-{os.getpid()}@%h"],  # moves' queue
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        wait_until(lambda: " ready." in log_path.read_text(errors="replace") or worker.poll() is not None,
                   "the worker to be ready", 120)
        assert worker.poll() is None, log_path.read_text(errors="replace")
        yield log_path
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        print(log_path.read_text(errors="replace")[-4000:])  # shown when the test fails


def test_worker_plays_a_bot_vs_bot_match_to_the_end(
    celery_worker: Path, house_bots: Any, seeded_decks: list[int]
) -> None:
    match = services.match_create_bot_vs_bot(bot0=house_bots[2], bot1=house_bots[3], target=50)
    assert Match.objects.get(pk=match.pk).status == "active"  # nothing ran here: the worker plays it
    wait_until(lambda: Match.objects.get(pk=match.pk).status != "active", "the worker to finish it", 180)
    done = Match.objects.get(pk=match.pk)
    assert done.status == "finished" and done.result_reason == "target" and max(done.scores) >= 50
    rows = list(MatchEvent.objects.filter(match=done).order_by("seq"))
    assert [r.seq for r in rows] == list(range(1, done.last_seq + 1))
    assert {r.seat for r in rows if r.type == "action"} == {0, 1}
    assert "games.tasks.play_server_moves" in celery_worker.read_text(errors="replace")


def test_worker_moves_the_bot_then_the_late_player_after_the_tab_closes(
    celery_worker: Path, daphne_server_factory: Any, alice: Any, house_bots: Any
) -> None:
    """Daphne with the Celery driver: alice's moves go through the socket, the bot's replies are made by
    the worker and reach her through Redis; she closes the tab and the worker plays her automatic moves
    (via the sweep task, as beat would start it) until she loses on time."""
    server = daphne_server_factory(CELERY_TASK_ALWAYS_EAGER="0")
    match = services.match_create_seated(player0=alice, player1=house_bots[0], target=100, turn_timer=15)
    bot_states = 0
    with _open(server, alice, match.pk) as ws:
        mine = 0
        deadline = time.monotonic() + 120
        while mine < 4 or bot_states < 3:
            assert time.monotonic() < deadline, (mine, bot_states)
            msg = json.loads(ws.recv(timeout=30))
            if msg["type"] != "state":
                assert msg["type"] == "ack", msg
                continue
            last = msg["hand"] and msg["hand"]["last_action"]
            if last and last["seat"] == 1:
                bot_states += 1
            if msg["hand"] and msg["hand"]["your_turn"]:
                mine += 1
                ws.send(json.dumps({"type": "action", "action": choose(msg["hand"]), "seq": msg["seq"],
                                    "id": f"a{msg['seq']}"}))
    # the tab is closed; the deadlines now come fast, and beat's sweep (sent by hand) finds the late turn
    wait_until(lambda: not _bot_to_act(match.pk), "the bot's reply to the last move", 60)
    past = timezone.now() - timedelta(seconds=2)  # overdue beyond the sweep's grace
    Match.objects.filter(pk=match.pk).update(turn_timer_seconds=1, turn_deadline=past, server_move_at=past)
    from games.tasks import sweep_server_moves

    sweep_server_moves.apply_async()
    wait_until(lambda: Match.objects.get(pk=match.pk).status != "active", "the loss on time", 120)
    done = Match.objects.get(pk=match.pk)
    assert (done.status, done.result_reason, done.winner) == ("finished", "timeout", 1)
    rows = list(MatchEvent.objects.filter(match=done).order_by("seq"))
    assert [r.type for r in rows[-3:]] == ["timeout", "resign", "match_end"]
    assert sum(1 for r in rows if r.auto and r.type == "action" and r.seat == 0) >= 2
    assert bot_states >= 3
