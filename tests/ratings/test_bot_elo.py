"""ratings.bot_elo: the house bots' calibrated Elo, read from the round robin's file once per process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ratings import bot_elo


def test_the_shipped_file_gives_whole_points_per_level() -> None:
    shipped = json.loads(bot_elo.path().read_text(encoding="utf-8"))
    calibrated = bot_elo.calibrated_elo()
    assert dict(calibrated) == {int(k): round(v) for k, v in shipped["elo"].items()}
    assert calibrated[3] == 1500 and sorted(calibrated) == [1, 2, 3, 4, 5]


def test_a_missing_or_bad_file_reads_as_no_ratings(tmp_path: Path) -> None:
    assert bot_elo.read(tmp_path / "missing.json") == {}
    for text in ("not json", "[1, 2]", '{"elo": {"x": 1}}', '{"elo": 3}'):
        (tmp_path / "bad.json").write_text(text, encoding="utf-8")
        assert bot_elo.read(tmp_path / "bad.json") == {}


def test_the_file_is_read_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[Path] = []
    real_read = bot_elo.read

    def counting(path: Path) -> dict[int, int]:
        reads.append(path)
        return real_read(path)

    monkeypatch.setattr(bot_elo, "read", counting)
    bot_elo.calibrated_elo.cache_clear()
    try:
        first = bot_elo.calibrated_elo()
        assert bot_elo.calibrated_elo() is first and reads == [bot_elo.path()]
        with pytest.raises(TypeError):
            first[3] = 1  # type: ignore[index]  # shared by every caller: read-only
    finally:
        bot_elo.calibrated_elo.cache_clear()
