"""Table polish (issue 13) in a real browser (chromium, Daphne subprocess), at 1280 px and 390 px, in
English and pt-BR: long names stay bounded, the match-end card fits a phone and leaves the header
usable.

Players are created with the ORM and log in through the login page; matches are made by the services
(the same calls the forms make), so each test goes straight to the screen it checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from accounts.models import User
from games import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

APP_SELECTOR = "#table-app"
PASSWORD = "felt-green-42-knock"
WIDTHS = (1280, 390)
LANGUAGES = ("en-US", "pt-BR")
# 150 characters (the longest username Django allows), no space to break at.
LONG_A = ("Maximiliano" * 14)[:150]
LONG_B = ("Wolfeschlegelsteinhausen" * 7)[:150]


def off_loop(call: Callable[[], Any]) -> Any:
    """Run a service call in another thread: a write's after-commit broadcast uses ``async_to_sync``,
    which refuses the thread where Playwright's event loop runs."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


def make_user(username: str) -> User:
    return User.objects.create_user(username=username, password=PASSWORD)


@pytest.fixture
def contexts(browser: Any, page: Any) -> Iterator[Any]:
    """``open(width, locale)`` -> a new page in its own browser context (own cookies). (Asks for
    ``page`` for its setup: the ORM stays usable while Playwright's loop runs.)"""
    made: list[Any] = []

    def open_page(width: int, locale: str) -> Any:
        # bypass_csp: Playwright's wait_for_function polls string predicates through eval, which the
        # site's Content-Security-Policy (script-src 'self') refuses; the pages' own scripts are static.
        context = browser.new_context(
            locale=locale, viewport={"width": width, "height": 900}, bypass_csp=True
        )
        made.append(context)
        return context.new_page()

    yield open_page
    for context in made:
        context.close()


def log_in(page: Any, base: str, username: str, locale: str) -> None:
    page.goto(base + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/$"))
    if locale.startswith("pt"):
        assert page.locator("html").get_attribute("lang") == "pt-br"


def open_table(page: Any, base: str, match_id: int) -> None:
    page.goto(f"{base}/match/{match_id}/")
    page.wait_for_function("document.getElementById('conn').classList.contains('down') === false"
                           " && document.getElementById('conn').textContent.length > 0")
    page.wait_for_function("document.getElementById('table-app').dataset.phase !== ''")


OUTSIDE_FELT = """() => {
    const felt = document.querySelector('.felt').getBoundingClientRect();
    const sel = '#stock-button, #discard-button, #actions button:not([hidden]), #my-hand button.card,'
        + ' #opp-hand .card, .seat-label .name, .seat-label .badge, #status, .hand-tools, #limit-pile';
    const out = [];
    for (const e of document.querySelectorAll(sel)) {
        const r = e.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        if (r.left < felt.left - 1 || r.right > felt.right + 1 || r.top < felt.top - 1
            || r.bottom > felt.bottom + 1) {
            out.push(`${e.id || e.className}: ${Math.round(r.left)}..${Math.round(r.right)}`
                + ` outside ${Math.round(felt.left)}..${Math.round(felt.right)}`);
        }
    }
    return out;
}"""

PAGE_OVERFLOW = """() => {
    const vw = document.documentElement.clientWidth;
    const out = [];
    for (const e of document.querySelectorAll('header *, main *, .messages *')) {
        const r = e.getBoundingClientRect();
        if (r.width && r.right > vw + 1 && !e.closest('.table-scroll')) {
            out.push(`${e.tagName}.${e.className}`);
        }
    }
    if (document.documentElement.scrollWidth > vw + 1) {
        out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
        for (const e of document.querySelectorAll('body *')) {
            const r = e.getBoundingClientRect();
            if (r.right > vw + 1) out.push(`${e.tagName}.${e.className}:${Math.round(r.width)}`);
        }
    }
    return out;
}"""


def assert_name_bounded(page: Any, selector: str, full: str) -> None:
    """The element shows the name cut with an ellipsis and carries the full name in its title."""
    e = page.locator(selector).first
    assert e.get_attribute("title") == full, selector
    style = e.evaluate("e => [getComputedStyle(e).textOverflow, e.scrollWidth > e.clientWidth]")
    assert style == ["ellipsis", True], (selector, style)


@pytest.mark.parametrize("locale", LANGUAGES)
def test_a_150_character_name_keeps_the_felt_header_and_pages_in_bounds(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    from accounts.services import house_bots_ensure

    house_bots_ensure()
    base = daphne_server.url
    host, guest = make_user(LONG_A), make_user(LONG_B)
    table = services.table_create(user=host, rules_preset="classic", target=100, turn_timer=None)
    for width in WIDTHS:
        # The invitation page names the host.
        page = contexts(width, locale)
        log_in(page, base, LONG_B, locale)
        assert page.evaluate(PAGE_OVERFLOW) == [], width  # header (and the welcome message)
        assert_name_bounded(page, "[data-testid=who] .player-name", LONG_B)
        page.goto(f"{base}/t/{table.invite_token}/")
        assert page.evaluate(PAGE_OVERFLOW) == [], width
        assert_name_bounded(page, "h1 .player-name", LONG_A)
        page.close()
    off_loop(lambda: services.table_join(user=guest, token=table.invite_token or ""))
    bot = off_loop(
        lambda: services.match_create_vs_bot(user=host, level=1, rules_preset="classic", target=100)
    )
    for width in WIDTHS:
        for user, other, match_id in ((host, LONG_B, table.pk), (guest, LONG_A, table.pk),
                                      (host, None, bot.pk)):
            page = contexts(width, locale)
            log_in(page, base, user.username, locale)
            open_table(page, base, match_id)
            assert page.evaluate(OUTSIDE_FELT) == [], (width, user.username[:5], match_id)
            assert page.evaluate(PAGE_OVERFLOW) == [], (width, user.username[:5], match_id)
            assert_name_bounded(page, "#my-name", user.username)
            page.screenshot(path=f"/tmp/long-name-{width}-{locale}-{user.pk}-{match_id}.png")
            if other:
                assert_name_bounded(page, "#opp-name", other)
                assert_name_bounded(page, "#score-name-1", other)
            page.goto(base + "/matches/")
            found = page.evaluate(PAGE_OVERFLOW)
            assert found == [], (width, " ".join(found))
            if other:
                assert_name_bounded(page, f"tr:has(a[href='/match/{match_id}/']) .player-name", other)
            page.close()


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

HEADER_TAPPABLE = """() => {
    const out = [];
    for (const e of document.querySelectorAll('header a, header button, header select')) {
        const r = e.getBoundingClientRect();
        if (!r.width) continue;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!hit || !(hit === e || e.contains(hit))) {
            out.push(`${e.textContent.trim()} covered by ${hit && hit.id}`);
        }
    }
    return out;
}"""


@pytest.mark.parametrize("locale", LANGUAGES)
def test_match_end_card_fits_a_phone_and_leaves_the_header_usable(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    from accounts.services import house_bots_ensure

    house_bots_ensure()
    base = daphne_server.url
    user = make_user(LONG_A)
    for width in WIDTHS:
        match = off_loop(
            lambda: services.match_create_vs_bot(user=user, level=1, rules_preset="brazilian", target=100)
        )
        page = contexts(width, locale)
        log_in(page, base, user.username, locale)
        open_table(page, base, match.pk)
        page.locator("#btn-resign").click()
        page.locator("#btn-resign-yes").click()
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


PLURAL_TEXTS = """async () => {
    const base = document.querySelector('script[src*="table.js"]').src.replace(/table\\.js$/, '');
    const text = await import(base + 'text.js');
    const i18n = await import(base + 'i18n.js');
    const match = {you: 0, players: [{name: 'me'}, {name: 'Bea', is_bot: false}]};
    const line = (kind, winner, points) => text.headline(match, {result: {kind, winner, points}});
    // A spectator or replay viewer (you: null): the winner by name.
    const watched = {you: null, players: [{name: 'Ana', is_bot: false}, {name: 'Bea', is_bot: false}]};
    const seen = (kind, winner, points) => text.headline(watched, {result: {kind, winner, points}});
    return {
        knock1: line('knock', 0, 1), knock2: line('knock', 0, 2), knock0: line('knock', 0, 0),
        gin1: line('gin', 1, 1), undercut1: line('undercut', 0, 1),
        seenUndercut1: seen('undercut', 1, 1), seenUndercut7: seen('undercut', 1, 7),
        seenKnock1: seen('knock', 0, 1), seenGin27: seen('gin', 0, 27),
        cards1: i18n.tn('n_cards', 1, {n: 1}), cards0: i18n.tn('n_cards', 0, {n: 0}),
        cards10: i18n.tn('n_cards', 10, {n: 10}),
    };
}"""


@pytest.mark.parametrize(("locale", "expected"), [
    ("en-US", {
        "knock1": "You knocked and score 1 point.", "knock2": "You knocked and score 2 points.",
        "knock0": "You knocked and score 0 points.", "gin1": "Bea went gin and scores 1 point.",
        "undercut1": "Undercut! You score 1 point.", "cards1": "1 card", "cards0": "0 cards",
        "cards10": "10 cards",
        "seenUndercut1": "Bea undercut the knocker and scores 1 point.",
        "seenUndercut7": "Bea undercut the knocker and scores 7 points.",
        "seenKnock1": "Ana knocked and scores 1 point.", "seenGin27": "Ana went gin and scores 27 points.",
    }),
    ("pt-BR", {
        "knock1": "Você bateu e marca 1 ponto.", "knock2": "Você bateu e marca 2 pontos.",
        "knock0": "Você bateu e marca 0 ponto.", "gin1": "Bea bateu gin e marca 1 ponto.",
        "undercut1": "Virada! Você marca 1 ponto.", "cards1": "1 carta", "cards0": "0 carta",
        "cards10": "10 cartas",
        "seenUndercut1": "Bea deu a virada em quem bateu e marca 1 ponto.",
        "seenUndercut7": "Bea deu a virada em quem bateu e marca 7 pontos.",
        "seenKnock1": "Ana bateu e marca 1 ponto.", "seenGin27": "Ana bateu gin e marca 27 pontos.",
    }),
])
def test_counts_use_the_languages_plural_forms(
    daphne_server: Any, contexts: Any, locale: str, expected: dict[str, str]
) -> None:
    """The result headline (also the Moves list's "Hand N over: ..." line; a spectator's and a replay's
    too, which name the winner) and the counts on the felt pick the plural form for the number: "1
    point", "2 points"; pt-BR "0 ponto" (n > 1 is plural)."""
    from accounts.services import house_bots_ensure

    house_bots_ensure()
    user = make_user("bea")
    match = off_loop(
        lambda: services.match_create_vs_bot(user=user, level=1, rules_preset="classic", target=100)
    )
    page = contexts(390, locale)
    log_in(page, daphne_server.url, "bea", locale)
    open_table(page, daphne_server.url, match.pk)
    assert page.evaluate(PLURAL_TEXTS) == expected
    count = page.locator("#opp-count").inner_text()
    assert count == ("10 cards" if locale == "en-US" else "10 cartas")


@pytest.mark.parametrize("locale", LANGUAGES)
def test_turn_clock_shows_the_moves_own_time_and_the_reveal_apart(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """A "30 s per move" table at a hand's start: the deadline is 30 s + the last hand's reveal (8 s);
    the clock says 0:30 (not 0:38) and the reveal's seconds are shown beside it."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Match

    host, guest = make_user("hana"), make_user("gil")
    table = services.table_create(user=host, rules_preset="classic", target=100, turn_timer=30)
    off_loop(lambda: services.table_join(user=guest, token=table.invite_token or ""))
    for width in WIDTHS:
        Match.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() + timedelta(seconds=38))
        page = contexts(width, locale)
        log_in(page, daphne_server.url, "hana", locale)
        open_table(page, daphne_server.url, table.pk)
        page.wait_for_function("document.getElementById('timer').textContent.length > 0")
        assert page.locator("#timer").inner_text().endswith(": 0:30")
        assert page.locator("#felt-timer").inner_text().endswith(": 0:30")
        reveal = page.locator("#timer-reveal").inner_text()
        words = "starts after the last hand's reveal, in" if locale == "en-US" else (
            "começa depois de mostrar a mão anterior, em"
        )
        assert re.fullmatch(rf"\({words} [1-8] s\)", reveal), reveal
        # Once the reveal is over the move's own time runs down.
        Match.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() + timedelta(seconds=20))
        page.reload()
        open_table(page, daphne_server.url, table.pk)
        page.wait_for_function("/: 0:(1\\d|20)$/.test(document.getElementById('timer').textContent)")
        assert page.locator("#timer-reveal").is_hidden()
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
def test_a_casual_match_ended_from_my_matches_shows_as_abandoned(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    from accounts.services import house_bots_ensure

    house_bots_ensure()
    user = make_user("ines")
    pt = locale == "pt-BR"
    for width in WIDTHS:
        match = off_loop(
            lambda: services.match_create_vs_bot(
                user=user, level=1, rules_preset="classic", target=100, rated=False
            )
        )
        page = contexts(width, locale)
        log_in(page, daphne_server.url, "ines", locale)
        page.goto(daphne_server.url + "/matches/")
        row = page.locator(f"tr:has(a[href='/match/{match.pk}/'])")
        row.get_by_test_id("end-match").click()
        page.wait_for_url(re.compile(r".*/matches/$"))
        assert row.locator(".result-tag").inner_text() == ("Abandonada" if pt else "Abandoned")
        assert row.get_by_test_id("end-match").count() == 0
        assert page.evaluate(PAGE_OVERFLOW) == []
        open_table(page, daphne_server.url, match.pk)
        page.wait_for_selector("#match-end:not([hidden])")
        title = page.locator("#match-end-title").inner_text()
        assert title == ("Partida abandonada" if pt else "Match abandoned")
        assert page.evaluate(HEADER_TAPPABLE) == []
        page.close()


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_two_deck_table_deals_eleven_cards_and_the_non_dealer_opens_by_discarding(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """No upcard: no Take/Pass; the non-dealer holds 11 cards and discards first (click twice). The
    second deck's card that sets the knock limit lies face up beside the piles."""
    from engine.cards import parse_card
    from games.models import Match, MatchEvent

    host, guest = make_user("olga"), make_user("pia")
    for width in WIDTHS:
        table = services.table_create(user=host, rules_preset="two_deck", target=100, turn_timer=None)
        token = table.invite_token or ""
        off_loop(lambda token=token: services.table_join(user=guest, token=token))  # type: ignore[misc]
        match = Match.objects.get(pk=table.pk)
        dealer = match.first_dealer
        pages = {}
        for seat, user in ((0, host), (1, guest)):
            page = contexts(width, locale)
            log_in(page, daphne_server.url, user.username, locale)
            open_table(page, daphne_server.url, match.pk)
            pages[seat] = page
        opener, other = pages[1 - dealer], pages[dealer]
        opener.wait_for_function("document.querySelectorAll('#my-hand button.card').length === 11")
        assert other.locator("#my-hand button.card").count() == 10
        limit_card = MatchEvent.objects.get(match=match, type="deal").payload["limit_card"]
        limit = min(parse_card(limit_card) % 13 + 1, 10)
        for page in (opener, other):
            assert page.locator("#btn-take").is_hidden() and page.locator("#btn-pass").is_hidden()
            assert page.locator("#discard-fan .card").count() == 0
            assert page.evaluate(OUTSIDE_FELT) == []
            # the second deck's card, face up beside the piles, with the knock limit it sets
            pile = page.get_by_test_id("limit-pile")
            assert pile.is_visible()
            assert pile.locator(".card").get_attribute("data-card") == limit_card
            words = "Limite para bater" if locale == "pt-BR" else "Knock limit"
            assert page.locator("#limit-label").inner_text() == f"{words}: {limit}"
            assert pile.get_attribute("aria-label").endswith(f": {limit}.")
        opener.screenshot(path=f"/tmp/two-deck-{width}-{locale}.png")
        assert opener.get_attribute(APP_SELECTOR, "data-phase") == "discard"
        assert opener.locator("#btn-discard").is_visible()
        card = opener.locator("#my-hand button.card.playable").first
        name = card.get_attribute("data-card")
        card.click()
        card.click()
        other.wait_for_function("document.getElementById('table-app').dataset.yourTurn === '1'")
        assert other.locator("#discard-fan .card.top").get_attribute("data-card") == name
        opener.wait_for_function("document.querySelectorAll('#my-hand button.card').length === 10")
        for page in pages.values():
            page.close()


SOUND_CHECK = """async () => {
    const base = document.querySelector('script[src*="table.js"]').src.replace(/table\\.js$/, '');
    const { Sounds, soundFor } = await import(base + 'sound.js');
    const s = new Sounds();
    s.play('gin');
    const hand = (extra) => ({ number: 2, your_turn: false, last_action: null, ...extra });
    const move = (action) => ({ hand: hand({ last_action: { seat: 1, action } }) });
    return {
        enabled: s.enabled, last: document.documentElement.dataset.lastSound || null,
        turn: soundFor({ hand: hand({}) }, { hand: hand({ your_turn: true }) }),
        draw: soundFor({ hand: hand({}) }, move('draw stock')),
        discard: soundFor({ hand: hand({}) }, move('discard 7h')),
        gin: soundFor({ hand: hand({}) }, { hand: hand({}), last_hand: { number: 1, ended_at: 'x',
                                                                          result: { kind: 'gin' } } }),
        knock: soundFor({ hand: hand({}) }, { hand: hand({}), last_hand: { number: 1, ended_at: 'x',
                                                                            result: { kind: 'knock' } } }),
        dead: soundFor({ hand: hand({}) }, { hand: hand({}), last_hand: { number: 1, ended_at: 'x',
                                                                           result: { kind: 'dead' } } }),
        same: soundFor({ hand: hand({}) }, { hand: hand({}) }),
    };
}"""


@pytest.mark.parametrize("locale", LANGUAGES)
def test_sound_is_off_by_default_and_the_toggle_is_remembered(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    from accounts.services import house_bots_ensure

    house_bots_ensure()
    user = make_user("sol")
    pt = locale == "pt-BR"
    match = off_loop(
        lambda: services.match_create_vs_bot(user=user, level=1, rules_preset="classic", target=100)
    )
    for width in WIDTHS:
        page = contexts(width, locale)
        log_in(page, daphne_server.url, "sol", locale)
        open_table(page, daphne_server.url, match.pk)
        toggle = page.get_by_test_id("sound-toggle")
        assert toggle.inner_text() == ("Som: desligado" if pt else "Sound: off")
        assert toggle.get_attribute("aria-pressed") == "false"
        off = page.evaluate(SOUND_CHECK)
        assert (off["enabled"], off["last"]) == (False, None)  # off: nothing plays
        toggle.click()
        assert toggle.inner_text() == ("Som: ligado" if pt else "Sound: on")
        page.reload()
        open_table(page, daphne_server.url, match.pk)
        assert page.get_by_test_id("sound-toggle").get_attribute("aria-pressed") == "true"
        assert page.evaluate(SOUND_CHECK) == {
            "enabled": True, "last": "gin", "turn": "turn", "draw": "draw", "discard": "discard",
            "gin": "gin", "knock": "knock", "dead": "result", "same": None,
        }
        assert page.evaluate(OUTSIDE_FELT) == []
        page.get_by_test_id("sound-toggle").click()  # off again for the next width's context
        page.close()


COURT_CARDS = """() => [...document.querySelectorAll('#my-hand .card.court')].map((card) => {
    const img = card.querySelector('img.court-figure');
    const corner = card.querySelector('.corner.top');
    const box = card.getBoundingClientRect();
    const c = corner.getBoundingClientRect();
    // the index is on top: the point at its middle hits the corner itself, not the figure
    const hit = document.elementFromPoint(c.left + c.width / 2, c.top + c.height / 2);
    return {
        card: card.dataset.card, src: img && new URL(img.src).pathname, loaded: !!img && img.complete,
        naturalWidth: img ? img.naturalWidth : 0, rank: corner.querySelector('.rank').textContent,
        cornerInside: c.left >= box.left && c.top >= box.top && c.right <= box.right,
        cornerOnTop: !!hit && corner.contains(hit),
        cornerHeight: c.height / box.height, letters: card.querySelectorAll('.pip.court').length,
    };
})"""


@pytest.mark.parametrize("width", WIDTHS)
def test_court_cards_show_their_figure_under_the_large_corner_index(
    daphne_server: Any, browser: Any, page: Any, width: int, seeded_decks: list[int]
) -> None:
    """A jack, queen or king in the hand draws its figure (a static SVG from the site itself:
    games/static/games/cards/court, public-domain art) and keeps its large corner index readable on
    top; no Content-Security-Policy refusal (the page as the browser gets it, CSP not bypassed)."""
    from accounts.services import house_bots_ensure

    house_bots_ensure()
    user = make_user("rhea")
    match = off_loop(
        lambda: services.match_create_vs_bot(user=user, level=1, rules_preset="classic", target=100)
    )
    held = services_hand(match.pk)
    courts = [c for c in held if c[0] in "JQK"]
    assert courts, held  # the seeded deck deals seat 0 a court card
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        tab = context.new_page()
        refused: list[str] = []
        tab.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
        log_in(tab, daphne_server.url, "rhea", "en-US")
        tab.goto(f"{daphne_server.url}/match/{match.pk}/")
        tab.locator("#my-hand .card.court").first.wait_for()
        tab.wait_for_load_state("load")  # every image loaded (or failed)
        cards = tab.evaluate(COURT_CARDS)
        assert sorted(c["card"] for c in cards) == sorted(courts)
        for c in cards:
            assert c["src"] == f"/static/games/cards/court/{c['card']}.svg", c
            assert c["loaded"] and c["naturalWidth"] > 0 and c["letters"] == 0, c
            assert c["rank"] == c["card"][0] and c["cornerInside"] and c["cornerOnTop"], c
            assert c["cornerHeight"] > 0.25, c  # the large index, as on the number cards
        assert refused == []
        tab.screenshot(path=f"/tmp/court-cards-{width}.png")
    finally:
        context.close()


def services_hand(match_id: int) -> list[str]:
    """Seat 0's cards in ``match_id`` now (from the state payload the table renders)."""
    from games import selectors

    match = selectors.match_get(match_id=match_id)
    assert match is not None
    return list(selectors.match_state_payload(match=match, seat=0)["hand"]["cards"])


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
    from accounts.services import house_bots_ensure

    house_bots_ensure()
    base = daphne_server.url
    user = make_user(LONG_A)
    match = off_loop(
        lambda: services.match_create_vs_bot(user=user, level=1, rules_preset="classic", target=50)
    )
    page = contexts(390, locale)
    log_in(page, base, user.username, locale)
    open_table(page, base, match.pk)
    page.locator("#btn-resign").click()
    page.locator("#btn-resign-yes").click()
    page.wait_for_selector("#match-end:not([hidden])")
    assert page.evaluate(NOTE_SEEN) == {"inCard": True, "onTop": True}
    assert "{#" not in page.locator("#match-end").inner_text()  # a two-line template comment showed
    page.close()
