"""Scoring one hand (rules.md "Scoring one hand", "Worked examples"; issue 2 "Cases that broke...")."""

import json
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import PRESETS, parse_cards, preset, score_knock
from engine.cards import format_cards
from engine.errors import DuplicateCardError, EngineError, IllegalActionError, InvalidMeldError
from engine.melds import deadwood
from engine.rules import RuleSet
from engine.scoring import HandResult, dead_hand
from tests.engine import reference
from tests.engine.strategies import dense_deal

CLASSIC = preset("classic")


def score(knocker_hand: str, defender_hand: str, rules: RuleSet = CLASSIC, **kw: object) -> HandResult:
    return score_knock(parse_cards(knocker_hand), parse_cards(defender_hand), rules, **kw)  # type: ignore[arg-type]


def summary(r: HandResult) -> tuple[str, int | None, int, int, int]:
    return r.kind, r.winner, r.points, r.knocker_deadwood, r.defender_deadwood


def laid(r: HandResult) -> list[str]:
    return sorted(format_cards([x.card]) for x in r.layoffs)


def test_worked_example_2_layoff_on_a_run() -> None:
    r = score("4h 5h 6h 8d 8h 8s 9s Ts Js Kc", "Tc Td Th 6c 7c 8c 9c Qs 5s 7s")
    assert summary(r) == ("knock", 0, 2, 10, 12)
    assert laid(r) == ["Qs"]
    assert str(r.knocker_melds[r.layoffs[0].meld]) == "9s Ts Js"
    assert format_cards(r.defender_unmatched) == "5s 7s"


def test_worked_example_3_undercut_after_layoffs() -> None:
    r = score("4h 5h 6h 3c 3d 3s Td Jd Qd Qc", "9c 9h 9s 7d 8d 9d 3h 7h Kd 5s")
    assert summary(r) == ("undercut", 1, 30, 10, 5)
    assert r.bonus == 25
    assert laid(r) == ["3h", "7h", "Kd"]
    assert format_cards(r.defender_unmatched) == "5s"


def test_worked_example_4_knock_gin_undercut() -> None:
    # knock 4 vs 19 -> knocker 15 (the defender has nothing to lay off)
    r = score("2c 3c 4c 5d 5h 5s 9h Th Jh 4s", "Qc Qd Qs 6s 7s 8s 9d 6c 2h 2d")
    assert summary(r) == ("knock", 0, 15, 4, 19) and r.layoffs == ()
    # gin vs 23 -> 48 (classic), 43 (brazilian gin 20); no layoffs after gin
    gin = ("2c 3c 4c 5d 5h 5s 9h Th Jh Qh", "Qc Qd Qs 6d 7d 8d 9d Ks 9s 4s")
    assert summary(score(*gin)) == ("gin", 0, 48, 0, 23)
    assert score(*gin).bonus == 25 and score(*gin).layoffs == ()
    assert score(*gin, preset("brazilian")).points == 43
    # knock 8 vs 5 -> defender 3 + 25 = 28 (classic), 3 + 10 = 13 (brazilian)
    r = score("2c 3c 4c 5d 5h 5s 9h Th Jh 8s", "Qc Qd Qs 6d 7d 8d 9d Ah 2s 2d")
    assert summary(r) == ("undercut", 1, 28, 8, 5)
    brazilian = score("2c 3c 4c 5d 5h 5s 9h Th Jh 8s", "Qc Qd Qs 6d 7d 8d 9d Ah 2s 2d", preset("brazilian"))
    assert brazilian.points == 13


def test_gin_blocks_layoffs_the_defender_could_make() -> None:
    # the defender's 6c/Jh would lay off after a knock, not after gin
    r = score("2c 3c 4c 5c 5h 5s 9h Th Jh Qh", "6c Kh Qc Qd Qs 6d 7d 8d 2s 4s")
    assert summary(r) == ("gin", 0, 25 + 10 + 6 + 2 + 4, 0, 22)
    assert r.layoffs == ()


def test_issue_case_chained_layoffs() -> None:
    r = score("4s 5s 6s Ks Kc Kd 9c Tc Jc Ah", "7s 8s 9s 2c 3d 4h 5c 6h 8h As")
    assert summary(r) == ("knock", 0, 28, 1, 29)
    assert format_cards(r.defender_unmatched) == "2c 5c 3d 4h 6h 8h As"


def test_issue_case_defender_breaks_its_own_meld() -> None:
    r = score("Ks Kc Kd 5s 6s 7s 9c Tc Jc Jd", "2s 2c 2d 2h 8s 8c 8d 9s 7c Ac")
    assert summary(r) == ("undercut", 1, 26, 10, 9)
    assert laid(r) == ["7c", "8c", "8s", "9s"]


def test_issue_case_the_knocker_shows_the_sets() -> None:
    knocker, defender = "5s 6s 7s 5c 6c 7c 5d 6d 7d As", "3s 4s 4c 4d 8s 8c 8d 5h 6h 7h"
    r = score(knocker, defender)
    assert summary(r) == ("knock", 0, 2, 1, 3)
    assert sorted(m.kind for m in r.knocker_melds) == ["set", "set", "set"]
    runs = [parse_cards(g) for g in ("5s 6s 7s", "5c 6c 7c", "5d 6d 7d")]
    shown_runs = score(knocker, defender, knocker_melds=runs)
    assert summary(shown_runs) == ("undercut", 1, 26, 1, 0)
    assert len(shown_runs.layoffs) + sum(len(m.cards) for m in shown_runs.defender_melds) == 10
    assert laid(shown_runs)[:4] == ["3s", "4c", "4d", "4s"]


def test_knocker_shows_more_deadwood_to_block_layoffs() -> None:
    # least deadwood 6 (2s-4s, 3c 3d 3h, 4c 4d 4h, 6d left) lets 5s 6s lay off: 6 vs 8 -> 2;
    # showing both 4-sets (2s and 6d left, 8) blocks them: 8 vs 14 -> 6 (rules.md point 7)
    knocker, defender = "3c 4c 3d 4d 6d 3h 4h 2s 3s 4s", "Ac 5c Ad 5d Ah 2h 5h 6h 5s 6s"
    assert deadwood(parse_cards(knocker)) == 6
    r = score(knocker, defender)
    assert summary(r) == ("knock", 0, 6, 8, 14)
    assert [str(m) for m in r.knocker_melds] == ["3c 3d 3h 3s", "4c 4d 4h 4s"]
    least = [parse_cards(g) for g in ("2s 3s 4s", "3c 3d 3h", "4c 4d 4h")]
    assert summary(score(knocker, defender, knocker_melds=least)) == ("knock", 0, 2, 6, 8)


@pytest.mark.parametrize(
    ("name", "points", "bonus"), [("oklahoma", 54, 31), ("hoyle", 54, 31), ("classic", 48, 25)]
)
def test_issue_case_big_gin(name: str, points: int, bonus: int) -> None:
    defender = "Qc Qd Qh Qs 8d 9d Td Ks 9s 4s"
    assert deadwood(parse_cards(defender)) == 23
    r = score("2h 3h 4h 5h 7c 7d 7s Jc Jd Jh Js", defender, preset(name))
    assert summary(r) == ("big_gin", 0, points, 0, 23)
    assert r.bonus == bonus and r.layoffs == ()


def test_eleven_cards_not_all_melded_is_not_big_gin() -> None:
    with pytest.raises(IllegalActionError) as info:
        score("2h 3h 4h 5h 7c 7d 7s Jc Jd Jh 2s", "Qc Qd Qh Qs 8d 9d Td Ks 9s 4s")
    assert info.value.code == "not_big_gin"


def test_knock_over_the_limit_is_refused() -> None:
    hand, defender = "2c 3c 4c 5d 5h 5s 9h Th Jh Js", "Qc Qd Qs 6d 7d 8d 9d Ah 2s 2d"
    assert score(hand, defender).knocker_deadwood == 10
    # oklahoma limit from the upcard (a 9 -> 9)
    with pytest.raises(IllegalActionError) as info:
        score(hand, defender, preset("oklahoma"), knock_limit=9)
    assert info.value.code == "knock_over_limit"
    with pytest.raises(IllegalActionError, match="over the knock limit"):
        score("2c 3c 4c 5d 5h 5s 9h Th Qh Js", defender)
    # shown melds leaving more than the limit are refused too
    with pytest.raises(IllegalActionError):
        score(hand, defender, knocker_melds=[parse_cards("2c 3c 4c"), parse_cards("5d 5h 5s")])


def test_tie_rule_and_multiplier_and_seats() -> None:
    knocker, defender = "2c 3c 4c 5d 5h 5s 9h Th Jh 3s", "Qc Qd Qs 6d 7d 8d 9d Ah 2h Kc"
    # 3 vs 13: the defender has no layoff
    assert summary(score(knocker, defender)) == ("knock", 0, 10, 3, 13)
    doubled = score(knocker, defender, preset("oklahoma"), knock_limit=3, multiplier=2, knocker=1)
    assert summary(doubled) == ("knock", 1, 20, 3, 13) and doubled.multiplier == 2
    # a tie (3 vs 3) is an undercut by default, the knocker's win (0 points) when the rules say so
    tie_defender = "Qc Qd Qs Kc Kh Kd 7d 8d 9d 3h"
    assert summary(score(knocker, tie_defender)) == ("undercut", 1, 25, 3, 3)
    assert summary(score(knocker, tie_defender, preset("brazilian"))) == ("undercut", 1, 10, 3, 3)
    to_knocker = CLASSIC.replace(tie_goes_to="knocker")
    assert summary(score(knocker, tie_defender, to_knocker, knocker=1)) == ("knock", 1, 0, 3, 3)
    # undercut by the defender in seat 0 when seat 1 knocks, doubled
    r = score(knocker, tie_defender, knocker=1, multiplier=2)
    assert (r.winner, r.points, r.bonus) == (0, 50, 25)


def test_bad_inputs() -> None:
    defender = "Qc Qd Qs 6d 7d 8d 9d Ah 2s 2d"
    with pytest.raises(DuplicateCardError, match="Ah"):
        score("2c 3c 4c 5d 5h 5s 9h Th Jh Ah", defender)
    with pytest.raises(EngineError) as info:
        score("2c 3c 4c 5d 5h 5s 9h Th Jh", defender)
    assert info.value.code == "hand_size"
    with pytest.raises(InvalidMeldError):
        score("2c 3c 4c 5d 5h 5s 9h Th Jh 8s", defender, knocker_melds=[parse_cards("2c 3c 5d")])
    with pytest.raises(InvalidMeldError):
        score("2c 3c 4c 5d 5h 5s 9h Th Jh 8s", defender, knocker_melds=[parse_cards("6c 7c 8c")])
    with pytest.raises(EngineError):
        score("2c 3c 4c 5d 5h 5s 9h Th Jh 8s", defender, knocker=2)


def test_dead_hand_and_to_dict() -> None:
    d = dead_hand()
    assert (d.kind, d.winner, d.knocker, d.points) == ("dead", None, None, 0)
    r = score("4h 5h 6h 8d 8h 8s 9s Ts Js Kc", "Tc Td Th 6c 7c 8c 9c Qs 5s 7s", knocker=1)
    assert r.to_dict() == {
        "kind": "knock", "knocker": 1, "winner": 1, "points": 2, "bonus": 0, "multiplier": 1,
        "knocker_deadwood": 10, "defender_deadwood": 12,
        "knocker_melds": [["8d", "8h", "8s"], ["4h", "5h", "6h"], ["9s", "Ts", "Js"]],
        "knocker_unmatched": ["Kc"],
        "defender_melds": [["6c", "7c", "8c", "9c"], ["Tc", "Td", "Th"]],
        "defender_unmatched": ["5s", "7s"],
        "layoffs": [{"card": "Qs", "meld": 2}],
    }


def test_seeded_random_knocks_choose_the_knockers_best_arrangement() -> None:
    rng = random.Random(5)
    checked = 0
    while checked < 150:
        cards = rng.sample(range(52), 21)
        knocker = knockable(cards[:11])
        if knocker is not None:
            check_knock(knocker, cards[11:])
            checked += 1


@settings(max_examples=150, deadline=None)
@given(dense_deal(21))
def test_dense_knocks_choose_the_knockers_best_arrangement(cards: list[int]) -> None:
    knocker = knockable(cards[:11])
    assume(knocker is not None)
    assert knocker is not None
    check_knock(knocker, cards[11:])


def knockable(eleven: list[int]) -> list[int] | None:
    """The first 10 of ``eleven`` (one card discarded) that knock without gin, if any."""
    for i in range(11):
        ten = eleven[:i] + eleven[i + 1:]
        if 0 < deadwood(ten) <= 10:
            return ten
    return None


def check_knock(knocker: list[int], defender: list[int]) -> None:
    for rules in (CLASSIC, CLASSIC.replace(tie_goes_to="knocker", undercut_bonus=10)):
        r = score_knock(knocker, defender, rules)
        net = r.points if r.winner == 0 else -r.points
        tie = rules.tie_goes_to == "knocker"
        assert net == reference.knock_net(knocker, defender, 10, rules.undercut_bonus, tie)
        assert r.defender_deadwood == reference.defense(defender, [list(m.cards) for m in r.knocker_melds])


@settings(max_examples=300, deadline=None)
@given(dense_deal(21), st.sampled_from(sorted(PRESETS)), st.integers(0, 1), st.sampled_from([1, 2]))
def test_result_invariants_under_every_preset(cards: list[int], name: str, seat: int, mult: int) -> None:
    rules = PRESETS[name]
    eleven, defender = cards[:11], cards[11:]
    defender_dw = deadwood(defender)
    if deadwood(eleven) == 0:
        r = score_knock(eleven, defender, rules, knocker=seat, multiplier=mult)
        assert (r.kind, r.winner, r.layoffs) == ("big_gin", seat, ())
        assert r.points == (rules.effective_big_gin_bonus + defender_dw) * mult
    for i in range(11):
        ten = eleven[:i] + eleven[i + 1:]
        dw = deadwood(ten)
        if dw > 10:
            with pytest.raises(IllegalActionError):
                score_knock(ten, defender, rules, knocker=seat, multiplier=mult)
            continue
        r = score_knock(ten, defender, rules, knocker=seat, multiplier=mult)
        json.dumps(r.to_dict())
        assert r.knocker == seat and r.multiplier == mult
        if dw == 0:
            assert (r.kind, r.winner, r.layoffs, r.defender_deadwood) == ("gin", seat, (), defender_dw)
            assert r.points == (rules.gin_bonus + defender_dw) * mult
            continue
        assert r.knocker_deadwood >= dw and r.defender_deadwood <= defender_dw
        if r.kind == "knock":
            assert r.winner == seat and r.points == (r.defender_deadwood - r.knocker_deadwood) * mult
        else:
            assert (r.kind, r.winner) == ("undercut", 1 - seat)
            assert r.points == (r.knocker_deadwood - r.defender_deadwood + rules.undercut_bonus) * mult
        laid = {x.card for x in r.layoffs}
        own = {c for m in r.defender_melds for c in m.cards}
        assert laid | own | set(r.defender_unmatched) == set(defender)
        assert len(laid) + len(own) + len(r.defender_unmatched) == 10
