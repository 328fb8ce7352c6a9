"""Django settings, driven by the environment.

Two profiles, chosen by which variables are set:

- embedded default (nothing set): SQLite at ``var/db.sqlite3``, the in-memory channel layer, and Celery on
  kombu's SQLAlchemy transport over ``var/celery-broker.sqlite3`` (no server to install; worker and beat
  run as separate processes sharing that file).
- production: ``DATABASE_URL`` (PostgreSQL, parsed by dj-database-url) and ``REDIS_URL`` (channel layer
  ``infra.channel_layer.BatchingRedisChannelLayer``, channels-redis' layer with batched group sends;
  Celery broker and result backend).

Other variables: ``SECRET_KEY`` (default: generated once into ``var/secret_key``), ``DEBUG`` (``1``/``0``;
default on in the embedded profile, off when ``DATABASE_URL`` is set), ``ALLOWED_HOSTS`` and
``CSRF_TRUSTED_ORIGINS`` (comma-separated), ``CELERY_BROKER_URL`` / ``CELERY_RESULT_BACKEND`` (override
the derived ones), ``CELERY_TASK_ALWAYS_EAGER`` (``1`` runs tasks in the calling process),
``GAMES_BOT_DELAY`` (``low,high`` seconds) and ``GAMES_HAND_PAUSE`` (seconds) for live-play timings,
``GAMES_BOT_VS_BOT_DELAY`` (seconds between two bot-vs-bot moves, default 1.5; ``0``: engine speed),
``GAMES_SERVER_MOVES_IN_PROCESS`` (``0``: bots' and timers' moves by Celery workers, not Daphne),
``GAMES_GONE_NOTICE_AFTER``, ``GAMES_CLAIM_AFTER``, ``GAMES_GONE_END_AFTER``,
``GAMES_ONE_GONE_END_AFTER`` (seconds; docs/lobby.md
"Leaving a match between people"),
``REPLAYS_ANALYSIS_WORLDS`` (worlds per decision of the computer analysis; fewer is faster and noisier),
``REPLAYS_ANALYSIS_PUSH_EVERY`` (least seconds between two progress reports of an analysis, default 0.5),
``CACHE_KEY_PREFIX`` (default ``gin``: keys of the Redis cache; tests give each live server its own),
``TRUST_PROXY_HEADERS`` (``1`` behind nginx: trust its ``X-Forwarded-Proto``; default off),
``DATABASE_REPLICA_URL`` (a PostgreSQL read replica: infra.db_router) and ``DATABASE_REPLICA_MAX_LAG``.
"""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import dj_database_url
from corsheaders.defaults import default_headers

BASE_DIR = Path(__file__).resolve().parents[2]
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


def _secret_key() -> str:
    key = os.environ.get("SECRET_KEY")
    if key:
        return key
    # Embedded default: one random key per checkout, kept so sessions survive restarts.
    # O_EXCL: processes starting together (Daphne, worker, beat) must all end up with the same key.
    path = VAR_DIR / "secret_key"
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_urlsafe(50))
    for _ in range(50):  # another process may have created it and not written it yet
        key = path.read_text().strip()
        if key:
            return key
        time.sleep(0.1)
    raise RuntimeError(f"{path} is empty: delete it or set SECRET_KEY")


DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")
PROFILE = "production" if DATABASE_URL else "embedded"

SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", default=not DATABASE_URL)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# models.W040: SQLite has no covering indexes; the ratings indexes' INCLUDE columns (an index-only read on
# PostgreSQL, ratings.models) are simply left out there, which is what the warning says at every start.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_celery_beat",
    "accounts",
    "web",
    "home",
    "games",
    "tournaments",
    "ratings",
    "replays",
    "lobby",
    # The public read-only API (docs/api.md) and what it stands on.
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "corsheaders",
    "django_guid",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "corsheaders.middleware.CorsMiddleware",  # before CommonMiddleware, as django-cors-headers asks
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "web.middleware.MatchIdMiddleware",  # log records of a view with a match_id carry it (web.log_context)
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database -------------------------------------------------------------------------------------
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

# --- auth -----------------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home:home"
LOGOUT_REDIRECT_URL = "home:home"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- i18n / time ----------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("pt-br", "Português (Brasil)")]
LOCALE_PATHS = [PLATFORM_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

# --- static files ---------------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"  # collectstatic target (production)
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedStaticFilesStorage"
            if PROFILE == "production"
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
# Serve straight from the apps when collectstatic has not run (embedded default, tests).
WHITENOISE_USE_FINDERS = True

# --- channels -------------------------------------------------------------------------------------
# channels_redis waits for a consumer's next message with a blocking pop of
# ``RedisChannelLayer.brpop_timeout`` (5 s) and loops. redis-py 8 gives every connection a 5 s read
# timeout by default, which cut that wait short: each idle socket was closed with 1011 ("Timeout reading
# from ...") every ~5 s (issue 8; redis-py#4091, channels_redis#422). So the read timeout is set
# explicitly, well above the pop's (tests/platform/test_settings.py checks that), and still bounded so a
# half-open connection to a dead Redis is noticed.
CHANNEL_LAYER_SOCKET_TIMEOUT = 15
CHANNEL_LAYER_PROCESS_CAPACITY = 20_000
"""Messages a Daphne process's Redis queue may hold (all its sockets together; they expire after 60 s)."""
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "infra.channel_layer.BatchingRedisChannelLayer",  # + group_send_many
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": CHANNEL_LAYER_SOCKET_TIMEOUT,
                        "socket_connect_timeout": 5,
                    }
                ],
                "prefix": "gin",
                # channels-redis counts a channel's capacity (default 100) on its Redis key, and every
                # socket of one Daphne process shares one key ("specific.<process>!"): past 100 queued
                # messages for the whole process, a group send silently dropped the next ones (issue 9:
                # 500 matches lost 211 states in 40 s; at 50 matches, saturated, about one a run). Each
                # socket's own buffer in the process keeps the default 100.
                "channel_capacity": {"specific.*": CHANNEL_LAYER_PROCESS_CAPACITY},
            },
        }
    }
else:
    # channels' in-memory layer without its deepcopy and per-message sweep (infra.channel_layer)
    CHANNEL_LAYERS = {"default": {"BACKEND": "infra.channel_layer.PackingInMemoryChannelLayer"}}

# --- cache (throttles, sockets-per-user counts) --------------------------------------------------
# Shared across processes in production (several Daphne processes must see one count); one process in the
# embedded default, so locmem is enough there. Short socket timeouts: a stalled Redis fails the cache call
# fast (callers treat a cache error as "no limit known") instead of hanging the request.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "gin"),
            # One pool per process, not one per asyncio context (each socket's): infra.redis_pool.
            "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0,
                        "pool_class": "infra.redis_pool.SharedConnectionPool"},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "gin"}}

# --- celery (read by config/celery.py, namespace CELERY_) -----------------------------------------
CELERY_BROKER_URL = (
    os.environ.get("CELERY_BROKER_URL")
    or REDIS_URL
    or (f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite3'}")
)
CELERY_RESULT_BACKEND = (
    os.environ.get("CELERY_RESULT_BACKEND")
    or REDIS_URL
    or (f"db+sqlite:///{VAR_DIR / 'celery-results.sqlite3'}")
)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_RESULT_EXPIRES = 3600
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Two queues by urgency, each consumed by its own worker pool (scripts/serve, deploy/systemd): "realtime"
# for what a player is waiting on (level-5 and bot-vs-bot moves, turn timers, ratings, tournament steps and
# the sweeps that recover them), "background" for work nobody waits on at the table (analyses, batch
# jobs). However much background work is queued, a realtime task never waits behind it (issue 20). Every
# task is routed here, in this one table (tests/platform/test_task_routes.py fails for a task without a
# route); an unrouted one would fall to the default queue, realtime.
TASK_QUEUE_REALTIME = "realtime"
TASK_QUEUE_BACKGROUND = "background"
TASK_QUEUES = (TASK_QUEUE_REALTIME, TASK_QUEUE_BACKGROUND)
CELERY_TASK_DEFAULT_QUEUE = TASK_QUEUE_REALTIME
CELERY_TASK_ROUTES = {
    **{name: {"queue": TASK_QUEUE_REALTIME} for name in (
        "games.tasks.play_server_moves", "games.tasks.sweep_server_moves", "games.tasks.expire_due_turns",
        "ratings.rate_match", "ratings.rate_pending", "ratings.sweep_unrated",
        "tournaments.tasks.open", "tournaments.tasks.start", "tournaments.tasks.pair_round",
        "tournaments.tasks.record_round", "tournaments.tasks.finish", "tournaments.tasks.advance",
        # Light, but people wait on them: the schedule of the coming tournaments (the fresh-clone trial saw
        # an empty /tournaments/ for 17 minutes while it waited behind 8 analyses) and the sweep that ends
        # matches nobody plays any more (their opponents wait for the result).
        "tournaments.tasks.ensure_schedule", "games.tasks.abandon_idle_matches",
        # Open and direct challenges expire (lobby.challenge_sweep): people wait on their list.
        "lobby.tasks.sweep_challenges",
        # the sweep that ends matches between people whose players left (docs/lobby.md)
        "games.tasks.end_absent_matches",
    )},
    **{name: {"queue": TASK_QUEUE_BACKGROUND} for name in (
        "replays.analyse_match", "web.platform_probe",
    )},
}

# --- live play timings (read by games/conf.py; defaults live there) -------------------------------
# From the environment only when set: "low,high" seconds of the bot's pause, seconds a hand stays shown.
if os.environ.get("GAMES_BOT_DELAY"):
    GAMES_BOT_DELAY = tuple(float(part) for part in os.environ["GAMES_BOT_DELAY"].split(","))
if os.environ.get("GAMES_HAND_PAUSE"):
    GAMES_HAND_PAUSE = float(os.environ["GAMES_HAND_PAUSE"])
# Seconds between two moves of a bot-vs-bot match (games/conf.py; default 1.5, 0: engine speed).
if os.environ.get("GAMES_BOT_VS_BOT_DELAY"):
    GAMES_BOT_VS_BOT_DELAY = float(os.environ["GAMES_BOT_VS_BOT_DELAY"])
# Leaving a match between people (games.presence, docs/lobby.md): seconds before a claim, and before the
# server ends a match both players (one player) left.
for _name in ("GAMES_GONE_NOTICE_AFTER", "GAMES_CLAIM_AFTER", "GAMES_GONE_END_AFTER",
              "GAMES_ONE_GONE_END_AFTER"):
    if os.environ.get(_name):
        globals()[_name] = float(os.environ[_name])
# Where the server's moves (bots, turn deadlines) run (games.scheduling): unset = in the Daphne process
# that made the write (both profiles); 0 = Celery workers (production only: Redis carries their moves).
if os.environ.get("GAMES_SERVER_MOVES_IN_PROCESS"):
    GAMES_SERVER_MOVES_IN_PROCESS = env_bool("GAMES_SERVER_MOVES_IN_PROCESS", default=True)
# ws/echo/: a bare echo consumer, the baseline of scripts/loadtest (off unless GAMES_ECHO_WS=1).
GAMES_ECHO_WS = env_bool("GAMES_ECHO_WS", default=False)
# Check every channel-layer message against its schema before it is sent (push.schemas; on in the tests).
PUSH_CHECK = env_bool("PUSH_CHECK", default=False)
# The embedded profile's Celery processes post their pushes to Daphne (push.forward; scripts/serve sets
# both for one run): the URL in the Celery processes only, the shared random token in every process.
PUSH_FORWARD_URL = os.environ.get("PUSH_FORWARD_URL", "")
PUSH_FORWARD_TOKEN = os.environ.get("PUSH_FORWARD_TOKEN", "")
# Tournaments start this many seconds before their start time (a test setting; default 0).
if os.environ.get("TOURNAMENTS_START_EARLY_SECONDS"):
    TOURNAMENTS_START_EARLY_SECONDS = float(os.environ["TOURNAMENTS_START_EARLY_SECONDS"])
# `migrate` creates the schedules' upcoming tournaments at once (tournaments.receivers; docs/tournaments.md);
# the test suite turns it off for its test database (tests/conftest.py) and tests the receiver itself.
TOURNAMENTS_SCHEDULE_ON_MIGRATE = env_bool("TOURNAMENTS_SCHEDULE_ON_MIGRATE", default=True)
# Worlds the computer analysis samples per decision (replays.analyses; default: engine.analysis.Settings).
if os.environ.get("REPLAYS_ANALYSIS_WORLDS"):
    REPLAYS_ANALYSIS_WORLDS = int(os.environ["REPLAYS_ANALYSIS_WORLDS"])
# Least seconds between two progress reports of one analysis run (replays.analyses.PUSH_EVERY, 0.5; a test
# sets 0: every decision reported, so a page is sure to see the run's progress however fast it goes).
if os.environ.get("REPLAYS_ANALYSIS_PUSH_EVERY"):
    REPLAYS_ANALYSIS_PUSH_EVERY = float(os.environ["REPLAYS_ANALYSIS_PUSH_EVERY"])
# Computer analyses (replays.analysis_limits, README "Limits"): members only; per account and per client IP
# (django-ratelimit windows in the default cache); one in flight per account; at most MAX_ACTIVE queued or
# running site-wide (the background pool runs them one by one: about a minute each), else 503 "busy" with
# Retry-After BUSY_RETRY_AFTER seconds. An analysis that exists already is read, never counted.
REPLAYS_ANALYSIS_USER_RATE = os.environ.get("REPLAYS_ANALYSIS_USER_RATE", "10/h")
REPLAYS_ANALYSIS_IP_RATE = os.environ.get("REPLAYS_ANALYSIS_IP_RATE", "20/h")
REPLAYS_ANALYSIS_MAX_ACTIVE = int(os.environ.get("REPLAYS_ANALYSIS_MAX_ACTIVE", "8"))
REPLAYS_ANALYSIS_BUSY_RETRY_AFTER = int(os.environ.get("REPLAYS_ANALYSIS_BUSY_RETRY_AFTER", "60"))
# Database threads (and connections) per process for the sockets' work (games/db.py; default there).
if os.environ.get("GAMES_DB_THREADS"):
    GAMES_DB_THREADS = int(os.environ["GAMES_DB_THREADS"])

# Spectator sockets (replays.audience, docs/protocol.md "Spectators"): open sockets per client IP and per
# match (across every Daphne process), and the least seconds between two spectator counts of one match.
SPECTATORS_PER_IP = int(os.environ.get("SPECTATORS_PER_IP", "20"))
SPECTATORS_PER_MATCH = int(os.environ.get("SPECTATORS_PER_MATCH", "1000"))
SPECTATORS_COUNT_INTERVAL = float(os.environ.get("SPECTATORS_COUNT_INTERVAL", "1.0"))
# The home socket (home.live, docs/protocol.md "Home socket"): open home sockets per client IP (across
# every Daphne process), and the least seconds between two live-number messages (site-wide).
HOME_SOCKETS_PER_IP = int(os.environ.get("HOME_SOCKETS_PER_IP", "10"))
HOME_INTERVAL = float(os.environ.get("HOME_INTERVAL", "1.0"))

# Quick pairing (docs/lobby.md "Pairing", docs/protocol.md "Pool socket"): seconds between waves, seconds
# a waiting player's socket may be gone before the wait ends, pool sockets per account and per address.
LOBBY_WAVE_SECONDS = float(os.environ.get("LOBBY_WAVE_SECONDS", "1.0"))
LOBBY_LEAVE_AFTER = float(os.environ.get("LOBBY_LEAVE_AFTER", "5"))
LOBBY_POOL_SOCKETS_PER_USER = int(os.environ.get("LOBBY_POOL_SOCKETS_PER_USER", "5"))
LOBBY_POOL_SOCKETS_PER_IP = int(os.environ.get("LOBBY_POOL_SOCKETS_PER_IP", "50"))

# --- security in production -----------------------------------------------------------------------
if not DEBUG:
    # Off for plain-HTTP runs (tests' Daphne subprocess sets SECURE_COOKIES=0); on behind TLS.
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", default=PROFILE == "production")
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# X-Forwarded-Proto says "https" only when a proxy in front (nginx, deploy/nginx/gin.conf) sets it; from
# a client reaching Daphne directly (scripts/serve on one machine) it is a claim anyone can make, which
# made links https:// and requests "secure". So it is trusted only when TRUST_PROXY_HEADERS=1 says the
# site is behind such a proxy (deploy/gin.env.example sets it).
TRUST_PROXY_HEADERS = env_bool("TRUST_PROXY_HEADERS", default=False)
if TRUST_PROXY_HEADERS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- logging ---------------------------------------------------------------------------------------
# One console handler. Every record carries ``request_id`` (the request's X-Request-ID: django-guid, see
# below) and ``match_id`` (web.log_context: the match a view, WebSocket consumer or task works on; None
# otherwise). Embedded profile: plain lines. Production profile (or LOG_FORMAT=json): one JSON object per
# line (python-json-logger): time, level, logger, message, request_id, match_id, and exc_info when set.
LOG_FORMAT = os.environ.get("LOG_FORMAT") or ("json" if PROFILE == "production" else "plain")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        # One record, one line: the message's control characters escaped (web.log_format).
        "plain": {
            "()": "web.log_format.PlainFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s: %(message)s",
        },
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(levelname)s %(name)s %(message)s %(request_id)s %(match_id)s",
            "rename_fields": {"levelname": "level", "name": "logger"},
            "timestamp": "time",  # ISO 8601, UTC
        },
    },
    "filters": {
        "client_error_one_line": {"()": "web.log_filters.ClientErrorWithoutTraceback"},
        "unavailable_one_line": {"()": "web.log_filters.UnavailableWithoutTraceback"},
        "context_ids": {"()": "web.log_filters.ContextIds"},
        "redact_secrets": {"()": "web.log_filters.RedactSecrets"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler", "formatter": "json" if LOG_FORMAT == "json" else "plain",
            "filters": ["client_error_one_line", "unavailable_one_line", "context_ids", "redact_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # Django's own default gives "django" a console handler (with DEBUG) and mail_admins: with the root
    # handler that printed each record twice. One path: propagate to root only.
    "loggers": {
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        # django-guid says at INFO, on every request, whether the header came: only its warnings.
        "django_guid": {"level": "WARNING"},
    },
}

# --- request ids (django-guid) --------------------------------------------------------------------------
# An incoming X-Request-ID is kept (lower-cased) when it is 32 hex digits, with or without a UUID's dashes
# (nginx's $request_id is one; web.middleware.RequestIdHeaderMiddleware), else a new one is made; either
# way the response echoes it. First middleware (after that header's check), so every later record of the
# request carries it (the CORS expose list is set below, not by django-guid).
DJANGO_GUID = {
    "GUID_HEADER_NAME": "X-Request-ID", "VALIDATE_GUID": True, "RETURN_HEADER": True, "EXPOSE_HEADER": False,
}

# --- HTTP throttles (README "Limits") -------------------------------------------------------------
# Log-in (site and admin): django-axes counts failures per username and per client IP in the database
# (shared by every process). At AXES_FAILURE_LIMIT failures that username or IP is refused (429, the
# time to wait) until AXES_COOLOFF_TIME has passed since its last counted failure; failures during the
# lockout do not extend it, so an attacker cannot keep a victim locked out past one cool-off per burst.
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]  # last, as django-axes asks
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 10
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "accounts.throttles.locked_out"
AXES_DISABLE_ACCESS_LOG = True  # successful log-ins (every guest) need no row each
# AccessAttempt.ip_address is inet: an address that is not an IP is recorded as none (never a 500).
AXES_CLIENT_IP_CALLABLE = "accounts.throttles.axes_client_ip"
# Per client IP, fixed windows in the default cache (django-ratelimit's "count/period" format).
ACCOUNTS_GUEST_RATE = "30/h"
ACCOUNTS_SIGNUP_RATE = "10/h"
RATELIMIT_FAIL_OPEN = True  # a cache outage must not refuse every guest
# /replay/open/ (replays.opened): files opened per client IP and per account (anyone may open one), hands
# of an opened file served per IP, the CPU seconds one file's verification may take, and how long an
# opened file is held in the cache for its hands.
REPLAYS_OPEN_RATE = "30/h"
REPLAYS_OPEN_USER_RATE = "20/h"
REPLAYS_OPEN_HAND_RATE = "600/h"
REPLAYS_OPEN_CPU_SECONDS = 5.0
REPLAYS_OPEN_HOLD_SECONDS = 3600

# --- NUL never reaches the database (PostgreSQL text cannot hold it): web.middleware -------------------
# First, so sessions and authentication never see a NUL path, query string or cookie.
MIDDLEWARE.insert(0, "web.middleware.RefuseNulMiddleware")

# Before it: a bad Host header or too many query parameters (JSON under /api/ and /healthz, one WARNING).
MIDDLEWARE.insert(0, "web.middleware.EarlyRefusalsMiddleware")

# Before them: the request id is set before anything can be refused or logged.
MIDDLEWARE.insert(0, "django_guid.middleware.guid_middleware")
# Before that: the incoming X-Request-ID normalised (lower case) or dropped (django-guid makes one).
MIDDLEWARE.insert(0, "web.middleware.RequestIdHeaderMiddleware")

# --- the public API (platform/api, docs/api.md) ----------------------------------------------------------
# JSON only, GET/HEAD/OPTIONS only, errors {"error": code, "message": ...}; session log-in only counts for
# the per-user limit. Limits: API_ANON_RATE per IP (REMOTE_ADDR: NUM_PROXIES 0 never trusts the client's
# X-Forwarded-For; guests are counted there too), API_USER_RATE per member account, in the default cache
# (api.throttles).
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [],
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttles.AnonThrottle", "api.throttles.UserThrottle"],
    "EXCEPTION_HANDLER": "api.errors.api_exception_handler",
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.WeightedNegotiation",  # Accept's q=0 refuses
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "NUM_PROXIES": 0,
    # No ``?format=`` override: docs/api.md says unknown parameters are ignored, and DRF's override
    # answered ``?format=xml`` with a 404. Only the schema reads it (``api.negotiation.FormatChoice``).
    "URL_FORMAT_OVERRIDE": None,
}
API_ANON_RATE = os.environ.get("API_ANON_RATE", "60/min")
API_USER_RATE = os.environ.get("API_USER_RATE", "240/min")
# The schema and docs page: their own counts (api.throttles.DOCS_THROTTLES), higher than the data's.
API_DOCS_ANON_RATE = os.environ.get("API_DOCS_ANON_RATE", "120/min")
API_DOCS_USER_RATE = os.environ.get("API_DOCS_USER_RATE", "480/min")
SPECTACULAR_SETTINGS = {
    "TITLE": "Gin Rummy API",
    "DESCRIPTION": "Public read-only data of the site: players, ratings, rankings, tournaments, finished "
                   "matches and their replays, house bots, quick-pairing pools and open challenges. "
                   "Guide: docs/api.md.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # <id:...> in api/urls.py: 1 to 18 digits (api.schema.IdConverter).
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}},
    "ENUM_NAME_OVERRIDES": {
        "TournamentStatusEnum": "tournaments.models.TournamentStatus",
        "RoundStatusEnum": "tournaments.models.RoundStatus",
        "MatchStatusEnum": "games.models.MatchStatus",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums", "api.schema.add_error_responses",
        "api.schema.no_nul_in_query", "api.schema.no_auth_on_public_operations",
    ],
}
# CORS: any origin may GET the API, without credentials (cookies are never sent cross-site).
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_EXPOSE_HEADERS = ["Retry-After", "X-Request-ID"]
# A cross-site reader may send its own request id (docs/api.md): the preflight must allow that header.
CORS_ALLOW_HEADERS = [*default_headers, "x-request-id"]

# --- passwords: refuse one of only spaces (accounts.validators) ---------------------------------------
AUTH_PASSWORD_VALIDATORS += [{"NAME": "accounts.validators.NotOnlyWhitespacePasswordValidator"}]

# --- security headers in production (deploy/nginx/gin.conf sends the same at the edge) -----------------
# CSP: everything from this origin only (the table's socket too: CSP3 'self' covers same-origin ws/wss),
# no inline script or style (the pages use static files; the table's state is a JSON data block), no
# plugins, no framing, forms post here only. Permissions-Policy: no powerful browser feature is used.
# HSTS only behind HTTPS (SECURE_COOKIES on); Django sends it on secure requests only anyway.
if PROFILE == "production":
    CONTENT_SECURITY_POLICY = {
        "DIRECTIVES": {
            "default-src": ["'self'"],
            "script-src": ["'self'"],
            "style-src": ["'self'"],
            "img-src": ["'self'", "data:"],
            "connect-src": ["'self'"],
            "object-src": ["'none'"],
            "base-uri": ["'none'"],
            "form-action": ["'self'"],
            "frame-ancestors": ["'none'"],
        }
    }
    PERMISSIONS_POLICY: dict[str, list[str]] = {
        feature: []
        for feature in ("accelerometer", "camera", "geolocation", "gyroscope", "magnetometer", "microphone",
                        "payment", "usb")
    }
    _security = MIDDLEWARE.index("django.middleware.security.SecurityMiddleware")
    MIDDLEWARE[_security + 1:_security + 1] = [
        "csp.middleware.CSPMiddleware",
        "django_permissions_policy.PermissionsPolicyMiddleware",
    ]
    if not DEBUG and SESSION_COOKIE_SECURE:
        SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", 365 * 24 * 3600))
