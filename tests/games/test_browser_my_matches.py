"""My matches in a real browser (chromium, Daphne subprocess), at 1280 px and 390 px, in English and
pt-BR: a casual match ended from the list shows as abandoned there and on its table.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser_pages import (
    HEADER_TAPPABLE,
    LANGUAGES,
    PAGE_OVERFLOW,
    WIDTHS,
    log_in,
    make_user,
    off_loop,
    open_table,
)
from tests.factories import BotMatchFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("locale", LANGUAGES)
def test_a_casual_match_ended_from_my_matches_shows_as_abandoned(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    user = make_user("ines")
    pt = locale == "pt-BR"
    for width in WIDTHS:
        match = off_loop(lambda: BotMatchFactory(user=user, rated=False))
        page = contexts(width, locale)
        log_in(page, daphne_server.url, "ines", locale)
        page.goto(daphne_server.url + "/matches/")
        row = page.locator(f"tr:has(a[href='/match/{match.pk}/'])")
        row.get_by_test_id("end-match").click()
        page.wait_for_url(re.compile(r".*/matches/$"))
        assert row.locator(".result-tag").inner_text() == ("Abandonada" if pt else "Abandoned")
        assert row.get_by_test_id("end-match").count() == 0
        assert page.evaluate(PAGE_OVERFLOW) == []
        open_table(page, daphne_server.url, match.pk)
        page.wait_for_selector("#match-end:not([hidden])")
        title = page.locator("#match-end-title").inner_text()
        assert title == ("Partida abandonada" if pt else "Match abandoned")
        assert page.evaluate(HEADER_TAPPABLE) == []
        page.close()
