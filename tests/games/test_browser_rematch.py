"""Rematch of a friend match in a real browser (chromium, Daphne subprocess), two players in two
browser contexts: one offers at the match's end, the other accepts and both land on the same new table;
or declines, and the offerer is told; a player who closed the table is shown as gone. After a decline the
box says no new offer is possible (and why); on a phone its note shows whole above the pinned buttons."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games import services
from games.models import Match
from tests.browser_pages import LONG_A, friend_tables, log_in, make_user, off_loop, open_table, resign, sized

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def rematch_text(page: Any, text: str) -> None:
    page.wait_for_function(
        "(t) => document.querySelector('[data-testid=rematch-text]').textContent === t", arg=text
    )


def test_an_offer_accepted_takes_both_players_to_the_same_new_table(
    daphne_server: Any, contexts: Any
) -> None:
    old, hal, ivy = friend_tables(daphne_server, contexts, 1280, "en-US")
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
    old, hal, ivy = friend_tables(daphne_server, contexts, 390, "pt-BR")
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


REMATCH_FINAL = {
    "en-US": {
        "declined": "You cannot offer a new rematch for this match: {name} declined your offer, and a"
        " declined player may not offer again.",
        "both": "No new rematch offer is possible for this match: each of you declined the other's offer.",
    },
    "pt-BR": {
        "declined": "Você não pode propor outra revanche nesta partida: {name} recusou o seu convite, e quem"
        " teve um convite recusado não pode propor de novo.",
        "both": "Não é possível propor outra revanche nesta partida: cada um de vocês recusou o convite do"
        " outro.",
    },
}


def rematch_note(page: Any, text: str) -> None:
    page.wait_for_function(
        "(t) => { const n = document.querySelector('[data-testid=rematch-note]');"
        " return !n.hidden && n.textContent === t; }", arg=text
    )


@pytest.mark.parametrize(("locale", "width"), [("en-US", 1280), ("pt-BR", 390)])
def test_after_a_decline_the_rematch_box_says_no_new_offer_is_possible(
    daphne_server: Any, contexts: Any, locale: str, width: int
) -> None:
    """ivy offers, hal declines: ivy is told she may not offer again (and why); hal offers, ivy declines:
    ivy is told neither may offer, hal that he may not; no offer button is left on either table."""
    words = REMATCH_FINAL[locale]
    _old, hal, ivy = friend_tables(daphne_server, contexts, width, locale)
    resign(hal)
    for page in (hal, ivy):
        page.get_by_test_id("rematch-offer").wait_for()
    ivy.get_by_test_id("rematch-offer").click()
    hal.get_by_test_id("rematch-decline").wait_for()
    hal.get_by_test_id("rematch-decline").click()
    rematch_note(ivy, words["declined"].format(name="hal"))
    assert ivy.get_by_test_id("rematch-offer").is_hidden()
    hal.get_by_test_id("rematch-offer").click()  # the one who declined may still offer
    ivy.get_by_test_id("rematch-decline").wait_for()
    ivy.get_by_test_id("rematch-decline").click()
    rematch_note(ivy, words["both"])
    rematch_note(hal, words["declined"].format(name="ivy"))
    for page in (hal, ivy):
        assert page.get_by_test_id("rematch-offer").is_hidden()
    ivy.screenshot(path=f"/tmp/t13/rematch-final-{width}.png")


NOTE_ABOVE_PINNED_ROW = """() => {
    const card = document.querySelector('#match-end .result-card');
    card.scrollTop = card.scrollHeight;  // as far down as the card scrolls
    const note = document.getElementById('rematch-note').getBoundingClientRect();
    const row = document.querySelector('#match-end .result-card > .result-actions').getBoundingClientRect();
    const c = card.getBoundingClientRect();
    return {
        noteBottom: Math.round(note.bottom), rowTop: Math.round(row.top), cardBottom: Math.round(c.bottom),
        scrolls: card.scrollHeight > card.clientHeight + 1, innerHeight,
        text: document.getElementById('rematch-note').textContent,
    };
}"""


def test_the_rematch_note_shows_whole_above_the_pinned_buttons_on_a_phone(
    daphne_server: Any, contexts: Any
) -> None:
    """390 x 844, pt-BR, the match-end card of a friend match with the rematch box open: scrolled to its
    end, the note ("Uma nova mesa com as mesmas regras, ...") ends above the pinned button row."""
    host, friend = make_user("hal"), make_user(LONG_A)  # the trial's 150-character name: a tall card
    table = services.table_create(user=host, rules_preset="brazilian", target=50, turn_timer=90, rated=False)
    off_loop(lambda: services.table_join(user=friend, token=table.invite_token or ""))
    pages = []
    for user in (host, friend):
        page = sized(contexts, 390, "pt-BR")
        log_in(page, daphne_server.url, user.username, "pt-BR")
        open_table(page, daphne_server.url, table.pk)
        pages.append(page)
    hal, ivy = pages
    resign(hal)
    for page in (hal, ivy):
        page.get_by_test_id("rematch-offer").wait_for()
        page.get_by_test_id("rematch-note").wait_for()
        page.wait_for_timeout(300)  # the card's fit (js/dom.js fitOverlay) after the box filled
        got = page.evaluate(NOTE_ABOVE_PINNED_ROW)
        page.screenshot(path=f"/tmp/t13/rematch-note-{page is hal}.png")
        assert got["text"].startswith("Uma nova mesa com as mesmas regras"), got
        assert got["noteBottom"] <= got["rowTop"], got
