"""Django settings (``DJANGO_SETTINGS_MODULE=config.settings``), driven by the environment.

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
``FAIRPLAY_SAMPLE_RATE`` (share of finished rated matches the assistance signal analyses, default 0.1),
``CACHE_KEY_PREFIX`` (default ``gin``: keys of the Redis cache; tests give each live server its own),
``TRUST_PROXY_HEADERS`` (``1`` behind nginx: trust its ``X-Forwarded-Proto``; default off),
``FAIRPLAY_HASH_SALT`` (the salt of the fair-play sightings' hashes; default derived from ``SECRET_KEY``),
``DATABASE_REPLICA_URL`` (a PostgreSQL read replica: infra.db_router) and ``DATABASE_REPLICA_MAX_LAG``.
"""

from __future__ import annotations

# One module per integration; each imports what it builds on from config.settings.environment (the
# profile), so the order here does not matter. Django reads the uppercase names of this module: every
# module's are gathered here, and no two modules define the same name
# (tests/platform/test_settings_modules.py).
from config.settings.api import *  # the public API: REST framework, OpenAPI schema, CORS
from config.settings.app_settings import *  # what the apps read: timings, limits, feature flags
from config.settings.base import *  # apps, middleware, URLs, templates, accounts
from config.settings.caches import *  # CACHES
from config.settings.celery_settings import *  # CELERY_* (broker, results, queues); schedule: config.celery
from config.settings.channel_layers import *  # CHANNEL_LAYERS
from config.settings.database import *  # DATABASES (+ the read replica), DATABASE_ROUTERS
from config.settings.environment import *  # the profile: DATABASE_URL, REDIS_URL, PROFILE, DEBUG, VAR_DIR
from config.settings.logs import *  # LOGGING, request ids
from config.settings.security import *  # SECRET_KEY, secure cookies, proxy header, CSP, HSTS
from config.settings.static_i18n import *  # languages, time zone, static files
from config.settings.throttles import *  # log-in, guest, sign-up and opened-file limits
