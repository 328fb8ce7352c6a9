"""The "Write a bot" page in a browser under the production Content-Security-Policy: reached from the
footer, drawn without a CSP violation or a script error, in English and Brazilian Portuguese."""

from __future__ import annotations

import os
from typing import Any

import pytest

VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
    e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


@pytest.mark.browser
def test_the_write_bot_page_under_the_csp(daphne_server: Any, browser: Any, page: Any) -> None:
    """``page`` is requested only for its async-safety handling; the contexts here enforce the CSP."""
    from playwright.sync_api import expect

    for locale, language, title in (("en-US", "en", "Write a bot"), ("pt-BR", "pt-BR", "Escreva um robô")):
        context = browser.new_context(locale=locale, bypass_csp=False,
                                      extra_http_headers={"Accept-Language": language})
        tab = context.new_page()
        errors: list[str] = []
        tab.on("console", lambda msg, errors=errors: errors.append(msg.text) if msg.type == "error" else None)
        tab.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        tab.add_init_script(VIOLATIONS)
        tab.goto(daphne_server.url + "/")
        tab.get_by_test_id("footer-write-bot").click()
        tab.wait_for_url("**/developers/bots/")
        expect(tab.locator("h1")).to_have_text(title)
        expect(tab.get_by_test_id("tiny-bot")).to_contain_text("class HighestDeadwood:")
        expect(tab.get_by_test_id("notation").locator("tbody tr")).to_have_count(7)
        if os.environ.get("WRITE_BOT_SHOT"):  # a picture for a person checking the layout by hand
            tab.screenshot(path=f"{os.environ['WRITE_BOT_SHOT']}-{language}.png", full_page=True)
        assert tab.evaluate("window.__csp") == [] and errors == []
        context.close()
