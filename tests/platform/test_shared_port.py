"""``scripts/lib/shared_port.py``'s supervision, with a stand-in for Daphne (a Python process that sleeps
and holds the inherited listening socket): a child that dies is started again while the port stays
open; a crash loop stops everything (docs/faults.md). The pids come from the supervisor's own lines."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
LINE_BOUND_S = 30  # against a hung supervisor only


def line_reader(process: subprocess.Popen[str]) -> Callable[[], str]:
    """``next_line()``: the process's next output line (read in a thread: select() on a buffered pipe
    misses lines already in the buffer)."""
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    stdout = process.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()

    def next_line() -> str:
        try:
            return lines.get(timeout=LINE_BOUND_S)
        except queue.Empty:
            raise AssertionError("the supervisor printed nothing") from None

    return next_line


def test_a_killed_child_is_restarted_and_a_crash_loop_stops_all() -> None:
    port = free_port()
    # The supervisor appends "--fd N app": python -c ignores arguments after its program.
    stand_in = [sys.executable, "-c", "import time; time.sleep(600)", "config.asgi:application"]
    supervisor = subprocess.Popen(
        [sys.executable, "-u", str(ROOT / "scripts" / "lib" / "shared_port.py"), "127.0.0.1", str(port), "2",
         "--", *stand_in], stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    pids: dict[int, int] = {}
    next_line = line_reader(supervisor)
    try:
        for _ in range(2):
            started = re.fullmatch(r"daphne (\d)/2: pid (\d+) on 127\.0\.0\.1:\d+\n", next_line())
            assert started
            pids[int(started.group(1))] = int(started.group(2))
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass  # the shared socket listens

        for restart in range(1, 6):  # 5 restarts fit in the minute
            victim = pids[1]
            os.kill(victim, signal.SIGKILL)
            match = re.fullmatch(rf"daphne 1/2: pid {victim} exited \(-9\), restarted as pid (\d+)\n",
                                 next_line())
            assert match, restart
            pids[1] = int(match.group(1))
            os.kill(pids[2], 0)  # the other one was left alone
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                pass  # still listening: the supervisor keeps the socket open
        # the 6th death within the minute is a crash loop: all stop
        os.kill(pids[1], signal.SIGKILL)
        assert next_line() == (f"daphne pid {pids[1]} exited (-9) after 5 restarts within 60 s: "
                                         "stopping the others\n")
        assert supervisor.wait(timeout=30) == 128 + signal.SIGKILL
        with contextlib.suppress(ProcessLookupError):
            os.kill(pids[2], 0)
            raise AssertionError("the other child was not stopped")
    finally:
        for pid in pids.values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        supervisor.kill()
        supervisor.wait(timeout=10)
