"""Computer analysis (engine.analysis): worked examples with hand-checked values, the playout checked
against the engine's own rules, and properties: the move the evaluator prefers costs 0, and the
judgement never depends on the cards its player cannot see (the opponent's concealed cards, the stock
order)."""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import analysis
from engine.actions import Action
from engine.bots import make_bot
from engine.bots.common import forms_meld
from engine.bots.rollout import World
from engine.cards import parse_cards
from engine.deck import deck_commitment, shuffled_deck
from engine.events import DealEvent
from engine.hand import HandState, Phase
from engine.match import MatchState
from engine.replay_format import ReplayVerificationError, record_from_events
from engine.rules import PRESETS, preset
from engine.tools.playout import choose_action

FAST = analysis.Settings(worlds=40, stages=((20, 8.0),))


# --------------------------------------------------------------------------------------------- helpers


def scripted_hand(mine: str, last: str, theirs: str, upcard: str, *, draws: int = 29) -> HandState:
    """A classic hand dealt by seat 0 in which seat 1 (``mine``: its 10 cards) and seat 0 (``theirs``)
    both pass the upcard, then each draws the stock's top card and discards it, ``draws`` draws in
    all; the 29th stock card is ``last``. With 29 draws seat 1 holds its 10 cards plus ``last``, to
    discard, and 2 cards are left in the stock (the floor: any discard ends the hand dead)."""
    mine_cards, theirs_cards = parse_cards(mine), parse_cards(theirs)
    fixed = [*mine_cards, *theirs_cards, *parse_cards(upcard), *parse_cards(last)]
    rest = [c for c in range(52) if c not in fixed]
    stock = rest[:28] + parse_cards(last) + rest[28:]
    deck = [0] * 52
    deck[0:20:2] = mine_cards
    deck[1:20:2] = theirs_cards
    deck[20] = parse_cards(upcard)[0]
    deck[21:] = stock
    hand = HandState(preset("classic"), 0, deck)
    hand.apply("pass", 1)
    hand.apply("pass", 0)
    for k in range(draws):
        seat = 1 if k % 2 == 0 else 0
        event = hand.apply("draw stock", seat)
        assert event.card is not None
        if not (k == draws - 1 and seat == 1):  # seat 1's last draw stays in its hand: its decision
            hand.apply(Action.discard(event.card), seat)
    return hand


def knowing_their_hand(hand: HandState, me: int) -> Any:
    """``me``'s view with the opponent's whole hand known (a worked example's information set: the
    unseen cards are then the stock only)."""
    view = hand.view(me)
    return dataclasses.replace(view, opponent_known=tuple(sorted(hand.hands[1 - me])))


def reference_points(hand: HandState, me: int, first: Action) -> int:
    """Hand points (``me``'s side) of ``first`` then the simple player's policy on both sides, played
    through the engine's own HandState (the rules as the server applies them)."""
    h = hand.clone()
    h.apply(first)
    while not h.is_over:
        seat = h.current_player
        assert seat is not None
        legal = h.legal_actions()
        held = h.hand_mask(seat)
        if h.phase is Phase.DISCARD:
            if Action.big_gin() in legal:
                h.apply(Action.big_gin())
                continue
            after = h.deadwood_after_discards()
            taken = None if h.rules.may_discard_taken_card else h.taken_card
            card = min((c for c in after if c != taken), key=lambda c: (after[c], -c))
            h.apply(Action.knock(card) if after[card] <= h.knock_limit else Action.discard(card))
        else:  # take the upcard only when it makes a meld
            top = h.upcard
            meld = top is not None and forms_meld(held, top)
            if h.phase is Phase.DRAW:
                h.apply("draw discard" if meld and Action.draw_discard() in legal else "draw stock")
            else:
                h.apply("take" if meld else "pass")
    result = h.result
    assert result is not None
    if result.kind == "dead":
        return 0
    return result.points if result.winner == me else -result.points


def random_position(name: str, seed: int, steps: int) -> HandState:
    """A hand of preset ``name`` after up to ``steps`` seeded random-but-reasonable actions (not over)."""
    rules = preset(name)
    rng = random.Random(seed)
    hand = HandState(rules, seed % 2, shuffled_deck(rng),
                     rng.randrange(52) if rules.knock_limit_from_second_deck else None)
    for _ in range(steps):
        before = hand.clone()
        hand.apply(choose_action(rng, hand, knock_bias=0.0, greedy=0.9))
        if hand.is_over:
            return before
    return hand


def with_hidden_shuffled(hand: HandState, me: int, seed: int) -> HandState:
    """``hand`` with the cards ``me`` cannot see dealt again: the opponent's concealed cards and the
    stock are shuffled together and redistributed (the cards it took from the pile stay with it)."""
    opp = 1 - me
    alt = hand.clone()
    known = hand._known[opp]
    concealed = [c for c in hand.hands[opp] if not known >> c & 1]
    pool = concealed + list(hand.stock)
    random.Random(seed).shuffle(pool)
    mask = known
    for c in pool[: len(concealed)]:
        mask |= 1 << c
    alt._hands[opp] = mask
    stock_pos = 52 - hand.stock_size
    alt._deck = hand.deck[:stock_pos] + tuple(pool[len(concealed):])
    return alt


def bot_record(levels: tuple[int, int] = (3, 1), hands: int = 2, seed: int = 1, name: str = "classic",
               auto: frozenset[int] = frozenset()) -> dict[str, Any]:
    """The replay file of ``hands`` hands between two house bots, then seat 1 resigns (``auto``:
    indexes of engine events marked as the turn timer's)."""
    rules = preset(name).replace(target=10000)
    rng = random.Random(seed)
    bots = [make_bot(levels[0], seed), make_bot(levels[1], seed + 1)]
    m = MatchState(rules, 0)
    while m.hand_number < hands:
        limit = rng.randrange(52) if rules.knock_limit_from_second_deck else None
        m.deal(shuffled_deck(rng), limit_card=limit)
        hand = m.hand
        assert hand is not None
        while not hand.is_over:
            seat = hand.current_player
            assert seat is not None
            m.apply(bots[seat].choose(m.view(seat)), seat)
    m.resign(1)
    deals = [e for e in m.events if isinstance(e, DealEvent)]
    return record_from_events(
        rules=rules, first_dealer=0, events=m.events,
        secrets=[(f"s{i}", deck_commitment(e.deck, f"s{i}")) for i, e in enumerate(deals)],
        players=[{"name": "a", "bot_level": levels[0]}, {"name": "b", "bot_level": levels[1]}],
        auto=lambda i: i in auto,
    )


# --------------------------------------------------------------------------------------------- marks


@pytest.mark.parametrize(
    "cost, error, mark",
    [(0.0, 0.0, ""), (1.99, 0.0, ""), (2.0, 0.0, "?!"), (4.99, 1.0, "?!"), (5.0, 0.0, "?"), (9.99, 2.0, "?"),
     (10.0, 0.0, "??"), (40.0, 3.0, "??"), (3.0, 1.5, ""), (6.0, 3.0, ""), (6.01, 3.0, "?")],
)
def test_marks_follow_the_documented_thresholds(cost: float, error: float, mark: str) -> None:
    assert analysis.classify(cost, error) == mark
    assert dict(analysis.THRESHOLDS) == {"?!": 2.0, "?": 5.0, "??": 10.0}


# ------------------------------------------------------------------------------------- worked examples

MELDED = "Ac 2c 3c 4d 4h 4s 7h 8h 9h Th"  # three melds, no deadwood
SCATTERED = "5c 6d 8c 9d Jc Qd Kd 2h 3d 6s"  # no meld: 5+6+8+9+10+10+10+2+3+6 = 69 deadwood


def test_gin_at_the_stock_floor_is_worth_the_bonus_plus_their_deadwood() -> None:
    hand = scripted_hand(MELDED, "Ks", SCATTERED, "Jd")
    assert hand.phase is Phase.DISCARD and hand.current_player == 1 and hand.stock_size == 2
    view = knowing_their_hand(hand, 1)
    # discarding anything ends the hand dead (0); knocking Ks is gin: 25 + 69 = 94; knocking 7h or Th
    # keeps a 3-card heart run and Ks (10): 69 - 10 = 59 (no layoff on Ac-3c, the 4s or the hearts)
    j = analysis.judge(view, Action.discard(parse_cards("Ks")[0]), FAST)
    values = {o.action: o.value for o in j.options}
    assert j.decision == "discard" and j.best == "knock Ks" and j.best_value == 94.0
    assert values["knock 7h"] == values["knock Th"] == 59.0
    assert all(v == 0.0 for a, v in values.items() if a.startswith("discard"))
    assert j.chosen_value == 0.0 and j.cost == 94.0 and j.error == 0.0 and j.mark == "??"
    assert len(j.options) == len(view.legal_actions)  # every legal option was valued
    worse = analysis.judge(view, Action.knock(parse_cards("7h")[0]), FAST)
    assert worse.best == "knock Ks" and worse.cost == 35.0 and worse.mark == "??"
    best = analysis.judge(view, Action.knock(parse_cards("Ks")[0]), FAST)
    assert best.cost == 0.0 and best.mark == "" and best.best == best.chosen == "knock Ks"


def test_knocking_into_an_undercut_costs_the_undercut_against_playing_on() -> None:
    # their hand: Jc-Kc, 6d-8d, the three tens, 2h: deadwood 2, nothing to lay off on mine
    hand = scripted_hand("Ac 2c 3c 4d 4h 4s 7h 8h 9h 5s", "Ks", "Jc Qc Kc 6d 7d 8d Ts Td Tc 2h", "Jd")
    view = knowing_their_hand(hand, 1)
    j = analysis.judge(view, Action.knock(parse_cards("Ks")[0]), FAST)
    values = {o.action: o.value for o in j.options}
    # knocking Ks leaves 5s (5 points) against their 2: undercut, they score 5 - 2 + 25 = 28;
    # knocking 5s leaves Ks: 10 - 2 + 25 = 33; playing on (any discard) is a dead hand: 0
    assert values["knock Ks"] == -28.0 and values["knock 5s"] == -33.0
    assert j.chosen_value == -28.0 and j.best_value == 0.0 and j.cost == 28.0 and j.mark == "??"
    assert j.best.startswith("discard ")


def test_a_draw_decision_matches_the_exact_average_over_every_stock_order() -> None:
    # one draw earlier: seat 1 to draw with 3 cards in the stock; the opponent's hand is known, so the
    # unseen cards are the stock's 3, in one of 6 orders, each equally likely
    hand = scripted_hand(MELDED[:-3] + " 5s", "Ks", SCATTERED, "Jd", draws=28)
    assert hand.phase is Phase.DRAW and hand.current_player == 1 and hand.stock_size == 3
    view = knowing_their_hand(hand, 1)
    settings_ = analysis.Settings(worlds=600, stages=())
    j = analysis.judge(view, Action.draw_stock(), settings_)
    values = {o.action: o.value for o in j.options}
    for option in (Action.draw_stock(), Action.draw_discard()):
        exact = []
        for order in itertools.permutations(hand.stock):
            alt = hand.clone()
            alt._deck = hand.deck[:49] + tuple(order)
            exact.append(reference_points(alt, 1, option))
        mean = sum(exact) / len(exact)
        spread = (sum((x - mean) ** 2 for x in exact) / len(exact)) ** 0.5
        # the Monte Carlo mean over 600 shuffles is within 4 standard errors of the exact mean
        assert abs(values[str(option)] - mean) <= 4 * spread / 600**0.5 + 1e-9, (option, exact)


# --------------------------------------------------------------------------------------------- the playout


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**6), steps=st.integers(0, 40))
def test_the_playout_follows_the_engine_rules(name: str, seed: int, steps: int) -> None:
    """In the true world (the real concealed cards and stock) the analysis' playout of every legal
    option gives exactly the points the engine gives for the same play."""
    hand = random_position(name, seed, steps)
    me = hand.current_player
    assert me is not None
    view = hand.view(me)
    start = analysis._Start.of(view)
    truth = World(hand.hand_mask(1 - me), hand.stock)
    for option in view.legal_actions:
        assert analysis.playout(start, truth, option) == reference_points(hand, me, option), str(option)


# --------------------------------------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**6), steps=st.integers(0, 30),
       pick=st.integers(0, 30))
def test_playing_the_preferred_move_costs_nothing(name: str, seed: int, steps: int, pick: int) -> None:
    hand = random_position(name, seed, steps)
    me = hand.current_player
    assert me is not None
    view = hand.view(me)
    played = view.legal_actions[pick % len(view.legal_actions)]
    first = analysis.judge(view, played, FAST)
    assert first.cost >= 0 and first.cost == pytest.approx(first.best_value - first.chosen_value)
    assert first.options[0].action == first.best
    again = analysis.judge(view, Action.parse(first.best), FAST)
    assert again.best == again.chosen == first.best
    assert again.cost == 0.0 and again.mark == ""


@pytest.mark.parametrize("opponents", ["posterior", "tracker"])
@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**6), steps=st.integers(0, 30),
       shuffle=st.integers(0, 10**6))
def test_the_judgement_never_depends_on_the_cards_its_player_cannot_see(
    opponents: analysis.Opponents, name: str, seed: int, steps: int, shuffle: int
) -> None:
    fast = dataclasses.replace(FAST, opponents=opponents)
    hand = random_position(name, seed, steps)
    me = hand.current_player
    assert me is not None
    other = with_hidden_shuffled(hand, me, shuffle)
    # the same information set (the view is equal), other hidden cards
    assert other.view(me) == hand.view(me)
    assert other.hand_mask(me) == hand.hand_mask(me) and other.discard_pile == hand.discard_pile
    for action in hand.view(me).legal_actions[:3]:
        assert analysis.judge(other.view(me), action, fast) == analysis.judge(hand.view(me), action, fast)


def test_the_analysis_samples_the_posterior_by_default() -> None:
    assert analysis.Settings().opponents == "posterior" and analysis.Settings().worlds == 200
    assert analysis.ANALYSIS_VERSION == 2  # version 1 drew 400 worlds with the tracker's weights


@pytest.mark.parametrize("opponents", ["posterior", "tracker"])
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_world_never_holds_a_card_shown_elsewhere(opponents: analysis.Opponents, name: str) -> None:
    """Every world of every decision of seeded hands: the opponent holds the cards it is known to hold
    plus concealed ones, as many as its hand, none of them in my hand or the discard pile; the stock is
    the other unknown cards, as many as the view's stock."""
    checked = 0
    for seed in range(4):
        for steps in range(0, 40, 5):
            hand = random_position(name, seed, steps)
            me = hand.current_player
            assert me is not None
            view = hand.view(me)
            shown = sum(1 << c for c in (*view.hand, *view.discard_pile))
            known = sum(1 << c for c in view.opponent_known)
            unknown = (1 << 52) - 1 & ~shown & ~known
            for world in analysis.worlds_of(view, 30, random.Random(seed), opponents):
                assert world.opponent & known == known and not world.opponent & shown
                assert world.opponent.bit_count() == view.opponent_hand_size
                assert len(world.stock) == view.stock_size == len(set(world.stock))
                assert all(unknown >> c & 1 and not world.opponent >> c & 1 for c in world.stock)
                checked += 1
    assert checked == 4 * 8 * 30


def test_hidden_cards_shuffled_really_differ() -> None:
    """The property above is not vacuous: the shuffles change the opponent's cards and the stock."""
    hand = random_position("classic", 5, 6)
    me = hand.current_player
    assert me is not None
    other = with_hidden_shuffled(hand, me, 1)
    assert other.hand_mask(1 - me) != hand.hand_mask(1 - me) and other.stock != hand.stock
    assert other.view(me) == hand.view(me)


# --------------------------------------------------------------------------------------------- a match


def test_a_match_analysis_judges_every_decision_of_both_players_and_sums_them_up() -> None:
    record = bot_record(hands=2, auto=frozenset({3}))
    seen: list[tuple[int, int]] = []
    result = analysis.analyse(record, FAST, progress=lambda done, total: seen.append((done, total)))
    everything = list(analysis.positions(record))
    decisions = [p for p in everything if p.is_decision]
    total = len(decisions)
    assert seen == [(k, total) for k in range(total + 1)]
    assert [(d["hand"], d["step"], d["seat"], d["chosen"]) for d in result["decisions"]] == [
        (p.hand, p.step, p.seat, str(p.action)) for p in decisions]
    # the event at index 3 of the log (hand 1's third action) was the timer's: not the player's decision
    auto = [p for p in everything if p.auto]
    assert [(p.hand, p.step) for p in auto] == [(1, 3)]
    assert all((d["hand"], d["step"]) != (1, 3) for d in result["decisions"])
    forced = [p for p in everything if not p.auto and len(p.view.legal_actions) == 1]
    assert len(everything) == total + len(auto) + len(forced)
    for s, summary in enumerate(result["summary"]):
        mine = [d for d in result["decisions"] if d["seat"] == s]
        assert summary["seat"] == s and summary["decisions"] == len(mine) > 0
        assert summary["marks"] == {m: sum(1 for d in mine if d["mark"] == m) for m in ("?!", "?", "??")}
        assert summary["total_cost"] == pytest.approx(sum(d["cost"] for d in mine), abs=0.01)
        assert summary["average_cost"] == pytest.approx(summary["total_cost"] / len(mine), abs=0.001)
        assert summary["auto"] == sum(1 for p in auto if p.seat == s)
    for d in result["decisions"]:
        assert d["cost"] == pytest.approx(max(0.0, d["best_value"] - d["chosen_value"]), abs=0.011)
        unmarked = d["best"] == d["chosen"] or analysis.classify(d["cost"], d["error"]) == ""
        assert (d["mark"] == "") == unmarked
        assert d["options"][0][0] == d["best"] and len(d["options"]) <= 4
        assert d["decision"] == {"take": "offer", "pass": "offer", "draw stock": "draw",
                                 "draw discard": "draw"}.get(d["chosen"], "discard")
    assert result["version"] == analysis.ANALYSIS_VERSION and result["settings"]["worlds"] == 40
    assert result == analysis.analyse(record, FAST)  # the same record and settings: the same analysis


def test_a_record_that_does_not_verify_is_not_analysed() -> None:
    record = bot_record(hands=1)
    record["hands"][0]["actions"][0]["action"] = "knock"
    with pytest.raises(ReplayVerificationError) as info:
        analysis.analyse(record, FAST)
    assert info.value.event == 2


def test_the_view_is_all_the_judge_takes() -> None:
    """``judge`` receives a PlayerView, which holds no concealed card and no stock order."""
    hand = random_position("classic", 3, 10)
    me = hand.current_player
    assert me is not None
    view = hand.view(me)
    fields = {f.name for f in dataclasses.fields(view)}
    assert not {"deck", "stock", "hands", "limit_card"} & fields
    assert view.opponent_hand is None  # filled only once the hand has ended
    assert len(view.hand) in (10, 11) and view.opponent_hand_size in (10, 11)
    with pytest.raises(ValueError, match="not a legal action"):
        analysis.judge(view, Action.parse("knock"), FAST)

