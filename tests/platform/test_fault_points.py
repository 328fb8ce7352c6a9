"""``config.fault_points``: the fault runs' test hook pauses exactly one process per arming, and does
nothing without ``GIN_FAULT_DIR`` (docs/faults.md)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from config import fault_points


def test_without_the_directory_it_returns_at_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GIN_FAULT_DIR", raising=False)
    (tmp_path / "ratings.rate.armed").touch()  # armed, but this process was not started for a fault run
    started = time.monotonic()
    fault_points.reached("ratings.rate")
    assert time.monotonic() - started < 1
    assert (tmp_path / "ratings.rate.armed").exists()


def test_an_armed_point_pauses_the_first_process_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GIN_FAULT_DIR", str(tmp_path))
    monkeypatch.setenv("GIN_FAULT_PAUSE_S", "0.3")
    fault_points.reached("ratings.rate")  # not armed: nothing
    assert list(tmp_path.iterdir()) == []

    (tmp_path / "ratings.rate.armed").touch()
    fault_points.reached("tournaments.pair_round")  # another point: nothing
    assert (tmp_path / "ratings.rate.armed").exists()

    started = time.monotonic()
    fault_points.reached("ratings.rate")
    assert time.monotonic() - started >= 0.3  # paused
    # renamed to carry its pid (the run reads it to kill this process)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"ratings.rate.{os.getpid()}"]

    started = time.monotonic()
    fault_points.reached("ratings.rate")  # the arming is used up: the retry after the kill runs through
    assert time.monotonic() - started < 0.3
