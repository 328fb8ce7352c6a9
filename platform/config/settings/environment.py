"""The profile, read from the environment: every other settings module builds on these names.

- embedded default (neither ``DATABASE_URL`` nor ``REDIS_URL`` set): SQLite, the in-memory channel layer,
  Celery over SQLite files in ``VAR_DIR``.
- production: ``DATABASE_URL`` set (``PROFILE == "production"``; DEBUG off by default); ``REDIS_URL``, read
  on its own, switches the channel layer, the cache and Celery's broker to Redis.
"""

from __future__ import annotations

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[3]
PLATFORM_DIR = BASE_DIR / "platform"
VAR_DIR = Path(os.environ.get("GIN_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean flag: ``1/true/yes/on`` are true, ``0/false/no/off/''`` false, unset -> default.

    :raises ValueError: when the variable holds anything else (a typo must not silently flip a flag).
    """
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off", ""}:
        return False
    raise ValueError(f"{name}={raw!r} is not a boolean (use 1 or 0)")


def env_list(name: str, default: list[str]) -> list[str]:
    """Read a comma-separated list; blanks are dropped; unset -> ``default``."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")
PROFILE = "production" if DATABASE_URL else "embedded"
DEBUG = env_bool("DEBUG", default=not DATABASE_URL)
