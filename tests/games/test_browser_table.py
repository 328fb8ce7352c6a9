"""The table page in a real browser (chromium, Daphne subprocess), at 1280 px and at a 390 x 844
phone, in English and pt-BR: what the felt shows and how it is played.

Picking a card by keyboard says on the status line what a mouse pick says; a logout in another tab turns
the table into "logged out" with a link to log in; a bot table's action buttons are on screen with the
hand at 1280 x 800; 150-character names stay bounded on the felt, the header and the pages around it;
counts use the language's plural forms; the turn clock shows the move's own time apart from the last
hand's reveal; the two-deck table deals eleven cards and the non-dealer opens by discarding; sound is
off by default and the toggle is remembered; court cards show their figure under the corner index.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from games import services
from tests.browser_pages import (
    LANGUAGES,
    LONG_A,
    LONG_B,
    PAGE_OVERFLOW,
    PASSWORD,
    WIDTHS,
    log_in,
    make_user,
    off_loop,
    open_table,
    sized,
)
from tests.factories import BotMatchFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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
def test_a_logout_in_another_tab_ends_the_table_with_a_login_link(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """The server closes the table's socket for the logout (4001, docs/protocol.md); the reconnect
    finds no session (4401): the table says the player was logged out, links to the login page (back
    to this table), offers no move, and stops reconnecting."""
    host, guest = make_user("uma"), make_user("vic")
    pt = locale == "pt-BR"
    for width in WIDTHS:
        # casual: the previous width's match is still in play, and one person has one rated match at a
        # time (docs/fairplay.md "Limits that make farming slow"); the logout is what is tested here
        table = services.table_create(user=host, rules_preset="classic", target=100, turn_timer=None,
                                      rated=False)
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
        page.fill("#id_password", PASSWORD)
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(re.compile(rf".*/match/{table.pk}/$"))
        page.close()
        other.close()


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
    hand, the stock and the discard pile are all inside the viewport, nobody scrolls.

    The "table" preset makes the bot deal, so dora decides on the first upcard at once: with a random
    dealer the bot decided first half the time, and when it took the upcard dora's first turn was a
    draw, with no Take / Pass to wait for (a fresh-clone trial saw the wait time out)."""
    user = make_user("dora")
    match = off_loop(lambda: BotMatchFactory(user=user, rules_preset="table"))
    assert match.first_dealer == 1
    page = sized(contexts, 1280, locale)
    log_in(page, daphne_server.url, "dora", locale)
    open_table(page, daphne_server.url, match.pk)
    page.wait_for_selector("#actions button:not([hidden])")
    got = page.evaluate(CONTROLS_ON_SCREEN)
    page.screenshot(path="/tmp/t13/bot-1280.png")
    assert got["shown"] >= 2 and got["scrollY"] == 0, got
    assert got["out"] == [], got


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
    bot = off_loop(lambda: BotMatchFactory(user=host))
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
    user = make_user("bea")
    match = off_loop(lambda: BotMatchFactory(user=user))
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
def test_the_two_deck_table_deals_eleven_cards_and_the_non_dealer_opens_by_discarding(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """No upcard: no Take/Pass; the non-dealer holds 11 cards and discards first (click twice). The
    second deck's card that sets the knock limit lies face up beside the piles."""
    from engine.cards import parse_card
    from games.models import Match, MatchEvent

    host, guest = make_user("olga"), make_user("pia")
    for width in WIDTHS:
        # casual: the previous width's match is still in play, and one person has one rated match at a
        # time (docs/fairplay.md "Limits that make farming slow"); the two-deck deal is what is tested
        table = services.table_create(user=host, rules_preset="two_deck", target=100, turn_timer=None,
                                      rated=False)
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
        assert opener.get_attribute("#table-app", "data-phase") == "discard"
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
    user = make_user("sol")
    pt = locale == "pt-BR"
    match = off_loop(lambda: BotMatchFactory(user=user))
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
    user = make_user("rhea")
    match = off_loop(lambda: BotMatchFactory(user=user))
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
