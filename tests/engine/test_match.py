"""MatchState: hands to the target, dealer rotation, dead-hand redeal, end bonuses, resign
(rules.md "The match" and the presets table)."""

from __future__ import annotations

import pytest

from engine.actions import Action
from engine.deck import seeded_deck
from engine.errors import IllegalActionError
from engine.events import ActionEvent, DealEvent, HandEndEvent, MatchEndEvent, ResignEvent
from engine.match import MatchState
from engine.rules import PRESETS, RuleSet, preset
from engine.tools.playout import random_playout
from tests.engine.dealing import make_deck

GIN_READY = "Ac 2c 3c 4c 5d 6d 7d 8c 8h 8s"  # gin after drawing 3d and discarding it
JUNK_98 = "Tc Td Jh Js Qc Qd Kh Ks 9h 9s"  # meld-free, deadwood 98
SMALL_46 = "Ah As 2h 2s 4h 4s 6h 6s Th Ts"  # meld-free, deadwood 46


def win_by_gin(match: MatchState, winner: int, defender: str) -> None:
    """Deal and play a hand that ``winner`` wins by gin against ``defender`` (its deadwood)."""
    if winner != match.dealer:
        match.deal(make_deck(GIN_READY, defender, "7h", "3d"))
        script = ["pass", "pass", "draw stock", "knock 3d"]
    else:
        match.deal(make_deck(defender, GIN_READY, "7h", "Kc 3d"))
        script = ["pass", "pass", "draw stock", "discard Kc", "draw stock", "knock 3d"]
    for text in script:
        match.apply(text)


def dead_hand(match: MatchState, seed: int = 9) -> None:
    match.deal(seeded_deck(seed))
    for text in ("pass", "pass"):
        match.apply(text)
    hand = match.hand
    assert hand is not None
    while not hand.is_over:
        event = match.apply("draw stock")[0]
        assert isinstance(event, ActionEvent) and event.card is not None
        match.apply(Action.discard(event.card))


# The scripted hands below deal an upcard (two_deck's eleven-card deal: tests/engine/test_seed003.py).
UPCARD_PRESETS = sorted(n for n, r in PRESETS.items() if r.deal == "upcard")

ROTATION = {"alternate": (1, 1), "loser": (0, 1), "winner": (1, 0)}
"""next_dealer -> (next dealer is flipped after a non-dealer win?, after a dealer win?) as 1/0."""


@pytest.mark.parametrize("name", UPCARD_PRESETS)
@pytest.mark.parametrize("winner_is_dealer", [False, True])
def test_dealer_rotation_per_preset(name: str, winner_is_dealer: bool) -> None:
    rules = preset(name)
    m = MatchState(rules, 0)
    winner = 0 if winner_is_dealer else 1
    win_by_gin(m, winner, SMALL_46)
    flips = ROTATION[rules.next_dealer][1 if winner_is_dealer else 0]
    assert m.dealer == (1 if flips else 0)
    assert m.awaiting_deal and m.current_player is None and m.legal_actions() == []
    assert m.hands_won == ((1, 0) if winner == 0 else (0, 1))
    gin_bonus = rules.gin_bonus
    assert m.scores[winner] == gin_bonus + 46 and m.scores[1 - winner] == 0


def test_rotation_names_per_preset() -> None:
    assert {n: r.next_dealer for n, r in PRESETS.items()} == {
        "classic": "alternate", "table": "loser", "brazilian": "alternate", "oklahoma": "alternate",
        "hoyle": "winner", "two_deck": "loser",
    }


@pytest.mark.parametrize("name", UPCARD_PRESETS)
def test_dead_hand_is_redealt_by_the_same_dealer(name: str) -> None:
    m = MatchState(preset(name), 1)
    dead_hand(m)
    assert m.results[-1].kind == "dead"
    assert m.dealer == 1 and m.scores == (0, 0) and m.hands_won == (0, 0) and m.hand_number == 1
    assert m.awaiting_deal
    dead_hand(m, seed=10)
    assert m.dealer == 1 and m.hand_number == 2
    deals = [e for e in m.events if isinstance(e, DealEvent)]
    assert [(d.hand, d.dealer) for d in deals] == [(1, 1), (2, 1)]


@pytest.mark.parametrize(
    ("name", "first_dealer", "plan", "scores", "final"),
    [
        # classic: no end bonuses. Seat 0 gins against 98: 25 + 98.
        ("classic", 1, [(0, JUNK_98)], (123, 0), (123, 0)),
        # brazilian shutout: 118 + game 100 + 20 for its hand + 100 shutout.
        ("brazilian", 1, [(0, JUNK_98)], (118, 0), (338, 0)),
        # brazilian: seat 1 gins vs 46 (20 + 46 = 66), then seat 0 vs 98 (118): 118+100+20, 66+20.
        ("brazilian", 0, [(1, SMALL_46), (0, JUNK_98)], (118, 66), (238, 86)),
        # hoyle shutout doubles the winner's total: (123 + 100 + 25) * 2.
        ("hoyle", 1, [(0, JUNK_98)], (123, 0), (496, 0)),
        # hoyle: seat 1 gins vs 46 (71) and deals next (winner deals); seat 0 gins vs 98 (123).
        ("hoyle", 0, [(1, SMALL_46), (0, JUNK_98)], (123, 71), (248, 96)),
        # table: no bonuses; seat 1 wins 71, the loser (seat 0) deals again, seat 1 wins 123.
        ("table", 0, [(1, SMALL_46), (1, JUNK_98)], (0, 194), (0, 194)),
    ],
)
def test_end_bonuses(
    name: str, first_dealer: int, plan: list[tuple[int, str]], scores: tuple[int, int], final: tuple[int, int]
) -> None:
    m = MatchState(preset(name), first_dealer)
    for i, (winner, defender) in enumerate(plan):
        assert not m.is_over
        win_by_gin(m, winner, defender)
        assert m.is_over == (i == len(plan) - 1)
    winner = plan[-1][0]
    assert m.is_over and m.winner == winner and not m.awaiting_deal
    assert m.scores == scores and m.final_scores == final
    end = m.events[-1]
    assert isinstance(end, MatchEndEvent)
    assert (end.winner, end.reason, end.scores, end.final_scores) == (winner, "target", scores, final)
    hand_end = m.events[-2]
    assert isinstance(hand_end, HandEndEvent) and hand_end.scores == scores
    assert hand_end.hand == len(plan) and hand_end.result == m.results[-1].to_dict()
    for attempt in (lambda: m.deal(seeded_deck(1)), lambda: m.apply("pass"), lambda: m.resign(0)):
        with pytest.raises(IllegalActionError) as info:
            attempt()
        assert info.value.code == "match_over"


def test_final_scores_are_none_while_the_match_is_on() -> None:
    m = MatchState(preset("hoyle"), 0)
    win_by_gin(m, 1, SMALL_46)
    assert not m.is_over and m.winner is None and m.final_scores is None


def test_resign_mid_hand_ends_the_match_without_bonuses() -> None:
    m = MatchState(preset("brazilian"), 0)
    win_by_gin(m, 1, SMALL_46)
    m.deal(seeded_deck(4))
    m.apply("pass")
    new = m.resign(1)
    assert isinstance(new[0], ResignEvent) and isinstance(new[1], MatchEndEvent)
    assert new[1] == MatchEndEvent(0, "resign", (0, 66), (0, 66))
    assert m.is_over and m.winner == 0 and m.final_scores == (0, 66)
    assert m.current_player is None and m.legal_actions() == []
    view = m.view(0)
    assert view.current_player is None and view.legal_actions == ()
    with pytest.raises(IllegalActionError) as info:
        m.apply("pass")
    assert info.value.code == "match_over"


def test_resign_while_awaiting_a_deal_and_bad_seat() -> None:
    m = MatchState(preset("classic"), 0)
    with pytest.raises(ValueError):
        m.resign(3)
    m.resign(0)
    assert m.winner == 1 and m.final_scores == (0, 0)


def test_steps_out_of_place_change_nothing() -> None:
    m = MatchState(preset("classic"), 0)
    before = m.clone()
    with pytest.raises(IllegalActionError) as info:
        m.apply("pass")
    assert info.value.code == "wrong_phase" and m == before
    m.deal(seeded_deck(2))
    before = m.clone()
    with pytest.raises(IllegalActionError) as info:
        m.deal(seeded_deck(3))
    assert info.value.code == "wrong_phase" and m == before
    with pytest.raises(IllegalActionError) as info:
        m.apply("pass", 0)
    assert info.value.code == "out_of_turn" and m == before
    fresh = MatchState(preset("classic"), 0)
    with pytest.raises(ValueError):
        fresh.deal(seeded_deck(3)[:50])
    assert fresh == MatchState(preset("classic"), 0)
    with pytest.raises(ValueError):
        MatchState(preset("classic"), 2)


def test_apply_returns_the_new_events() -> None:
    m = MatchState(preset("classic").replace(target=500), 0)
    m.deal(make_deck(GIN_READY, JUNK_98, "7h", "3d"))
    assert [type(e).__name__ for e in m.apply("pass")] == ["ActionEvent"]
    m.apply("pass")
    m.apply("draw stock")
    assert [type(e).__name__ for e in m.apply("knock 3d")] == ["ActionEvent", "HandEndEvent"]


def test_clone_is_independent() -> None:
    m = MatchState(preset("classic"), 0)
    m.deal(seeded_deck(2))
    copy = m.clone()
    assert copy == m
    copy.apply("pass")
    assert copy != m and m.hand is not None and len(m.hand.history) == 0


def expected_next_dealer(rules: RuleSet, dealer: int, winner: int | None) -> int:
    if winner is None:
        return dealer
    return {"alternate": 1 - dealer, "loser": 1 - winner, "winner": winner}[rules.next_dealer]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_random_matches_follow_rotation_and_totals(name: str) -> None:
    rules = preset(name)
    for seed in range(3):
        m = random_playout(rules, seed)
        deals = [e for e in m.events if isinstance(e, DealEvent)]
        assert len(deals) == len(m.results) == m.hand_number
        dealer = m.first_dealer
        totals = [0, 0]
        for deal, result in zip(deals, m.results, strict=True):
            assert deal.dealer == dealer
            if result.winner is not None:
                totals[result.winner] += result.points
            dealer = expected_next_dealer(rules, dealer, result.winner)
        assert tuple(totals) == m.scores and m.is_over and m.winner is not None
        assert m.scores[m.winner] >= rules.target > m.scores[1 - m.winner]
