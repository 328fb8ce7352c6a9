"""Browser tests (two separate browser contexts: two strangers) of open and direct challenges.

1. One guest watches the lobby; another opens a challenge; it appears in the first one's list without a
   reload; the first accepts, and both pages land on the same table.
2. A member challenges another from their profile; the other, on an unrelated page, gets the notice live
   with a countdown, accepts, and both land on the same table.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.models import Match

pytestmark = [pytest.mark.browser]

TABLE = re.compile(r".*/match/(\d+)/$")


def _second_page(browser: Any) -> tuple[Any, Any]:
    context = browser.new_context(locale="en-US", bypass_csp=True)
    return context, context.new_page()


def test_open_challenge_appears_live_and_accepting_seats_both(
    daphne_server: Any, page: Any, browser: Any
) -> None:
    base = daphne_server.url
    context, watcher = _second_page(browser)
    try:
        creator = page
        for p in (creator, watcher):
            p.goto(base + "/")
            p.get_by_test_id("play-as-guest").click()
        watcher.get_by_role("navigation").get_by_role("link", name="Lobby").click()
        watcher.wait_for_url(base + "/lobby/")
        assert watcher.get_by_test_id("seeks-empty").is_visible()
        watcher.wait_for_selector("#seeks[data-live='1']")  # its socket has sent the list

        creator.goto(base + "/lobby/")
        creator.select_option("#seek-timer", "30")
        creator.get_by_test_id("seek-create").click()
        creator.wait_for_url(base + "/lobby/")
        creator.wait_for_selector("[data-testid=seek] [data-testid=seek-cancel]")  # its own row: Cancel

        row = watcher.locator("[data-testid=seek]")
        row.wait_for()  # appeared without a reload
        assert not watcher.get_by_test_id("seeks-empty").is_visible()
        assert "30 s" in row.inner_text() and "Casual" in row.inner_text()
        watcher.get_by_test_id("seek-accept").click()
        watcher.wait_for_url(TABLE)
        creator.wait_for_url(TABLE)  # sent by its lobby socket
        assert creator.url == watcher.url
        match_id = int(TABLE.match(watcher.url).group(1))  # type: ignore[union-attr]
        match = Match.objects.get(pk=match_id)
        assert (match.status, match.rated, match.turn_timer_seconds) == ("active", False, 30)
        for p in (creator, watcher):
            p.wait_for_function("document.getElementById('table-app').dataset.status === 'active'")
    finally:
        context.close()


def _log_in(page: Any, base: str, username: str) -> None:
    page.goto(base + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-for-tests-1")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/$"))
    assert page.get_by_test_id("who").inner_text() == username


def test_profile_challenge_notice_on_any_page_and_accept(
    daphne_server: Any, page: Any, browser: Any, django_user_model: Any
) -> None:
    base = daphne_server.url
    for name in ("rui", "sol"):
        django_user_model.objects.create_user(username=name, password="pw-for-tests-1")
    context, challenged = _second_page(browser)
    try:
        challenger = page
        _log_in(challenger, base, "rui")
        _log_in(challenged, base, "sol")
        challenged.goto(base + "/rules/")  # any page of the site
        challenged.wait_for_selector("#notices[data-live='1']", state="attached")  # its socket is open

        challenger.goto(base + "/u/sol/")
        challenger.locator("[data-testid=challenge-box] summary").click()
        challenger.get_by_test_id("challenge-rated").uncheck()
        challenger.get_by_test_id("send-challenge").click()
        challenger.wait_for_url(base + "/u/sol/")
        assert "Challenge sent to sol" in challenger.locator(".messages").inner_text()
        challenger.get_by_test_id("challenge-sent").wait_for()  # its own notice: waiting

        notice = challenged.get_by_test_id("challenge-notice")
        notice.wait_for()
        assert "rui challenges you" in notice.inner_text()
        seconds = int(re.search(r"(\d+) s", notice.get_by_test_id("notice-countdown").inner_text()).group(1))  # type: ignore[union-attr]
        assert 40 <= seconds <= 60
        notice.get_by_test_id("notice-accept").click()
        challenged.wait_for_url(TABLE)
        challenger.wait_for_url(TABLE)
        assert challenger.url == challenged.url
    finally:
        context.close()
