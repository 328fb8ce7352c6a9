"""Security headers of the production profile (CSP, Permissions-Policy, HSTS behind HTTPS), the same at
the nginx edge (deploy/nginx/gin.conf), and a browser check that the CSP breaks nothing: the pages and
the live table work and the browser reports no CSP violation.

The live server (``daphne_server``) always runs the production profile: it gets ``DATABASE_URL``.
"""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
PERMISSIONS = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), "
    "payment=(), usb=()"
)
pytestmark = pytest.mark.django_db(transaction=True)


def policy(header: str) -> dict[str, list[str]]:
    """A CSP header as ``{directive: [sources...]}`` (django-csp does not keep the directives' order)."""
    parts = [part.split() for part in header.split(";") if part.strip()]
    return {part[0]: part[1:] for part in parts}


def get_headers(url: str, **headers: str) -> Any:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as response:
        return response.headers


def test_production_pages_carry_csp_and_permissions_policy_but_no_hsts_over_http(daphne_server: Any) -> None:
    for path in ("/", "/accounts/login/", "/static/web/site.css"):
        headers = get_headers(daphne_server.url + path)
        assert policy(headers["Content-Security-Policy"]) == policy(CSP), path
        assert headers["Permissions-Policy"] == PERMISSIONS, path
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "same-origin"
        assert headers.get("Strict-Transport-Security") is None  # plain HTTP: never


def test_hsts_behind_https(daphne_server_factory: Any) -> None:
    server = daphne_server_factory(SECURE_COOKIES="1", TRUST_PROXY_HEADERS="1")  # behind nginx
    headers = get_headers(server.url + "/", **{"X-Forwarded-Proto": "https"})
    assert headers["Strict-Transport-Security"] == "max-age=31536000"


def test_forwarded_proto_ignored_without_a_proxy(daphne_server_factory: Any) -> None:
    """scripts/serve without nginx: a client's own X-Forwarded-Proto makes nothing https."""
    server = daphne_server_factory(SECURE_COOKIES="1")
    headers = get_headers(server.url + "/", **{"X-Forwarded-Proto": "https"})
    assert "Strict-Transport-Security" not in headers


def nginx_headers() -> dict[str, str]:
    conf = (ROOT / "deploy/nginx/gin.conf").read_text()
    return dict(re.findall(r'^\s*add_header\s+([\w-]+)\s+"([^"]*)"\s+always;', conf, flags=re.M))


def test_nginx_sends_the_same_headers_once() -> None:
    conf = (ROOT / "deploy/nginx/gin.conf").read_text()
    headers = nginx_headers()
    assert headers["Content-Security-Policy"] == CSP
    assert headers["Permissions-Policy"] == PERMISSIONS
    assert headers["Strict-Transport-Security"] == "max-age=31536000"
    for name in ("Content-Security-Policy", "Permissions-Policy", "Strict-Transport-Security"):
        assert f"proxy_hide_header {name};" in conf  # Django's copy is dropped: one header each


VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
    e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


@pytest.mark.browser
def test_the_site_and_the_table_work_under_the_csp(daphne_server: Any, browser: Any, page: Any) -> None:
    """In its own context that enforces the CSP (the ``page`` fixture's ignores it; asked for only for
    its async-safety handling). Waits use locators (Playwright's selector engine), not
    wait_for_function: its polling uses eval, which this CSP (rightly) refuses."""
    from playwright.sync_api import expect

    from accounts.services import house_bots_ensure

    house_bots_ensure()
    context = browser.new_context(locale="en-US", bypass_csp=False)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script(VIOLATIONS)
    base = daphne_server.url

    page.goto(base + "/")
    assert page.evaluate("window.__csp") == []
    page.get_by_test_id("play-as-guest").click()
    page.get_by_role("navigation").get_by_role("link", name="Play a bot").click()
    assert page.evaluate("window.__csp") == []
    page.get_by_test_id("start-bot-match").click()
    page.wait_for_url(re.compile(r".*/match/\d+/$"))
    # The table's modules ran, its socket connected (connect-src) and the first state was drawn.
    expect(page.locator("#conn")).to_have_text("Connected")
    expect(page.locator("#table-app")).not_to_have_attribute("data-seq", re.compile(r"^0?$"))
    expect(page.locator("#my-hand button.card").first).to_be_visible()
    assert page.locator("#my-hand button.card").count() in (10, 11)
    assert page.evaluate("window.__csp") == []

    # The language picker (web/site.js, no inline handler) still switches on change.
    page.select_option("#lang-select", "pt-br")
    expect(page.locator("html")).to_have_attribute("lang", "pt-br")
    expect(page.locator("#my-hand button.card").first).to_be_visible()
    assert page.evaluate("window.__csp") == []
    assert [e for e in errors if "Content Security Policy" in e or "Refused" in e] == []
    context.close()
