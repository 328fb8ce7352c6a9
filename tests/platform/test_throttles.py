"""HTTP throttles: log-in lockouts per username and per IP (django-axes, site and admin), guest creation
and sign-up per IP (cache windows), their 429 pages, and the sign-up double submit."""

from __future__ import annotations

import secrets
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse

from accounts import views
from accounts.models import User
from accounts.services import guest_convert, guest_create

PASSWORD = "felt-green-42-knock"
LIMIT = 10  # settings.AXES_FAILURE_LIMIT
ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def login(username: str, password: str, ip: str = "10.0.0.1", path: str = "accounts:login", **extra: str):
    return Client(REMOTE_ADDR=ip, **extra).post(reverse(path), {"username": username, "password": password})


def age_attempts(minutes: float) -> None:
    """Move every counted failure ``minutes`` into the past (as if that much time had passed)."""
    for attempt in AccessAttempt.objects.all():
        attempt.attempt_time -= timedelta(minutes=minutes)
        attempt.save(update_fields=["attempt_time"])


def test_account_is_locked_after_the_limit_even_with_the_right_password_then_cools_off() -> None:
    User.objects.create_user("ana", password=PASSWORD)
    started = time.monotonic()
    for i in range(LIMIT - 1):  # from different addresses: the per-account count catches them
        assert login("ana", f"wrong-{i}", ip=f"10.0.1.{i}").status_code == 200
    assert login("ana", "wrong-last", ip="10.0.1.99").status_code == 429  # the LIMIT-th failure locks
    refused = login("ana", PASSWORD, ip="10.0.2.1")
    assert refused.status_code == 429
    assert "Too many wrong passwords" in refused.content.decode()
    assert "Try again in 15 minutes." in refused.content.decode()
    # The lockout ends 15 minutes after the OLDEST of the 10 counted failures (then only 9 are counted).
    assert 900 - (time.monotonic() - started) - 1 <= int(refused["Retry-After"]) <= 900
    assert "_auth_user_id" not in refused.client.session
    age_attempts(10)
    assert login("ana", PASSWORD, ip="10.0.2.1").status_code == 429  # 5 minutes left
    assert "Try again in 5 minutes." in login("ana", PASSWORD, ip="10.0.2.1").content.decode()
    age_attempts(6)
    accepted = login("ana", PASSWORD, ip="10.0.2.1")
    assert accepted.status_code == 302 and accepted.url == reverse("home:home")


def test_failures_during_a_lockout_do_not_extend_it() -> None:
    User.objects.create_user("ana", password=PASSWORD)
    for i in range(LIMIT):
        login("ana", f"wrong-{i}", ip=f"10.0.1.{i}")
    age_attempts(14)
    for i in range(20):  # the attacker keeps going through the lockout
        assert login("ana", f"again-{i}", ip=f"10.0.3.{i}").status_code == 429
    age_attempts(1.5)
    assert login("ana", PASSWORD, ip="10.0.2.1").status_code == 302


def test_an_address_is_locked_across_usernames_and_others_are_not() -> None:
    User.objects.create_user("ana", password=PASSWORD)
    for i in range(LIMIT):  # spraying many names from one address
        login(f"nobody{i}", "wrong", ip="10.0.9.9")
    assert login("ana", PASSWORD, ip="10.0.9.9").status_code == 429
    assert login("ana", PASSWORD, ip="10.0.9.10").status_code == 302


def test_admin_login_shares_the_lockout() -> None:
    User.objects.create_superuser("root", password=PASSWORD)
    for i in range(LIMIT - 1):
        assert login("root", f"wrong-{i}", ip=f"10.0.1.{i}", path="admin:login").status_code == 200
    assert login("root", "wrong-last", ip="10.0.1.99", path="admin:login").status_code == 429
    refused = login("root", PASSWORD, ip="10.0.5.5", path="admin:login")
    assert refused.status_code == 429 and "Retry-After" in refused
    assert login("root", PASSWORD, ip="10.0.5.5").status_code == 429  # and the site's log-in too


def test_lockout_page_is_translated() -> None:
    User.objects.create_user("ana", password=PASSWORD)
    for i in range(LIMIT):
        login("ana", f"wrong-{i}", ip=f"10.0.1.{i}")
    refused = login("ana", PASSWORD, HTTP_ACCEPT_LANGUAGE="pt-br")
    text = refused.content.decode()
    assert refused.status_code == 429
    assert "Senhas erradas demais para esta conta ou a partir da sua rede." in text
    assert "Tente de novo em 15 minutos." in text


@override_settings(ACCOUNTS_GUEST_RATE="3/h")
def test_guest_creation_is_throttled_per_address() -> None:
    for _ in range(3):
        assert Client(REMOTE_ADDR="10.0.7.1").post(reverse("accounts:guest")).status_code == 302
    refused = Client(REMOTE_ADDR="10.0.7.1").post(reverse("accounts:guest"))
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 3600
    assert "Too many guest accounts were created from your network." in refused.content.decode()
    assert "_auth_user_id" not in refused.client.session
    assert User.objects.filter(is_guest=True).count() == 3
    assert Client(REMOTE_ADDR="10.0.7.2").post(reverse("accounts:guest")).status_code == 302


@override_settings(ACCOUNTS_SIGNUP_RATE="2/h")
def test_signup_is_throttled_per_address_counting_valid_submissions_only() -> None:
    def signup(name: str, password2: str = PASSWORD):
        return Client(REMOTE_ADDR="10.0.8.1").post(
            reverse("accounts:signup"), {"username": name, "password1": PASSWORD, "password2": password2}
        )

    assert signup("ana", password2="typo").status_code == 200  # a form error is not counted
    assert signup("ana").status_code == 302
    assert signup("bia").status_code == 302
    refused = signup("caio")
    assert refused.status_code == 429
    assert "Too many accounts were signed up from your network." in refused.content.decode()
    assert sorted(User.objects.values_list("username", flat=True)) == ["ana", "bia"]


def test_default_rates_are_the_documented_ones(settings) -> None:
    assert (settings.ACCOUNTS_GUEST_RATE, settings.ACCOUNTS_SIGNUP_RATE) == ("30/h", "10/h")
    assert (10, timedelta(minutes=15)) == (settings.AXES_FAILURE_LIMIT, settings.AXES_COOLOFF_TIME)
    readme = (ROOT / "README.md").read_text()
    for text in ("30 guest accounts per hour", "10 sign-ups per hour", "10 failed log-ins", "15 minutes"):
        assert text in readme


SHARED_COUNTER = """
import django, sys
django.setup()
from django.conf import settings
from django.test import RequestFactory
from accounts.throttles import GUEST_GROUP, over_limit
settings.ACCOUNTS_GUEST_RATE = "3/h"
request = RequestFactory().post("/accounts/guest/", REMOTE_ADDR="10.0.6.1")
print(",".join(str(over_limit(request, group=GUEST_GROUP)) for _ in range(2)))
"""


@override_settings(ACCOUNTS_GUEST_RATE="3/h")
def test_guest_counter_is_shared_between_processes_through_redis(redis_url: str, tmp_path: Path) -> None:
    prefix = f"gin-test-{secrets.token_hex(6)}"
    redis_cache = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": prefix,
        }
    }
    env = {
        "PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}", "DJANGO_SETTINGS_MODULE": "config.settings",
        "REDIS_URL": redis_url, "CACHE_KEY_PREFIX": prefix, "GIN_VAR_DIR": str(tmp_path), "PATH": "/usr/bin",
    }
    with override_settings(CACHES=redis_cache):
        assert Client(REMOTE_ADDR="10.0.6.1").post(reverse("accounts:guest")).status_code == 302
        other = subprocess.run(
            [sys.executable, "-c", SHARED_COUNTER], env=env, capture_output=True, text=True, check=False
        )
        assert other.returncode == 0, other.stderr
        second, third = other.stdout.strip().split(",")
        assert (second, third) == ("None", "None")  # the other process counted 2 and 3 of 3
        assert Client(REMOTE_ADDR="10.0.6.1").post(reverse("accounts:guest")).status_code == 429


def test_a_guests_second_signup_submit_is_redirected_not_an_error(
    rf: RequestFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A double click: both requests loaded the guest and validated the form; the first converts it
    while the second waits on the row lock, then the second's conversion finds a member."""
    guest = guest_create()

    def first_submit_wins(**kwargs):
        guest_convert(user=User.objects.get(pk=guest.pk), username="ana", password=PASSWORD)
        return guest_convert(**kwargs)

    monkeypatch.setattr(views, "guest_convert", first_submit_wins)
    request = rf.post(
        reverse("accounts:signup"),
        {"username": "ana", "password1": PASSWORD, "password2": PASSWORD, "next": "/matches/"},
    )
    request.user = User.objects.get(pk=guest.pk)  # what the second request's middleware loaded
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    response = views.signup(request)
    assert response.status_code == 302 and response.url == "/matches/"
    assert not request.session.modified  # its session (deleted by the first's key cycle) is left alone
    ana = User.objects.get(pk=guest.pk)
    assert (ana.username, ana.is_guest) == ("ana", False) and ana.check_password(PASSWORD)
