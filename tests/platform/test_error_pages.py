"""Styled, translated error pages (403/404/500 on the site layout) and a safe default when exposed.

Tests run with DEBUG off (pytest-django), as a site bound beyond loopback by ``scripts/serve`` does.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path

from config.urls import urlpatterns as site_urlpatterns

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


def forbidden_with_reason(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("You are not a player of this match.")


def forbidden_bare(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied


def crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("boom: secret internals")


urlpatterns = [
    path("test-403/", forbidden_with_reason),
    path("test-403-bare/", forbidden_bare),
    path("test-500/", crash),
    *site_urlpatterns,
]


def assert_on_site_layout(html: str) -> None:
    assert '<link rel="stylesheet" href="/static/web/site.css">' in html
    assert 'class="site-header"' in html and 'data-testid="error-page"' in html
    assert '<a class="button primary" href="/">' in html


def test_404_is_the_styled_page_not_the_url_list(client: Client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert [t.name for t in response.templates][:3] == ["404.html", "web/error_page.html", "web/base.html"]
    html = response.content.decode()
    assert_on_site_layout(html)
    assert "<title>Page not found · Gin Rummy</title>" in html
    assert "There is nothing at this address." in html
    assert "URLconf" not in html and "admin/" not in html and "Resolver404" not in html


def test_404_in_portuguese(client: Client) -> None:
    response = client.get("/no-such-page/", headers={"accept-language": "pt-BR"})
    html = response.content.decode()
    assert response.status_code == 404 and '<html lang="pt-br">' in html
    assert "<h1>Página não encontrada</h1>" in html and "Voltar à página inicial" in html


def test_403_from_permission_denied_shows_reason_on_layout(client: Client) -> None:
    response = client.get("/test-403/")
    assert response.status_code == 403
    html = response.content.decode()
    assert_on_site_layout(html)
    assert "<h1>This page is not for you</h1>" in html
    assert (
        '<p class="error-detail" data-testid="error-detail">You are not a player of this match.</p>' in html
    )


def test_403_without_reason_in_portuguese(client: Client) -> None:
    response = client.get("/test-403-bare/", headers={"accept-language": "pt-BR"})
    html = response.content.decode()
    assert response.status_code == 403 and "error-detail" not in html
    assert "<h1>Esta página não é para você</h1>" in html
    assert "só pode ser aberta pelos seus dois jogadores" in html


def test_500_is_styled_and_hides_the_exception() -> None:
    client = Client(raise_request_exception=False)
    response = client.get("/test-500/")
    assert response.status_code == 500
    html = response.content.decode()
    assert_on_site_layout(html)
    assert "<h1>Something went wrong on our side</h1>" in html
    assert "boom" not in html and "RuntimeError" not in html and "Traceback" not in html


def test_static_files_serve_with_debug_off(client: Client, settings) -> None:
    assert settings.DEBUG is False
    response = client.get("/static/web/site.css")
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    assert body == (ROOT / "platform/web/static/web/site.css").read_text()


def run_env_sh(snippet: str, **env: str) -> str:
    completed = subprocess.run(
        ["bash", "-c", f'source scripts/lib/env.sh; {snippet}'],
        cwd=ROOT, env={"PATH": "/usr/bin:/bin", **env}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return completed.stdout.strip()


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.0.1.1", True), ("localhost", True), ("::1", True), ("[::1]", True),
     ("0.0.0.0", False), ("192.168.1.20", False), ("::", False), ("gin.example.com", False)],
)  # fmt: skip
def test_serve_turns_debug_off_beyond_loopback(host: str, loopback: bool) -> None:
    shown = run_env_sh(f'debug_default_for_host "{host}"; echo "${{DEBUG-unset}}"')
    assert shown == ("unset" if loopback else "0")


def test_serve_keeps_an_explicit_debug() -> None:
    assert run_env_sh('debug_default_for_host 0.0.0.0; echo "$DEBUG"', DEBUG="1") == "1"
    assert run_env_sh('debug_default_for_host 127.0.0.1; echo "$DEBUG"', DEBUG="0") == "0"


def test_serve_script_applies_the_host_rule() -> None:
    serve = (ROOT / "scripts/serve").read_text()
    assert serve.index('debug_default_for_host "$HOST"') < serve.index('"$VENV/bin/daphne"')


@pytest.mark.parametrize(("language", "heading", "advice"), [
    ("en", "This form has expired", "reload the page and send it again. Nothing was changed."),
    ("pt-br", "Este formulário expirou", "recarregue a página e envie de novo. Nada foi alterado."),
])
def test_a_form_without_its_csrf_token_gets_the_site_page_in_the_reader_language(
        language: str, heading: str, advice: str) -> None:
    """Django's CSRF failure view renders ``403_csrf.html``: the site's layout and a way on, not the
    stock English page with its internal reason."""
    strict = Client(enforce_csrf_checks=True, headers={"accept-language": language})
    response = strict.post("/accounts/guest/")
    page = response.content.decode()
    assert response.status_code == 403
    assert 'data-testid="error-page"' in page and 'data-code="csrf"' in page
    assert heading in page and advice in page
    assert "CSRF" not in page  # the internal reason ("CSRF cookie not set.") is not shown
