"""Sign up, log in, log out, play as guest, and guest -> member conversion (same row)."""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import Client, RequestFactory
from django.urls import reverse

from accounts.models import User
from accounts.services import AccountError, guest_convert, guest_create

PASSWORD = "felt-green-42-knock"
pytestmark = pytest.mark.django_db


def session_user_id(client: Client) -> int | None:
    raw = client.session.get(SESSION_KEY)
    return int(raw) if raw is not None else None


def test_signup_creates_member_and_logs_in(client: Client) -> None:
    response = client.post(
        reverse("accounts:signup"), {"username": "ana", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302 and response.url == reverse("home:home")
    ana = User.objects.get(username="ana")
    assert (ana.is_guest, ana.is_bot, ana.bot_level) == (False, False, None)
    assert ana.check_password(PASSWORD)
    assert session_user_id(client) == ana.pk
    assert "ana" in client.get(reverse("home:home")).content.decode()


def test_signup_with_mismatched_passwords_creates_nothing(client: Client) -> None:
    response = client.post(
        reverse("accounts:signup"), {"username": "ana", "password1": PASSWORD, "password2": PASSWORD + "x"}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["password2"]
    assert not User.objects.filter(username="ana").exists()
    assert session_user_id(client) is None


def test_signup_rejects_taken_username(client: Client) -> None:
    User.objects.create_user("ana", password=PASSWORD)
    response = client.post(
        reverse("accounts:signup"), {"username": "ana", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 200 and "username" in response.context["form"].errors
    assert User.objects.filter(username="ana").count() == 1


def test_login_and_logout(client: Client) -> None:
    ana = User.objects.create_user("ana", password=PASSWORD)
    bad = client.post(reverse("accounts:login"), {"username": "ana", "password": "wrong"})
    assert bad.status_code == 200 and session_user_id(client) is None
    good = client.post(reverse("accounts:login"), {"username": "ana", "password": PASSWORD})
    assert good.status_code == 302 and good.url == reverse("home:home")
    assert session_user_id(client) == ana.pk
    assert client.get(reverse("accounts:logout")).status_code == 405  # logging out needs a POST
    assert session_user_id(client) == ana.pk
    out = client.post(reverse("accounts:logout"))
    assert out.status_code == 302 and session_user_id(client) is None


def test_login_follows_safe_next_only(client: Client) -> None:
    User.objects.create_user("ana", password=PASSWORD)
    data = {"username": "ana", "password": PASSWORD}
    assert client.post(reverse("accounts:login") + "?next=/accounts/signup/", data).url == "/accounts/signup/"
    client.post(reverse("accounts:logout"))
    assert client.post(reverse("accounts:login") + "?next=https://evil.example/", data).url == reverse(
        "home:home"
    )


def test_play_as_guest_creates_and_logs_in_a_guest(client: Client) -> None:
    response = client.post(reverse("accounts:guest"), {"next": "/accounts/signup/"})
    assert response.status_code == 302 and response.url == "/accounts/signup/"
    guest = User.objects.get(pk=session_user_id(client))
    assert guest.is_guest and not guest.is_bot
    assert guest.username.startswith("guest-") and guest.display_name.startswith("Guest ")
    assert not guest.has_usable_password()
    page = client.get(reverse("home:home")).content.decode()
    assert guest.display_name in page and "Keep your history: sign up" in page


def test_play_as_guest_needs_post_and_csrf() -> None:
    strict = Client(enforce_csrf_checks=True)
    assert strict.get(reverse("accounts:guest")).status_code == 405
    assert strict.post(reverse("accounts:guest")).status_code == 403
    assert User.objects.count() == 0


def test_play_as_guest_when_logged_in_creates_nobody(client: Client) -> None:
    ana = User.objects.create_user("ana", password=PASSWORD)
    client.force_login(ana)
    client.post(reverse("accounts:guest"))
    assert User.objects.count() == 1 and session_user_id(client) == ana.pk


def test_guest_signup_converts_the_same_row_and_stays_logged_in(client: Client) -> None:
    client.post(reverse("accounts:guest"))
    guest_id = session_user_id(client)
    page = client.get(reverse("accounts:signup")).content.decode()
    assert "Keep your history" in page
    response = client.post(
        reverse("accounts:signup"), {"username": "ana", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302
    member = User.objects.get(pk=guest_id)
    assert (member.username, member.is_guest, member.display_name) == ("ana", False, "")
    assert member.check_password(PASSWORD)
    assert User.objects.count() == 1  # converted in place, no second row
    assert session_user_id(client) == guest_id  # still logged in after the password change
    assert client.get(reverse("home:home")).status_code == 200
    client.post(reverse("accounts:logout"))
    # django-axes' backend needs the request (for the client's address) to check lockouts.
    assert client.login(request=RequestFactory().post("/accounts/login/"), username="ana", password=PASSWORD)


def test_member_visiting_signup_is_sent_home(client: Client) -> None:
    client.force_login(User.objects.create_user("ana", password=PASSWORD))
    assert client.get(reverse("accounts:signup")).url == reverse("home:home")
    response = client.post(
        reverse("accounts:signup"), {"username": "bob", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.url == reverse("home:home") and not User.objects.filter(username="bob").exists()


def test_guest_convert_refuses_members_and_changes_nothing() -> None:
    ana = User.objects.create_user("ana", password=PASSWORD)
    with pytest.raises(AccountError):
        guest_convert(user=ana, username="ana2", password="x" * 12)
    ana.refresh_from_db()
    assert ana.username == "ana" and ana.check_password(PASSWORD)


def test_guest_create_makes_distinct_guests() -> None:
    first, second = guest_create(), guest_create()
    assert first.pk != second.pk and first.username != second.username
    assert len(first.username) == len("guest-") + 10
