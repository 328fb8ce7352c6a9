"""Reporting from the table in a real browser (chromium, Daphne subprocess): the "Report a player" button
is hidden while the match is in play, shows in the match-end card once it is over (table.js), and the
form it opens stores one report and says "received"."""

from __future__ import annotations

from typing import Any

import pytest

from fairplay.models import Report
from tests.browser_pages import friend_tables, resign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_report_from_the_table_once_the_match_is_over(daphne_server: Any, contexts: Any) -> None:
    match, hal, ivy = friend_tables(daphne_server, contexts, 1280, "en-US")
    assert ivy.locator("#report-link").is_hidden()
    resign(hal)
    ivy.get_by_test_id("rematch-offer").wait_for()
    link = ivy.locator("#report-link")
    assert link.is_visible()
    assert link.get_attribute("href") == f"/report/match/{match.pk}/?from=table"
    link.click()
    ivy.get_by_test_id("report-form").wait_for()
    assert ivy.get_by_label("hal").is_checked()  # the opponent, preselected
    ivy.get_by_label("Losing on purpose (sandbagging)").check()
    ivy.get_by_label("Comment (optional)").fill("Resigned at once, every time.")
    ivy.get_by_test_id("report-send").click()
    ivy.get_by_test_id("report-received").wait_for()
    rows = list(Report.objects.values_list("reporter__username", "reported__username", "reason", "place",
                                           "match_id", "comment"))
    assert rows == [("ivy", "hal", "sandbagging", "table", match.pk, "Resigned at once, every time.")]
