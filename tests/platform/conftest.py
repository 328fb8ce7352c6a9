"""Fixtures for the platform tests: a subprocess environment with the repo's import paths.

The database alias ``replica`` (infra.db_router's tests, tests/platform/test_db_router.py): a test mirror
of ``default`` (Django's ``TEST: {"MIRROR": "default"}``: the same test database through its own
connection), added here when no ``DATABASE_REPLICA_URL`` configured one. It stays unused by every other
test: ``settings.DATABASE_REPLICA`` is ``None`` until a test sets it to ``"replica"``.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    if settings.configured and "replica" not in settings.DATABASES:
        default = settings.DATABASES["default"]
        settings.DATABASES["replica"] = {
            **copy.deepcopy(default), "TEST": {**default.get("TEST", {}), "MIRROR": "default"},
        }


@pytest.fixture
def subprocess_env(tmp_path: Path) -> dict[str, str]:
    """Environment for a child Python process: repo + ``platform/`` on PYTHONPATH, own ``var/`` dir.

    Profile variables (``DATABASE_URL``, ``REDIS_URL``, ``CELERY_*``...) are removed so each test sets
    exactly what it means to test.
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS"}
        and not key.startswith("CELERY_")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "platform")])
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env["GIN_VAR_DIR"] = str(tmp_path / "var")
    return env
