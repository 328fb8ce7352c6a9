"""``scripts/serve`` for real: site up on the embedded default, worker + beat running, Ctrl-C stops all.

Uses the checkout's ``.venv`` (``scripts/serve`` creates/updates it when ``pyproject.toml`` changed) and a
private ``GIN_VAR_DIR`` so it touches nothing of a running site.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from celery import Celery

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
# Bounds only against a hung process (they never measure speed): first run may pip-install.
STARTUP_BOUND_S = 600


def wait_for(predicate, what: str, bound_s: float = 120) -> None:
    deadline = time.monotonic() + bound_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.2)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_serve_embedded_default_then_ctrl_c(subprocess_env: dict[str, str], tmp_path: Path) -> None:
    var = Path(subprocess_env["GIN_VAR_DIR"])
    port = free_port()
    env = {**subprocess_env, "PORT": str(port)}
    out_path = tmp_path / "serve.out"
    with out_path.open("wb") as out:
        serve = subprocess.Popen(
            [str(ROOT / "scripts" / "serve")], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    pgid = serve.pid
    try:
        wait_for(
            lambda: "is up at" in out_path.read_text(errors="replace") or serve.poll() is not None,
            "the address line",
            STARTUP_BOUND_S,
        )
        output = out_path.read_text(errors="replace")
        assert f"Gin Rummy is up at http://127.0.0.1:{port}/  -  profile: embedded" in output, output

        def get(path: str) -> str:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
                assert response.status == 200
                return response.read().decode()

        wait_for(lambda: _answers(port), "daphne to answer")
        assert "Play Gin Rummy online" in get("/")
        assert 'name="password"' in get("/accounts/login/")
        # migrate + ensure_house_bots ran on the private SQLite database
        assert "Bot 5 · Expert" in get("/")
        assert (var / "db.sqlite3").exists()

        worker_log, beat_log = var / "log" / "celery-worker.log", var / "log" / "celery-beat.log"
        wait_for(
            lambda: worker_log.exists() and " ready." in worker_log.read_text(), "the worker to be ready"
        )
        wait_for(lambda: beat_log.exists() and "beat: Starting..." in beat_log.read_text(), "beat to start")
        assert f"sqla+sqlite:///{var / 'celery-broker.sqlite3'}" in worker_log.read_text()
        assert "django_celery_beat.schedulers.DatabaseScheduler" in beat_log.read_text()

        # A real task through serve's own worker (embedded SQLite broker and result store).
        client = Celery(
            "serve-probe",
            broker=f"sqla+sqlite:///{var / 'celery-broker.sqlite3'}",
            backend=f"db+sqlite:///{var / 'celery-results.sqlite3'}",
        )
        probe = client.send_task("web.platform_probe").get(timeout=120)
        assert probe["platform_file"].endswith("/platform.py") and "/platform/" not in probe["platform_file"]

        os.killpg(pgid, signal.SIGINT)  # what Ctrl-C in the terminal does
        serve.wait(timeout=120)
        wait_for(lambda: not group_alive(pgid), "every serve process to stop", 60)
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
    finally:
        if group_alive(pgid):
            os.killpg(pgid, signal.SIGKILL)
        print(out_path.read_text(errors="replace")[-3000:])


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=5):
            return True
    except OSError:
        return False
