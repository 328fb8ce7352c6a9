"""The state payload a seat receives (``games.selectors.match_state_payload``, docs/protocol.md "state"):
the discard map leaves out the card just taken; the public move lists of the current and the last hand
(the hand-ending move included, the opponent's stock draw hidden until the hand is revealed, timer moves
marked ``auto``) and both revealed hands arranged.

Matches are casual friend matches (``tests.factories.FriendMatchFactory``) on seeded decks."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from engine.cards import card_names, parse_cards
from engine.melds import best_arrangement, deadwood
from games import selectors, services
from games.live import load
from games.models import Match, MatchEvent
from games.services import TIMEOUT_STRIKES_TO_LOSE
from tests.factories import FriendMatchFactory
from tests.games.play import play_until

pytestmark = pytest.mark.django_db(transaction=True)


def _payload(match_id: int, seat: int) -> dict[str, Any]:
    return selectors.match_state_payload(match=selectors.match_get(match_id=match_id), seat=seat)


def _action_rows(match_id: int) -> list[MatchEvent]:
    return list(MatchEvent.objects.filter(match_id=match_id).order_by("seq"))


def test_discard_map_leaves_out_the_card_just_taken(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = FriendMatchFactory(host=alice, friend=bob, rated=False)
    users = {0: alice, 1: bob}
    actor = load(match).state.current_player
    upcard = _payload(match.pk, actor)["hand"]["upcard"]
    services.match_apply_action(
        match_id=match.pk, user=users[actor], action_text="take", client_seq=1, msg_id="t1"
    )
    hand = _payload(match.pk, actor)["hand"]
    assert hand["phase"] == "discard" and hand["taken_card"] == upcard and len(hand["cards"]) == 11
    after = hand["deadwood_if_discarded"]
    assert upcard not in after
    assert sorted(after) == sorted(c for c in hand["cards"] if c != upcard)
    legal_cards = {a.split()[1] for a in hand["legal_actions"] if a.startswith(("discard ", "knock "))}
    assert set(after) == legal_cards
    eleven = parse_cards(" ".join(hand["cards"]))
    for name, dw in after.items():
        card = parse_cards(name)[0]
        assert dw == deadwood([c for c in eleven if c != card])  # brute force over the 10 left


def test_moves_in_state_include_the_hand_ending_move(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = FriendMatchFactory(host=alice, friend=bob, rated=False)
    played = play_until(match.pk, {0: alice, 1: bob}, hands=1)
    rows = _action_rows(played.pk)
    end = next(i for i, r in enumerate(rows) if r.type == "hand_end")
    hand1 = [r.payload for r in rows[1:end]]
    assert all(p["type"] == "action" for p in hand1)
    for seat in (0, 1):
        payload = _payload(played.pk, seat)
        lh = payload["last_hand"]
        assert lh["number"] == 1
        # the ended hand is revealed in full: every move, the ending one last, cards named
        assert lh["moves"] == [
            {"seat": p["seat"], "action": p["action"], "card": p.get("card"), "auto": False} for p in hand1
        ]
        assert lh["moves"][-1]["action"] == rows[end - 1].payload["action"]
        kind = lh["result"]["kind"]
        if kind != "dead":
            assert lh["moves"][-1]["action"].startswith("knock")
        # both revealed hands arranged (the dead-hand reveal needs it: its result has no melds)
        for s in (0, 1):
            best = best_arrangement(parse_cards(" ".join(lh["final_hands"][s])))
            assert lh["arrangements"][s] == {
                "melds": [m.names() for m in best.melds],
                "deadwood_cards": card_names(best.unmatched),
                "deadwood": best.deadwood,
            }
            melded = [c for m in lh["arrangements"][s]["melds"] for c in m]
            assert sorted(melded + lh["arrangements"][s]["deadwood_cards"]) == sorted(lh["final_hands"][s])
        assert payload["hand"]["number"] == 2 and payload["hand"]["moves"] == []


def test_current_hand_moves_hide_the_opponents_stock_draw(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    match = FriendMatchFactory(host=alice, friend=bob, rated=False)
    users = {0: alice, 1: bob}
    first = load(match).state.current_player
    for i, (seat, text) in enumerate(((first, "pass"), (1 - first, "pass"), (first, "draw stock"))):
        services.match_apply_action(
            match_id=match.pk, user=users[seat], action_text=text, client_seq=1 + i, msg_id=f"m{i}"
        )
    drawn = _action_rows(match.pk)[-1].payload["card"]
    mine = _payload(match.pk, first)["hand"]["moves"]
    theirs = _payload(match.pk, 1 - first)["hand"]["moves"]
    assert mine == [
        {"seat": first, "action": "pass", "card": None, "auto": False},
        {"seat": 1 - first, "action": "pass", "card": None, "auto": False},
        {"seat": first, "action": "draw stock", "card": drawn, "auto": False},
    ]
    assert theirs == [*mine[:2], {"seat": first, "action": "draw stock", "card": None, "auto": False}]


def test_timer_moves_are_marked_auto(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = FriendMatchFactory(host=alice, friend=bob, turn_timer=30, rated=False)
    late = load(match).state.current_player
    Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.match_expire_turn(match_id=match.pk) == 2
    services.match_apply_action(
        match_id=match.pk, user={0: alice, 1: bob}[1 - late], action_text="pass", client_seq=2, msg_id="b1"
    )
    payload = _payload(match.pk, 1 - late)
    assert payload["hand"]["moves"] == [
        {"seat": late, "action": "pass", "card": None, "auto": True},
        {"seat": 1 - late, "action": "pass", "card": None, "auto": False},
    ]
    assert payload["match"]["auto_moves_to_lose"] == TIMEOUT_STRIKES_TO_LOSE == 3
    strikes = [0, 0]
    strikes[late] = 1
    assert payload["match"]["timeout_strikes"] == strikes
    no_timer = FriendMatchFactory(host=alice, friend=bob, rated=False)
    assert _payload(no_timer.pk, 0)["match"]["auto_moves_to_lose"] is None
