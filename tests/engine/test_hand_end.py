"""Every hand ends: ``RuleSet.discard_draw_limit`` (issue 11, "Every hand must end").

The loop of the issue, "draw the discard, discard another card", ran 1,000 cycles with 30 cards left in
the stock; with the limit (50 in every preset) the discard after the 50th draw from the pile ends the
hand dead. Rule sets stored before the option existed keep no limit, so their matches replay the same.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import ActionKind
from engine.deck import seeded_deck
from engine.errors import InvalidEventError, InvalidRuleSetError
from engine.hand import HandState, Phase
from engine.match import MatchState, replay
from engine.rules import HAND_END_OPTION, PRESETS, RuleSet, preset

CLASSIC = preset("classic")


def cycle(h: HandState, cycles: int) -> None:
    """Both pass the upcard, the non-dealer draws from the stock (it must) and discards; then each
    turn draws the discard and discards another card (the lowest other), ``cycles`` turns or until the
    hand ends."""
    h.apply("pass")
    h.apply("pass")
    h.apply("draw stock")
    h.apply(_other_discard(h))
    for _ in range(cycles):
        if h.is_over:
            return
        h.apply("draw discard")
        h.apply(_other_discard(h))


def _other_discard(h: HandState) -> str:
    return str(next(a for a in h.legal_actions() if a.kind is ActionKind.DISCARD))


def test_every_preset_caps_the_discard_draws_at_50() -> None:
    assert {name: rules.discard_draw_limit for name, rules in PRESETS.items()} == dict.fromkeys(PRESETS, 50)
    assert RuleSet().discard_draw_limit == 50


def test_the_issue_loop_without_a_limit_stays_live() -> None:
    h = HandState(CLASSIC.replace(discard_draw_limit=None), 0, seeded_deck(7))
    cycle(h, 1000)
    assert not h.is_over and h.stock_size == 30 and h.discard_draws == 1000


def test_the_discard_after_the_50th_pile_draw_ends_the_hand_dead() -> None:
    h = HandState(CLASSIC, 0, seeded_deck(7))
    cycle(h, 49)
    assert not h.is_over and h.discard_draws == 49
    h.apply("draw discard")
    assert h.discard_draws == 50 and h.phase is Phase.DISCARD  # the 50th draw: the turn goes on
    assert any(a.kind is ActionKind.DISCARD for a in h.legal_actions())
    h.apply(_other_discard(h))
    r = h.result
    assert r is not None and (r.kind, r.winner, r.points) == ("dead", None, 0)
    assert h.stock_size == 30  # the stock was never the reason
    assert len(h.history) == 4 + 2 * 50  # pass, pass, draw stock, discard, then 50 draw/discard turns


def test_a_knock_on_the_capping_turn_is_scored_normally() -> None:
    limited, free = (HandState(CLASSIC.replace(discard_draw_limit=n), 0, seeded_deck(11)) for n in (3, None))
    for h in (limited, free):
        cycle(h, 2)
        h.apply("draw discard")
    assert limited.discard_draws == 3 and limited.legal_actions() == free.legal_actions()


def test_a_take_of_the_first_upcard_counts() -> None:
    h = HandState(CLASSIC.replace(discard_draw_limit=1), 0, seeded_deck(3))
    h.apply("take")
    assert h.discard_draws == 1
    h.apply(_other_discard(h))
    assert h.result is not None and h.result.kind == "dead" and h.stock_size == 31


def test_old_stored_rule_sets_keep_no_limit_and_replay_the_same() -> None:
    stored = {k: v for k, v in preset("brazilian").to_dict().items() if k != HAND_END_OPTION}
    old = RuleSet.from_dict(stored)
    assert old.discard_draw_limit is None and old == preset("brazilian").replace(discard_draw_limit=None)
    # a hand stored under the old rules with 60 pile draws still replays, live, as it was played
    m = MatchState(old, 0)
    m.deal(seeded_deck(7))
    hand = m.hand
    assert hand is not None
    for action in ("pass", "pass", "draw stock"):
        m.apply(action)
    m.apply(_other_discard(hand))
    for _ in range(60):
        m.apply("draw discard")
        m.apply(_other_discard(hand))
    events = list(m.events)
    assert hand.discard_draws == 60 and not hand.is_over
    assert replay(old, 0, events) == m
    with pytest.raises(InvalidEventError):  # the new default would have ended it: the None matters
        replay(preset("brazilian"), 0, events)


def test_new_and_partial_rule_sets_get_the_default() -> None:
    assert RuleSet.from_dict({"preset": "hoyle"}).discard_draw_limit == 50
    assert RuleSet.from_dict({"name": "house", "gin_bonus": 20}).discard_draw_limit == 50
    rules = CLASSIC.replace(discard_draw_limit=12)
    assert RuleSet.from_dict(rules.to_dict()) == rules
    none = CLASSIC.replace(discard_draw_limit=None)
    assert RuleSet.from_dict(none.to_dict()) == none


@pytest.mark.parametrize("bad", [0, 1001, -1, "50", 2.5, True])
def test_bad_limits_are_refused_by_name(bad: object) -> None:
    with pytest.raises(InvalidRuleSetError) as info:
        CLASSIC.replace(discard_draw_limit=bad)
    assert str(info.value) == f"discard_draw_limit must be null or an integer in 1..1000, got {bad!r}"


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    pile_bias=st.floats(0.0, 1.0),
    limit=st.integers(1, 80),
    floor=st.integers(0, 5),
    name=st.sampled_from(sorted(PRESETS)),
)
def test_random_legal_play_always_ends(
    seed: int, pile_bias: float, limit: int, floor: int, name: str
) -> None:
    """Any legal play, up to one that always draws the discard and never knocks, ends the hand
    within the bound the two caps give: at most 31 - floor stock draws and ``limit`` pile draws."""
    rules = preset(name).replace(discard_draw_limit=limit, stock_floor=floor)
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    limit_card = rng.randrange(52) if rules.knock_limit_from_second_deck else None
    h = HandState(rules, rng.randrange(2), deck, limit_card)
    bound = 2 + 2 * ((31 - floor) + limit)
    while not h.is_over:
        assert len(h.history) <= bound
        legal = h.legal_actions()
        kinds = {a.kind for a in legal}
        if ActionKind.DRAW_DISCARD in kinds and rng.random() < pile_bias:
            action = next(a for a in legal if a.kind is ActionKind.DRAW_DISCARD)
        elif ActionKind.TAKE_UPCARD in kinds and rng.random() < pile_bias:
            action = next(a for a in legal if a.kind is ActionKind.TAKE_UPCARD)
        else:
            plain = [a for a in legal if a.kind not in (ActionKind.KNOCK, ActionKind.BIG_GIN,
                                                        ActionKind.DRAW_DISCARD, ActionKind.TAKE_UPCARD)]
            action = rng.choice(plain or legal)
        h.apply(action)
    assert h.result is not None and h.result.kind == "dead"
    assert h.discard_draws <= limit and h.stock_size >= min(floor, 31)
