"""The production profile under faults, for real: ``scripts/faults`` (docs/faults.md) runs the scenarios
that take well under half a minute each on its own PostgreSQL and Redis (started here as child
processes on free ports; never the machine's shared ones) and ``scripts/serve --production`` (2 Daphne
processes on one port, one realtime worker (the one the worker scenarios kill), one background worker, one
beat), with real WebSocket clients; these tests read its results.

Regressions covered: a ``kill -9``ed Daphne is restarted while the other serves (``shared_port.py`` used
to stop the whole site); a killed pool process's rating task is given back to the queue
(``reject_on_worker_lost``; Celery used to drop it and the rating waited for the sweep); a whole
worker killed is restarted by ``scripts/serve`` (it used to stop the site: Celery 5.7's worker also
exits by itself when Redis goes away). ``redis_restart`` and ``worker_kill_rating`` wait for
``ratings.sweep_unrated`` (up to two minutes): they run in the hand-run script only (docs/faults.md).

Skipped without ``redis-server`` or PostgreSQL's ``initdb``/``pg_ctl`` (failed under ``CI=true``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scripts.lib.fault_servers import missing_binaries
from tests.conftest import skip_or_fail

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ("daphne_kill", "pool_kill_rating", "worker_kill_pairing", "postgres_restart")
RUN_BOUND_S = 600  # against a hung run only (it takes about 90 s)
pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """``scripts/faults`` run once for the module: its JSON results by scenario name."""
    missing = missing_binaries()
    if missing:
        skip_or_fail(f"the fault runs need {', '.join(missing)}")
    out = tmp_path_factory.mktemp("faults") / "results.json"
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "CI")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update({"PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'platform'}",
                "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1"})
    command = [sys.executable, str(ROOT / "scripts" / "lib" / "faults.py"), *SCENARIOS,
               "--players", "4", "--json", str(out)]
    log = out.with_suffix(".log")
    with log.open("wb") as sink:
        run = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
        try:
            run.wait(timeout=RUN_BOUND_S)
        except subprocess.TimeoutExpired:
            run.terminate()  # the script stops its servers on SIGTERM
            try:
                run.wait(timeout=120)
            except subprocess.TimeoutExpired:
                run.kill()
                run.wait()
    sys.stdout.write(log.read_text(errors="replace")[-8000:])
    assert out.exists(), f"scripts/faults wrote no results (exit {run.returncode})"
    return {r["scenario"]: r for r in json.loads(out.read_text())}


def figures_hold(r: dict[str, Any]) -> None:
    """Every acknowledged move is in the event log, and the scenario passed its own checks."""
    assert r["failures"] == [], r
    assert r["lost"] == 0 and r["stored"] == r["acked"], r
    assert r["events"] >= r["stored"], r
    assert r["resume_s"] is not None, r


def test_daphne_kill_mid_hand(results: dict[str, dict[str, Any]]) -> None:
    r = results["daphne_kill"]
    figures_hold(r)
    d = r["details"]
    assert r["acked"] > 0
    assert d["clients_dropped"] >= 1  # the timer table's client at least was on the killed process
    # the turn timer's automatic move was played, by the worker, after the Daphne died
    assert d["timer_auto_events"] >= 1 and d["timer_move_late_s"] is not None
    # the killed Daphne was replaced: still two, the victim not among them
    assert len(d["daphnes_after"]) == 2 and d["victim_pid"] not in d["daphnes_after"]


def test_pool_process_killed_in_a_rating_transaction(results: dict[str, dict[str, Any]]) -> None:
    r = results["pool_kill_rating"]
    figures_hold(r)
    d = r["details"]
    assert d["rows_after_kill"]["changes"] == 0  # the killed transaction left nothing
    # 3 finished rated matches against a bot: one change each, each player's count moved once
    assert d["rating_rows"] == {"changes": 3, "matches_rated": 3, "players_rated_matches": 3}
    # The task was given back and ran again: the sweep could not have rated them yet (it takes matches
    # finished over ratings.services.SWEEP_AFTER = 60 s ago).
    assert r["resume_s"] < 55, r
    assert d["paused_pid"] not in d["worker_after"] and len(d["worker_after"]) == 3


def test_whole_worker_killed_while_pairing_a_round(results: dict[str, dict[str, Any]]) -> None:
    r = results["worker_kill_pairing"]
    figures_hold(r)
    d = r["details"]
    assert d["rows_after_kill"] == {"rounds": 0, "pairings": 0, "matches": 0, "current_round": 0}
    # round 1 of 4 people paired once: one round, 2 boards, 2 matches and no orphan match
    assert d["round_rows"] == {"rounds": 1, "pairings": 2, "matches": 2, "current_round": 1}
    # scripts/serve started a new worker (main process + 2 pool processes), none of the killed ones
    assert len(d["worker_after"]) == 3 and not set(d["worker_after"]) & set(d["worker_before"])


def test_postgres_restart(results: dict[str, dict[str, Any]]) -> None:
    r = results["postgres_restart"]
    figures_hold(r)
    d = r["details"]
    assert d["healthz_while_down"]["status"] == 503 and "database" in d["healthz_while_down"]["failing"]
    assert d["home_while_down"]["status"] == 503  # the 503 page (web.unavailable), not the 500 page
    assert d["api_while_down"]["status"] == 503 and '"error": "unavailable"' in d["api_while_down"]["body"]
    # a frame on an open socket is answered server_error (the crowd may have had nothing to send then)
    assert d["sync_on_open_socket_while_down"]["answer"] == "error server_error"
    # no client waited 15 s for a frame (its own answered, the state after an ack, the other side's move)
    assert not {"timeout", "timeout_after_ack", "timeout_idle"} & set(d["errors"])
    # accepted, the error frame, then close 4503 "try again later" (not an HTTP 500 at the handshake)
    assert d["new_socket_while_down"]["answer"] == "error server_unavailable"
    assert d["new_socket_while_down"]["close"] == 4503
