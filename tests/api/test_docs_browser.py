"""The API docs page (Swagger UI, self-hosted) works under the production Content-Security-Policy, in
both languages, and the site's footer links to it."""

from __future__ import annotations

from typing import Any

import pytest

VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
    e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


@pytest.mark.browser
def test_docs_page_under_the_csp(daphne_server: Any, browser: Any, page: Any) -> None:
    """``page`` is requested only for its async-safety handling; the context here enforces the CSP."""
    import urllib.request

    from playwright.sync_api import expect

    headers = urllib.request.urlopen(daphne_server.url + "/api/docs/").headers
    assert "script-src 'self'" in headers["Content-Security-Policy"]  # the production profile's policy
    context = browser.new_context(locale="en-US", bypass_csp=False)
    docs = context.new_page()
    errors: list[str] = []
    docs.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    docs.on("pageerror", lambda exc: errors.append(str(exc)))
    docs.add_init_script(VIOLATIONS)
    docs.goto(daphne_server.url + "/")
    docs.get_by_test_id("footer-api").click()
    docs.wait_for_url("**/api/docs/")
    expect(docs.locator(".api-docs-header h1")).to_have_text("Public API")
    # Swagger UI ran (its scripts from /static/, its start-up script from ?script=) and drew the schema.
    expect(docs.locator('.opblock-summary-path[data-path="/api/v1/rankings/"]')).to_be_visible()
    expect(docs.locator(".opblock-summary-path", has_text="/api/v1/lobby/seeks/")).to_be_visible()
    paths = docs.locator(".opblock-summary-path")
    bot_paths = paths.filter(has_text="/api/v1/bot/")
    assert paths.count() - bot_paths.count() == 15  # pools, challenges, clubs, BOT ranking too
    # Every public operation is a read needing nothing (issue 22 item 7): a lock icon only on the bot API's
    # operations (docs/bot-api.md: its token), and one "Authorize" button for that token.
    assert bot_paths.count() >= 2  # its two streams at least (botapi.schema.add_bot_api)
    assert docs.locator(".opblock .authorization__btn").count() == bot_paths.count()
    assert docs.locator(".auth-wrapper .authorize").count() == 1
    docs.locator(".opblock-summary-path", has_text="/api/v1/bots/").click()
    docs.get_by_role("button", name="Try it out").click()
    docs.get_by_role("button", name="Execute").click()
    expect(docs.locator(".live-responses-table tbody .response-col_status").first).to_have_text("200")
    assert docs.evaluate("window.__csp") == [] and errors == []
    context.close()

    pt = browser.new_context(
        locale="pt-BR", bypass_csp=False, extra_http_headers={"Accept-Language": "pt-BR"}
    )
    pt_page = pt.new_page()
    pt_page.goto(daphne_server.url + "/")
    expect(pt_page.get_by_test_id("footer-api")).to_have_text("API pública")
    pt_page.goto(daphne_server.url + "/api/docs/")
    expect(pt_page.locator(".api-docs-header h1")).to_have_text("API pública")
    expect(pt_page.get_by_test_id("api-schema-link")).to_have_text("Esquema OpenAPI 3")
    pt.close()
