"""Exec a command in a process group of its own that still ends with its parent: ``scripts/serve``
starts the Celery worker and beat through it.

    python scripts/lib/own_group.py PARENT_PID COMMAND [ARG ...]

Signals for the parent's whole process group (Ctrl-C, ``kill -TERM -- -PGID``, SIGHUP from a closing
terminal) then reach the parent only, which stops COMMAND by signalling its main process. On Linux
COMMAND also gets SIGTERM when PARENT_PID dies (even by SIGKILL): the parent-death signal survives exec.
"""

from __future__ import annotations

import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def main(argv: list[str]) -> None:
    parent, command = int(argv[0]), argv[1:]
    os.setpgid(0, 0)
    if sys.platform.startswith("linux"):
        import ctypes

        if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
        if os.getppid() != parent:  # the parent died before the death signal was armed
            sys.exit(143)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
