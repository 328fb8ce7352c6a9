"""A friend table in a real browser (chromium, Daphne subprocess), at 1280 px and at a 390 x 844 phone,
in English and pt-BR: the form's Rated checkbox sits on its label's line; a visitor joins by the
invitation link in one click; the waiting table names its turn timer.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from games import services
from tests.browser_pages import CHECKBOX_ON_ITS_LINE, LANGUAGES, WIDTHS, log_in, make_user, open_table, sized

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_rated_checkbox_sits_on_its_labels_line(daphne_server: Any, contexts: Any, locale: str) -> None:
    make_user("rita")
    for width in WIDTHS:
        page = sized(contexts, width, locale)
        log_in(page, daphne_server.url, "rita", locale)
        page.goto(daphne_server.url + "/play/friend/")
        got = page.evaluate(CHECKBOX_ON_ITS_LINE, "[data-testid=rated-switch]")
        assert got["text"] == ("Valendo rating" if locale == "pt-BR" else "Rated"), got
        assert got["lines"] == 1 and got["middleInLine"] and got["leftOfText"], (width, got)
        assert got["boxWidth"] < 40, (width, got)  # a checkbox, not a field-wide input
        page.screenshot(path=f"/tmp/rated-{width}-{locale}.png")
        page.close()


@pytest.mark.parametrize("locale", LANGUAGES)
def test_a_visitor_joins_a_friend_table_by_link_in_one_click(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """"Play as a guest" on the invitation page makes the guest AND takes the seat: no second click."""
    from games.models import Match, MatchStatus

    host = make_user("hugo")
    for width in WIDTHS:
        table = services.table_create(user=host, rules_preset="classic", target=100, turn_timer=None)
        page = contexts(width, locale)
        page.goto(f"{daphne_server.url}/t/{table.invite_token}/")
        page.get_by_test_id("join-as-guest").click()
        page.wait_for_url(re.compile(rf".*/match/{table.pk}/$"))
        page.wait_for_function("document.querySelectorAll('#my-hand button.card').length >= 10")
        joined = Match.objects.select_related("player1").get(pk=table.pk)
        assert joined.status == MatchStatus.ACTIVE and joined.player1 is not None and joined.player1.is_guest
        assert page.locator("#opp-name").inner_text() == "hugo"
        page.close()


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_waiting_table_names_its_turn_timer(daphne_server: Any, contexts: Any, locale: str) -> None:
    """A table waiting for the friend: "Turn timer: 60 s per move" (nothing left dangling after a
    colon), and "Turn timer: none" on a table without one."""
    host = make_user("tom")
    pt = locale == "pt-BR"
    timed = services.table_create(user=host, rules_preset="classic", target=100, turn_timer=60)
    untimed = services.table_create(user=host, rules_preset="classic", target=100, turn_timer=None,
                                    rated=False)  # a rated table always has a timer
    for width in WIDTHS:
        page = sized(contexts, width, locale)
        log_in(page, daphne_server.url, "tom", locale)
        for match, expected in ((timed, "Tempo por jogada: 60 s" if pt else "Turn timer: 60 s per move"),
                                (untimed, "Tempo por jogada: sem limite" if pt else "Turn timer: none")):
            open_table(page, daphne_server.url, match.pk)
            assert page.get_attribute("#table-app", "data-status") == "waiting"
            row = page.locator("#timer-row")
            assert row.is_visible()
            assert re.sub(r"\s+", " ", row.inner_text()).strip() == expected
        page.close()
