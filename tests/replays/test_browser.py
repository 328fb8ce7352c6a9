"""The replay viewer in chromium: keys step to a given action and both hands on screen equal the engine's
state there; autoplay advances and pauses; a shared position URL opens the same moment."""

from __future__ import annotations

import os
import re
from functools import partial
from typing import Any

import pytest
from playwright.sync_api import expect

from engine.cards import card_names, parse_card
from engine.hand import HandState
from engine.rules import RuleSet
from games.models import Match, MatchEvent
from tests.conftest import skip_or_fail

pytestmark = pytest.mark.browser


def in_thread(fn: Any) -> Any:
    """Run ``fn`` in a worker thread: the services' after-commit broadcast uses ``async_to_sync``,
    which refuses the main thread while Playwright's event loop runs there."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    def run() -> Any:
        try:
            return fn()
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


def engine_hands(match: Match, hand_number: int, step: int) -> tuple[list[str], list[str], list[str]]:
    """Both hands (sorted) and the discard pile after ``step`` actions of hand ``hand_number``, by the
    engine from the stored rows (independently of the replay code)."""
    rows = list(MatchEvent.objects.filter(match=match).order_by("seq"))
    deal_i = next(i for i, r in enumerate(rows) if r.type == "deal" and r.payload["hand"] == hand_number)
    deal = rows[deal_i].payload
    hand = HandState(RuleSet.from_dict(match.rules), deal["dealer"], [parse_card(c) for c in deal["deck"]])
    actions = [r for r in rows[deal_i + 1:] if r.type == "action"][:step]
    for r in actions:
        hand.apply(r.payload["action"], r.payload["seat"])
    seat0, seat1 = (sorted(card_names(h)) for h in hand.hands)
    return seat0, seat1, card_names(hand.discard_pile)


CARDS = "els => els.map(e => e.dataset.card)"


def on_screen(page: Any, seat: int) -> list[str]:
    return sorted(page.locator(f"#hand-{seat} [data-card]").evaluate_all(CARDS))


def action_counts(match: Match) -> list[int]:
    """Actions per hand, in order."""
    counts: list[int] = []
    for r in MatchEvent.objects.filter(match=match).order_by("seq"):
        if r.type == "deal":
            counts.append(0)
        elif r.type == "action":
            counts[-1] += 1
    return counts


def two_hand_match(finished_match: Any) -> Match:
    """A finished match whose first hand has at least 5 actions and a later hand at least 4."""
    for _ in range(8):
        match = finished_match("classic", target=100)
        counts = action_counts(match)
        if len(counts) >= 2 and counts[0] >= 5 and counts[1] >= 4:
            return match
    raise AssertionError("no suitable match")


def test_keys_step_to_an_action_and_both_hands_match_the_engine(
    daphne_server: Any, page: Any, finished_match: Any
) -> None:
    match = two_hand_match(finished_match)
    page.goto(f"{daphne_server.url}/replay/{match.pk}/")
    app = page.locator("#replay-app")
    assert app.get_attribute("data-hand") == "1" and app.get_attribute("data-step") == "0"
    page.keyboard.press("ArrowLeft")  # nothing before the start
    assert app.get_attribute("data-step") == "0"
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert app.get_attribute("data-step") == "5"
    mine, theirs, pile = engine_hands(match, 1, 5)
    assert on_screen(page, 0) == mine and on_screen(page, 1) == theirs
    assert page.locator("#discard-fan [data-card]").evaluate_all(CARDS) == pile[-8:]
    page.keyboard.press("ArrowDown")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert app.get_attribute("data-hand") == "2" and app.get_attribute("data-step") == "2"
    mine, theirs, _ = engine_hands(match, 2, 2)
    assert on_screen(page, 0) == mine and on_screen(page, 1) == theirs
    assert "hand=2&step=2" in page.url
    # clicking an entry of the move list goes to that step
    page.locator("#move-list button[data-step='4']").click()
    assert app.get_attribute("data-step") == "4"
    mine, theirs, _ = engine_hands(match, 2, 4)
    assert on_screen(page, 0) == mine and on_screen(page, 1) == theirs
    page.keyboard.press("End")
    assert page.locator("#reveal").is_visible()
    assert "won the match" in page.locator("#reveal").inner_text()
    page.keyboard.press("Home")
    assert app.get_attribute("data-hand") == "1" and app.get_attribute("data-step") == "0"
    assert not page.locator("#reveal").is_visible()
    assert page.locator("[data-testid=verify-status]").inner_text().startswith("verified")


def test_autoplay_advances_and_pauses(daphne_server: Any, page: Any, finished_match: Any) -> None:
    match = finished_match("classic")
    page.goto(f"{daphne_server.url}/replay/{match.pk}/")
    page.select_option("#speed", "200")
    page.locator("[data-testid=play]").click()
    app = page.locator("#replay-app")
    assert app.get_attribute("data-playing") == "1"
    # 200 ms a step; polled by the locator (the page's CSP forbids wait_for_function's eval)
    expect(app).to_have_attribute("data-step", re.compile(r"^([3-9]|\d\d+)$"))
    page.locator("[data-testid=play]").click()
    assert app.get_attribute("data-playing") == "0"
    step = app.get_attribute("data-step")
    page.wait_for_timeout(600)
    assert app.get_attribute("data-step") == step


def test_a_shared_position_url_opens_the_same_moment(
    daphne_server: Any, page: Any, finished_match: Any
) -> None:
    match = two_hand_match(finished_match)
    page.goto(f"{daphne_server.url}/replay/{match.pk}/?hand=2&step=3")
    app = page.locator("#replay-app")
    assert app.get_attribute("data-hand") == "2" and app.get_attribute("data-step") == "3"
    mine, theirs, _ = engine_hands(match, 2, 3)
    assert on_screen(page, 0) == mine and on_screen(page, 1) == theirs
    assert page.locator("#move-list li.current button").get_attribute("data-step") == "3"
    page.goto(f"{daphne_server.url}/replay/{match.pk}/?hand=2&step=999")
    assert "has no step 999" in page.locator("[data-testid=notice]").inner_text()
    assert app.get_attribute("data-hand") == "2" and app.get_attribute("data-step") == "0"


def test_a_spectator_sees_no_hidden_card_while_the_players_play(
    daphne_server: Any, page: Any, alice: Any, bob: Any, seeded_decks: Any, redis_url: str
) -> None:
    from engine.spectator import concealed_cards
    from games import selectors, services
    from games.live import load
    from replays.models import ReplayAccess
    from tests.games.wsclient import choose

    if not os.environ.get("REDIS_URL"):  # reachable is not enough: both processes must USE it
        skip_or_fail("REDIS_URL is not set: this process's moves reach the server's spectator through Redis")
    table = services.table_create(
        user=alice, rules_preset="classic", target=100, turn_timer=None, rated=False
    )
    services.table_join(user=bob, token=table.invite_token)
    ReplayAccess.objects.create(match=table, public=True)
    page.goto(f"{daphne_server.url}/watch/{table.pk}/")
    app = page.locator("#watch-app")
    users = {0: alice, 1: bob}
    for step in range(40):
        match = Match.objects.select_related("player0", "player1").get(pk=table.pk)
        if match.status != "active":
            break
        expect(app).to_have_attribute("data-seq", str(match.last_seq))
        hand = load(match).state.hand
        assert hand is not None
        shown = page.locator("#watch-app [data-card]:not(#reveal [data-card])").evaluate_all(CARDS)
        assert not set(shown) & concealed_cards(hand), step
        for seat in (0, 1):
            backs = page.locator(f"#hidden-{seat} .card.back").count()
            assert backs == len(hand.hands[seat]) - len(hand.known[seat])
        seat = load(match).state.current_player
        mine = selectors.match_state_payload(match=match, seat=seat)["hand"]
        in_thread(partial(services.match_apply_action, match_id=match.pk, user=users[seat],
                          action_text=choose(mine), client_seq=match.last_seq, msg_id=f"b{step}"))
    assert app.get_attribute("data-status") == "active"


def test_the_private_link_follows_the_position(
    daphne_server: Any, page: Any, alice: Any, bob: Any, seeded_decks: Any
) -> None:
    from replays.models import ReplayAccess
    from tests.replays.test_views import play_friend_match

    def set_password() -> None:
        alice.set_password("felt-green-42-knock")
        alice.save()

    in_thread(set_password)
    match = in_thread(partial(play_friend_match, alice, bob, rated=False))
    page.goto(f"{daphne_server.url}/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "felt-green-42-knock")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/$"))
    page.goto(f"{daphne_server.url}/replay/{match.pk}/?hand=1&step=2")
    token = ReplayAccess.objects.get(match=match).token
    share = page.locator("[data-testid=share-url]")
    base = f"/replay/{match.pk}/?token={token}"
    assert share.input_value().endswith(base + "&hand=1&step=2")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-app")).to_have_attribute("data-step", "3")
    assert share.input_value().endswith(base + "&hand=1&step=3")
    assert "hand=1&step=3" in page.url
    # the link opens there for a visitor without an account
    page.context.clear_cookies()
    page.goto(share.input_value())
    app = page.locator("#replay-app")
    assert app.get_attribute("data-hand") == "1" and app.get_attribute("data-step") == "3"
