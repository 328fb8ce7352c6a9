"""The table's match-end card in a real browser (chromium, Daphne subprocess), at 1280 px and at a
390 px phone, in English and pt-BR: it fits a phone and leaves the header usable; the "Play again" note
is whole on a phone after a long match; no "Last hand" button when no hand was finished.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import (
    HEADER_TAPPABLE,
    LANGUAGES,
    LONG_A,
    WIDTHS,
    friend_tables,
    log_in,
    make_user,
    off_loop,
    open_table,
    resign,
)
from tests.factories import BotMatchFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


MATCH_END_FITS = """() => {
    const card = document.querySelector('#match-end .result-card');
    const box = card.getBoundingClientRect();
    const out = [];
    for (const e of card.querySelectorAll('.final-scores th, .final-scores td')) {
        const r = e.getBoundingClientRect();
        if (r.right > box.right - card.clientLeft + 1 || r.left < box.left - 1) {
            out.push(`${e.textContent}: ${Math.round(r.left)}..${Math.round(r.right)}`
                + ` outside ${Math.round(box.left)}..${Math.round(box.right)}`);
        }
    }
    if (card.scrollWidth > card.clientWidth + 1) {
        out.push(`card scrolls: ${card.scrollWidth} > ${card.clientWidth}`);
    }
    return out;
}"""


@pytest.mark.parametrize("locale", LANGUAGES)
def test_match_end_card_fits_a_phone_and_leaves_the_header_usable(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    base = daphne_server.url
    user = make_user(LONG_A)
    for width in WIDTHS:
        match = off_loop(lambda: BotMatchFactory(user=user, rules_preset="brazilian"))
        page = contexts(width, locale)
        log_in(page, base, user.username, locale)
        open_table(page, base, match.pk)
        resign(page)
        page.wait_for_selector("#match-end:not([hidden])")
        page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate(MATCH_END_FITS) == [], width
        assert page.evaluate(HEADER_TAPPABLE) == [], width
        total = page.locator("#match-end .final-scores thead th").last
        assert total.inner_text() == "Total"
        # "Play again" says it keeps the bot, the rules and the target
        note = page.locator("#play-again-note").inner_text()
        words = ("nível 1", "Brasileira", "100 pontos") if locale == "pt-BR" else (
            "level 1", "Brazilian", "100 points"
        )
        assert all(w in note for w in words), note
        # the per-hand summary: resigned before any hand ended
        summary = page.locator("#match-end .hands-summary").inner_text()
        assert ("Nenhuma mão terminou." if locale == "pt-BR" else "No hand was finished.") in summary
        page.screenshot(path=f"/tmp/match-end-{width}-{locale}.png")
        page.close()


NOTE_SEEN = """() => {
    const card = document.querySelector('#match-end .result-card');
    // A long match: the card's hand-by-hand table as tall as seven hands make it (the trial's case).
    document.querySelector('#match-end .hands-summary').style.minHeight = '420px';
    const r = (e) => e.getBoundingClientRect();
    const el = document.getElementById('play-again-note');
    const note = r(el), box = r(card);
    const hit = document.elementFromPoint(note.left + note.width / 2, note.top + note.height / 2);
    return {inCard: note.top >= box.top - 1 && note.bottom <= box.bottom + 1, onTop: el.contains(hit)};
}"""


@pytest.mark.parametrize("locale", LANGUAGES)
def test_play_again_note_is_whole_on_a_phone_after_a_long_match(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """Issue 10's trial (pt-BR, 390 px, a seven-hand match): the "Play again: the same bot..." note under
    the pinned buttons was cut by the card's edge until one scrolled inside the card. It is in the pinned
    foot now: whole, and not under the buttons, with the card unscrolled."""
    base = daphne_server.url
    user = make_user(LONG_A)
    match = off_loop(lambda: BotMatchFactory(user=user, target=50))
    page = contexts(390, locale)
    log_in(page, base, user.username, locale)
    open_table(page, base, match.pk)
    resign(page)
    page.wait_for_selector("#match-end:not([hidden])")
    assert page.evaluate(NOTE_SEEN) == {"inCard": True, "onTop": True}
    assert "{#" not in page.locator("#match-end").inner_text()  # a two-line template comment showed
    page.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_no_last_hand_button_when_the_match_ended_before_any_hand_did(
    daphne_server: Any, contexts: Any, width: int
) -> None:
    """A resignation in hand 1 of a friend match: both players' match-end screens say no hand finished
    and offer no "Last hand" (there is no hand result to reopen); My matches stays."""
    _old, hal, ivy = friend_tables(daphne_server, contexts, width, "en-US")
    resign(hal)
    for page in (hal, ivy):
        page.get_by_test_id("rematch-offer").wait_for()
        assert page.locator("#match-end").get_by_text("No hand was finished.").is_visible()
        assert page.locator("#end-last-hand").is_hidden()
        assert page.locator("#match-end").get_by_role("link", name="My matches").is_visible()
