"""The live table through a real browser (Debian chromium) on a real Daphne subprocess.

A new user signs up, starts a match against a house bot from the "Play a bot" form and plays one whole
hand by clicking: the upcard offer, draws from the stock or the discard pile, discards, and a knock as
soon as the Knock button becomes active. At every decision the page's numbers are checked against the
engine: the live deadwood count against ``engine.melds.deadwood`` of the cards shown in the hand, and
each card's "deadwood if discarded" against the deadwood of the ten cards left. Then the hand result
(both hands face up, the shuffle check "verified ✓"), the next hand, and the table in pt-BR.
Screenshots: ``/tmp/table.png``, ``/tmp/table-pt.png`` (and ``/tmp/table-result.png``).

Also: a move the server refuses (a translated message, nothing applied), a dropped socket that
reconnects, resign with confirmation and "My matches"; the hand-result screen with a layoff and a failed
shuffle check; a friend table joined by a guest through its link, with the turn clock.
Waits are on the page's state (``data-seq``, ``data-your-turn``, overlays), never on sleeps. Tests ask
for ``daphne_server`` before ``page`` so the test database exists before Playwright's loop starts.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from engine.cards import parse_cards
from engine.melds import deadwood
from tests.browser_pages import sign_up
from tests.games.socket_spy import SocketSpy

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

APP = "#table-app"
MAX_DECISIONS = 80  # a hand is about 13 turns each (rules.md, bot-vs-bot reference); dead hands end too


def shown_hand(page: Any) -> list[str]:
    """The cards drawn in the player's hand, as poker notation, in display order."""
    return page.eval_on_selector_all("#my-hand button.card", "els => els.map(e => e.dataset.card)")


def shown_deadwood(page: Any) -> int:
    return int(page.locator("#deadwood-count").inner_text())


def seq(page: Any) -> int:
    return int(page.get_attribute(APP, "data-seq") or "0")


def wait_for_turn_or_hand_end(page: Any) -> str:
    """Wait until it is this player's move (and no action is in flight) or a hand result is shown.

    :returns: ``"turn"`` or ``"result"``.
    """
    page.wait_for_function(
        """() => {
            const app = document.getElementById('table-app');
            return !document.getElementById('hand-result').hidden
                || (app.dataset.yourTurn === '1' && app.dataset.busy === '0');
        }""",
    )
    return "result" if page.locator("#hand-result").is_visible() else "turn"


def act_and_wait(page: Any, click: Any) -> None:
    """Click, then wait for the server's next state (the UI applies nothing by itself)."""
    before = seq(page)
    click()
    page.wait_for_function(f"+document.getElementById('table-app').dataset.seq > {before}")


def check_deadwood(page: Any) -> list[str]:
    """The displayed live deadwood equals the engine's deadwood of the displayed cards."""
    cards = shown_hand(page)
    assert len(cards) in (10, 11) and len(set(cards)) == len(cards)
    assert shown_deadwood(page) == deadwood(parse_cards(cards)), cards
    return cards


def best_discard(page: Any, cards: list[str]) -> str:
    """The discard that leaves the least deadwood, read from the page's per-card numbers after
    checking every one of them against the engine."""
    playable = page.eval_on_selector_all(
        "#my-hand button.card.playable", "els => els.map(e => [e.dataset.card, +e.dataset.after])"
    )
    taken = page.eval_on_selector_all("#my-hand button.card.locked", "els => els.map(e => e.dataset.card)")
    assert playable and len(playable) == 11 - len(taken)
    for card, after in playable:
        rest = [c for c in cards if c != card]
        assert after == deadwood(parse_cards(rest)), (card, cards)
    return min(playable, key=lambda pair: pair[1])[0]


def worth_taking(cards: list[str], upcard: str) -> bool:
    """Whether taking ``upcard`` (then discarding one of ``cards``) lowers the deadwood: a simple policy."""
    best = min(deadwood(parse_cards([*(c for c in cards if c != gone), upcard])) for gone in cards)
    return best < deadwood(parse_cards(cards))


def start_bot_match(page: Any, base: str) -> None:
    sign_up(page, base, "dora")
    assert page.get_by_test_id("who").inner_text() == "dora"

    page.get_by_role("navigation").get_by_role("link", name="Play a bot").click()
    page.locator("#bot-panel label.choice", has_text="Casual").click()
    page.locator("#bot-panel input[name=target][value='100']").check()
    page.get_by_test_id("start-bot-match").click()
    page.wait_for_url(re.compile(r".*/match/\d+/$"))
    page.wait_for_function("document.getElementById('conn').textContent === 'Connected'")


def start_guest_bot_match(page: Any, base: str) -> None:
    """From the home page at ``base``: play as a guest, start a bot match with the form's defaults."""
    page.goto(base + "/")
    page.get_by_test_id("play-as-guest").click()
    page.get_by_role("navigation").get_by_role("link", name="Play a bot").click()
    page.get_by_test_id("start-bot-match").click()
    page.wait_for_url(re.compile(r".*/match/\d+/$"))


SUITS, RANKS = "cdhs", "A23456789TJQK"


def check_sorting_and_pointing(page: Any, cards: list[str]) -> None:
    """Sort by suit and by rank (same cards, same deadwood), back to melds; pointing at a card tells
    the deadwood left if it were discarded; cards are named for screen readers."""
    by_suit = sorted(cards, key=lambda c: (SUITS.index(c[1]), RANKS.index(c[0])))
    by_rank = sorted(cards, key=lambda c: (RANKS.index(c[0]), SUITS.index(c[1])))
    for mode, expected in (("By suit", by_suit), ("By rank", by_rank)):
        page.get_by_role("button", name=mode, exact=True).click()
        assert shown_hand(page) == expected
        assert shown_deadwood(page) == deadwood(parse_cards(cards))
    page.get_by_role("button", name="Melds", exact=True).click()
    assert sorted(shown_hand(page)) == sorted(cards)
    card = page.locator("#my-hand button.card.playable").first
    card.hover()
    name, after = card.get_attribute("data-card"), card.get_attribute("data-after")
    symbol = "♣♦♥♠"[SUITS.index(name[1])]
    rank = "10" if name[0] == "T" else name[0]
    assert page.locator("#hover-hint").inner_text() == f"Discard {rank}{symbol} → deadwood {after}"
    rank_word = {"A": "Ace", "T": "10", "J": "Jack", "Q": "Queen", "K": "King"}.get(name[0], name[0])
    suit_word = ["clubs", "diamonds", "hearts", "spades"][SUITS.index(name[1])]
    assert (card.get_attribute("aria-label") or "").startswith(f"{rank_word} of {suit_word}.")
    page.mouse.move(0, 0)


def play_one_hand(page: Any) -> dict[str, int]:
    """Play until a hand result is shown; returns how many times each kind of move was made."""
    made = {"pass": 0, "take": 0, "draw stock": 0, "draw discard": 0, "discard": 0, "knock": 0}
    for _ in range(MAX_DECISIONS):
        if wait_for_turn_or_hand_end(page) == "result":
            return made
        phase = page.get_attribute(APP, "data-phase")
        cards = check_deadwood(page)
        if phase in ("offer_nondealer", "offer_dealer"):
            upcard = page.locator("#discard-fan .card.top").get_attribute("data-card")
            kind = "take" if worth_taking(cards, upcard) else "pass"
            act_and_wait(page, page.locator(f"#btn-{kind}").click)
            made[kind] += 1
        elif phase == "draw":
            upcard = page.locator("#discard-fan .card.top").get_attribute("data-card")
            if worth_taking(cards, upcard) and page.locator("#discard-button").is_enabled():
                act_and_wait(page, page.locator("#discard-button").click)
                made["draw discard"] += 1
                taken = page.locator("#my-hand button.card.locked")  # marked: may not be discarded now
                assert taken.count() == 1 and taken.get_attribute("data-card") == upcard
            else:
                act_and_wait(page, page.locator("#stock-button").click)
                made["draw stock"] += 1
            assert len(shown_hand(page)) == 11
        elif phase == "discard":
            if made["discard"] == 0 and made["knock"] == 0:
                check_sorting_and_pointing(page, cards)
            card = best_discard(page, cards)
            button = page.locator(f"#my-hand button.card[data-card='{card}']")
            button.click()  # select: the Knock button is active only if knocking with it is legal
            knock = page.locator("#btn-knock")
            page.wait_for_function("document.getElementById('btn-discard').disabled === false")
            after = int(button.get_attribute("data-after") or "-1")
            if knock.is_enabled():
                assert after <= 10
                assert knock.inner_text() == ("Gin!" if after == 0 else "Knock")
                act_and_wait(page, knock.click)
                made["knock"] += 1
            else:
                act_and_wait(page, button.click)  # a second click on the picked card discards it
                made["discard"] += 1
        else:
            raise AssertionError(f"unexpected phase {phase!r} on my turn")
    raise AssertionError("the hand did not end")


def test_sign_up_start_a_bot_match_and_play_a_full_hand(daphne_server_factory: Any, page: Any) -> None:
    from accounts.services import house_bots_ensure

    # The server's own 8 s hand pause: with none, a bot that opened hand 2 by taking the upcard and
    # knocking ended it before this test read hand 1's result (CI once saw "Hand 2 is over").
    daphne_server = daphne_server_factory(GAMES_HAND_PAUSE="8")
    house_bots_ensure()
    base = daphne_server.url
    errors: list[Any] = []
    page.on("pageerror", lambda error: errors.append(error))
    page.set_viewport_size({"width": 1280, "height": 900})
    start_bot_match(page, base)
    assert page.locator("#opp-name").inner_text().startswith("Bot 2")
    assert re.fullmatch(r"[0-9a-f]{64}", page.get_by_test_id("commitment").inner_text())

    made = play_one_hand(page)
    assert made["discard"] + made["knock"] >= 1 or made["take"] >= 1

    # The hand result: both hands face up, the points, and the shuffle checked in the browser.
    result = page.locator("#hand-result")
    assert result.locator("h2").inner_text() == "Hand 1 is over"
    assert result.locator(".reveal-row").count() == 2
    assert result.locator(".reveal-row .card").count() >= 20
    verify_done = "document.querySelector('[data-testid=verify-status]').textContent !== 'verifying…'"
    page.wait_for_function(verify_done)
    assert result.get_by_test_id("verify-status").inner_text() == "verified ✓"
    server_check = page.request.get(base + result.locator(".shuffle-check a").get_attribute("href")).json()
    assert server_check["valid"] is True and server_check["hand"] == 1
    assert server_check["commitment"] in (result.locator(".shuffle-check").text_content() or "")
    from games.models import Match

    match = Match.objects.get()
    my, theirs = match.scores[0], match.scores[1]
    assert page.get_by_test_id("my-score").inner_text() == str(my)
    assert page.get_by_test_id("opp-score").inner_text() == str(theirs)
    if made["knock"]:  # the knocker's hand is shown first
        assert result.locator(".reveal-row h3").first.inner_text().startswith("You ")

    # "Continue" skips the 8 s pause; the next hand is on the table with its own commitment.
    page.locator("#result-continue").click()
    assert not result.is_visible()
    if match.status == "finished":  # rare: one hand of 100 points or more ended the match
        assert page.locator("#match-end").is_visible()
        page.screenshot(path="/tmp/table.png", full_page=True)
        page.select_option("#lang-select", "pt-br")
        page.wait_for_function("document.documentElement.lang === 'pt-br'")
        assert "venceu a partida" in page.locator("#match-end h2").inner_text()
        page.screenshot(path="/tmp/table-pt.png", full_page=True)
        assert errors == []
        return
    page.wait_for_function("document.getElementById('table-app').dataset.phase !== 'ended'")
    page.wait_for_function("document.querySelectorAll('#my-hand button.card').length >= 10")
    check_deadwood(page)
    assert page.locator("#hand-number").inner_text() in ("Hand 2", "Hand 1")
    page.screenshot(path="/tmp/table.png", full_page=True)

    # The same table in pt-BR: translated labels and card names ("7 de copas").
    page.select_option("#lang-select", "pt-br")
    page.wait_for_function("document.documentElement.lang === 'pt-br'")
    page.wait_for_function("document.querySelectorAll('#my-hand button.card').length >= 10")
    assert "Pontos soltos" in page.locator("#deadwood-meter").inner_text()
    label = page.locator("#my-hand button.card").first.get_attribute("aria-label") or ""
    assert re.match(r"^(Ás|[2-9]|10|Valete|Dama|Rei) de (paus|ouros|copas|espadas)", label), label
    check_deadwood(page)
    assert not page.locator("#hand-result").is_visible()  # closed before the reload: stays closed
    page.screenshot(path="/tmp/table-pt.png", full_page=True)
    assert errors == []  # no uncaught script error on any page


def make_a_move(page: Any, keyboard: bool = False) -> None:
    """One legal move whatever the phase (pass, draw from the stock, or discard), by clicking or by the
    keyboard alone (P, S; a card focused, Enter to pick it, Enter again to discard it)."""
    phase = page.get_attribute(APP, "data-phase")
    if phase in ("offer_nondealer", "offer_dealer"):
        page.keyboard.press("p") if keyboard else page.locator("#btn-pass").click()
    elif phase == "draw":
        page.keyboard.press("s") if keyboard else page.locator("#stock-button").click()
    else:
        card = page.locator("#my-hand button.card.playable").first
        if keyboard:
            card.focus()
            page.keyboard.press("Enter")
            page.wait_for_function("document.activeElement.classList.contains('selected')")
            page.keyboard.press("Enter")
        else:
            card.click()
            card.click()


def test_refused_move_reconnect_resign_and_my_matches(daphne_server: Any, page: Any) -> None:
    """A move the server refuses is shown as a translated message and never applied; a dropped socket
    reconnects by itself; resigning (after a confirmation) ends on the match-end screen and the match is
    listed as lost in "My matches". The SHA-256 fallback agrees with crypto.subtle."""
    from accounts.services import house_bots_ensure

    house_bots_ensure()
    base = daphne_server.url
    errors: list[Any] = []
    page.on("pageerror", lambda error: errors.append(error))
    refuse = {"on": False, "refused": 0}
    routes: list[Any] = []

    def route(ws: Any) -> None:
        # Between the page and the real server: forward everything, except that while refuse["on"]
        # an action is answered with an error as the server would, and never reaches the server.
        server = ws.connect_to_server()
        routes.append(ws)

        def from_page(message: str | bytes) -> None:
            msg = json.loads(message)
            if refuse["on"] and msg.get("type") == "action":
                refuse["refused"] += 1
                error = {"type": "error", "code": "out_of_turn", "message": "not your turn", "id": msg["id"]}
                ws.send(json.dumps(error))
            else:
                server.send(message)

        ws.on_message(from_page)

    page.route_web_socket(re.compile(r".*/ws/match/\d+/$"), route)
    start_guest_bot_match(page, base)

    same = page.evaluate(
        """async () => {
            const m = await import('/static/games/js/sha256.js');
            const text = 'ab12:' + ['7h', 'As', 'Td'].join(' ') + ' ção';
            return [await m.sha256Hex(text), m.sha256HexFallback(text), await m.sha256Hex('abc')];
        }"""
    )
    assert same[0] == same[1]
    assert same[2] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    assert wait_for_turn_or_hand_end(page) == "turn"
    before_seq, before_cards = seq(page), shown_hand(page)
    refuse["on"] = True
    make_a_move(page)
    toast = page.get_by_test_id("toast")
    toast.wait_for()
    assert toast.inner_text() == "It is not your turn."
    page.wait_for_function("document.getElementById('table-app').dataset.busy === '0'")
    assert refuse["refused"] == 1
    assert seq(page) == before_seq and shown_hand(page) == before_cards  # nothing applied locally
    assert page.get_attribute(APP, "data-your-turn") == "1"

    refuse["on"] = False
    act_and_wait(page, lambda: make_a_move(page))
    # Then by the keyboard alone until a card has been discarded that way.
    phases: list[str] = []
    while "discard" not in phases and len(phases) < 8:
        if wait_for_turn_or_hand_end(page) == "result":  # the bot knocked first: rare, and fine
            break
        phases.append(page.get_attribute(APP, "data-phase"))
        act_and_wait(page, lambda: make_a_move(page, keyboard=True))
    assert "discard" in phases or page.locator("#hand-result").is_visible(), phases

    # The connection drops: the page says so, reconnects with backoff and carries on from the server.
    routes[-1].close(code=1011)
    page.wait_for_function("document.getElementById('conn').textContent.startsWith('Connection lost')")
    page.wait_for_function("document.getElementById('conn').textContent === 'Connected'")
    assert len(routes) == 2 and seq(page) > before_seq

    page.locator("#btn-resign").click()
    page.get_by_role("button", name="Keep playing").click()
    assert page.get_attribute(APP, "data-status") == "active"
    page.locator("#btn-resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    end = page.locator("#match-end")
    end.wait_for()
    assert end.locator("h2").inner_text() == page.locator("#opp-name").inner_text() + " won the match"
    assert "You resigned." in end.inner_text()
    end.get_by_role("link", name="My matches").click()
    row = page.get_by_test_id("matches").locator("tbody tr")
    assert row.count() == 1
    assert "Lost" in row.inner_text() and "(resigned)" in row.inner_text()
    assert errors == []


def test_a_move_made_before_the_sockets_first_state_goes_out_once(daphne_server: Any, page: Any) -> None:
    """The page draws its first position from its own HTML, so a move can be made once the socket is
    open and before the socket's first state has come: the move is sent once on that socket, not a
    second time when the first state arrives (the resend is for a socket that reopened after the move:
    a full CI run counted two refusals of one move here), and the server applies it."""
    from accounts.services import house_bots_ensure

    house_bots_ensure()
    hold = {"on": True}
    held: list[Any] = []
    sockets: list[Any] = []
    actions: list[str] = []

    def route(ws: Any) -> None:
        # Between the page and the real server: the server's frames are held back while hold["on"].
        server = ws.connect_to_server()
        sockets.append(ws)

        def from_server(message: str | bytes) -> None:
            held.append(message) if hold["on"] else ws.send(message)

        def from_page(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "action":
                actions.append(msg["id"])
            server.send(message)

        server.on_message(from_server)
        ws.on_message(from_page)

    page.route_web_socket(re.compile(r".*/ws/match/\d+/$"), route)
    start_guest_bot_match(page, daphne_server.url)
    page.wait_for_function("document.getElementById('conn').textContent === 'Connected'")
    assert page.get_attribute(APP, "data-your-turn") == "1"  # the page's own state: the player opens
    before = seq(page)
    make_a_move(page)
    page.wait_for_function("() => document.getElementById('table-app').dataset.busy === '1'")
    while held:  # in order: the first state, then the answer to the move and what followed
        sockets[-1].send(held.pop(0))
    hold["on"] = False
    page.wait_for_function(f"+document.getElementById('table-app').dataset.seq > {before}")
    page.wait_for_function("document.getElementById('table-app').dataset.busy === '0'")
    assert len(actions) == 1 and len(sockets) == 1, actions


def test_hand_result_shows_layoffs_and_a_failed_shuffle_check(daphne_server: Any, page: Any) -> None:
    """The hand-result screen for rules.md worked example 2 (the opponent knocks with Kc, Qs is laid
    off on its spade run, it scores 2), verified in the browser; then a reveal whose salt does not
    match its commitment shows the failure. The reveals are real engine values, sent to the page as
    the server's ``state`` (the page cannot tell)."""
    from datetime import UTC, datetime, timedelta

    from accounts.services import house_bots_ensure
    from engine.cards import card_names
    from engine.deck import deck_commitment, seeded_deck
    from engine.rules import preset
    from engine.scoring import score_knock

    house_bots_ensure()
    knocker_cards, defender_cards = "4h 5h 6h 8d 8h 8s 9s Ts Js Kc", "Tc Td Th 6c 7c 8c 9c Qs 5s 7s"
    knocker, defender = parse_cards(knocker_cards), parse_cards(defender_cards)
    result = score_knock(knocker, defender, preset("classic"), knocker=1)
    deck, salt = seeded_deck(2), "5eed" * 8
    now = datetime.now(UTC)

    def reveal(number: int, salt_shown: str) -> dict[str, Any]:
        return {
            "number": number, "dealer": 0, "result": result.to_dict(),
            "final_hands": [defender_cards.split(), knocker_cards.split()], "scores_after": [0, 2],
            "deck": card_names(deck), "salt": salt_shown, "commitment": deck_commitment(deck, salt),
            "ended_at": now.isoformat(), "show_until": (now + timedelta(seconds=30)).isoformat(),
        }

    spy = SocketSpy(page)
    start_guest_bot_match(page, daphne_server.url)
    # On the player's turn the server sends nothing until the player moves: the injected states stay.
    assert wait_for_turn_or_hand_end(page) == "turn"
    state = spy.synced_state(lambda: seq(page))

    fake = {**state, "seq": state["seq"] + 100, "last_hand": reveal(7, salt)}
    spy.inject(fake)
    box = page.locator("#hand-result")
    box.wait_for()
    bot = page.locator("#opp-name").inner_text()
    assert box.locator(".headline").inner_text() == f"{bot} knocked and scores 2 points."
    knocker_row, defender_row = box.locator(".reveal-row").nth(0), box.locator(".reveal-row").nth(1)
    assert knocker_row.locator("h3").inner_text() == f"{bot} knocked — deadwood 10"
    assert defender_row.locator("h3").inner_text() == "You (defender) — deadwood 12"
    run = knocker_row.locator(".group", has=page.locator("[data-card='Qs']"))
    shown = run.locator(".card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert shown == ["9s", "Ts", "Js", "Qs"]
    assert run.locator(".card.layoff").get_attribute("data-card") == "Qs"
    assert "Laid off on the knocker's melds: Q♠" in defender_row.inner_text()
    status = box.get_by_test_id("verify-status")
    verified = "document.querySelector('[data-testid=verify-status]').textContent === 'verified ✓'"
    page.wait_for_function(verified)

    tampered = {**fake, "seq": fake["seq"] + 1, "last_hand": reveal(8, "0" * 32)}
    spy.inject(tampered)
    page.wait_for_function("document.querySelector('#result-body h2').textContent === 'Hand 8 is over'")
    page.wait_for_function(
        "document.querySelector('[data-testid=verify-status]').textContent === 'verification FAILED ✗'"
    )
    assert "bad" in (status.get_attribute("class") or "")
    page.screenshot(path="/tmp/table-result.png", full_page=True)


def test_friend_table_invite_join_and_turn_clock(daphne_server: Any, page: Any, browser: Any) -> None:
    """A friend table with a 30 s turn timer: the host sees the invitation link while waiting; a guest
    opens it, joins, and both tables start with the turn clock; a move by one shows on the other."""
    base = daphne_server.url
    context = browser.new_context(locale="en-US", bypass_csp=True)  # the friend's own cookies
    try:
        host, friend = page, context.new_page()
        host.goto(base + "/")
        host.get_by_test_id("play-as-guest").click()
        host.get_by_role("navigation").get_by_role("link", name="Play a friend").click()
        host.fill("#friend-turn-timer", "30")
        host.get_by_test_id("open-friend-table").click()
        host.wait_for_url(re.compile(r".*/match/\d+/$"))
        host.wait_for_selector("#waiting:not([hidden])")  # drawn by the table's script: wait for it
        invite = host.input_value("#invite-url")
        assert re.fullmatch(re.escape(base) + r"/t/[\w-]+/", invite), invite

        friend.goto(invite)
        friend.get_by_test_id("join-as-guest").click()  # one click: a guest, seated
        friend.wait_for_url(re.compile(r".*/match/\d+/$"))
        for p in (host, friend):
            p.wait_for_function("document.getElementById('table-app').dataset.status === 'active'")
            p.wait_for_function("document.querySelectorAll('#my-hand button.card').length === 10")
            assert not p.locator("#waiting").is_visible()
            assert re.fullmatch(r"(You|Guest \d+): 0:[0-3]\d", p.get_by_test_id("timer").inner_text())
            assert p.locator("#felt-timer").is_visible()
        names = [p.locator("#my-name").inner_text() for p in (host, friend)]
        assert host.locator("#opp-name").inner_text() == names[1]
        assert friend.locator("#opp-name").inner_text() == names[0]

        host_first = host.get_attribute(APP, "data-your-turn") == "1"
        mover, watcher = (host, friend) if host_first else (friend, host)
        assert mover.get_attribute(APP, "data-your-turn") == "1"
        assert watcher.get_attribute(APP, "data-your-turn") == "0"
        assert watcher.locator("#btn-pass").is_hidden()  # nothing to click on the other's turn
        act_and_wait(mover, mover.locator("#btn-pass").click)
        watcher.wait_for_function("document.getElementById('log').textContent.includes('passed.')")
        mover_name = mover.locator("#my-name").inner_text()
        assert watcher.locator("#log li").last.inner_text() == f"{mover_name} passed."
        assert watcher.get_attribute(APP, "data-your-turn") == "1"
    finally:
        context.close()
