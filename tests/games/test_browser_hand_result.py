"""The table's hand result and Moves list in a real browser (chromium, Daphne subprocess).

The Moves list is rendered from the server's state (``hand.moves``, ``last_hand.moves``), so it is the
same after a reload; the hand-ending move is listed before "Hand N over"; a timer move is marked and the
turn-timer warning says how many in a row lose; a dead hand's reveal shows both hands arranged; an
Oklahoma doubled result shows "N × 2 = M"; pointing at the card just taken never shows a deadwood
number. The end-of-hand panel fits a 390 x 844 phone with its Continue button on screen (English and
pt-BR). Real engine values are injected as the server's ``state`` through a routed socket
(tests/games/socket_spy.py, as in test_browser.py's hand-result test).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from playwright.sync_api import expect

from engine.cards import card_names, parse_cards
from engine.deck import deck_commitment, seeded_deck
from engine.melds import best_arrangement, deadwood
from engine.rules import preset
from engine.scoring import score_knock
from games import services
from tests.browser_pages import (
    HEADER_TAPPABLE,
    LANGUAGES,
    LONG_A,
    WIDTHS,
    log_in,
    make_user,
    off_loop,
    open_table,
    sized,
)
from tests.games.socket_spy import SocketSpy
from tests.games.test_browser import (
    APP,
    act_and_wait,
    make_a_move,
    seq,
    start_guest_bot_match,
    wait_for_turn_or_hand_end,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_lines(page: Any) -> list[str]:
    return page.eval_on_selector_all("#log li", "els => els.map(e => e.textContent)")


def arrangement(cards: str) -> dict[str, Any]:
    best = best_arrangement(parse_cards(cards))
    return {
        "melds": [m.names() for m in best.melds],
        "deadwood_cards": card_names(best.unmatched),
        "deadwood": best.deadwood,
    }


def test_moves_from_state_dead_hand_doubled_points_timer_and_taken_card(
    daphne_server: Any, page: Any
) -> None:
    from accounts.services import house_bots_ensure

    house_bots_ensure()
    errors: list[Any] = []
    page.on("pageerror", lambda error: errors.append(error))
    spy = SocketSpy(page)
    start_guest_bot_match(page, daphne_server.url)

    # Real play: the Moves list follows the server's hand.moves, and is the same after a reload.
    assert wait_for_turn_or_hand_end(page) == "turn"
    act_and_wait(page, lambda: make_a_move(page))
    page.wait_for_function("document.querySelectorAll('#log li').length >= 1")
    spy.synced_state(lambda: seq(page))
    before = log_lines(page)
    assert before and any(line.startswith("You ") for line in before), before
    page.reload()
    page.wait_for_function(f"document.querySelectorAll('#log li').length >= {len(before)}")
    assert log_lines(page)[: len(before)] == before  # the bot may have moved since: a longer list

    # Injected: a dead hand just ended (its last discard listed before "Hand 9 over"), a timer move in
    # the new hand, a 30 s timer with one strike of 3, and the card just taken. Injected on the player's
    # turn, when the server sends nothing newer until the player moves (a late duplicate of the state
    # shown may still come, e.g. the bot's broadcast after the reload's own state: the page keeps the
    # newest seq, checked at the end).
    while wait_for_turn_or_hand_end(page) == "result":
        page.locator("#result-continue").click()
    state = spy.synced_state(lambda: seq(page))
    deck, salt = seeded_deck(3), "ab" * 16
    now = datetime.now(UTC)
    mine_cards, theirs_cards = "2c 3c 4c 7h 7d 7s 9h Jc Qd Kh", "5s 6s 7c 8c 9d Th Js Qs Ks 2h"
    you = state["match"]["you"]
    hands = (
        [mine_cards.split(), theirs_cards.split()] if you == 0 else [theirs_cards.split(), mine_cards.split()]
    )
    arrs = [arrangement(" ".join(h)) for h in hands]
    dead = {
        "number": 9,
        "dealer": 0,
        "result": {
            "kind": "dead",
            "knocker": None,
            "winner": None,
            "points": 0,
            "bonus": 0,
            "multiplier": 1,
            "knocker_deadwood": 0,
            "defender_deadwood": 0,
            "knocker_melds": [],
            "knocker_unmatched": [],
            "defender_melds": [],
            "defender_unmatched": [],
            "layoffs": [],
        },
        "final_hands": hands,
        "arrangements": arrs,
        "scores_after": [0, 0],
        "deck": card_names(deck),
        "salt": salt,
        "commitment": deck_commitment(deck, salt),
        "moves": [
            {"seat": you, "action": "draw stock", "card": "Kh", "auto": False},
            {"seat": you, "action": "discard 8s", "card": None, "auto": False},
            # revealed after the hand: the opponent's stock draw names its card and its player
            {"seat": 1 - you, "action": "draw stock", "card": "2h", "auto": False},
            {"seat": 1 - you, "action": "discard 9d", "card": None, "auto": False},
        ],
        "ended_at": now.isoformat(),
        "show_until": (now + timedelta(seconds=30)).isoformat(),
    }
    hand = dict(state["hand"])
    eleven = list(hand["cards"])
    taken = next(c for c in card_names(deck) if c not in eleven)
    eleven.append(taken)
    after = {c: deadwood(parse_cards([x for x in eleven if x != c])) for c in eleven if c != taken}
    hand.update(arrangement(" ".join(eleven)))  # melds, deadwood_cards, deadwood of the 11 (hand_view groups)
    hand.update(
        phase="discard",
        to_act=you,
        your_turn=True,
        cards=eleven,
        taken_card=taken,
        deadwood_if_discarded=after,
        legal_actions=[f"discard {c}" for c in after],
        can_knock=False,
        moves=[
            {"seat": 1 - you, "action": "pass", "card": None, "auto": True},
            {"seat": you, "action": "take", "card": taken, "auto": False},
        ],
    )
    match = {
        **state["match"],
        "turn_timer_seconds": 30,
        "auto_moves_to_lose": 3,
        "timeout_strikes": [1, 0] if you == 0 else [0, 1],
        "turn_deadline": (now + timedelta(seconds=25)).isoformat(),
    }
    fake = {**state, "seq": state["seq"] + 100, "match": match, "hand": hand, "last_hand": dead}
    spy.inject(fake)
    box = page.locator("#hand-result")
    box.wait_for()
    assert box.locator(".headline").inner_text() == "Dead hand: nobody scores, the same dealer deals again."
    rows = box.locator(".reveal-row")
    assert rows.count() == 2
    mine = arrangement(mine_cards)
    assert rows.nth(0).locator("h3").inner_text() == f"You — deadwood {mine['deadwood']}"
    groups = rows.nth(0).locator(".group")
    assert groups.count() == len(mine["melds"]) + 1
    for i, meld in enumerate(mine["melds"]):
        assert groups.nth(i).locator(".card").evaluate_all("els => els.map(e => e.dataset.card)") == meld
    assert groups.nth(len(mine["melds"])).locator(".group-label").inner_text() == "Deadwood"
    opp = page.locator("#opp-name").inner_text()
    theirs = arrangement(theirs_cards)
    assert rows.nth(1).locator("h3").inner_text() == f"{opp} — deadwood {theirs['deadwood']}"
    lines = log_lines(page)
    assert lines == [
        "You drew K♥ from the stock.",
        "You discarded 8♠.",
        f"{opp} drew 2♥ from the stock.",
        f"{opp} discarded 9♦.",
        "Hand 9 over: Dead hand: nobody scores, the same dealer deals again.",
        f"{opp} passed. (played by the timer)",
        f"You took the upcard {taken[0].replace('T', '10')}" + "♣♦♥♠"["cdhs".index(taken[1])] + ".",
    ]
    warning = page.get_by_test_id("timer-warning")
    assert warning.inner_text() == (
        "When time runs out the timer plays a safe move for you; 3 timer moves in a row lose the match. "
        "Timer moves in a row so far: 1 of 3."
    )
    page.locator("#result-continue").click()
    locked = page.locator(f"#my-hand button.card[data-card='{taken}']")
    assert "locked" in (locked.get_attribute("class") or "")
    other = page.locator("#my-hand button.card.playable").first
    other.hover()
    assert (
        page.locator("#hover-hint").inner_text().endswith(f"→ deadwood {other.get_attribute('data-after')}")
    )
    locked.hover()
    assert page.locator("#hover-hint").inner_text() == (
        "Just taken from the discard pile: it cannot be discarded this turn."
    )
    assert locked.get_attribute("data-after") is None

    # Injected: an Oklahoma knock doubled by a spade upcard shows the points before doubling.
    knocker, defender = "4h 5h 6h 8d 8h 8s 9s Ts Js Kc", "Tc Td Th 6c 7c 8c 9c Qs 5s 7s"
    result = score_knock(
        parse_cards(knocker),
        parse_cards(defender),
        preset("oklahoma"),
        knocker=1 - you,
        knock_limit=10,
        multiplier=2,
    )
    r = result.to_dict()
    assert r["multiplier"] == 2 and r["points"] % 2 == 0
    doubled = {
        **dead,
        "number": 10,
        "result": r,
        "moves": [],
        "final_hands": [defender.split(), knocker.split()]
        if you == 0
        else [knocker.split(), defender.split()],
        "ended_at": (now + timedelta(seconds=1)).isoformat(),
        "show_until": (now + timedelta(seconds=31)).isoformat(),
    }
    spy.inject({**fake, "seq": fake["seq"] + 1, "last_hand": doubled})
    page.wait_for_function("document.querySelector('#result-body h2').textContent === 'Hand 10 is over'")
    before_doubling = r["points"] // 2
    assert (
        f"doubled (spade upcard): {before_doubling} × 2 = {r['points']} points"
        in box.locator(".meta").first.inner_text()
    )
    assert page.get_attribute(APP, "data-seq") == str(fake["seq"] + 1)

    # A state older than the one shown (a late duplicate of the server's) never takes the table back:
    # the spectator count sent after it on the same socket shows it was handled.
    spy.inject(state)
    spy.inject({"type": "spectators", "count": 3})
    expect(page.get_by_test_id("spectators")).to_have_text("3 watching")
    assert page.get_attribute(APP, "data-seq") == str(fake["seq"] + 1)
    assert page.locator("#result-body h2").inner_text() == "Hand 10 is over"
    assert errors == []


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
    knocker, defender = "4h 5h 6h 8d 8h 8s 9s Ts Js Kc", "Tc Td Th 6c 7c 8c 9c Qs 5s 7s"
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
