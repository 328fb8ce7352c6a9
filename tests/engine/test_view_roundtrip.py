"""PlayerView.from_dict is the exact inverse of to_dict (docs/bot-api.md: a bot outside the server
rebuilds the engine's view from a match stream's JSON), and HandResult.from_dict of its to_dict."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bots import make_bot
from engine.cards import parse_cards
from engine.deck import seeded_deck
from engine.errors import EngineError
from engine.hand import HandState
from engine.match import MatchState
from engine.phase import Phase
from engine.rules import preset
from engine.scoring import HAND_KINDS, HandResult, score_knock
from engine.tools.playout import choose_action
from engine.view import PlayerView
from tests.engine.dealing import make_deck

CLASSIC = preset("classic")
NONDEALER = "Ac 2c 3c 4c 5d 6d 7d 8c 8h 8s"
DEALER = "Tc Td Jh Js Qc Qd Kh Ks 9h 9s"


def through_json(view: PlayerView) -> PlayerView:
    """The view as a client reads it: to_dict, JSON text, back."""
    return PlayerView.from_dict(json.loads(json.dumps(view.to_dict())))


def match_views(seed: int, name: str, max_hands: int, **changes: Any) -> list[PlayerView]:
    """Both seats' views at every step of up to ``max_hands`` hands of a seeded match (the level-3
    bot's play mixed with random moves, so hands end by knock, gin, undercut and dead hands)."""
    rules = preset(name).replace(target=60, **changes)
    rng = random.Random(seed)
    m = MatchState(rules, rng.randrange(2))
    bot = make_bot(3, seed=seed)
    views: list[PlayerView] = []
    hands = 0
    while not m.is_over and hands < max_hands:
        if m.awaiting_deal:
            limit = rng.randrange(52) if rules.knock_limit_from_second_deck else None
            m.deal(seeded_deck(rng.randrange(2**32)), limit_card=limit)
            hands += 1
        hand = m.hand
        assert hand is not None and hand.current_player is not None
        views += [m.view(0), m.view(1)]
        if rng.random() < 0.3:
            m.apply(choose_action(rng, hand, knock_bias=0.5, greedy=0.7))
        else:
            m.apply(bot.choose(m.view(hand.current_player)))
        if m.hand is not None and m.hand.is_over:
            views += [m.view(0), m.view(1)]
    return views


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32),
       name=st.sampled_from(["classic", "oklahoma", "brazilian", "hoyle", "two_deck"]))
def test_every_view_of_a_seeded_match_round_trips(seed: int, name: str) -> None:
    views = match_views(seed, name, max_hands=3)
    ended = [v for v in views if v.result is not None]
    assert ended  # every match reaches at least one hand's end (the test covers `result`)
    for view in views:
        back = through_json(view)
        assert back == view
        assert back.to_dict() == view.to_dict()
        assert type(back.phase) is Phase and back.legal_actions == view.legal_actions


def test_round_trip_covers_every_kind_of_hand_end() -> None:
    """Over a few dozen seeded matches, every kind of result goes through to_dict / from_dict."""
    kinds: set[str] = set()
    for seed in range(30):
        # A knock limit of 0 makes every knock a gin; 10 gives knocks, undercuts and dead hands.
        for view in match_views(seed, "classic", max_hands=4, knock_limit=0 if seed % 3 == 0 else 10):
            if view.result is not None:
                kinds.add(view.result.kind)
                assert HandResult.from_dict(json.loads(json.dumps(view.result.to_dict()))) == view.result
                assert through_json(view) == view
    assert kinds == set(HAND_KINDS)  # knock, gin, big gin, undercut, dead


def test_a_worked_view_reads_back_with_real_values() -> None:
    h = HandState(CLASSIC, 0, make_deck(NONDEALER, DEALER, "7h", "2h 3h"))
    for text in ("pass", "pass", "draw stock"):
        h.apply(text)
    data = h.view(0).to_dict()
    assert data["history"][-1] == {"seat": 1, "action": "draw stock", "card": None}
    view = PlayerView.from_dict(data)
    assert view.phase is Phase.OFFER_NONDEALER or view.phase is Phase.DISCARD or view.phase is Phase.DRAW
    assert view.history[-1].card is None and str(view.history[-1].action) == "draw stock"
    assert view.hand == tuple(sorted(parse_cards(DEALER))) and view.legal_actions == ()
    assert view.upcard == parse_cards("7h")[0] and view.stock_size == 30
    mine = PlayerView.from_dict(h.view(1).to_dict())
    assert [str(a) for a in mine.legal_actions][:2] == ["discard Ac", "discard 2c"]
    assert mine.is_my_turn and mine.history[-1].card == parse_cards("2h")[0]


def test_a_gin_result_reads_back() -> None:
    result = score_knock(parse_cards("Ac 2c 3c 4c 5d 6d 7d 8c 8h 8s"), parse_cards(DEALER), CLASSIC)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["kind"] == "gin" and data["knocker_melds"][0] == ["Ac", "2c", "3c", "4c"]
    assert HandResult.from_dict(data) == result


def valid() -> dict[str, Any]:
    h = HandState(CLASSIC, 0, make_deck(NONDEALER, DEALER, "7h", "2h 3h"))
    for text in ("pass", "pass", "draw stock", "knock 2h"):
        h.apply(text)
    return h.view(0).to_dict()


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.pop("hand"), "view lacks 'hand'"),
    (lambda d: d.update(player=2), "'player' must be a seat"),
    (lambda d: d.update(current_player="0"), "'current_player' must be int or null"),
    (lambda d: d.update(phase="bidding"), "unknown phase 'bidding'"),
    (lambda d: d.update(hand=["Ac", "Zz"]), "view field 'hand': not a card: 'Zz'"),
    (lambda d: d.update(hand="Ac 2c"), "'hand' must be list"),
    (lambda d: d.update(stock_size=-1), "'stock_size' must not be negative"),
    (lambda d: d.update(scores=[1]), "'scores' must be two integers"),
    (lambda d: d.update(legal_actions=["fold"]), "malformed action 'fold'"),
    (lambda d: d.update(history=[{"seat": 0, "action": "pass"}]), "view lacks 'card'"),
    (lambda d: d.update(history=["pass"]), "a history item is"),
    (lambda d: d["result"].update(kind="schneider"), "unknown hand result kind 'schneider'"),
    (lambda d: d["result"].update(knocker_melds=[["Ac", "Kd", "5h"]]), "not a meld"),
    (lambda d: d["result"].pop("points"), "hand result lacks 'points'"),
    (lambda d: d["rules"].update(gin_bonus="many"), "gin_bonus"),
])
def test_a_malformed_view_is_a_clear_value_error(change: Any, message: str) -> None:
    data = valid()
    change(data)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) as caught:
        PlayerView.from_dict(data)
    assert isinstance(caught.value, EngineError)


def test_not_a_dict_and_extra_keys() -> None:
    with pytest.raises(EngineError, match="must be an object, got list") as caught:
        PlayerView.from_dict([])
    assert caught.value.code == "invalid_view"
    data = valid()
    data["added_by_a_newer_server"] = 1
    assert PlayerView.from_dict(data) == PlayerView.from_dict(valid())
