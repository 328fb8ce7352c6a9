"""Settings pick the embedded default or the production profile from the environment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DUMP = """
import json, django
django.setup()
from django.conf import settings as s
db = s.DATABASES["default"]
layer = s.CHANNEL_LAYERS["default"]
print(json.dumps({
    "profile": s.PROFILE, "engine": db["ENGINE"], "name": str(db["NAME"]), "host": db.get("HOST", ""),
    "layer": layer["BACKEND"], "layer_hosts": layer.get("CONFIG", {}).get("hosts"),
    "broker": s.CELERY_BROKER_URL, "backend": s.CELERY_RESULT_BACKEND, "scheduler": s.CELERY_BEAT_SCHEDULER,
    "debug": s.DEBUG, "hosts": s.ALLOWED_HOSTS, "csrf": s.CSRF_TRUSTED_ORIGINS, "secret": s.SECRET_KEY,
    "use_tz": s.USE_TZ, "tz": s.TIME_ZONE, "languages": s.LANGUAGES, "user_model": s.AUTH_USER_MODEL,
    "apps": s.INSTALLED_APPS, "bot_delay": getattr(s, "GAMES_BOT_DELAY", None),
    "hand_pause": getattr(s, "GAMES_HAND_PAUSE", None),
    "cache": s.CACHES["default"], "proxy_ssl": getattr(s, "SECURE_PROXY_SSL_HEADER", None),
}))
"""


def load(env: dict[str, str], **overrides: str) -> dict:
    completed = subprocess.run(
        [sys.executable, "-c", DUMP], cwd=ROOT, env={**env, **overrides}, capture_output=True, text=True
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_embedded_default(subprocess_env: dict[str, str]) -> None:
    var = Path(subprocess_env["GIN_VAR_DIR"])
    s = load(subprocess_env)
    assert s["profile"] == "embedded"
    assert (s["engine"], s["name"]) == ("django.db.backends.sqlite3", str(var / "db.sqlite3"))
    assert s["layer"] == "infra.channel_layer.PackingInMemoryChannelLayer"
    assert s["cache"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"  # one Daphne process
    assert s["broker"] == f"sqla+sqlite:///{var / 'celery-broker.sqlite3'}"
    assert s["backend"] == f"db+sqlite:///{var / 'celery-results.sqlite3'}"
    assert s["scheduler"] == "django_celery_beat.schedulers:DatabaseScheduler"
    assert s["debug"] is True
    assert s["hosts"] == ["127.0.0.1", "localhost", "[::1]"]
    assert (s["use_tz"], s["tz"]) == (True, "UTC")
    assert s["languages"] == [["en", "English"], ["pt-br", "Português (Brasil)"]]
    assert s["user_model"] == "accounts.User"
    assert {"daphne", "channels", "django_celery_beat", "accounts", "web"} <= set(s["apps"])
    # The generated secret key is kept in var/ and reused by the next process.
    assert s["secret"] == (var / "secret_key").read_text().strip() and len(s["secret"]) >= 50
    assert load(subprocess_env)["secret"] == s["secret"]


def test_production_profile(subprocess_env: dict[str, str]) -> None:
    s = load(
        subprocess_env,
        DATABASE_URL="postgres://gin:pw@db.internal:5432/gin",
        REDIS_URL="redis://cache.internal:6379/2",
        SECRET_KEY="k" * 60,
        ALLOWED_HOSTS="gin.example, www.gin.example",
        CSRF_TRUSTED_ORIGINS="https://gin.example",
    )
    assert s["profile"] == "production"
    assert (s["engine"], s["name"], s["host"]) == ("django.db.backends.postgresql", "gin", "db.internal")
    assert s["layer"] == "infra.channel_layer.BatchingRedisChannelLayer"
    assert s["layer_hosts"] == [
        {"address": "redis://cache.internal:6379/2", "socket_timeout": 15, "socket_connect_timeout": 5}
    ]
    assert s["broker"] == s["backend"] == "redis://cache.internal:6379/2"
    # Shared by every Daphne process (throttles, socket counts); a stalled Redis fails within a second.
    assert s["cache"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert s["cache"]["LOCATION"] == "redis://cache.internal:6379/2"
    assert s["cache"]["OPTIONS"] == {"socket_connect_timeout": 1.0, "socket_timeout": 1.0,
                                     "pool_class": "infra.redis_pool.SharedConnectionPool"}
    assert s["debug"] is False
    assert s["hosts"] == ["gin.example", "www.gin.example"]
    assert s["csrf"] == ["https://gin.example"]
    assert s["secret"] == "k" * 60


def test_explicit_overrides(subprocess_env: dict[str, str]) -> None:
    s = load(
        subprocess_env, DEBUG="0", CELERY_BROKER_URL="memory://", DATABASE_URL="sqlite:////tmp/x.sqlite3"
    )
    assert (s["debug"], s["broker"], s["name"]) == (False, "memory://", "/tmp/x.sqlite3")
    assert s["layer"] == "infra.channel_layer.PackingInMemoryChannelLayer"  # no REDIS_URL: still in-process
    assert (s["bot_delay"], s["hand_pause"]) == (None, None)  # games/conf.py defaults apply
    s = load(subprocess_env, GAMES_BOT_DELAY="0,0.25", GAMES_HAND_PAUSE="1.5")
    assert (s["bot_delay"], s["hand_pause"]) == ([0.0, 0.25], 1.5)


def test_forwarded_proto_trusted_only_behind_a_proxy(subprocess_env: dict[str, str]) -> None:
    """X-Forwarded-Proto is the client's own header unless a proxy (nginx) sets it: trusted only when
    TRUST_PROXY_HEADERS says the site is behind one (deploy/gin.env.example), never by default."""
    production = {"DATABASE_URL": "postgres://gin:pw@db.internal:5432/gin", "SECRET_KEY": "k" * 60}
    assert load(subprocess_env, **production)["proxy_ssl"] is None
    assert load(subprocess_env, **production, TRUST_PROXY_HEADERS="0")["proxy_ssl"] is None
    trusted = load(subprocess_env, **production, TRUST_PROXY_HEADERS="1")["proxy_ssl"]
    assert trusted == ["HTTP_X_FORWARDED_PROTO", "https"]
    example = (ROOT / "deploy/gin.env.example").read_text().splitlines()
    assert "TRUST_PROXY_HEADERS=1" in example


def test_bad_boolean_is_refused(subprocess_env: dict[str, str]) -> None:
    completed = subprocess.run(
        [sys.executable, "-c", DUMP],
        cwd=ROOT,
        env={**subprocess_env, "DEBUG": "maybe"},
        capture_output=True,
        text=True,
    )
    assert completed.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in completed.stderr


@pytest.mark.django_db
def test_live_postgres_profile_connects(postgres_url: str, subprocess_env: dict[str, str]) -> None:
    check = (
        "import django; django.setup(); from django.db import connection; "
        "connection.ensure_connection(); print(connection.vendor)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", check],
        cwd=ROOT,
        env={**subprocess_env, "DATABASE_URL": postgres_url},
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "postgresql"


def test_channel_layer_read_timeout_outlasts_the_blocking_pop() -> None:
    """redis-py 8's default 5 s read timeout equals channels_redis's 5 s blocking pop, which closed every
    idle socket (issue 8): ours must stay above the pop of the installed channels_redis."""
    from channels_redis.core import RedisChannelLayer
    from django.conf import settings

    assert RedisChannelLayer.brpop_timeout + 5 <= settings.CHANNEL_LAYER_SOCKET_TIMEOUT
