"""Over many seeded hands, the ``state`` payload each player receives (the exact dict the consumer sends,
``selectors.match_state_payload``) never names the opponent's concealed cards or any stock card while
the hand is in play, at every step; and the previous hand's reveal verifies against its commitment."""

from __future__ import annotations

from typing import Any

import pytest

from engine.cards import card_name, parse_cards
from engine.deck import deck_commitment
from games import selectors, services
from games.live import cache_clear, load
from games.models import Match
from tests.games.test_ws_friend_match import strings
from tests.games.wsclient import choose

# transaction=True: on_commit fires, so the replay cache is used as in production.
pytestmark = pytest.mark.django_db(transaction=True)

HANDS = 15  # about 500 steps, each checked from both seats


@pytest.mark.parametrize("preset", ["oklahoma"])
def test_no_concealed_card_in_any_payload(alice: Any, bob: Any, seeded_decks: list[int], preset: str) -> None:
    table = services.table_create(user=alice, rules_preset=preset, target=100, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    # A long match: raise the target so HANDS hands are played.
    Match.objects.filter(pk=table.pk).update(rules={**table.rules, "target": 10_000})
    cache_clear()  # the cached state was built with the old rules
    users = {0: alice, 1: bob}
    checked = reveals = 0
    for step in range(100_000):
        match = Match.objects.select_related("player0", "player1").get(pk=table.pk)
        hand = load(match).state.hand
        assert hand is not None and not hand.is_over and match.status == "active"
        hand_number = load(match).state.hand_number
        if hand_number > HANDS:
            break
        stock = {card_name(c) for c in hand.stock}
        payloads = {}
        for seat in (0, 1):
            payload = selectors.match_state_payload(match=match, seat=seat, full=True)
            payloads[seat] = payload
            other = 1 - seat
            secret = {card_name(c) for c in hand.hands[other] if c not in hand.known[other]} | stock
            public = {k: v for k, v in payload.items() if k != "last_hand"}
            leaked = {tok for s in strings(public) for tok in s.split()} & secret
            assert not leaked, (step, seat, leaked)
            assert payload["hand"]["cards"] and set(payload["hand"]["cards"]) == {
                card_name(c) for c in hand.hands[seat]
            }
            assert payload["hand"]["opponent_card_count"] == len(hand.hands[other])
            assert payload["hand"]["stock_count"] == len(hand.stock)
            last = payload["last_hand"]
            if last is not None:
                assert last["number"] == hand_number - 1
                assert (
                    deck_commitment(parse_cards(" ".join(last["deck"])), last["salt"]) == last["commitment"]
                )
                reveals += 1
            checked += 1
        seat = hand.current_player
        services.match_apply_action(
            match_id=match.pk,
            user=users[seat],
            action_text=choose(payloads[seat]["hand"]),
            client_seq=match.last_seq,
            msg_id=f"h{step}",
        )
    assert len(seeded_decks) == HANDS + 1
    assert checked > HANDS * 20 and reveals > 0
