"""``infra.fault_points``: the fault runs' test hook pauses exactly one process per arming, and does
nothing without ``GIN_FAULT_DIR`` (docs/faults.md)."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from infra import fault_points


def _pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The pauses ``fault_points`` makes from now on, in seconds (recorded, not slept: a pause or its
    absence is then a fact, not a wall-clock measurement that a busy machine stretches)."""
    pauses: list[float] = []
    monkeypatch.setattr(fault_points, "time", SimpleNamespace(sleep=pauses.append))
    return pauses


def test_without_the_directory_it_returns_at_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GIN_FAULT_DIR", raising=False)
    (tmp_path / "ratings.rate.armed").touch()  # armed, but this process was not started for a fault run
    pauses = _pauses(monkeypatch)
    fault_points.reached("ratings.rate")
    assert pauses == []
    assert (tmp_path / "ratings.rate.armed").exists()


def test_an_armed_point_pauses_the_first_process_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GIN_FAULT_DIR", str(tmp_path))
    monkeypatch.setenv("GIN_FAULT_PAUSE_S", "0.3")
    pauses = _pauses(monkeypatch)
    fault_points.reached("ratings.rate")  # not armed: nothing
    assert list(tmp_path.iterdir()) == []

    (tmp_path / "ratings.rate.armed").touch()
    fault_points.reached("tournaments.pair_round")  # another point: nothing
    assert (tmp_path / "ratings.rate.armed").exists()

    fault_points.reached("ratings.rate")
    assert pauses == [0.3]  # paused
    # renamed to carry its pid (the run reads it to kill this process)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"ratings.rate.{os.getpid()}"]

    fault_points.reached("ratings.rate")  # the arming is used up: the retry after the kill runs through
    assert pauses == [0.3]
