"""Per-worker services for a parallel test run (pytest-xdist). ``scripts/test`` loads it first, with
``-p tests.parallel``: it must run before Django's settings are imported, which pytest-django does before
any conftest.py.

pytest-django already gives each xdist worker (``gw0``, ``gw1``, ...) its own test database
(``test_gin_gw0``, ...). Redis is the one shared server left: channel groups and cache keys are named by
row ids (``match_1``), and two workers' databases both have a match 1. So worker ``gwN`` moves
``REDIS_URL`` (when set) to database ``d + 1 + N``, where ``d`` is the database ``REDIS_URL`` names
(``redis://127.0.0.1:6379/0`` becomes ``/1`` on gw0 and ``/2`` on gw1). Subprocesses the tests start
(Daphne, Celery workers, ``scripts/serve``) inherit it. Serial runs are left as they are.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

REDIS_DATABASES = 16  # Redis's default ``databases``


def worker_index() -> int | None:
    """N of this process's xdist worker id ``gwN``, or None outside a parallel run."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else None


def worker_redis_url(url: str) -> str:
    """``url`` moved to this worker's own Redis database (unchanged outside a parallel run).

    :raises ValueError: when the worker's database would not exist (more workers than Redis databases).
    """
    index = worker_index()
    if index is None:
        return url
    parts = urlsplit(url)
    path = parts.path.strip("/")
    base = int(path) if path.isdigit() else 0
    database = base + 1 + index
    if database >= REDIS_DATABASES:
        raise ValueError(f"worker gw{index}: Redis has no database {database} (0..{REDIS_DATABASES - 1})")
    return urlunsplit(parts._replace(path=f"/{database}"))


if os.environ.get("REDIS_URL"):
    os.environ["REDIS_URL"] = worker_redis_url(os.environ["REDIS_URL"])
