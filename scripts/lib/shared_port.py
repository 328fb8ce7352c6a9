"""Run N Daphne processes behind ONE port, with no proxy: they share one listening socket.

    shared_port.py HOST PORT N -- daphne [options] config.asgi:application

Binds HOST:PORT once, then starts N copies of the command with ``--fd <fd>`` appended before the
application argument (Daphne adopts the inherited listening socket); the kernel hands each new
connection to one of the processes that is waiting in ``accept``. A WebSocket stays on the process that
accepted it; the Redis channel layer connects the processes. No extra hop and no proxy process: on a
2-core machine a userspace proxy would cost as much CPU as a Daphne.

Supervision (like ``scripts/serve`` itself): SIGTERM/SIGINT/SIGHUP are passed to every Daphne and this
script exits with the first status once all have exited; if one Daphne exits on its own, the others
are stopped too, so a crash never leaves a half-running site. Prints one line per Daphne started.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time


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
    for index in range(count):
        child = subprocess.Popen([*command[:-1], "--fd", str(fd), app], pass_fds=(fd,))
        children.append(child)
        print(f"daphne {index + 1}/{count}: pid {child.pid} on {host}:{port}", flush=True)
    listener.close()  # the children hold it
    first: int | None = None
    while any(child.poll() is None for child in children):
        for child in children:
            code = child.poll()
            if code is not None and first is None:
                first = code
                if not stopping:
                    print(f"daphne pid {child.pid} exited ({code}): stopping the others", flush=True)
                    stop(signal.SIGTERM, None)
        time.sleep(0.2)
    if first is None:
        return 0
    return 128 - first if first < 0 else first  # killed by a signal: the shell's convention


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
