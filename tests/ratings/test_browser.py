"""Browser (chromium): a member plays a rated match against a bot to its end, sees the rating change on
the match-end screen, finds themself on the rankings and the point on their profile's chart."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser_pages import sign_up
from tests.fixtures import no_pauses
from tests.games.test_browser import act_and_wait, make_a_move, wait_for_turn_or_hand_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["no_pauses"]  # an autouse fixture (tests/fixtures.py)


def test_rated_bot_match_rating_change_rankings_and_profile(daphne_server: Any, page: Any) -> None:
    from accounts.services import house_bots_ensure
    from games.models import Match, MatchEvent
    from ratings.models import RatingChange

    house_bots_ensure()
    base = daphne_server.url
    errors: list[Any] = []
    page.on("pageerror", lambda error: errors.append(error))
    sign_up(page, base, "rita")

    page.get_by_role("navigation").get_by_role("link", name="Play a bot").click()
    # The picker shows the expected score of a new member (1500) against level 1 (924): 96 %.
    assert page.get_by_test_id("expected-1").inner_text() == "you: 96%"
    page.locator("#bot-panel label.choice", has_text="Beginner").click()
    # The form is casual by default (issue 22): this match asks for Rated.
    assert page.get_by_test_id("bot-casual").is_checked()
    assert not page.get_by_test_id("bot-rated").is_checked()
    page.get_by_test_id("bot-rated").check()
    page.get_by_test_id("start-bot-match").click()
    page.wait_for_url(re.compile(r".*/match/\d+/$"))
    page.wait_for_function("document.getElementById('conn').textContent === 'Connected'")
    match_id = int(re.search(r"/match/(\d+)/", page.url).group(1))
    # The table says it is rated and what leaving would cost, before it happens.
    assert page.get_by_test_id("rated-kind").inner_text() == "Rated"
    assert page.get_by_test_id("leave-note").inner_text() == (
        "Rated match: if you leave the table, your turn timer keeps running and plays for you; after 3 "
        "automatic moves in a row you lose the match on time, a rated loss.")

    # Move until both players have made a move of their own (else resigning would abort the match).
    def both_moved() -> bool:
        seats = set(MatchEvent.objects.filter(match_id=match_id, type="action", auto=False)
                    .values_list("seat", flat=True))
        return seats >= {0, 1}

    for _ in range(12):
        if both_moved():
            break
        if wait_for_turn_or_hand_end(page) == "result":
            page.locator("#result-continue").click()
            continue
        act_and_wait(page, lambda: make_a_move(page))
    page.wait_for_function("document.getElementById('table-app').dataset.busy === '0'")
    assert both_moved()

    page.locator("#btn-resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    end = page.locator("#match-end")
    end.wait_for()
    line = page.get_by_test_id("rating-change")
    line.wait_for()
    page.wait_for_function("!document.querySelector('[data-testid=rating-change]').classList.contains('pending')")
    match = Match.objects.get(pk=match_id)
    assert match.rated and match.status == "finished" and match.winner == 1
    change = RatingChange.objects.get(match_id=match_id)
    # 1500 vs 924, a loss with K 40: 40 * E = 40 * 0.9650 = -38.60 -> 1461.40, shown 1500 -> 1461 (-39).
    assert change.after == pytest.approx(1500 - 40 / (1 + 10 ** (-576 / 400)), abs=1e-9)
    assert line.inner_text() == "Rating: 1500 → 1461 (-39)"
    assert page.get_by_test_id("match-kind").inner_text() == "Rated match."

    # The rankings (from the header): a provisional player appears once the toggle is on, highlighted.
    page.get_by_role("navigation").get_by_role("link", name="Rankings").click()
    assert page.get_by_test_id("board-empty").is_visible()
    page.get_by_test_id("provisional-toggle").check()
    page.get_by_test_id("rankings-search").get_by_role("button", name="Search").click()
    me = page.locator("tr.me")
    assert me.get_attribute("data-username") == "rita"
    assert "1461" in me.inner_text()

    # The profile: one point on the chart, its hover title naming the match and the change.
    me.get_by_role("link", name="rita").click()
    page.wait_for_url(base + "/u/rita/")
    point = page.get_by_test_id("chart-point")
    assert point.count() == 1 and point.get_attribute("data-match") == str(match_id)
    point.hover()
    title = point.locator("title").text_content()
    assert f"Match {match_id} vs Bot 1" in title and "1500 → 1461 (-39)" in title
    # ratings/chart.js added the day (the server sends the time as a number), in the page's language.
    at = change.created_at
    assert title.endswith(f" · {at.month}/{at.day}/{at:%y}"), title
    assert page.get_by_test_id("profile-rating").inner_text().startswith("1461")
    assert errors == []
