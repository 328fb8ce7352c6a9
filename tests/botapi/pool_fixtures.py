"""Fixtures of the BOT pool tests: ``bot_pool`` (the migration's ``bots-100``, made again when a
transactional test's flush removed it) and ``people_pool`` (a rated people's pool)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def bot_pool(db: None) -> Any:
    from lobby.models import Pool

    pool, _ = Pool.objects.get_or_create(slug="bots-100", defaults={
        "name": "BOT pool", "target": 100, "turn_timer_seconds": 30, "rated": True, "active": True,
        "position": 100, "bots_only": True, "bot_after_seconds": 0, "window_start": 100,
        "window_growth": 10.0,
    })
    return pool


@pytest.fixture
def people_pool(db: None) -> Any:
    from lobby.models import Pool

    return Pool.objects.create(slug="t-100-60-rated", name="100 · 60 s · rated", target=100,
                               turn_timer_seconds=60, rated=True, window_start=100, window_growth=10.0,
                               bot_after_seconds=30)
