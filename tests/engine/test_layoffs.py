"""Layoffs: the defender's least deadwood after a knock (rules.md "One hand", point 7)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import best_arrangement, best_defense, parse_cards
from engine.cards import format_cards
from engine.errors import InvalidMeldError
from engine.layoffs import DefenderResult
from engine.melds import Meld, all_arrangements, deadwood
from tests.engine import reference
from tests.engine.strategies import dense_deal


def melds(*groups: str) -> list[Meld]:
    return [Meld.of(parse_cards(g)) for g in groups]


def laid(result: DefenderResult) -> list[tuple[str, int]]:
    return [(format_cards([x.card]), x.meld) for x in result.layoffs]


def test_rules_worked_example_1_both_ends_of_a_run() -> None:
    # 7c 8c 9c shown; the defender's 6c and Tc both lay off: its count drops by 16 (20 -> 4)
    defender = parse_cards("6c Tc 4h Kd Ks Kh 2s 3s 4s 5s")
    assert deadwood(defender) == 20
    r = best_defense(defender, melds("7c 8c 9c"))
    assert r.deadwood == 4
    assert laid(r) == [("6c", 0), ("Tc", 0)]
    assert format_cards(r.unmatched) == "4h"


def test_chains_are_laid_outward_in_order() -> None:
    r = best_defense(parse_cards("7s 8s 3h 2h Kc Qd Jh 9c 5d 2c"), melds("4s 5s 6s", "4h 5h 6h"))
    assert laid(r) == [("7s", 0), ("8s", 0), ("3h", 1), ("2h", 1)]
    assert r.deadwood == 10 + 10 + 10 + 9 + 5 + 2


def test_fourth_card_of_a_three_set_only() -> None:
    defender = parse_cards("9h Kc Qd Jh 2c 3d 4h 6s 7c 5d")
    assert laid(best_defense(defender, melds("9c 9d 9s"))) == [("9h", 0)]
    r = best_defense(defender, melds("9c 9d 9s", "Jc Jd Js"))
    assert sorted(laid(r)) == [("9h", 0), ("Jh", 1)]
    assert r.deadwood == deadwood(defender) - 9 - 10
    # a set of 7s takes the 7h only while it has 3 cards
    other = parse_cards("7h Kd 2s Ac 5h 8c 9c Tc 3d 4d")
    assert laid(best_defense(other, melds("7s 7d 7c"))) == [("7h", 0)]
    assert best_defense(other, melds("7s 7d 7c", "Td Jd Qd")).deadwood == deadwood(other) - 7 - 10


def test_no_wrap_around_ace() -> None:
    defender = parse_cards("As Kh 2c 5d 6h 8c 9d Tc 3h 4d")
    r = best_defense(defender, melds("Js Qs Ks", "Qh Jh Th"))
    assert laid(r) == [("Kh", 1)]
    assert r.deadwood == deadwood(defender) - 10


def test_two_runs_of_one_suit_compete_for_cards() -> None:
    # 5s fits on 2s-4s, 7s on 8s-Ts; 6s could go either way but only one chain can take it
    r = best_defense(parse_cards("5s 6s 7s Kc Kd Qh 2h 3c 9d Jc"), melds("2s 3s 4s", "8s 9s Ts"))
    assert {c for c, _ in laid(r)} == {"5s", "6s", "7s"} or r.melds
    assert r.deadwood == 10 + 10 + 10 + 2 + 3 + 9 + 10
    r = best_defense(parse_cards("5s 7s Kc Kd Qh 2h 3c 9d Jc Ah"), melds("2s 3s 4s", "8s 9s Ts"))
    assert sorted(laid(r)) == [("5s", 0), ("7s", 1)]


def test_set_and_run_compete_for_one_card() -> None:
    # rules.md example 3's shape: 3h fits the 3-set or the heart run (then 7h extends the run)
    r = best_defense(parse_cards("3h 7h Kc Kd 9s 2c 5s Qs 6d Jc"), melds("3c 3d 3s", "4h 5h 6h"))
    cards = sorted(c for c, _ in laid(r))
    assert cards == ["3h", "7h"]
    assert r.deadwood == 10 + 10 + 9 + 2 + 5 + 10 + 6 + 10


def test_issue_case_defender_breaks_its_own_meld() -> None:
    defender = parse_cards("2s 2c 2d 2h 8s 8c 8d 9s 7c Ac")
    r = best_defense(defender, melds("Ks Kc Kd", "5s 6s 7s", "9c Tc Jc"))
    assert r.deadwood == 9
    assert sorted(laid(r)) == [("7c", 2), ("8c", 2), ("8s", 1), ("9s", 1)]
    assert [str(m) for m in r.melds] == ["2c 2d 2h 2s"]
    assert format_cards(r.unmatched) == "Ac 8d"


def test_issue_case_chained_layoffs() -> None:
    defender = parse_cards("7s 8s 9s 2c 3d 4h 5c 6h 8h As")
    r = best_defense(defender, melds("4s 5s 6s", "Ks Kc Kd", "9c Tc Jc"))
    assert r.deadwood == 29
    assert format_cards(r.unmatched) == "2c 5c 3d 4h 6h 8h As"


def test_knocker_meld_clashing_with_defender_raises() -> None:
    with pytest.raises(InvalidMeldError):
        best_defense(parse_cards("7s 8s 9s"), melds("7s 7h 7d"))
    with pytest.raises(InvalidMeldError):
        best_defense(parse_cards("2c"), melds("7s 7h 7d", "7s 8s 9s"))


def check_defense(defender: list[int], shown: list[Meld]) -> None:
    r = best_defense(defender, shown)
    assert r.deadwood == reference.defense(defender, [list(m.cards) for m in shown]), (
        format_cards(defender), [str(m) for m in shown]
    )
    # what is reported is consistent: layoffs really extend the melds, in chain order
    grown = [set(m.cards) for m in shown]
    for x in r.layoffs:
        grown[x.meld].add(x.card)
        assert Meld.of(grown[x.meld])
    own = [c for m in r.melds for c in m.cards]
    assert sorted(own + list(r.unmatched) + [x.card for x in r.layoffs]) == sorted(defender)
    assert all(Meld.of(m.cards) == m for m in r.melds)
    assert r.deadwood == sum(min(c % 13 + 1, 10) for c in r.unmatched)


def test_seeded_random_deals_match_the_reference() -> None:
    rng = random.Random(99)
    for _ in range(600):
        cards = rng.sample(range(52), 20)
        knocker, defender = cards[:10], cards[10:]
        options = list(all_arrangements(knocker))
        check_defense(defender, list(rng.choice(options).melds))
        check_defense(defender, list(best_arrangement(knocker).melds))


@settings(max_examples=1500, deadline=None)
@given(dense_deal(), st.randoms(use_true_random=False))
def test_dense_deals_match_the_reference(cards: list[int], rnd: random.Random) -> None:
    knocker, defender = cards[:10], cards[10:]
    options = list(all_arrangements(knocker))
    check_defense(defender, list(rnd.choice(options).melds))
