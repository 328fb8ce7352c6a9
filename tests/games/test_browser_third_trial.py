"""The third new-user trial's findings (issue 13), in a real browser (chromium, Daphne subprocess), at
1280 x 800 and at a 390 x 844 phone, in English and pt-BR where words matter: a bot table's action
buttons are on screen with the hand at 1280 x 800 without scrolling.

Reuses test_browser_polish's fixtures (pages in their own contexts, players logged in through the login
page) and test_browser_second_trial's screen sizes.
"""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from tests.games.test_browser_polish import (
    LONG_A,
    contexts,
    log_in,
    make_user,
    off_loop,
    open_table,
)
from tests.games.test_browser_second_trial import sized

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["contexts"]  # the fixture, imported for the tests below

CONTROLS_ON_SCREEN = """() => {
    const sel = '#actions button:not([hidden]), #my-hand button.card, #stock-button, #discard-button';
    const out = [];
    let shown = 0;
    for (const e of document.querySelectorAll(sel)) {
        const r = e.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        if (e.closest('#actions')) shown += 1;
        if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) {
            out.push(`${e.id || e.textContent.trim()}: ${Math.round(r.top)}..${Math.round(r.bottom)}`);
        }
    }
    return {out, shown, scrollY: scrollY};
}"""


@pytest.mark.parametrize("locale", ["en-US"])
def test_a_bot_tables_buttons_are_on_screen_with_the_hand_at_1280_by_800(
    daphne_server: Any, contexts: Any, house_bots: Any, locale: str
) -> None:
    """On load of a bot table (the first turn: Take / Pass), at 1280 x 800, the action buttons, the
    hand, the stock and the discard pile are all inside the viewport, nobody scrolls."""
    user = make_user("dora")
    match = off_loop(
        lambda: services.match_create_vs_bot(user=user, level=1, rules_preset="classic", target=100)
    )
    page = sized(contexts, 1280, locale)
    log_in(page, daphne_server.url, "dora", locale)
    open_table(page, daphne_server.url, match.pk)
    page.wait_for_selector("#actions button:not([hidden])")
    got = page.evaluate(CONTROLS_ON_SCREEN)
    page.screenshot(path="/tmp/t13/bot-1280.png")
    assert got["shown"] >= 2 and got["scrollY"] == 0, got
    assert got["out"] == [], got


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
    from tests.games.test_browser_rematch import resign, two_tables

    words = REMATCH_FINAL[locale]
    _old, hal, ivy = two_tables(daphne_server, contexts, width, locale)
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
    from tests.games.test_browser_rematch import resign

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


@pytest.mark.parametrize("width", [1280, 390])
def test_no_last_hand_button_when_the_match_ended_before_any_hand_did(
    daphne_server: Any, contexts: Any, width: int
) -> None:
    """A resignation in hand 1 of a friend match: both players' match-end screens say no hand finished
    and offer no "Last hand" (there is no hand result to reopen); My matches stays."""
    from tests.games.test_browser_rematch import resign, two_tables

    _old, hal, ivy = two_tables(daphne_server, contexts, width, "en-US")
    resign(hal)
    for page in (hal, ivy):
        page.get_by_test_id("rematch-offer").wait_for()
        assert page.locator("#match-end").get_by_text("No hand was finished.").is_visible()
        assert page.locator("#end-last-hand").is_hidden()
        assert page.locator("#match-end").get_by_role("link", name="My matches").is_visible()


PRESETS_FIT = """() => {
    const box = document.querySelector('.table-scroll');
    const table = document.querySelector('[data-testid=presets-table]');
    const last = table.querySelector('thead th:last-child').getBoundingClientRect();
    return {
        boxScrolls: box.scrollWidth > box.clientWidth + 1, scrollWidth: box.scrollWidth,
        clientWidth: box.clientWidth, pageScrolls: document.documentElement.scrollWidth > innerWidth,
        lastRight: Math.round(last.right), innerWidth, fontSize: getComputedStyle(table).fontSize,
    };
}"""


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_the_rules_pages_presets_table_fits_a_desktop_and_scrolls_in_its_box_on_a_phone(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """At 1280 x 800 every preset's column (Hoyle, Two decks too) is on screen without a sideways
    scroll; at 390 the table may scroll, inside its own box only (the page does not)."""
    for width in (1280, 390):
        page = sized(contexts, width, locale)
        page.goto(daphne_server.url + "/rules/")
        got = page.evaluate(PRESETS_FIT)
        page.locator(".table-scroll").screenshot(path=f"/tmp/t13/rules-{width}-{locale}.png")
        assert not got["pageScrolls"], (width, got)
        if width == 1280:
            assert not got["boxScrolls"] and got["lastRight"] <= got["innerWidth"], got
        page.close()


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_the_phone_header_is_compact_and_every_link_stays_tappable(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """390 x 844: the site header (a member with a 150-character name, logged in) takes at most a sixth
    of the screen's height, and every link, button and the language menu in it is on screen and not
    covered; so does a visitor's."""
    from tests.games.test_browser_polish import HEADER_TAPPABLE

    make_user(LONG_A)
    for member in (True, False):
        page = sized(contexts, 390, locale)
        if member:
            log_in(page, daphne_server.url, LONG_A, locale)
        page.goto(daphne_server.url + "/rules/")
        height = page.locator("header.site-header").bounding_box()["height"]
        page.locator("header.site-header").screenshot(path=f"/tmp/t13/header-{locale}-{member}.png")
        assert height <= 844 / 6, (member, height)
        assert page.evaluate(HEADER_TAPPABLE) == [], member
        page.close()
