"""Helpers of the browser tests (chromium on a Daphne subprocess: ``browser``, ``page``, ``contexts`` and
``daphne_server`` are fixtures of tests/conftest.py).

Players are created with the ORM (``make_user``: a member whose password is :data:`PASSWORD`) and log in
through the login page (``log_in``), or sign up through the sign-up page (``sign_up``); matches are made
by the services (the same calls the forms make), in another thread (``off_loop``) when a write
broadcasts, so a test goes straight to the screen it checks. ``open_table`` waits for the table page's
socket and first state; ``sized`` makes a page the height of a screen of its width; ``friend_tables``
opens one friend match in two players' pages.

``PAGE_OVERFLOW``, ``HEADER_TAPPABLE`` and ``CHECKBOX_ON_ITS_LINE`` are functions run in the page
(``page.evaluate``): what sticks out of the screen, which header control a tap would miss, where a
checkbox sits beside its label's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from accounts.models import User
from tests.factories import UserFactory

PASSWORD = "felt-green-42-knock"
WIDTHS = (1280, 390)
LANGUAGES = ("en-US", "pt-BR")
# 150 characters (the longest username Django allows), no space to break at.
LONG_A = ("Maximiliano" * 14)[:150]
LONG_B = ("Wolfeschlegelsteinhausen" * 7)[:150]
PHONE_HEIGHT = 844  # a 390 x 844 phone (iPhone 12-15)
HEIGHTS = {1280: 800, 390: PHONE_HEIGHT}


def make_user(username: str) -> User:
    """A member named ``username`` who logs in with :data:`PASSWORD`."""
    return UserFactory(username=username, password=PASSWORD)


def off_loop(call: Callable[[], Any]) -> Any:
    """Run a service call in another thread: a write's after-commit broadcast uses ``async_to_sync``,
    which refuses the thread where Playwright's event loop runs."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


def log_in(page: Any, base: str, username: str, locale: str) -> None:
    page.goto(base + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/$"))
    if locale.startswith("pt"):
        assert page.locator("html").get_attribute("lang") == "pt-br"


def open_table(page: Any, base: str, match_id: int) -> None:
    page.goto(f"{base}/match/{match_id}/")
    page.wait_for_function("document.getElementById('conn').classList.contains('down') === false"
                           " && document.getElementById('conn').textContent.length > 0")
    page.wait_for_function("document.getElementById('table-app').dataset.phase !== ''")


def sized(contexts: Any, width: int, locale: str) -> Any:
    """A page at ``width`` x the height of a screen that wide (:data:`HEIGHTS`)."""
    page = contexts(width, locale)
    page.set_viewport_size({"width": width, "height": HEIGHTS[width]})
    return page


def sign_up(page: Any, base: str, username: str) -> None:
    """Sign ``username`` up through the sign-up page (password :data:`PASSWORD`); lands on the home page."""
    page.goto(base + "/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(base + "/")


def friend_tables(daphne_server: Any, contexts: Any, width: int, locale: str,
                  **options: Any) -> tuple[Any, Any, Any]:
    """A friend table of ``hal`` joined by ``ivy`` (by default casual, Brazilian to 50, 90 s a move;
    ``options`` of ``services.table_create`` override), both players' pages open on it:
    ``(match, hal's page, ivy's page)``."""
    from games import services
    from games.models import Match

    host, friend = make_user("hal"), make_user("ivy")
    settings = {"rules_preset": "brazilian", "target": 50, "turn_timer": 90, "rated": False, **options}
    table = services.table_create(user=host, **settings)
    off_loop(lambda: services.table_join(user=friend, token=table.invite_token or ""))
    pages = []
    for user in (host, friend):
        page = contexts(width, locale)
        log_in(page, daphne_server.url, user.username, locale)
        open_table(page, daphne_server.url, table.pk)
        pages.append(page)
    return Match.objects.get(pk=table.pk), pages[0], pages[1]


def resign(page: Any) -> None:
    """Resign the match of the table on ``page``, confirming."""
    page.locator("#btn-resign").click()
    page.locator("#btn-resign-yes").click()


PAGE_OVERFLOW = """() => {
    const vw = document.documentElement.clientWidth;
    const out = [];
    for (const e of document.querySelectorAll('header *, main *, .messages *')) {
        const r = e.getBoundingClientRect();
        if (r.width && r.right > vw + 1 && !e.closest('.table-scroll')) {
            out.push(`${e.tagName}.${e.className}`);
        }
    }
    if (document.documentElement.scrollWidth > vw + 1) {
        out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
        for (const e of document.querySelectorAll('body *')) {
            const r = e.getBoundingClientRect();
            if (r.right > vw + 1) out.push(`${e.tagName}.${e.className}:${Math.round(r.width)}`);
        }
    }
    return out;
}"""


HEADER_TAPPABLE = """() => {
    const out = [];
    for (const e of document.querySelectorAll('header a, header button, header select')) {
        const r = e.getBoundingClientRect();
        if (!r.width) continue;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!hit || !(hit === e || e.contains(hit))) {
            out.push(`${e.textContent.trim()} covered by ${hit && hit.id}`);
        }
    }
    return out;
}"""


CHECKBOX_ON_ITS_LINE = """(sel) => {
    const box = document.querySelector(sel);
    const label = box.closest('label');
    const text = [...label.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim());
    const range = document.createRange();
    range.selectNodeContents(text);
    const lines = [...range.getClientRects()];
    const b = box.getBoundingClientRect();
    const t = lines[0];
    return {
        text: text.textContent.trim(), lines: lines.length,
        // the box's middle lies within the text's line, and the box is left of the text
        middleInLine: b.top + b.height / 2 > t.top && b.top + b.height / 2 < t.bottom,
        leftOfText: b.right <= t.left + 1, boxWidth: Math.round(b.width),
    };
}"""
