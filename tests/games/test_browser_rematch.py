"""Rematch of a friend match in a real browser (chromium, Daphne subprocess), two players in two
browser contexts: one offers at the match's end, the other accepts and both land on the same new table;
or declines, and the offerer is told; a player who closed the table is shown as gone."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games import services
from games.models import Match
from tests.games.test_browser_polish import contexts, log_in, make_user, off_loop, open_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["contexts"]  # the fixture, used by name


def two_tables(daphne_server: Any, contexts: Any, width: int, locale: str, **options: Any) -> tuple[Any, ...]:
    """A friend table of ``hal`` joined by ``ivy`` (casual), both players' pages open on it."""
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
    page.locator("#btn-resign").click()
    page.locator("#btn-resign-yes").click()


def rematch_text(page: Any, text: str) -> None:
    page.wait_for_function(
        "(t) => document.querySelector('[data-testid=rematch-text]').textContent === t", arg=text
    )


def test_an_offer_accepted_takes_both_players_to_the_same_new_table(
    daphne_server: Any, contexts: Any
) -> None:
    old, hal, ivy = two_tables(daphne_server, contexts, 1280, "en-US")
    resign(ivy)
    for page in (hal, ivy):
        page.wait_for_selector("#match-end:not([hidden])")
        page.get_by_test_id("rematch-offer").wait_for()
    dealer = "you deal first" if old.first_dealer == 1 else "ivy deals first"  # hal's view: they alternate
    assert hal.get_by_test_id("rematch-note").inner_text().endswith(f"; {dealer}.")
    hal.get_by_test_id("rematch-offer").click()
    rematch_text(hal, "Rematch offered: waiting for ivy…")
    assert hal.get_by_test_id("rematch-cancel").is_visible()
    assert hal.get_by_test_id("rematch-offer").is_hidden()
    rematch_text(ivy, "hal offers you a rematch.")
    assert ivy.get_by_test_id("rematch-decline").is_visible()
    ivy.get_by_test_id("rematch-accept").dblclick()  # a double click makes one match
    for page in (hal, ivy):
        page.wait_for_url(re.compile(rf".*/match/(?!{old.pk}/)\d+/$"))
        page.wait_for_function("document.querySelectorAll('#my-hand button.card').length >= 10")
    new = Match.objects.get(rematch_of=old)
    assert hal.url == ivy.url == f"{daphne_server.url}/match/{new.pk}/"
    assert Match.objects.filter(rematch_of=old).count() == 1
    assert (new.preset, new.rules, new.turn_timer_seconds, new.rated) == ("brazilian", old.rules, 90, False)
    assert (new.player0_id, new.player1_id, new.first_dealer) == (old.player0_id, old.player1_id,
                                                                  1 - (old.first_dealer or 0))
    hal.screenshot(path="/tmp/rematch-new-table.png")


def test_a_declined_offer_is_told_and_a_player_who_left_is_shown_gone(
    daphne_server: Any, contexts: Any
) -> None:
    old, hal, ivy = two_tables(daphne_server, contexts, 390, "pt-BR")
    resign(hal)
    for page in (hal, ivy):
        page.get_by_test_id("rematch-offer").wait_for()
    ivy.get_by_test_id("rematch-offer").click()
    rematch_text(hal, "ivy propõe uma revanche.")
    note = hal.get_by_test_id("rematch-note").inner_text()
    assert note.startswith("Uma nova mesa com as mesmas regras, meta, tempo por jogada"), note
    hal.screenshot(path="/tmp/rematch-offer-390.png")
    hal.get_by_test_id("rematch-decline").click()
    rematch_text(ivy, "hal recusou a revanche.")
    assert ivy.get_by_test_id("rematch-offer").is_hidden()  # no new offer after a decline
    rematch_text(hal, "Você recusou a revanche.")
    assert hal.get_by_test_id("rematch-offer").is_visible()  # the one who declined may still offer
    assert not Match.objects.filter(rematch_of=old).exists()
    # ivy closes her table: hal sees she has left, and an offer to her says so
    ivy.close()
    rematch_text(hal, "Você recusou a revanche. ivy saiu da mesa.")
    hal.get_by_test_id("rematch-offer").click()
    rematch_text(hal, "Revanche proposta. ivy saiu da mesa: verá o seu convite se voltar.")
    assert hal.get_by_test_id("rematch-cancel").is_visible()
    hal.screenshot(path="/tmp/rematch-left-390.png")
