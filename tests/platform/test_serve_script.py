"""``scripts/serve`` for real: site up on the embedded default, worker + beat running; Ctrl-C or SIGTERM to
its process group stops every process it started.

Uses the checkout's ``.venv`` (``scripts/serve`` creates/updates it when ``pyproject.toml`` changed) and a
private ``GIN_VAR_DIR`` so it touches nothing of a running site. ``scripts/serve`` runs in a session of its
own; the worker is in a process group of its own inside it, so "every process" is every process of that
session (read from ``/proc``), and each test SIGKILLs whatever of it is left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from celery import Celery

from tests.browser_waits import SOCKET_WAIT_S
from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="lists processes through /proc"),
]
# Bounds only against a hung process (they never measure speed): first run may pip-install. A stop takes
# about 6 s (the worker's warm shutdown polls the SQLite broker); it used to hang forever on SIGTERM.
STARTUP_BOUND_S = 600
STOP_BOUND_S = 60


def wait_for(predicate, what: str, bound_s: float = 120) -> None:
    deadline = time.monotonic() + bound_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.2)


def session_pids(sid: int) -> set[int]:
    """Processes of session ``sid``, zombies aside (an orphan's zombie waits for whoever reaps it)."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        state, _ppid, _pgrp, session = stat.rpartition(")")[2].split()[:4]
        if state != "Z" and int(session) == sid:
            pids.add(int(entry.name))
    return pids


def kill_session(sid: int) -> None:
    for pid in session_pids(sid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@dataclass
class Serve:
    process: subprocess.Popen[bytes]
    port: int
    var: Path
    out_path: Path

    @property
    def sid(self) -> int:
        return self.process.pid  # start_new_session: session id = process group id = its pid

    def output(self) -> str:
        return self.out_path.read_text(errors="replace")

    def worker_log(self, queue: str = "realtime") -> str:
        """The log of the worker of ``queue`` (one pool per queue: ``realtime``, ``background``)."""
        return (self.var / "log" / f"celery-worker-{queue}.log").read_text(errors="replace")


WITH_SIGINT = """import os, signal, sys
signal.signal(signal.SIGINT, getattr(signal, sys.argv[1]))
for name in ("SIGPIPE", "SIGXFSZ"):  # ignored by Python itself, not by a shell's commands
    signal.signal(getattr(signal, name), signal.SIG_DFL)
os.execv(sys.argv[2], sys.argv[2:])
"""
"""``python -c WITH_SIGINT SIG_DFL|SIG_IGN COMMAND...``: run COMMAND (same pid) with SIGINT's disposition set,
whatever this test process's own is. A shell without job control (a CI step, a test run started in the
background) starts its background commands with SIGINT ignored, and pytest then hands that on."""


@contextlib.contextmanager
def running_serve(subprocess_env: dict[str, str], tmp_path: Path, sigint: str = "SIG_DFL",
                  **extra_env: str) -> Iterator[Serve]:
    """``scripts/serve`` in a session of its own, up (address announced, worker ready, beat started),
    started with SIGINT's disposition ``sigint`` (``SIG_DFL``, or ``SIG_IGN`` as a background command of a
    shell without job control gets it)."""
    var = Path(subprocess_env["GIN_VAR_DIR"])
    port = free_port()
    env = {**subprocess_env, "PORT": str(port), **extra_env}
    out_path = tmp_path / "serve.out"
    with out_path.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", WITH_SIGINT, sigint, str(ROOT / "scripts" / "serve")], cwd=ROOT, env=env,
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    serve = Serve(process, port, var, out_path)
    try:
        wait_for(
            lambda: "is up at" in serve.output() or process.poll() is not None,
            "the address line",
            STARTUP_BOUND_S,
        )
        beat_log = var / "log" / "celery-beat.log"
        for queue in ("realtime", "background"):
            log = var / "log" / f"celery-worker-{queue}.log"
            wait_for(lambda log=log: log.exists() and " ready." in log.read_text(errors="replace"),
                     f"the {queue} worker to be ready")
        wait_for(lambda: beat_log.exists() and "beat: Starting..." in beat_log.read_text(), "beat to start")
        yield serve
    finally:
        kill_session(serve.sid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
        print(serve.output()[-3000:])


@pytest.mark.parametrize("sigint", ["SIG_DFL", "SIG_IGN"])
def test_serve_embedded_default_then_ctrl_c(subprocess_env: dict[str, str], tmp_path: Path,
                                            sigint: str) -> None:
    """Ctrl-C stops everything, also when serve was started with SIGINT ignored (``SIG_IGN``: bash cannot
    trap a signal ignored at its start, so serve runs itself again with SIGINT at its default first;
    before that, SIGINT stopped nothing and the site ran on)."""
    with running_serve(subprocess_env, tmp_path, sigint=sigint) as serve:
        port, var = serve.port, serve.var
        output = serve.output()
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

        for queue in ("realtime", "background"):
            assert f"sqla+sqlite:///{var / 'celery-broker.sqlite3'}" in serve.worker_log(queue)
            # each pool consumes its own queue only (the banner's ".> QUEUE exchange=QUEUE(direct)")
            other = "background" if queue == "realtime" else "realtime"
            assert f".> {queue} " in serve.worker_log(queue) and f".> {other} " not in serve.worker_log(queue)
        beat_log = (var / "log" / "celery-beat.log").read_text()
        assert "django_celery_beat.schedulers.DatabaseScheduler" in beat_log

        # A real task through serve's own worker (embedded SQLite broker and result store).
        client = Celery(
            "serve-probe",
            broker=f"sqla+sqlite:///{var / 'celery-broker.sqlite3'}",
            backend=f"db+sqlite:///{var / 'celery-results.sqlite3'}",
            set_as_current=False,  # else every later shared task of this process would send through it
        )
        probe = client.send_task("web.platform_probe", queue="background").get(timeout=120)
        assert probe["platform_file"].endswith("/platform.py") and "/platform/" not in probe["platform_file"]

        os.killpg(serve.sid, signal.SIGINT)  # what Ctrl-C in the terminal does
        wait_for(lambda: "Stopping (pids" in serve.output(), "serve to begin stopping")
        serve.process.wait(timeout=120)
        assert serve.process.returncode == 130
        wait_for(lambda: not session_pids(serve.sid), "every serve process to stop", STOP_BOUND_S)
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)


def test_serve_stops_on_sigterm_to_its_process_group(subprocess_env: dict[str, str], tmp_path: Path) -> None:
    """What systemd, ``docker stop`` or a process manager does: the worker used to hang for ever in "Warm
    shutdown" (its prefork children, killed by the group's SIGTERM, left the pool's task-pipe lock taken).
    No SIGKILL fallback here (STOP_TIMEOUT far above the bound): the stop itself must be clean."""
    with running_serve(subprocess_env, tmp_path, STOP_TIMEOUT="600") as serve:
        wait_for(lambda: _answers(serve.port), "daphne to answer")
        workers = [pid for pid in session_pids(serve.sid) if "celery -A config worker" in cmdline(pid)]
        assert len(workers) == 5, "the realtime worker + its 2 pool children, the background one + 1 child"

        started = time.monotonic()
        # As GNU timeout stops a command: SIGTERM to it, then to its whole group, so the script gets a
        # second one while it stops. That one used to end the script halfway, orphaning a hung beat.
        os.kill(serve.process.pid, signal.SIGTERM)
        wait_for(lambda: "Stopping (pids" in serve.output(), "serve to begin stopping")
        os.killpg(serve.sid, signal.SIGTERM)
        serve.process.wait(timeout=STOP_BOUND_S)
        beats = [pid for pid in session_pids(serve.sid) if "celery -A config beat" in cmdline(pid)]
        assert beats == [], "serve waited for its beat before exiting"
        wait_for(lambda: not session_pids(serve.sid), "every serve process to stop", STOP_BOUND_S)
        elapsed = time.monotonic() - started
        assert elapsed < STOP_BOUND_S
        assert serve.process.returncode == 143
        assert "Still running after" not in serve.output()
        for queue in ("realtime", "background"):
            worker_log = serve.worker_log(queue)
            assert "Warm shutdown" in worker_log
            assert "exited with 'signal" not in worker_log, "the pool children stopped through the pool"
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{serve.port}/", timeout=5)


def test_own_group_leaves_the_group_and_ends_with_its_parent() -> None:
    """``scripts/lib/own_group.py`` (how serve starts the worker): a process group of its own, and SIGTERM
    when the parent dies, even by SIGKILL."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux only")
    own_group = ROOT / "scripts" / "lib" / "own_group.py"
    parent = subprocess.Popen(
        ["bash", "-c", f'"{sys.executable}" "{own_group}" $$ sleep 300 & echo $!; wait'],
        stdout=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        wait_for(lambda: cmdline(child).startswith("sleep 300"), "the command to be exec'd", 30)
        assert os.getpgid(child) == child != os.getpgid(parent.pid)
        parent.kill()
        parent.wait(timeout=30)
        wait_for(lambda: child not in session_pids(parent.pid), "the child to end with its parent", 30)
    finally:
        kill_session(parent.pid)
        parent.wait(timeout=30)


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=5):
            return True
    except OSError:
        return False


# --- production profile: N Daphne processes on one port ------------------------------------------------
def _tcp_inode(local_port: int, remote_port: int) -> str | None:
    """Inode of the server-side TCP socket 127.0.0.1:local_port <-> 127.0.0.1:remote_port (/proc/net/tcp)."""
    want_local, want_remote = f"0100007F:{local_port:04X}", f"0100007F:{remote_port:04X}"
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == want_local and fields[2] == want_remote:
            return fields[9]
    return None


def _owner(pids: list[int], inode: str) -> int | None:
    """Which of ``pids`` holds the socket ``inode``."""
    target = f"socket:[{inode}]"
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in (Path("/proc") / str(pid) / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) == target:
                        return pid
    return None


def test_production_serve_plays_one_friend_match_across_two_daphne_processes(
    subprocess_env: dict[str, str], tmp_path: Path, transactional_db: None, redis_url: str
) -> None:
    """``scripts/serve`` with DATABASE_URL + REDIS_URL: DAPHNE_PROCESSES=2 share one port, with one worker
    and one beat; the two players of one friend match are seated on DIFFERENT Daphne processes (found
    from /proc: which process holds each accepted socket) and play it to the end through the Redis
    channel layer."""
    import json

    from django.conf import settings
    from django.db import connection
    from websockets.sync.client import ClientConnection, connect

    from accounts.models import User
    from games import services
    from games.models import Match
    from tests.conftest import database_url_of, skip_or_fail
    from tests.games.wsclient import due_move, session_cookie

    if connection.vendor != "postgresql":
        skip_or_fail("the production profile needs the test database on PostgreSQL (DATABASE_URL)")
    env = {
        "DATABASE_URL": database_url_of(connection.settings_dict), "REDIS_URL": redis_url,
        "DAPHNE_PROCESSES": "2", "SECRET_KEY": settings.SECRET_KEY, "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_COOKIES": "0", "GAMES_HAND_PAUSE": "0", "GAMES_BOT_DELAY": "0,0",
    }
    with running_serve(subprocess_env, tmp_path, **env) as serve:
        output = serve.output()
        profile = ("profile: production (PostgreSQL + Redis): 2 Daphne on one port, 1 realtime + 1 background"
                   " worker(s), one beat")
        assert profile in output, output
        wait_for(lambda: _answers(serve.port), "daphne to answer")
        sessions = session_pids(serve.sid)
        daphnes = sorted(pid for pid in sessions if "daphne -v 0 --fd" in cmdline(pid))
        beats = [pid for pid in sessions if "celery -A config beat" in cmdline(pid)]
        assert len(daphnes) == 2 and len(beats) == 1, [cmdline(p) for p in sessions]

        alice = User.objects.create_user(username="alice")
        bob = User.objects.create_user(username="bob")
        table = services.table_create(user=alice, rules_preset="classic", target=50, turn_timer=None,
                                      rated=False)
        match = services.table_join(user=bob, token=table.invite_token)
        url = f"ws://127.0.0.1:{serve.port}/ws/match/{match.pk}/"
        cookies = {0: session_cookie(alice), 1: session_cookie(bob)}

        stack = contextlib.ExitStack()

        def open_seat(seat: int) -> tuple[ClientConnection, int]:
            ws = stack.enter_context(connect(url, origin=f"http://127.0.0.1:{serve.port}",  # type: ignore[arg-type]
                                             additional_headers={"Cookie": cookies[seat]},
                                             open_timeout=SOCKET_WAIT_S))
            inode = _tcp_inode(serve.port, ws.socket.getsockname()[1])
            owner = _owner(daphnes, inode) if inode else None
            assert owner in daphnes, (inode, owner)
            return ws, owner

        conns: dict[int, ClientConnection] = {}
        with stack:
            conns[0], owner0 = open_seat(0)
            for _ in range(40):  # the kernel picks the accepting process: retry until bob lands on the other
                conns[1], owner1 = open_seat(1)
                if owner1 != owner0:
                    break
                conns.pop(1).close()
            assert 1 in conns and owner1 != owner0, "every connection went to one Daphne process"
            latest = {seat: json.loads(conns[seat].recv(timeout=SOCKET_WAIT_S)) for seat in (0, 1)}
            acted: set[tuple[int, int]] = set()
            deadline = time.monotonic() + 240
            while any(latest[s]["match"]["status"] == "active" for s in (0, 1)):
                assert time.monotonic() < deadline, "the match did not end"
                for seat in (0, 1):
                    move = due_move(seat, latest[seat], acted)
                    if move is not None:
                        conns[seat].send(json.dumps({**move, "id": f"m-{seat}-{move['seq']}"}))
                    with contextlib.suppress(TimeoutError):
                        while True:
                            msg = json.loads(conns[seat].recv(timeout=0.05))
                            # (a finished friend match also tells each seat what it may do for a rematch)
                            assert msg["type"] in ("state", "ack", "rematch"), msg
                            if msg["type"] == "state" and msg["seq"] >= latest[seat]["seq"]:
                                latest[seat] = msg
        done = Match.objects.get(pk=match.pk)
        assert done.status == "finished" and done.result_reason == "target" and max(done.scores) >= 50
        # both seats saw the final state, each from its own process
        assert latest[0]["seq"] == latest[1]["seq"] == done.last_seq
        assert latest[0]["match"]["scores"] == latest[1]["match"]["scores"] == done.scores


def test_serve_refuses_production_without_redis(subprocess_env: dict[str, str]) -> None:
    done = subprocess.run([str(ROOT / "scripts" / "serve"), "--production"], cwd=ROOT, env=subprocess_env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--production needs DATABASE_URL (PostgreSQL) and REDIS_URL (Redis) set." in done.stderr
    many = subprocess.run([str(ROOT / "scripts" / "serve")], cwd=ROOT,
                          env={**subprocess_env, "DAPHNE_PROCESSES": "3"},
                          capture_output=True, text=True, timeout=60)
    assert many.returncode == 2 and "DAPHNE_PROCESSES=3 needs the production profile" in many.stderr
