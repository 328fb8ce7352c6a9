"""Leaving a match between people in a real browser (chromium, Daphne subprocess), two players in two
browser contexts: one closes the table; the other sees "Your opponent has left the table" with a
countdown, then the claim button, and claims: a rated match is won (and rated), a casual one ends without
a result. ``GAMES_CLAIM_AFTER`` is 8 s on this server (waits are for what the page shows, with generous
limits, never sleeps). Here the notice comes after 1 s and the claim after 12 s, so the countdown's words
("... you can claim the win in 9 seconds.") are read while it runs; after a rated claim the replay's header
says the opponent left (not a resignation)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import MatchStatus
from lobby.models import Playban
from tests.browser_pages import friend_tables

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


COUNTDOWN = {
    "en-US": (r"Your opponent has left the table\. If they are not back, you can claim the win in"
              r" (\d+) (\w+)\.",
              {"one": "second", "other": "seconds"}),
    "pt-BR": (r"Seu adversário saiu da mesa\. Se ele não voltar, você poderá encerrar a partida sem"
              r" resultado em (\d+) (\w+)\.", {"one": "segundo", "other": "segundos"}),
}


@pytest.mark.parametrize(("rated", "width", "locale", "button", "reason"), [
    (True, 1280, "en-US", "Claim the win", "ivy left the table: you claimed the win."),
    (False, 390, "pt-BR", "Encerrar sem resultado", "ivy saiu da mesa: a partida terminou sem resultado."),
])
def test_the_player_who_stays_claims_after_the_wait(
    daphne_server_factory: Any, contexts: Any, rated: bool, width: int, locale: str, button: str, reason: str
) -> None:
    server = daphne_server_factory(GAMES_CLAIM_AFTER="12", GAMES_GONE_NOTICE_AFTER="1")
    match, hal, ivy = friend_tables(server, contexts, width, locale, rules_preset="classic", target=100,
                                    turn_timer=600, rated=rated)
    box = hal.get_by_test_id("opponent-gone")
    # hal's table opened first: with a 1 s notice it may have shown ivy as gone until her table connected
    expect(box).to_be_hidden()
    ivy.close()  # ivy's only tab: her socket closes
    box.wait_for(state="visible")
    # the countdown reads naturally, its unit agreeing with the number (1 second, 2 seconds)
    pattern, units = COUNTDOWN[locale]
    counting = re.fullmatch(pattern, hal.locator("#opponent-gone-text").inner_text())
    assert counting is not None, hal.locator("#opponent-gone-text").inner_text()
    n = int(counting.group(1))
    assert 0 < n <= 12 and counting.group(2) == units["one" if n == 1 else "other"]
    claim = hal.get_by_test_id("claim")
    claim.wait_for(state="visible")
    assert claim.inner_text() == button
    assert box.is_visible() and box.bounding_box()["y"] < 900  # on the felt, on screen without scrolling
    hal.screenshot(path=f"/tmp/leaving-gone-{width}.png")
    claim.click()
    hal.wait_for_selector("#match-end:not([hidden])")
    assert reason in hal.locator("#match-end-body").inner_text()
    assert box.is_hidden()
    match.refresh_from_db()
    if rated:
        assert (match.status, match.winner, match.result_reason) == (MatchStatus.FINISHED, 0, "left")
        assert list(Playban.objects.values_list("user__username", "reason")) == [("ivy", "abandoned")]
        hal.goto(f"{server.url}/replay/{match.pk}/")
        assert hal.get_by_test_id("replay-end").inner_text() == " · ivy left the table: hal claimed the win."
    else:
        assert (match.status, match.winner, match.result_reason) == (MatchStatus.ABORTED, None, "abandoned")
        assert not Playban.objects.exists()
    hal.screenshot(path=f"/tmp/leaving-claim-{width}.png")
