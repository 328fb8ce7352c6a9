"""The four default pools for the home tests, made again when a transactional test's flush emptied the
table the data migration filled (pytest-django flushes every table after such a test)."""

from __future__ import annotations

import importlib

from lobby.models import Pool

_migration = importlib.import_module("lobby.migrations.0002_default_pools")


def ensure_default_pools() -> None:
    """Create the pools of ``lobby/migrations/0002_default_pools.py`` that are missing."""
    for slug, name, target, timer, rated, position in _migration.POOLS:
        Pool.objects.get_or_create(slug=slug, defaults={
            "name": name, "target": target, "turn_timer_seconds": timer, "rated": rated, "position": position,
        })
