"""Browser (chromium): the resign confirmation tells what resigning now costs (docs/ratings.md "Aborts"):
a free abort while some are left, a rated loss once the player's free aborts of the last 24 hours are
used; and the server decides the same way."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser_pages import sign_up
from tests.fixtures import no_pauses

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["no_pauses"]  # an autouse fixture (tests/fixtures.py)


def test_the_resign_confirmation_says_what_it_costs(daphne_server: Any, page: Any) -> None:
    from accounts.models import User
    from accounts.services import house_bots_ensure
    from games import services
    from games.models import Match

    house_bots_ensure()
    base = daphne_server.url
    errors: list[Any] = []
    page.on("pageerror", lambda error: errors.append(error))
    sign_up(page, base, "rita")
    rita = User.objects.get(username="rita")

    def open_table() -> Match:
        match = services.match_create_vs_bot(user=rita, level=1, rules_preset="classic", target=100)
        page.goto(f"{base}/match/{match.pk}/")
        page.wait_for_function("document.getElementById('conn').textContent === 'Connected'")
        page.locator("#btn-resign").click()
        return match

    match = open_table()
    assert page.get_by_test_id("resign-question").inner_text() == (
        "Resign now? Not both players have moved yet, so the match is aborted: no winner, not rated. "
        "Free aborts left in the last 24 hours: 3 of 3.")
    page.get_by_role("button", name="Yes, resign").click()
    page.locator("#match-end").wait_for()
    assert Match.objects.get(pk=match.pk).status == "aborted"
    for _ in range(2):  # two more free aborts (from another tab, say)
        other = services.match_create_vs_bot(user=rita, level=1, rules_preset="classic", target=100)
        services.match_resign(match_id=other.pk, user=rita)

    match = open_table()
    assert page.get_by_test_id("resign-question").inner_text() == (
        "Resign this match? You have used your 3 free aborts of the last 24 hours: this is a resignation, "
        "your opponent wins and it counts as a rated loss.")
    page.get_by_role("button", name="Yes, resign").click()
    page.locator("#match-end").wait_for()
    page.get_by_test_id("rating-change").wait_for()
    done = Match.objects.get(pk=match.pk)
    assert (done.status, done.result_reason, done.winner, done.rated) == ("finished", "resign", 1, True)
    assert not errors
    assert re.search(r"/match/\d+/$", page.url)
