"""Random legal playouts of whole matches under every preset and random custom rule sets: never
raise, always end, keep the 52 cards distinct at every step, and replay identically (issue 2,
"How it is shown to work")."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import ALL_CARDS
from engine.deck import shuffled_deck
from engine.events import (
    ActionEvent,
    DealEvent,
    HandEndEvent,
    MatchEndEvent,
    log_from_json,
    log_to_json,
)
from engine.hand import HandState
from engine.match import MatchState, replay
from engine.rules import PRESETS, RuleSet, preset
from engine.tools.playout import choose_action, random_hand, random_playout


def assert_52_distinct(hand: HandState) -> None:
    everything = [*hand.hands[0], *hand.hands[1], *hand.discard_pile, *hand.stock]
    assert sorted(everything) == list(ALL_CARDS)


def play_checked(rules: RuleSet, seed: int, knock_bias: float, greedy: float) -> MatchState:
    """random_playout's loop, checking the invariants after every step."""
    rng = random.Random(seed)
    m = MatchState(rules, rng.randrange(2))
    steps = 0
    while not m.is_over:
        steps += 1
        # a guard, not a target: uniformly random play (mostly dead hands) averages ~17,000 steps a
        # match under oklahoma, where an ace upcard allows gin only
        assert steps < 100_000, "the match does not end"
        if m.awaiting_deal:
            deck = shuffled_deck(rng)
            m.deal(deck, limit_card=rng.randrange(52) if rules.knock_limit_from_second_deck else None)
        else:
            hand = m.hand
            assert hand is not None
            legal = hand.legal_actions()
            assert legal and m.legal_actions() == legal
            new = m.apply(choose_action(rng, hand, knock_bias=knock_bias, greedy=greedy))
            assert isinstance(new[0], ActionEvent)
        hand = m.hand
        assert hand is not None
        assert_52_distinct(hand)
        assert len(hand.hands[0]) + len(hand.hands[1]) in (20, 21)
    return m


def check_log(rules: RuleSet, m: MatchState) -> None:
    events = list(m.events)
    assert isinstance(events[0], DealEvent) and isinstance(events[-1], MatchEndEvent)
    assert sum(isinstance(e, HandEndEvent) for e in events) == m.hand_number == len(m.results)
    data = json.loads(json.dumps(log_to_json(events)))
    assert log_from_json(data) == events
    assert replay(rules, m.first_dealer, log_from_json(data)) == m


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32))
def test_biased_random_matches_under_every_preset(name: str, seed: int) -> None:
    rules = preset(name)
    m = play_checked(rules, seed, knock_bias=0.5, greedy=0.8)
    assert m.winner is not None and m.scores[m.winner] >= rules.target
    check_log(rules, m)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    base=st.sampled_from(sorted(PRESETS)),
    floor=st.integers(0, 5),
    taken_ok=st.booleans(),
    tie=st.sampled_from(["defender", "knocker"]),
    rotation=st.sampled_from(["alternate", "loser", "winner"]),
    limit=st.integers(0, 10),
    target=st.integers(1, 150),
)
def test_random_matches_under_custom_rules(
    seed: int, base: str, floor: int, taken_ok: bool, tie: str, rotation: str, limit: int, target: int
) -> None:
    rules = preset(base).replace(
        stock_floor=floor, may_discard_taken_card=taken_ok, tie_goes_to=tie, next_dealer=rotation,
        knock_limit=limit, target=target,
    )
    m = play_checked(rules, seed, knock_bias=0.6, greedy=0.8)
    check_log(rules, m)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_uniformly_random_matches_under_every_preset(name: str) -> None:
    # uniform random legal play rarely knocks: mostly dead hands, still a finished match
    rules = preset(name)
    m = play_checked(rules, 2, knock_bias=0.0, greedy=0.0)
    assert m.is_over and m.winner is not None
    check_log(rules, m)
    assert m == random_playout(rules, 2, knock_bias=0.0, greedy=0.0)


def test_playouts_are_reproducible() -> None:
    assert random_playout(preset("hoyle"), 77) == random_playout(preset("hoyle"), 77)
    assert random_hand(preset("classic"), 5) == random_hand(preset("classic"), 5)
    assert random_playout(preset("hoyle"), 77) != random_playout(preset("hoyle"), 78)


def test_max_hands_stops_early() -> None:
    m = random_playout(preset("classic"), 3, knock_bias=0.0, greedy=0.0, max_hands=2)
    assert m.hand_number == 2 and not m.is_over and m.awaiting_deal
