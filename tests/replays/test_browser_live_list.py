"""``/watch/`` in a real browser (issue 22): reached from the header's "Watch live", at 1280 x 800 and at
a 390 x 844 phone, in English and pt-BR: every row (long names included) fits and the page never scrolls
sideways; a row's Watch link opens the match's live page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import LANGUAGES, LONG_A, PAGE_OVERFLOW, WIDTHS, sized
from tests.replays.test_live_list import active, board_of, member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_list_fits_a_phone_in_both_languages(daphne_server: Any, contexts: Any,
                                                 house_bots: list[Any]) -> None:
    rated = active(member(LONG_A, 1700), member("bea", 1600), rated=True)
    board = active(house_bots[3], house_bots[4], bot_level=4, bot_seats=[0, 1])
    board_of(board, name="Evening Cup with a rather long name for a phone")
    for width in WIDTHS:
        for locale in LANGUAGES:
            page = sized(contexts, width, locale)
            page.goto(daphne_server.url + "/")
            page.locator('[data-testid="nav-watch"]').click()
            page.wait_for_url(daphne_server.url + "/watch/")
            rows = page.locator('[data-testid="live-row"]')
            assert rows.count() == 2, (width, locale)
            ids = [rows.nth(i).get_attribute("data-match") for i in range(2)]
            assert ids == [str(rated.pk), str(board.pk)], (width, locale)
            heading = page.locator("h1").text_content()
            assert heading == ("Assistir ao vivo" if locale == "pt-BR" else "Watch live"), heading
            assert page.evaluate(PAGE_OVERFLOW) == [], (width, locale)
            watch = rows.nth(1).locator('[data-testid="live-watch"]')
            box = watch.bounding_box()
            assert box is not None and box["x"] + box["width"] <= width, (width, locale, box)
            page.screenshot(path=f"/tmp/watch-list-{width}-{locale}.png", full_page=True)
            if width == 390 and locale == "en-US":
                watch.click()
                page.wait_for_url(f"{daphne_server.url}/watch/{board.pk}/")
            page.close()
