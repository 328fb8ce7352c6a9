"""The fault runs' test hook (``scripts/faults``, docs/faults.md): a process pauses at a named point inside
a task, so that the run's SIGKILL lands exactly there (row locks held, rows written, nothing committed).

Off unless the process's environment has ``GIN_FAULT_DIR`` (only the fault runs set it; nothing else
does, so elsewhere :func:`reached` is one environment lookup). With it set, the run arms a point by
creating the file ``<GIN_FAULT_DIR>/<point>.armed``; the first process to reach the point renames it to
``<point>.<pid>`` (atomic: one process pauses per arming, and the retry after the kill runs through)
and sleeps ``GIN_FAULT_PAUSE_S`` seconds (default 120), long enough to be killed.

Points: ``ratings.rate`` (``ratings.services``: a rating batch's changes inserted, the players' rows
locked, before the commit), ``tournaments.pair_round`` (``tournaments.services.round_pair``: the round,
its matches and pairings inserted, the tournament row locked, before the commit).
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def reached(point: str) -> None:
    """Pause here if the fault run armed ``point`` (see the module docstring); else return at once."""
    directory = os.environ.get("GIN_FAULT_DIR")
    if not directory:
        return
    try:
        os.rename(Path(directory) / f"{point}.armed", Path(directory) / f"{point}.{os.getpid()}")
    except FileNotFoundError:  # not armed, or another process took it
        return
    time.sleep(float(os.environ.get("GIN_FAULT_PAUSE_S", "120")))
