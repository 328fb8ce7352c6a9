"""PlayerView: one player's observation holds only what that player may see (issue 2, point 6)."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import ActionKind
from engine.cards import ALL_CARDS, Card, card_name, parse_card, parse_cards
from engine.deck import seeded_deck
from engine.hand import HandState, Phase
from engine.match import MatchState
from engine.rules import RuleSet, preset
from engine.tools.playout import choose_action
from engine.view import PlayerView
from tests.engine.dealing import make_deck

CLASSIC = preset("classic")
NONDEALER = "Ac 2c 3c 4c 5d 6d 7d 8c 8h 8s"
DEALER = "Tc Td Jh Js Qc Qd Kh Ks 9h 9s"


NAMES = {card_name(c): c for c in ALL_CARDS}


def card_tokens(data: Any) -> set[Card]:
    """Every card named anywhere in a JSON structure (canonical card names inside strings)."""
    found: set[Card] = set()
    if isinstance(data, dict):
        for value in data.values():
            found |= card_tokens(value)
    elif isinstance(data, list):
        for value in data:
            found |= card_tokens(value)
    elif isinstance(data, str):
        found.update(NAMES[word] for word in data.split() if word in NAMES)
    return found


def objects_in(value: Any) -> list[Any]:
    """Every object reachable through dataclass fields, tuples, lists and dicts."""
    out = [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            out += objects_in(getattr(value, f.name))
    elif isinstance(value, (tuple, list)):
        for item in value:
            out += objects_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            out += objects_in(item)
    return out


def test_view_after_the_nondealer_takes_the_upcard() -> None:
    h = HandState(CLASSIC, 0, make_deck(NONDEALER, DEALER, "7h", "2h 3h"))
    h.apply("take")
    mine, theirs = h.view(1), h.view(0)
    assert mine.player == 1 and mine.is_my_turn and not theirs.is_my_turn
    assert mine.hand == tuple(sorted(parse_cards(NONDEALER + " 7h")))
    assert mine.taken_card == parse_card("7h") and theirs.taken_card is None
    assert theirs.opponent_known == (parse_card("7h"),) and mine.opponent_known == ()
    assert theirs.opponent_hand_size == 11 and mine.opponent_hand_size == 10
    assert theirs.legal_actions == () and len(mine.legal_actions) == 10 + 2  # knock Ac, knock 4c
    assert theirs.upcard is None and theirs.discard_pile == ()
    assert theirs.first_upcard == parse_card("7h")
    assert [(e.seat, str(e.action), e.card) for e in theirs.history] == [(1, "take", parse_card("7h"))]
    h.apply("discard 8s")
    theirs = h.view(0)
    assert theirs.opponent_known == (parse_card("7h"),)
    assert theirs.upcard == parse_card("8s") and theirs.phase is Phase.DRAW


def test_known_card_is_forgotten_once_discarded() -> None:
    rules = CLASSIC.replace(may_discard_taken_card=True)
    h = HandState(rules, 0, make_deck(NONDEALER, DEALER, "7h", "2h 3h"))
    h.apply("take")
    h.apply("discard 7h")
    assert h.view(0).opponent_known == ()


def test_opponent_stock_draw_is_hidden_own_is_shown() -> None:
    h = HandState(CLASSIC, 0, make_deck(NONDEALER, DEALER, "7h", "2h 3h"))
    for text in ("pass", "pass", "draw stock"):
        h.apply(text)
    assert h.view(1).history[-1].card == parse_card("2h")
    assert h.view(0).history[-1].card is None
    assert str(h.view(0).history[-1].action) == "draw stock"
    assert parse_card("2h") not in card_tokens(h.view(0).to_dict())
    assert h.view(0).stock_size == 30 and h.view(1).taken_card is None


def test_everything_is_face_up_once_the_hand_has_ended() -> None:
    h = HandState(CLASSIC, 0, make_deck(NONDEALER, DEALER, "7h", "2h 3h"))
    for text in ("pass", "pass", "draw stock", "knock 2h"):
        h.apply(text)
    view = h.view(0)
    assert view.phase is Phase.ENDED and view.current_player is None and view.legal_actions == ()
    assert view.result == h.result and view.result is not None and view.result.kind == "gin"
    assert view.opponent_hand == tuple(sorted(parse_cards(NONDEALER)))
    assert view.history[2].card == parse_card("2h")
    data = view.to_dict()
    assert data["result"]["kind"] == "gin" and data["opponent_hand"][0] == "Ac"


def test_to_dict_is_json_with_card_names() -> None:
    h = HandState(CLASSIC, 1, make_deck(NONDEALER, DEALER, "7h", "2h 3h"))
    h.apply("pass")
    data = json.loads(json.dumps(h.view(1).to_dict()))
    assert data["player"] == 1 and data["phase"] == "offer_dealer" and data["current_player"] == 1
    assert data["hand"] == [*("Tc", "Qc", "Td", "Qd", "9h", "Jh", "Kh", "9s", "Js", "Ks")]
    assert data["upcard"] == "7h" and data["discard_pile"] == ["7h"] and data["first_upcard"] == "7h"
    assert data["legal_actions"] == ["take", "pass"]
    assert data["history"] == [{"seat": 0, "action": "pass", "card": None}]
    assert data["rules"] == CLASSIC.to_dict() and data["scores"] == [0, 0] and data["result"] is None
    assert data["opponent_hand"] is None and data["knock_limit"] == 10 and data["multiplier"] == 1


def test_match_view_carries_scores_and_hand_number() -> None:
    m = MatchState(CLASSIC.replace(target=200), 0)
    with pytest.raises(ValueError, match="no hand"):
        m.view(0)
    m.deal(make_deck(NONDEALER, DEALER, "7h", "2h 3h"))
    for text in ("pass", "pass", "draw stock", "knock 2h"):
        m.apply(text)
    m.deal(seeded_deck(3))
    view = m.view(1)
    assert view.scores == (0, 25 + 98) and view.hand_number == 2 and view.dealer == 1
    with pytest.raises(ValueError):
        m.view(2)


def check_view(h: HandState, player: int, *, deep: bool = False) -> None:
    view = h.view(player)
    if deep:
        assert not any(isinstance(o, (HandState, MatchState)) for o in objects_in(view))
    other = 1 - player
    own = set(h.hands[player])
    pile = set(h.discard_pile)
    known = set(h.known[other])
    data = view.to_dict()
    del data["rules"]  # no cards there; skipping it keeps the walk quick
    exposed = card_tokens(data)
    if h.is_over:
        allowed = own | pile | set(h.hands[other])
    else:
        allowed = own | pile | known
        concealed = (set(h.hands[other]) - known) | set(h.stock)
        assert not exposed & concealed
        assert view.opponent_hand is None and view.result is None
    assert exposed <= allowed
    assert set(view.hand) == own and set(view.opponent_known) == known
    assert view.opponent_hand_size == len(h.hands[other]) and view.stock_size == len(h.stock)
    assert view.discard_pile == h.discard_pile
    assert view.legal_actions == tuple(h.legal_actions(player))
    assert len(view.history) == len(h.history)
    for seen, real in zip(view.history, h.history, strict=True):
        assert (seen.seat, seen.action) == (real.seat, real.action)
        hidden = real.seat == other and real.action.kind is ActionKind.DRAW_STOCK and not h.is_over
        assert seen.card == (None if hidden else real.card)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), name=st.sampled_from(["classic", "oklahoma", "brazilian", "two_deck"]),
       taken_ok=st.booleans())
def test_views_never_expose_concealed_cards_or_the_stock(seed: int, name: str, taken_ok: bool) -> None:
    rules: RuleSet = preset(name).replace(may_discard_taken_card=taken_ok)
    rng = random.Random(seed)
    limit_card = rng.randrange(52) if rules.knock_limit_from_second_deck else None
    h = HandState(rules, rng.randrange(2), seeded_deck(seed), limit_card)
    while True:
        check_view(h, 0, deep=h.is_over or len(h.history) == 3)
        check_view(h, 1)
        if h.is_over:
            break
        h.apply(choose_action(rng, h, knock_bias=0.3, greedy=0.7))


def test_view_is_frozen() -> None:
    view = HandState(CLASSIC, 0, seeded_deck(1)).view(0)
    assert isinstance(view, PlayerView)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.player = 1  # type: ignore[misc]
