"""What a log-in request hands django-axes never makes a 500 (issue 20, finding 4).

django-axes stores each failed log-in in ``AccessAttempt``: ``username`` and ``user_agent`` are
``varchar(255)``, ``path_info`` ``varchar(255)``, ``http_accept`` ``varchar(1025)``, ``ip_address`` ``inet``,
``get_data``/``post_data`` text. Only PostgreSQL enforces those types (SQLite stores anything), so these tests
matter on the production profile: CI runs them on PostgreSQL (``DATABASE_URL``); the assertions on
``AccessAttempt`` make the username ones fail on today's code on SQLite too.
"""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.db import connection
from django.test import Client
from django.urls import reverse

from accounts.models import User

PASSWORD = "felt-green-42-knock"
pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client: Client) -> Client:
    client.raise_request_exception = False  # a 500 is an answer to assert on, not a test error
    return client


@pytest.mark.parametrize("url", ["accounts:login", "admin:login"])
@pytest.mark.parametrize("length", [151, 256, 5000])
def test_a_username_over_150_characters_is_a_form_error_and_never_recorded(
        client: Client, url: str, length: int) -> None:
    User.objects.create_user("ana", password=PASSWORD, is_staff=True)
    response = client.post(reverse(url), {"username": "a" * length, "password": PASSWORD})
    assert response.status_code == 200
    assert response.context["form"].errors["username"] == [
        f"A username has at most 150 characters (this one has {length})."
    ]
    assert not AccessAttempt.objects.exists()  # never reached authentication, nothing counted
    assert "_auth_user_id" not in client.session


def test_the_username_length_error_is_in_portuguese_too(client: Client) -> None:
    response = client.post(
        reverse("accounts:login"), {"username": "a" * 300, "password": PASSWORD},
        headers={"accept-language": "pt-br"},
    )
    assert response.status_code == 200
    assert response.context["form"].errors["username"] == [
        "Um nome de usuário tem no máximo 150 caracteres (este tem 300)."
    ]


@pytest.mark.parametrize("url", ["accounts:login", "admin:login"])
def test_a_150_character_username_still_logs_in_and_a_wrong_password_still_counts(
        client: Client, url: str) -> None:
    name = "b" * 150
    User.objects.create_user(name, password=PASSWORD, is_staff=True)
    response = client.post(reverse(url), {"username": name, "password": "wrong"})
    assert response.status_code == 200 and "username" not in response.context["form"].errors
    assert list(AccessAttempt.objects.values_list("username", "failures_since_start")) == [(name, 1)]
    response = client.post(reverse(url), {"username": name, "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(User.objects.get(username=name).pk)


@pytest.mark.parametrize(("headers", "extra", "stored"), [
    # 300 four-byte characters: axes keeps the first 255 characters (varchar counts characters).
    ({"user-agent": "\U0001F600" * 300}, {}, ("user_agent", "\U0001F600" * 255)),
    ({"accept": "x" * 5000}, {}, ("http_accept", "x" * 1025)),
    # Daphne's --proxy-headers copies X-Forwarded-For as sent: not an address, so no IP is recorded.
    ({}, {"REMOTE_ADDR": "not-an-ip"}, ("ip_address", None)),
    ({}, {"REMOTE_ADDR": ""}, ("ip_address", None)),
    ({}, {"REMOTE_ADDR": "2001:db8::1"}, ("ip_address", "2001:db8::1")),
])
def test_whatever_axes_records_of_a_request_fits_its_column(
        client: Client, headers: dict[str, str], extra: dict[str, str], stored: tuple[str, object]) -> None:
    response = client.post(
        reverse("accounts:login"), {"username": "ana", "password": "wrong", "next": "/x\x00" + "y" * 9000},
        headers=headers, **extra,
    )
    assert response.status_code == 200
    field, value = stored
    attempt = AccessAttempt.objects.get()
    assert (attempt.username, getattr(attempt, field)) == ("ana", value)
    assert "\x00" not in attempt.post_data  # axes writes a NUL as "0x00"
    # And the next attempt from the same client finds its row again (the lock-out lookup reads these).
    client.post(reverse("accounts:login"), {"username": "ana", "password": "wrong"}, headers=headers, **extra)
    assert AccessAttempt.objects.get().failures_since_start == 2


def test_these_run_on_postgresql_under_ci(skip_or_fail: object) -> None:
    """The column types above are only enforced by PostgreSQL: under CI this module must run there."""
    if connection.vendor != "postgresql":
        skip_or_fail("the log-in length tests need PostgreSQL to mean anything")  # type: ignore[operator]


def test_nginx_replaces_the_clients_x_forwarded_for() -> None:
    """Daphne's ``--proxy-headers`` takes the FIRST ``X-Forwarded-For`` entry as the client's address:
    nginx appending to the client's own header ($proxy_add_x_forwarded_for) let anyone choose their IP
    for every per-IP limit (and send one that is not an address). It sets it to $remote_addr."""
    from pathlib import Path

    conf = (Path(__file__).resolve().parents[2] / "deploy/nginx/gin.conf").read_text()
    assert "$proxy_add_x_forwarded_for" not in conf
    assert conf.count("proxy_set_header X-Forwarded-For $remote_addr;") == conf.count("proxy_pass ") == 2
