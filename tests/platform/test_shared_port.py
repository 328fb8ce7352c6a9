"""``scripts/lib/shared_port.py``'s supervision, with a stand-in for Daphne (a Python process that sleeps
and holds the inherited listening socket): a child that dies is started again while the port stays
open; a crash loop stops everything (docs/faults.md)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                stat = (entry / "stat").read_text().rpartition(")")[2].split()
                if int(stat[1]) == pid and stat[0] != "Z":
                    found.append(int(entry.name))
    return sorted(found)


def wait_for(predicate, what: str, bound_s: float = 30) -> None:
    deadline = time.monotonic() + bound_s
    while not predicate():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def test_a_killed_child_is_restarted_and_a_crash_loop_stops_all() -> None:
    port = free_port()
    # The supervisor appends "--fd N app": python -c ignores arguments after its program.
    stand_in = [sys.executable, "-c", "import time; time.sleep(600)", "config.asgi:application"]
    supervisor = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "lib" / "shared_port.py"), "127.0.0.1", str(port), "2", "--",
         *stand_in], stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for(lambda: len(children(supervisor.pid)) == 2, "two children")
        first = children(supervisor.pid)
        os.kill(first[0], signal.SIGKILL)
        wait_for(lambda: len(children(supervisor.pid)) == 2 and first[0] not in children(supervisor.pid),
                 "the killed child to be replaced")
        assert first[1] in children(supervisor.pid)  # the other one was left alone
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass  # the shared socket still listens (the supervisor keeps it open)

        # 4 more restarts fit in the minute (5 in all); the 6th death is a crash loop: all stop.
        for _ in range(5):
            victim = children(supervisor.pid)[0]
            os.kill(victim, signal.SIGKILL)
            wait_for(lambda v=victim: v not in children(supervisor.pid), "the child to die")
            wait_for(lambda: len(children(supervisor.pid)) == 2 or supervisor.poll() is not None,
                     "a restart or the end")
        assert supervisor.wait(timeout=30) == 128 + signal.SIGKILL
        out = supervisor.stdout.read() if supervisor.stdout else ""
        assert out.count("restarted as pid") == 5
        assert "after 5 restarts within 60 s: stopping the others" in out
    finally:
        for pid in children(supervisor.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        supervisor.kill()
        supervisor.wait(timeout=10)
