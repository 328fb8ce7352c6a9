"""The second new-user trial's table findings (issue 13), in a real browser (chromium, Daphne
subprocess), at 1280 px and at a 390 x 844 phone, in English and pt-BR: the Rated checkbox sits on its
label's line; the end-of-hand panel fits a phone with its Continue button on screen; a keyboard pick
says on the status line what a mouse pick says; the turn timer's row names its value; a logout in
another tab turns the table into "logged out" with a link to log in; the rules page names each preset's
source as a player knows it.

Reuses test_browser_polish's fixtures (pages in their own contexts, players logged in through the login
page) and test_browser's socket spy (real engine values shown as the server's ``state``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from games import services
from tests.games.socket_spy import SocketSpy
from tests.games.test_browser_polish import (
    HEADER_TAPPABLE,
    LANGUAGES,
    LONG_A,
    WIDTHS,
    contexts,
    log_in,
    make_user,
    off_loop,
    open_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["contexts"]  # the fixture, imported for the tests below

PHONE_HEIGHT = 844  # a 390 x 844 phone (iPhone 12-15)
HEIGHTS = {1280: 800, 390: PHONE_HEIGHT}


def sized(contexts: Any, width: int, locale: str) -> Any:
    """A page at ``width`` x the height of a screen that wide (:data:`HEIGHTS`)."""
    page = contexts(width, locale)
    page.set_viewport_size({"width": width, "height": HEIGHTS[width]})
    return page


CHECKBOX_ON_ITS_LINE = """(sel) => {
    const box = document.querySelector(sel);
    const label = box.closest('label');
    const text = [...label.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim());
    const range = document.createRange();
    range.selectNodeContents(text);
    const lines = [...range.getClientRects()];
    const b = box.getBoundingClientRect();
    const t = lines[0];
    return {
        text: text.textContent.trim(), lines: lines.length,
        // the box's middle lies within the text's line, and the box is left of the text
        middleInLine: b.top + b.height / 2 > t.top && b.top + b.height / 2 < t.bottom,
        leftOfText: b.right <= t.left + 1, boxWidth: Math.round(b.width),
    };
}"""


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


RESULT_REACHABLE = """() => {
    const card = document.querySelector('#hand-result .result-card');
    const button = document.getElementById('result-continue');
    const b = button.getBoundingClientRect();
    const c = card.getBoundingClientRect();
    const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    return {
        buttonOnScreen: b.top >= 0 && b.bottom <= innerHeight && b.left >= 0 && b.right <= innerWidth,
        buttonHit: hit === button || button.contains(hit),
        cardOnScreen: c.top >= -1 && c.bottom <= innerHeight + 1,
        cardScrolls: card.scrollHeight > card.clientHeight + 1,
        cardHeight: Math.round(c.height), top: Math.round(c.top), bottom: Math.round(c.bottom),
    };
}"""


def knock_reveal(you: int) -> dict[str, Any]:
    """A finished hand for ``state.last_hand``: rules.md worked example 2 (the opponent knocks with 10,
    the player lays Qs off and keeps 12, the knocker scores 2), scored by the engine, with a real
    deck and commitment."""
    from engine.cards import card_names
    from engine.deck import deck_commitment, seeded_deck
    from engine.rules import preset
    from engine.scoring import score_knock
    from tests.games.test_browser_trial import arrangement

    knocker, defender = "4h 5h 6h 8d 8h 8s 9s Ts Js Kc", "Tc Td Th 6c 7c 8c 9c Qs 5s 7s"
    from engine.cards import parse_cards

    result = score_knock(parse_cards(knocker), parse_cards(defender), preset("classic"), knocker=1 - you)
    hands = [defender.split(), knocker.split()] if you == 0 else [knocker.split(), defender.split()]
    deck, salt = seeded_deck(5), "c0ffee" * 5 + "00"
    now = datetime.now(UTC)
    return {
        "number": 9, "dealer": 0, "result": result.to_dict(), "final_hands": hands,
        "arrangements": [arrangement(" ".join(h)) for h in hands],
        "scores_after": [0, 2] if you == 0 else [2, 0], "deck": card_names(deck), "salt": salt,
        "commitment": deck_commitment(deck, salt), "moves": [],
        "ended_at": now.isoformat(), "show_until": (now + timedelta(seconds=60)).isoformat(),
    }


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_end_of_hand_panel_fits_a_phone_with_continue_on_screen(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """A hand result against an opponent with a 150-character name (the headline, the reveal and the
    score line wrap over many lines), opened on the page as it loads (nobody scrolls): the panel is on
    screen, scrolling inside itself when taller, with Continue on screen and not covered; also with the
    deck order opened; the header stays usable."""
    host, guest = make_user("nina"), make_user(LONG_A)
    table = services.table_create(user=host, rules_preset="classic", target=100, turn_timer=None)
    off_loop(lambda: services.table_join(user=guest, token=table.invite_token or ""))
    for width in WIDTHS:
        page = sized(contexts, width, locale)
        log_in(page, daphne_server.url, "nina", locale)
        spy = SocketSpy(page)
        open_table(page, daphne_server.url, table.pk)
        state = spy.synced_state(lambda page=page: int(page.get_attribute("#table-app", "data-seq") or "0"))
        you = state["match"]["you"]
        spy.inject({**state, "seq": state["seq"] + 100, "last_hand": knock_reveal(you)})
        page.locator("#hand-result").wait_for()
        got = page.evaluate(RESULT_REACHABLE)
        page.screenshot(path=f"/tmp/hand-result-{width}-{locale}.png")
        assert got["buttonOnScreen"] and got["buttonHit"], (width, got)
        assert got["cardOnScreen"], (width, got)
        page.locator("#hand-result details summary").first.click()  # the deck order: a long list
        got = page.evaluate(RESULT_REACHABLE)
        assert got["buttonOnScreen"] and got["buttonHit"] and got["cardOnScreen"], (width, got)
        # (Whether the card then scrolls inside itself depends on the room the header leaves: the phone
        # header is compact now, so in English it may fit whole; on screen with Continue either way.)
        page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate(HEADER_TAPPABLE) == [], width
        page.locator("#result-continue").click()
        assert page.locator("#hand-result").is_hidden()
        page.close()


STATUS_MAIN = "document.getElementById('status').firstChild.textContent"


def picked_words(locale: str, card: str, after: str) -> str:
    if locale == "pt-BR":
        return (f"{card} escolhida → pontos soltos: {after}. Escolha-a de novo, ou aperte Descartar, "
                "para descartá-la.")
    return f"{card} picked → deadwood {after}. Pick it again, or press Discard, to discard it."


@pytest.mark.parametrize("locale", LANGUAGES)
def test_a_keyboard_pick_says_on_the_status_line_what_a_mouse_pick_says(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """In the discard phase, picking a card by mouse or by keyboard (focus, Enter) puts the same words
    on the felt's status line (role=status, aria-live=polite: read out): the card, its deadwood after
    the discard, how to discard it; Esc drops the pick and the line goes back."""
    host, guest = make_user("kai"), make_user("lea")
    table = services.table_create(user=host, rules_preset="classic", target=100, turn_timer=None)
    off_loop(lambda: services.table_join(user=guest, token=table.invite_token or ""))
    for width in WIDTHS:
        page = sized(contexts, width, locale)
        log_in(page, daphne_server.url, "kai", locale)
        open_table(page, daphne_server.url, table.pk)
        status = page.locator("#status")
        assert (status.get_attribute("role"), status.get_attribute("aria-live")) == ("status", "polite")
        if page.get_attribute("#table-app", "data-phase") != "discard":
            drive_to_discard(page, daphne_server.url, contexts, locale, table.pk)
        base = page.evaluate(STATUS_MAIN)
        playable = page.locator("#my-hand button.card.playable")
        picks = []
        for n, how in ((0, "mouse"), (1, "keyboard")):
            card = playable.nth(n)
            name, after = card.get_attribute("data-card"), card.get_attribute("data-after")
            if how == "mouse":
                card.click()
                page.mouse.move(0, 0)  # the pointer leaves the card: the words stay with the pick
            else:
                card.focus()
                page.keyboard.press("Enter")
            page.wait_for_function(f"document.querySelector(\"#my-hand [data-card='{name}']\")"
                                   ".classList.contains('selected')")
            shown = page.evaluate(STATUS_MAIN)
            picks.append(shown)
            assert shown == picked_words(locale, card_words(page, name), after or "?"), (how, shown)
            page.keyboard.press("Escape")
            assert page.evaluate(STATUS_MAIN) == base, how
        assert picks[0] != picks[1] and base not in picks
        page.close()


def card_words(page: Any, card: str | None) -> str:
    """How the table writes ``card`` in its texts (cards.js cardText: "Q♠")."""
    return page.evaluate(
        """async (card) => {
            const base = document.querySelector('script[src*="table.js"]').src.replace(/table\\.js$/, '');
            return (await import(base + 'cards.js')).cardText(card);
        }""",
        card,
    )


def drive_to_discard(page: Any, base: str, contexts: Any, locale: str, match_id: int) -> None:
    """Play the first moves of the friend match (both seats) until the host of ``page`` holds 11 cards
    and must discard: the upcard offer passed by both, then the stock draw."""
    other = contexts(1280, locale)
    log_in(other, base, "lea", locale)
    open_table(other, base, match_id)
    for _ in range(8):
        if page.get_attribute("#table-app", "data-phase") == "discard" and page.get_attribute(
                "#table-app", "data-your-turn") == "1":
            break
        for tab in (page, other):
            if tab.get_attribute("#table-app", "data-your-turn") != "1":
                continue
            before = int(tab.get_attribute("#table-app", "data-seq") or "0")
            phase = tab.get_attribute("#table-app", "data-phase")
            if phase in ("offer_nondealer", "offer_dealer"):
                tab.locator("#btn-pass").click()
            elif phase == "draw":
                tab.locator("#stock-button").click()
            else:
                card = tab.locator("#my-hand button.card.playable").first
                card.click()
                card.click()
            tab.wait_for_function(f"+document.getElementById('table-app').dataset.seq > {before}")
        page.wait_for_timeout(200)
    page.wait_for_function("document.getElementById('table-app').dataset.phase === 'discard'"
                           " && document.getElementById('table-app').dataset.yourTurn === '1'")
    other.close()


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


@pytest.mark.parametrize("locale", LANGUAGES)
def test_a_logout_in_another_tab_ends_the_table_with_a_login_link(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """The server closes the table's socket for the logout (4001, docs/protocol.md); the reconnect
    finds no session (4401): the table says the player was logged out, links to the login page (back
    to this table), offers no move, and stops reconnecting."""
    host, guest = make_user("uma"), make_user("vic")
    pt = locale == "pt-BR"
    for width in WIDTHS:
        table = services.table_create(user=host, rules_preset="classic", target=100, turn_timer=None)
        off_loop(lambda table=table: services.table_join(user=guest, token=table.invite_token or ""))
        page = sized(contexts, width, locale)
        log_in(page, daphne_server.url, "uma", locale)
        sockets: list[Any] = []

        def opened(ws: Any, sockets: list[Any] = sockets) -> None:
            if "/ws/match/" in ws.url:
                sockets.append(ws)

        page.on("websocket", opened)
        open_table(page, daphne_server.url, table.pk)
        if page.get_attribute("#table-app", "data-your-turn") != "1":  # the guest opens: it passes
            seq = int(page.get_attribute("#table-app", "data-seq") or "0")
            off_loop(lambda table=table, seq=seq: services.match_apply_action(
                match_id=table.pk, user=guest, action_text="pass", client_seq=seq, msg_id=f"p{seq}"))
            open_table(page, daphne_server.url, table.pk)  # the embedded layer's broadcast stays here
        page.wait_for_function("document.getElementById('table-app').dataset.yourTurn === '1'")
        assert page.title().startswith("(")  # "(Your turn) ..."
        before = len(sockets)  # the table's socket (the page may have been opened twice)
        other = page.context.new_page()  # the same browser: the same session cookie
        other.goto(daphne_server.url + "/")
        other.locator("header form[action$='/logout/'] button").click()
        other.wait_for_url(re.compile(r".*/$"))
        notice = page.get_by_test_id("logged-out")
        notice.wait_for()
        assert notice.inner_text() == (
            "Você saiu da sua conta. Entre de novo para continuar esta partida." if pt
            else "You were logged out. Log in again to go on with this match."
        )
        link = notice.locator("a")
        assert link.get_attribute("href") == f"/accounts/login/?next=/match/{table.pk}/"
        assert page.get_attribute("#table-app", "data-your-turn") == "0"
        assert page.locator("#status").inner_text() == notice.inner_text()
        assert "(" not in page.title()  # no "(Your turn)"
        for sel in ("#stock-button", "#discard-button", "#btn-take", "#btn-pass"):
            assert page.locator(sel).is_disabled(), sel
        assert page.locator("#my-hand button.card.playable").count() == 0
        page.keyboard.press("s")
        page.keyboard.press("p")
        count = len(sockets)
        page.wait_for_timeout(3000)  # the reconnect's backoff would have tried again by now
        assert len(sockets) == count == before + 1, (before, len(sockets))  # one reconnect, no more
        assert page.get_by_test_id("logged-out").is_visible()
        link.click()
        page.wait_for_url(re.compile(r".*/accounts/login/\?next=.*"))
        page.fill("#id_username", "uma")
        page.fill("#id_password", "felt-green-42-knock")
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(re.compile(rf".*/match/{table.pk}/$"))
        page.close()
        other.close()


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_rules_page_names_each_presets_source_in_player_terms(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """No file names or seed numbers: each preset's source as a player would know it, in the page's
    language, one per preset column."""
    from django.utils import translation

    from engine.rules import PRESETS
    from games.views import preset_sources

    with translation.override("pt-br" if locale == "pt-BR" else "en"):
        expected = [str(s) for s in preset_sources(list(PRESETS))]
    for width in WIDTHS:
        page = sized(contexts, width, locale)
        page.goto(daphne_server.url + "/rules/")
        row = page.locator("[data-testid=presets-table] tr", has=page.locator("th", has_text=re.compile(
            "^(Fonte|Source)$")))
        cells = row.locator("td").all_inner_texts()
        assert cells == expected and len(cells) == len(PRESETS), cells
        for cell in cells:
            assert not re.search(r"seed|\.md|\b00\d\b", cell, re.IGNORECASE), cell
        if locale == "pt-BR":
            assert "blog" in cells[list(PRESETS).index("two_deck")].lower()
        page.close()
