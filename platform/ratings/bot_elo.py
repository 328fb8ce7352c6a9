"""The house bots' calibrated Elo: the file the bots' round robin writes, read once per process.

``python -m engine.tools.roundrobin --matches 100 --seed 1 --out data/bot_elo.json`` plays every pair of
bot levels, fits each level's Elo (level 3 = 1500) and writes ``data/bot_elo.json`` (its format: that
tool's docstring). The site reads the file here, and nowhere else: the level picker shows these
numbers, and they are the bots' fixed ratings (``ratings.selectors.bot_rating``). The file only changes
with a new round robin, deployed with a restart, so :func:`calibrated_elo` reads it once per process.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from django.conf import settings


def read(path: Path) -> dict[int, int]:
    """Level -> calibrated Elo, rounded to whole points, from the round robin's file at ``path``;
    ``{}`` when the file is missing or not in that format, so a caller can show the levels without
    ratings."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {int(level): round(float(elo)) for level, elo in data["elo"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def path() -> Path:
    """Where the site's file is: ``data/bot_elo.json`` at the top of the checkout."""
    return Path(settings.BASE_DIR) / "data" / "bot_elo.json"


@functools.cache
def calibrated_elo() -> Mapping[int, int]:
    """Level -> calibrated Elo (whole points) of the site's file (:func:`path`), read on first use and
    kept for the life of the process (read-only: every caller shares it)."""
    return MappingProxyType(read(path()))
