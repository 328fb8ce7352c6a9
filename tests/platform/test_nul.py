"""NUL (U+0000) in any text a request carries is refused with a specific answer, never a 500.

PostgreSQL text cannot hold NUL (``DataError``), so these matter on the production profile: CI runs them
on PostgreSQL (``DATABASE_URL``). Path: 404; query string: 400; cookie: ignored; form field: form error.
"""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.services import guest_create

PASSWORD = "felt-green-42-knock"
pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path", ["/t/%00/", "/t/abc%00def/", "/match/1%00/", "/admin/accounts/user/%00/change/"]
)
def test_nul_in_the_path_is_404(client: Client, path: str) -> None:
    client.force_login(User.objects.create_superuser("root", password=PASSWORD))
    response = client.get(path)
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()  # the site's 404 page


def test_nul_in_the_path_is_404_in_portuguese_too(client: Client) -> None:
    response = client.get("/t/%00/", HTTP_ACCEPT_LANGUAGE="pt-br")
    assert response.status_code == 404
    assert "Página não encontrada" in response.content.decode()


def test_nul_in_the_query_string_is_400_in_portuguese_too(client: Client) -> None:
    response = client.get("/?q=%00", HTTP_ACCEPT_LANGUAGE="pt-br")
    assert response.status_code == 400 and "Requisição inválida" in response.content.decode()


def test_nul_posting_to_a_join_path_is_404_and_changes_nothing(client: Client) -> None:
    client.force_login(guest_create())
    assert client.post("/t/%00/").status_code == 404


@pytest.mark.parametrize(
    "url", ["/?q=%00", "/admin/accounts/user/?q=%00", "/admin/accounts/user/?username=a%00", "/?%00=1"]
)
def test_nul_in_the_query_string_is_400(client: Client, url: str) -> None:
    client.force_login(User.objects.create_superuser("root", password=PASSWORD))
    response = client.get(url)
    assert response.status_code == 400
    assert "This address could not be read" in response.content.decode()


def test_a_session_cookie_with_nul_is_ignored(client: Client) -> None:
    # Python's cookie parser turns the quoted octal escape into a real NUL.
    response = client.get(reverse("home:home"), HTTP_COOKIE='sessionid="\\000aaaaaaaaaaaaaaaa"; x=1')
    assert response.status_code == 200
    assert response.wsgi_request.COOKIES == {"x": "1"}
    assert response.wsgi_request.user.is_anonymous


@pytest.mark.parametrize("field", ["username", "password"])
@pytest.mark.parametrize("url", ["accounts:login", "admin:login"])
def test_nul_in_a_login_field_is_a_form_error(client: Client, field: str, url: str) -> None:
    User.objects.create_user("ana", password=PASSWORD, is_staff=True)
    data = {"username": "ana", "password": PASSWORD, field: "ana\x00"}
    response = client.post(reverse(url), data)
    assert response.status_code == 200
    assert "Null characters are not allowed." in str(response.context["form"].errors[field])
    assert "_auth_user_id" not in client.session
    assert not AccessAttempt.objects.exists()  # never reached authentication


@pytest.mark.parametrize("field", ["username", "password1"])
def test_nul_in_a_signup_field_is_a_form_error(client: Client, field: str) -> None:
    data = {"username": "ana", "password1": PASSWORD, "password2": PASSWORD, field: "x\x00" + PASSWORD}
    response = client.post(reverse("accounts:signup"), data)
    assert response.status_code == 200 and field in response.context["form"].errors
    assert not User.objects.exists()


def test_nul_in_a_create_form_field_is_a_form_error(client: Client) -> None:
    client.force_login(guest_create())
    response = client.post(reverse("games:new_friend_table"), {"preset": "classic\x00", "target": "100"})
    assert response.status_code == 400 and "preset" in response.context["form"].errors
    response = client.post(
        reverse("games:new_friend_table"), {"preset": "classic", "target": "100", "turn_timer": "30\x00"}
    )
    assert response.status_code == 400 and "turn_timer" in response.context["form"].errors


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize(("language", "reason"), [
    ("en", "The address&#x27;s query string contains a NUL character (%00), which no page accepts: remove "
           "it from the link."),
    ("pt-br", "A query string do endereço contém um caractere NUL (%00), que nenhuma página aceita: "
              "remova-o do link."),
])
def test_nul_in_the_query_string_says_so_on_the_400_page(
        client: Client, settings: object, debug: bool, language: str, reason: str) -> None:
    settings.DEBUG = debug  # type: ignore[attr-defined]
    response = client.get("/rankings/?q=%00", headers={"accept-language": language})
    html = response.content.decode()
    assert response.status_code == 400 and 'data-testid="error-page"' in html
    assert f'<p class="error-reason" data-testid="error-reason">{reason}</p>' in html
    assert "Traceback" not in html
