"""The bot ladder (issue 4): legal actions under every preset, level 3's stated policy on hand-made
positions, and bots that see only the player's view."""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action, ActionKind
from engine.bots import LEVELS, make_bot
from engine.bots.common import forms_meld, mask_of
from engine.bots.tracker import read_table, sample_opponent_hands
from engine.cards import parse_card, parse_cards
from engine.hand import HandState
from engine.melds import deadwood_after_discards
from engine.rules import PRESETS, preset
from engine.tools.playout import choose_action
from engine.view import PlayerView
from tests.engine.dealing import make_deck

CLASSIC = preset("classic")


def hand_at(nondealer: str, dealer: str, upcard: str, stock: str = "", actions: tuple[str, ...] = (),
            rules: object = CLASSIC) -> HandState:
    """Seat 0 deals; seat 1 (non-dealer) is offered ``upcard`` first; ``actions`` are then applied."""
    state = HandState(rules, 0, make_deck(nondealer, dealer, upcard, stock))  # type: ignore[arg-type]
    for text in actions:
        state.apply(text)
    return state


def choose(level: int, state: HandState, seed: int = 0) -> Action:
    seat = state.current_player
    assert seat is not None
    return make_bot(level, seed=seed).choose(state.view(seat))


# ------------------------------------------------------------------ make_bot and level names

def test_make_bot_levels_and_names() -> None:
    assert [make_bot(level, seed=1).level for level in range(1, 6)] == [1, 2, 3, 4, 5]
    assert sorted(LEVELS) == [1, 2, 3, 4, 5]
    assert LEVELS[3].name_en == "Standard" and LEVELS[3].name_pt == "Padrão"
    assert len({info.name_pt for info in LEVELS.values()}) == 5


@pytest.mark.parametrize("level", [0, 6, "3", 3.0, None, True])
def test_make_bot_rejects_bad_level(level: object) -> None:
    with pytest.raises(ValueError, match="level"):
        make_bot(level, seed=1)  # type: ignore[arg-type]


# ------------------------------------------------------------------ level 3: the simple player's policy

# non-dealer (seat 1) holds 7h 8h: 9h makes a run, 7c 7d... see each test
ND = "7h 8h Kc Qd Js 2c 5d 3s 9c 4h"
DE = "Ac 2d 3h 4s 6c 6d Th Jc Qh Ks"


def test_level3_takes_first_upcard_that_makes_a_run() -> None:
    state = hand_at(ND, DE, "9h")
    assert choose(3, state) == Action.take()


def test_level3_takes_first_upcard_that_makes_a_set() -> None:
    state = hand_at("7h 7c Kc Qd Js 2c 5d 3s 9c 4h", DE, "7d")
    assert choose(3, state) == Action.take()


def test_level3_passes_an_upcard_that_makes_no_meld() -> None:
    # 6h is next to 7h 8h? 6h 7h 8h is a run: so use Kh, which only pairs with Kc
    state = hand_at(ND, DE, "Kh")
    assert choose(3, state) == Action.pass_()
    # a card that merely pairs (Kc + Kh) or sits two away (Th with 8h) is not a meld either
    state = hand_at(ND, DE, "Td")
    assert choose(3, state) == Action.pass_()


def test_level3_draws_discard_only_for_a_meld() -> None:
    # both pass, non-dealer draws stock (must), discards 4h; dealer's turn with 4h on the pile:
    # dealer holds 4s: only a pair, so it draws from the stock
    state = hand_at(ND, DE, "Kh", stock="5c", actions=("pass", "pass", "draw stock", "discard 4h"))
    assert choose(3, state) == Action.draw_stock()
    # with 6c 6d held, a discarded 6h makes a set: take it
    state = hand_at("7h 8h Kc Qd Js 2c 5d 3s 9c 6h", DE, "Kh", stock="5c",
                    actions=("pass", "pass", "draw stock", "discard 6h"))
    assert choose(3, state) == Action.draw_discard()


def test_level3_discards_the_least_deadwood_card_and_never_the_taken_card() -> None:
    # non-dealer takes 9h (run 7h 8h 9h); the least deadwood discard is a ten-count card
    state = hand_at(ND, DE, "9h", actions=("take",))
    action = choose(3, state)
    after = deadwood_after_discards(state.view(1).hand)
    assert action.kind is ActionKind.DISCARD and action.card is not None
    assert after[action.card] == min(v for c, v in after.items() if c != parse_card("9h"))
    assert action.card in parse_cards("Kc Qd Js")


def test_level3_never_discards_the_taken_card_even_when_allowed() -> None:
    """With the rule option allowing it, the simple player still keeps the card it took."""
    rules = CLASSIC.replace(may_discard_taken_card=True)
    for seed in range(60):
        rng = random.Random(seed)
        deck = list(range(52))
        rng.shuffle(deck)
        state = HandState(rules, 0, deck)
        state.apply("take")
        taken = state.view(1).taken_card
        assert taken is not None and Action.discard(taken) in state.legal_actions()
        assert choose(3, state, seed=seed).card != taken


def test_level3_ties_are_broken_by_the_seeded_generator() -> None:
    state = hand_at(ND, DE, "9h", actions=("take",))
    picks = {choose(3, state, seed=s).card for s in range(40)}
    assert picks == set(parse_cards("Kc Qd Js"))  # all three ten-point cards leave 44
    assert choose(3, state, seed=7) == choose(3, state, seed=7)


def test_level3_knocks_as_soon_as_it_can() -> None:
    # after taking 9h: 7h 8h 9h, 2c 3c 4c, 5s 5d 5h; discarding Kc leaves 7d: 7 points
    nd = "7h 8h 2c 3c 4c 5s 5d 5h 7d Kc"
    state = hand_at(nd, DE, "9h", actions=("take",))
    action = choose(3, state)
    assert action == Action.knock("Kc")


def test_level3_knocks_gin_and_big_gin() -> None:
    de = "Ac 2d 3h 4s 6c 6d Td Jc Qh Kd"
    state = hand_at("7h 8h 2c 3c 4c 5s 5d 5h Js Qs", de, "Ks")
    assert choose(3, state) == Action.take()  # Js Qs Ks
    state.apply("take")
    assert choose(3, state) == Action.knock("8h")  # leaves 7h: 7 points, knock at once
    gin = hand_at("6h 7h 8h 2c 3c 4c 5s 5d 5h Kc", de, "Ks", stock="9h",
                  actions=("pass", "pass", "draw stock"))
    assert choose(3, gin) == Action.knock("Kc")  # 0 deadwood left: gin
    big = hand_at("6h 7h 8h 2c 3c 4c 5s 5d 5h 5c", de, "Ks", stock="9h",
                  actions=("pass", "pass", "draw stock"))
    assert choose(3, big) == Action.big_gin()


# ------------------------------------------------------------------ every level is legal everywhere

@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    rules_name=st.sampled_from(sorted(PRESETS)),
    steps=st.integers(0, 40),
    level=st.integers(1, 5),
)
def test_every_level_returns_a_legal_action(seed: int, rules_name: str, steps: int, level: int) -> None:
    """Random positions reached by random (mostly greedy) playouts under every preset."""
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    rules = PRESETS[rules_name]
    limit_card = deck[51] if rules.knock_limit_from_second_deck else None  # two_deck: a second deck's card
    state = HandState(rules, rng.randrange(2), deck, limit_card)
    bot = make_bot(level, seed=seed)
    for _ in range(steps):
        if state.is_over:
            break
        state.apply(choose_action(rng, state, knock_bias=0.1, greedy=0.7))
    # then let the bot play (both seats) until the hand ends or 30 moves
    for _ in range(30):
        if state.is_over:
            break
        seat = state.current_player
        assert seat is not None
        view = state.view(seat)
        action = bot.choose(view)
        assert action in view.legal_actions
        state.apply(action, seat)


def test_every_level_keeps_the_taken_card_under_custom_rules() -> None:
    rules = CLASSIC.replace(may_discard_taken_card=True, knock_limit=0)
    for level in range(1, 6):
        state = hand_at("7h 7c 7s 8s 9s Kh Kd Qc Jd Tc", DE, "7d", actions=("take",), rules=rules)
        action = choose(level, state)
        assert action in state.legal_actions()
        assert action.kind is ActionKind.DISCARD  # knock limit 0: no gin here
        assert action.card != parse_card("7d")


# ------------------------------------------------------------------ weaker levels err plausibly

@pytest.mark.parametrize("level", [1, 2])
def test_weaker_levels_never_break_a_finished_meld_for_nothing(level: int) -> None:
    # melds 7h 8h 9h and 2c 3c 4c and 5s 5d 5h; deadwood Kc Qd (and the card taken)
    for seed in range(30):
        state = hand_at("7h 8h 9h 2c 3c 4c 5s 5d 5h Kc", DE, "Qd", actions=("take",))
        action = choose(level, state, seed=seed)
        assert action.card not in parse_cards("7h 8h 9h 2c 3c 4c 5s 5d 5h")


@pytest.mark.parametrize("level", [1, 2])
def test_weaker_levels_knock_late(level: int) -> None:
    # deadwood 7 after discarding Kc: level 3 knocks, levels 1 and 2 (knock at 5 / 6) play on
    nd = "7h 8h 2c 3c 4c 5s 5d 5h 7d Kc"
    state = hand_at(nd, DE, "9h", actions=("take",))
    assert choose(3, state).kind is ActionKind.KNOCK
    assert choose(level, state).kind is ActionKind.DISCARD


# ------------------------------------------------------------------ bots see only the view

_FORBIDDEN = {"engine.hand", "engine.match", "engine.deck", "engine.tools.playout", "engine.events"}


def test_bot_modules_import_no_state() -> None:
    """No bot module can reach a HandState / MatchState or a deck: they are not even imported."""
    for path in Path("engine/bots").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module not in _FORBIDDEN, (path, node.module)
            elif isinstance(node, ast.Import):
                assert not {a.name for a in node.names} & _FORBIDDEN, path


def test_view_is_a_frozen_value_without_state() -> None:
    state = hand_at(ND, DE, "9h")
    view = state.view(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.hand = ()  # type: ignore[misc]
    for field in dataclasses.fields(PlayerView):
        value = getattr(view, field.name)
        assert not isinstance(value, HandState)
    assert view.opponent_hand is None
    assert not set(view.hand) & set(state.hands[0])


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
def test_bots_ignore_hidden_cards(level: int) -> None:
    """Two deals that differ only in cards the bot cannot see (the opponent's concealed cards and
    the stock below the next draws) give the same views, hence the same decisions."""
    compared = 0
    for seed in range(4):
        rng = random.Random(seed)
        deck = list(range(52))
        rng.shuffle(deck)
        other = deck[:]
        # swap a dealer card (seat 0, odd positions) with the bottom card of the stock
        other[1], other[51] = other[51], other[1]
        states = [HandState(CLASSIC, 0, deck), HandState(CLASSIC, 0, other)]
        bots = [make_bot(level, seed=seed), make_bot(level, seed=seed)]
        for _ in range(12):
            if states[0].is_over or states[0].current_player != 1:
                # the dealer (seat 0) moves identically in both by a fixed simple policy
                if states[0].is_over:
                    break
                action = choose_action(random.Random(len(states[0].history)), states[0], greedy=1.0)
                if action not in states[1].legal_actions():
                    break
                for s in states:
                    s.apply(action)
                continue
            views = [s.view(1) for s in states]
            if views[0].to_dict() != views[1].to_dict():
                break
            actions = [b.choose(v) for b, v in zip(bots, views, strict=True)]
            assert actions[0] == actions[1]
            compared += 1
            for s in states:
                s.apply(actions[0])
    assert compared >= 8


# ------------------------------------------------------------------ tracking and sampling

def test_tracker_reads_picks_declines_and_discards() -> None:
    # seat 1 passes Kh, seat 0 passes, seat 1 draws and discards 4h, seat 0 takes 4h? (4s only:
    # it draws stock) and discards; the view of seat 1 sees seat 0 declined 4h
    state = hand_at(ND, DE, "Kh", stock="5c 9d", actions=("pass", "pass", "draw stock", "discard 4h",
                                                           "draw stock", "discard Ks"))
    table = read_table(state.view(1))
    assert table.opp_declined == parse_cards("Kh 4h")
    assert table.opp_discarded == parse_cards("Ks")
    assert table.opp_picked == []
    assert table.opp_hidden == 10
    assert len(table.unknown) == 52 - 10 - 3
    # the opponent declined 4h: 4c 4d 3h 5h are less likely in its hand than an unrelated card
    w = dict(zip(table.unknown, table.weights, strict=True))
    assert w[parse_card("5h")] < w[parse_card("8d")]


def test_samples_hold_known_cards_and_the_right_count() -> None:
    state = hand_at(ND, DE, "9h", actions=("pass", "take", "discard Ks"))
    view = state.view(1)
    table = read_table(view)
    assert table.opp_known == mask_of(parse_cards("9h"))
    for hand in sample_opponent_hands(table, 20, random.Random(1)):
        assert hand.bit_count() == 10
        assert hand & table.opp_known == table.opp_known
        assert not hand & (table.hand | table.dead)


def test_forms_meld_examples() -> None:
    hand = mask_of(parse_cards("7h 8h Kc Kd 2s 3s"))
    assert forms_meld(hand, parse_card("9h")) and forms_meld(hand, parse_card("6h"))
    assert forms_meld(hand, parse_card("Ks")) and forms_meld(hand, parse_card("As"))
    assert forms_meld(hand, parse_card("4s"))
    assert not forms_meld(hand, parse_card("Th")) and not forms_meld(hand, parse_card("Qc"))
    assert not forms_meld(mask_of(parse_cards("Qs Ks")), parse_card("As"))  # ace low only


def test_forms_meld_is_a_meld_of_three_with_the_card() -> None:
    """Brute force: ``forms_meld`` (and ``completes_run``/``completes_set``) hold exactly when two cards
    of the hand make a meld with the card (engine.melds.meld_kind), on seeded hands of 0..20 cards."""
    from itertools import combinations

    from engine.bots.common import completes_run, completes_set
    from engine.melds import meld_kind

    rng = random.Random(5)
    for _ in range(400):
        hand_cards = rng.sample(range(52), rng.randint(0, 20))
        hand = mask_of(hand_cards)
        for card in range(52):
            if hand >> card & 1:
                continue
            kinds = {meld_kind((a, b, card)) for a, b in combinations(hand_cards, 2)}
            assert completes_set(hand, card) == ("set" in kinds)
            assert completes_run(hand, card) == ("run" in kinds)
            assert forms_meld(hand, card) == bool(kinds - {None})


# ------------------------------------------------------------------ look-ahead and sampled estimates

@settings(max_examples=80, deadline=None)
@given(st.randoms(use_true_random=False))
def test_lookahead_matches_brute_force(rnd: random.Random) -> None:
    """The closed form for cards that meet nothing in the hand agrees with a full meld search."""
    from engine.bots.evaluate import lookahead
    from engine.melds import deadwood_after_discards_of_mask, deadwood_of_mask

    cards = rnd.sample(range(52), 30)
    hand = mask_of(cards[:10])
    pool = cards[10:]
    out = lookahead(hand, pool, None, 10)
    best = [min(deadwood_after_discards_of_mask(hand | 1 << c).values()) for c in pool]
    assert out.deadwood == deadwood_of_mask(hand)
    assert out.expected == pytest.approx(sum(best) / len(best))
    assert out.p_knock == pytest.approx(sum(b <= 10 for b in best) / len(best))
    assert out.p_gin == pytest.approx(sum(b == 0 for b in best) / len(best))


def test_knock_estimate_is_the_engine_score_over_samples() -> None:
    from engine.bots.montecarlo import knock_estimate, meld_danger
    from engine.scoring import score_knock

    # rules.md worked example 2: knocker scores 2; example 3: undercut, defender scores 30
    k2, d2 = parse_cards("4h 5h 6h 8d 8h 8s 9s Ts Js Kc"), parse_cards("Tc Td Th 6c 7c 8c 9c Qs 5s 7s")
    assert score_knock(k2, d2, CLASSIC).points == 2
    k3, d3 = parse_cards("4h 5h 6h 3c 3d 3s Td Jd Qd Qc"), parse_cards("9c 9h 9s 7d 8d 9d 3h 7h Kd 5s")
    est = knock_estimate(mask_of(k2), [mask_of(d2)], CLASSIC, 10, 1)
    assert est.ev == 2 and est.p_undercut == 0
    est = knock_estimate(mask_of(k3), [mask_of(d3)], CLASSIC, 10, 1)
    assert est.ev == -30 and est.p_undercut == 1
    # 5c extends 6c-9c in the first hand and meets only 5s in the second; 7c sets with 7d 7h there
    assert meld_danger(parse_card("5c"), [mask_of(d2), mask_of(d3)]) == 0.5
    assert meld_danger(parse_card("Ah"), [mask_of(d2), mask_of(d3)]) == 0.0
