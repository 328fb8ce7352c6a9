"""Run N Daphne processes behind ONE port, with no proxy: they share one listening socket.

    shared_port.py HOST PORT N -- daphne [options] config.asgi:application

Binds HOST:PORT once, then starts N copies of the command with ``--fd <fd>`` appended before the
application argument (Daphne adopts the inherited listening socket); the kernel hands each new
connection to one of the processes that is waiting in ``accept``. A WebSocket stays on the process that
accepted it; the Redis channel layer connects the processes. No extra hop and no proxy process: on a
2-core machine a userspace proxy would cost as much CPU as a Daphne.

Supervision: SIGTERM/SIGINT/SIGHUP are passed to every Daphne and this script exits once all have
exited (0, or the status of one that failed). A Daphne that exits on its own (a crash, ``kill -9``)
is started again at once on the same socket (as systemd restarts a ``gin-daphne@`` unit) while the
others go on serving: its players' sockets drop and they reconnect to a running process
(docs/faults.md). More than :data:`RESTART_LIMIT` restarts within :data:`RESTART_WINDOW_S` seconds is
a crash loop: then every Daphne is stopped and this script exits with the last failure's status, so
``scripts/serve`` stops the rest of the site instead of spinning. Prints one line per Daphne started
and per restart.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections import deque

RESTART_LIMIT = 5
RESTART_WINDOW_S = 60.0


def exit_status(code: int) -> int:
    """A child's ``returncode`` as a shell status (killed by signal N: 128 + N)."""
    return 128 - code if code < 0 else code


def main(argv: list[str]) -> int:
    if len(argv) < 5 or argv[3] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    host, port, count, command = argv[0], int(argv[1]), int(argv[2]), argv[4:]
    if count < 1:
        print(f"shared_port.py: need at least one process, got {count}", file=sys.stderr)
        return 2
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(1024)
    listener.set_inheritable(True)
    fd = listener.fileno()
    children: list[subprocess.Popen[bytes]] = []
    stopping = False

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    app = command[-1]

    def spawn() -> subprocess.Popen[bytes]:
        return subprocess.Popen([*command[:-1], "--fd", str(fd), app], pass_fds=(fd,))

    for index in range(count):
        children.append(spawn())
        print(f"daphne {index + 1}/{count}: pid {children[-1].pid} on {host}:{port}", flush=True)
    # The listening socket stays open here too (this process never accepts on it): a restarted Daphne
    # inherits the same one, so the port never closes and queued connections wait for any process.
    restarts: deque[float] = deque()  # when the recent restarts happened
    crash_loop: int | None = None
    while any(child.poll() is None for child in children):
        for index, child in enumerate(children):
            code = child.poll()
            if code is None or stopping:
                continue
            now = time.monotonic()
            while restarts and now - restarts[0] > RESTART_WINDOW_S:
                restarts.popleft()
            if len(restarts) >= RESTART_LIMIT:
                print(f"daphne pid {child.pid} exited ({code}) after {len(restarts)} restarts within "
                      f"{RESTART_WINDOW_S:g} s: stopping the others", flush=True)
                crash_loop = exit_status(code) or 1
                stop(signal.SIGTERM, None)
                break
            restarts.append(now)
            children[index] = spawn()
            print(f"daphne {index + 1}/{count}: pid {child.pid} exited ({code}), restarted as pid "
                  f"{children[index].pid}", flush=True)
        time.sleep(0.2)
    listener.close()
    if crash_loop is not None:
        return crash_loop
    return next((exit_status(c.returncode) for c in children if c.returncode), 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
