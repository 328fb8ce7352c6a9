"""A replay page of a player with a 150-character username (issue 13, third trial), in a real browser at
1280 x 800 and at a 390 x 844 phone: the subtitle ("name – Bot 1 · Beginner · 51–27") cuts the name
with an ellipsis, the full name in its title, and the page never scrolls sideways."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import (
    LONG_A,
    PAGE_OVERFLOW,
    WIDTHS,
    log_in,
    make_user,
    off_loop,
    sized,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_long_name_in_the_replay_subtitle_is_cut_and_the_page_fits(
    daphne_server: Any, contexts: Any, finished_match: Any
) -> None:
    user = make_user(LONG_A)
    match = off_loop(lambda: finished_match("classic", user=user))
    for width in WIDTHS:
        page = sized(contexts, width, "en-US")
        log_in(page, daphne_server.url, LONG_A, "en-US")
        page.goto(f"{daphne_server.url}/replay/{match.pk}/")
        page.wait_for_function("document.getElementById('replay-players').textContent.length > 0")
        subtitle = page.locator("#replay-players")
        text = subtitle.text_content() or ""
        assert text.startswith(LONG_A) and text.endswith(f"{match.scores[0]}–{match.scores[1]}"), text
        assert page.evaluate(PAGE_OVERFLOW) == [], width
        names = page.locator("#replay-players .player-name")
        assert names.count() == 2 and names.first.get_attribute("title") == LONG_A
        cut = names.first.evaluate("(e) => e.scrollWidth > e.clientWidth && getComputedStyle(e).textOverflow")
        assert cut == "ellipsis", (width, cut)
        box = subtitle.bounding_box()
        assert box is not None and box["height"] < 60, (width, box)  # one line (or two), not a wall
        assert page.evaluate(PAGE_OVERFLOW) == [], width
        page.screenshot(path=f"/tmp/t13/replay-{width}.png")
        page.close()
