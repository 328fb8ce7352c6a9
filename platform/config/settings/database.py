"""Databases: SQLite in ``VAR_DIR`` (embedded default) or ``DATABASE_URL`` (production), and an optional
PostgreSQL read replica (``DATABASE_REPLICA_URL``, ``infra.db_router``)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import dj_database_url

from config.settings.environment import DATABASE_URL, VAR_DIR

# Daphne, the worker and beat write concurrently to SQLite: WAL + IMMEDIATE + a wait beat "locked".
SQLITE_OPTIONS = {
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}
# Persistent connections on both profiles (a new SQLite connection per call was 23% of the wall time of
# live play, issue 9), each checked before its first use in a request or WebSocket call.
CONN_MAX_AGE = 600
if DATABASE_URL:
    DATABASES = {
        "default": dj_database_url.parse(DATABASE_URL, conn_max_age=CONN_MAX_AGE, conn_health_checks=True)
    }
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        DATABASES["default"]["OPTIONS"] = dict(SQLITE_OPTIONS)
    else:
        # libpq has no connect timeout by default: for a server that does not answer (a partition, not a
        # stopped one) a request or socket would wait for the kernel's TCP timeout (about 2 minutes)
        # instead of getting its 503 / server_unavailable (web.unavailable). A URL's ?connect_timeout= wins.
        DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(VAR_DIR / "db.sqlite3"),
            "OPTIONS": dict(SQLITE_OPTIONS),
            "CONN_MAX_AGE": CONN_MAX_AGE,
            "CONN_HEALTH_CHECKS": True,
            # A file (not :memory:) so a Daphne subprocess started by a test can share the test database;
            # one per test run so parallel runs in one checkout do not collide.
            "TEST": {"NAME": str(Path(tempfile.gettempdir()) / f"gin-test-{os.getpid()}.sqlite3")},
        }
    }
# A PostgreSQL read replica (streaming replication of the primary): DATABASE_REPLICA_URL adds the alias
# "replica"; infra.db_router sends settled read-mostly reads there (rankings, replays, the API) when a
# view opts in, everything else to "default". Without it: one alias, the router answers "default".
# DATABASE_REPLICA_MAX_LAG: seconds after its end from which a finished match is read on the replica.
DATABASE_REPLICA_URL = os.environ.get("DATABASE_REPLICA_URL", "")
DATABASE_REPLICA: str | None = None
DATABASE_REPLICA_MAX_LAG = float(os.environ.get("DATABASE_REPLICA_MAX_LAG", "5"))
if DATABASE_REPLICA_URL:
    DATABASE_REPLICA = "replica"
    DATABASES[DATABASE_REPLICA] = dj_database_url.parse(
        DATABASE_REPLICA_URL, conn_max_age=CONN_MAX_AGE, conn_health_checks=True
    )
    DATABASES[DATABASE_REPLICA].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
    # Tests never create a database on the replica: it mirrors the test database of "default".
    DATABASES[DATABASE_REPLICA]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["infra.db_router.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
