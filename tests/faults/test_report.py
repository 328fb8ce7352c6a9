"""``scripts/faults``' own bookkeeping (issue 14, item 2): a crowd stops even when a client swallows
its cancellation (Python 3.11's ``asyncio.wait_for``, cpython gh-86296: the postgres_restart hang), and a
scenario that did not finish reports what it counted, "unknown" for what it did not."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from scripts.lib import faults, loadtest


def _crowd(players: int) -> faults.Crowd:
    crowd = faults.Crowd(site=None, count=players, scenario="postgres_restart")  # type: ignore[arg-type]
    crowd.players = [faults.Player(loadtest.Client("http://x", "k")) for _ in range(players)]
    return crowd


async def _swallows_once(player: faults.Player, cancels: list[int]) -> None:
    """Like a client whose ``wait_for`` returned instead of raising the cancellation: it plays on."""
    swallowed = False
    while not player.stopping or not swallowed:
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            cancels.append(1)
            if swallowed:
                raise
            swallowed = True


async def test_stop_ends_a_client_that_swallowed_its_cancellation() -> None:
    crowd = _crowd(2)
    cancels: list[int] = []
    crowd.tasks = [asyncio.create_task(_swallows_once(p, cancels)) for p in crowd.players]
    await asyncio.sleep(0.1)
    await asyncio.wait_for(crowd.stop(), faults.STOP_BOUND_S)
    assert all(task.done() for task in crowd.tasks)
    assert crowd.stuck == 0
    assert len(cancels) >= 2  # each was cancelled at least once more after it swallowed the first


async def test_stop_gives_up_on_a_stuck_client(monkeypatch: Any) -> None:
    monkeypatch.setattr(faults, "STOP_BOUND_S", 1.5)
    crowd = _crowd(1)

    async def immortal() -> None:
        while True:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(10)

    crowd.tasks = [asyncio.create_task(immortal())]
    await asyncio.sleep(0.05)  # started (a task cancelled before it starts just ends)
    await crowd.stop()
    assert crowd.stuck == 1
    assert not crowd.tasks[0].done()
    crowd.tasks[0].get_coro().close()  # (the test's loop may close: the coroutine is gone)


def test_a_timed_out_scenario_reports_unknown_not_zero() -> None:
    result = faults.started(faults.Result("postgres_restart", down_s=3.04444, resume_s=None))
    crowd = _crowd(2)
    crowd.players[0].stats.acked.extend([(1, "a", 1), (1, "b", 2)])
    crowd.players[1].stats.acked.append((2, "a", 1))
    timed_out = faults.figures_so_far("postgres_restart", "did not finish within 400 s")
    assert timed_out is result
    assert timed_out.details["acked_client_side"] == 3
    assert faults.summary(timed_out) == (
        "FAIL  acked unknown, stored unknown, events unknown, lost unknown, down 3.0, resume -")
    assert faults.table([timed_out]).splitlines()[-1] == (
        "| postgres_restart | unknown | unknown | unknown | unknown | 3.0 | - |"
        " FAIL: did not finish within 400 s |")


def test_a_counted_scenario_shows_its_figures() -> None:
    result = faults.Result("redis_restart", acked=43, stored=43, events=81, lost=0, down_s=5.249,
                           resume_s=10.36)
    assert faults.summary(result) == "PASS  acked 43, stored 43, events 81, lost 0, down 5.2, resume 10.4"


def test_a_15_s_silence_is_named_by_what_the_client_waited_for() -> None:
    """Issue 14's failed postgres_restart run counted "timeout" for a client whose action was
    acknowledged and whose new state never came (the broadcast failed on a dead Redis connection), and
    the check read "a client's frame went unanswered": each wait now has its own code."""
    action = {"id": "a1", "sent_at": 0.0, "seq": 5, "acked": False}
    assert loadtest.timeout_code(False, action) == "timeout"  # the action: no ack, no error
    assert loadtest.timeout_code(True, {}) == "timeout"  # a sync: no state, no error
    assert loadtest.timeout_code(False, {**action, "acked": True}) == "timeout_after_ack"
    assert loadtest.timeout_code(False, {}) == "timeout_idle"  # the bot's (or opponent's) move
    assert set(loadtest.TIMEOUT_CODES) == {"timeout", "timeout_after_ack", "timeout_idle"}
