"""Melds and least deadwood (rules.md "One hand", points 4-5; issue 2 "Cases that broke...")."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import best_arrangement, deadwood_after_discards, parse_cards
from engine.cards import card_value, format_cards
from engine.errors import DuplicateCardError, InvalidCardError, InvalidMeldError
from engine.melds import (
    Meld,
    all_arrangements,
    deadwood,
    is_meld,
    least_discard_of_mask,
    meld_kind,
    validate_melds,
)
from tests.engine import reference
from tests.engine.strategies import ADVERSARIAL_KINDS, adversarial_hand, random_hand


def shown(text: str) -> tuple[list[str], str, int]:
    a = best_arrangement(parse_cards(text))
    return [str(m) for m in a.melds], format_cards(a.unmatched), a.deadwood


def test_rules_example_run_beats_sets_first() -> None:
    # rules.md point 5: 7s 8s 9s 7h 7d -> keep the spade run, deadwood 14 (not 17)
    assert shown("7s 8s 9s 7h 7d") == (["7s 8s 9s"], "7d 7h", 14)


def test_long_runs_case() -> None:
    # issue 2: least deadwood 16 with Jc Js Jd and 6d-Td
    assert shown("Jc 9d 8s 6d Js 8h Td 8d 7d Jd") == (["Jc Jd Js", "6d 7d 8d 9d Td"], "8h 8s", 16)


def test_knock_discards_case_only_8c_allows_a_knock() -> None:
    hand = parse_cards("Js Jh Jd 8c 7s 7h 7d 4s 3d 2s Ac")
    after = {format_cards([c]): dw for c, dw in deadwood_after_discards(hand).items()}
    assert after["8c"] == 10
    assert [name for name, dw in after.items() if dw <= 10] == ["8c"]
    assert after == {
        "Ac": 17, "8c": 10, "3d": 15, "7d": 32, "Jd": 38, "7h": 32, "Jh": 38,
        "2s": 16, "4s": 14, "7s": 32, "Js": 38,
    }


def test_big_gin_hand_is_all_melded() -> None:
    assert shown("2h 3h 4h 5h 7c 7d 7s Jc Jd Jh Js") == (["7c 7d 7s", "Jc Jd Jh Js", "2h 3h 4h 5h"], "", 0)


@pytest.mark.parametrize(
    ("text", "dw"),
    [
        ("", 0), ("Ks", 10), ("As 2s", 3), ("As 2s 3s", 0), ("Qs Ks As", 21), ("Ks As 2s", 13),
        ("Qs Ks Kh Kd Kc Js", 0), ("3c 3d 3h 3s 2s 4s", 0), ("3c 3d 3h 3s 2s 4s 2h 4h", 6),
        ("Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc", 0), ("Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc", 0),
    ],
)
def test_small_and_edge_hands(text: str, dw: int) -> None:
    assert deadwood(parse_cards(text)) == dw
    assert best_arrangement(parse_cards(text)).deadwood == dw


def test_meld_values_and_validation() -> None:
    assert meld_kind(parse_cards("7s 7h 7d")) == "set"
    assert meld_kind(parse_cards("7s 7h 7d 7c")) == "set"
    assert meld_kind(parse_cards("Js Qs Ks")) == "run"
    assert meld_kind(parse_cards("As 2s 3s 4s")) == "run"
    for bad in ("Qs Ks As", "Ks As 2s", "7s 8s", "7s 8s Ts", "7s 8h 9s", "7s 7h 8s"):
        assert not is_meld(parse_cards(bad)), bad
    assert not is_meld([0, 0, 1])
    m = Meld.of(parse_cards("9s 7s 8s"))
    assert (m.kind, str(m), m.value, m.names()) == ("run", "7s 8s 9s", 24, ["7s", "8s", "9s"])
    with pytest.raises(InvalidMeldError, match="not a meld: As Qs Ks"):
        Meld.of(parse_cards("Qs Ks As"))
    with pytest.raises(DuplicateCardError):
        Meld.of([5, 5, 6])


def test_validate_melds() -> None:
    hand = parse_cards("7s 8s 9s 7h 7d 2c")
    a = validate_melds(hand, [parse_cards("7s 7h 7d")])
    got = ([str(x) for x in a.melds], format_cards(a.unmatched), a.deadwood)
    assert got == (["7d 7h 7s"], "2c 8s 9s", 19)
    with pytest.raises(InvalidMeldError, match="not in the hand"):
        validate_melds(hand, [parse_cards("7s 7h 7c")])
    with pytest.raises(InvalidMeldError, match="shares"):
        validate_melds(hand, [parse_cards("7s 8s 9s"), parse_cards("7s 7h 7d")])
    with pytest.raises(InvalidMeldError):
        validate_melds(hand, [parse_cards("8s 9s 2c")])


def test_bad_cards_raise() -> None:
    with pytest.raises(DuplicateCardError):
        deadwood([3, 3])
    with pytest.raises(InvalidCardError):
        best_arrangement([60])
    with pytest.raises(DuplicateCardError):
        deadwood_after_discards([1, 2, 1])


def test_all_arrangements_includes_non_maximal_choices() -> None:
    hand = parse_cards("4s 5s 6s 7s")
    got = sorted(([str(m) for m in a.melds], a.deadwood) for a in all_arrangements(hand))
    assert got == [
        ([], 22), (["4s 5s 6s"], 7), (["4s 5s 6s 7s"], 0), (["5s 6s 7s"], 4),
    ]
    assert [a.deadwood for a in all_arrangements(hand, max_deadwood=5)] == [0, 4]
    sets = parse_cards("9c 9d 9h 9s")
    assert len(list(all_arrangements(sets))) == 1 + 4 + 1


def check_arrangement(hand: list[int]) -> None:
    a = best_arrangement(hand)
    expected = reference.deadwood(hand)
    assert a.deadwood == expected == deadwood(hand), format_cards(hand)
    melded = [c for m in a.melds for c in m.cards]
    assert sorted(melded + list(a.unmatched)) == sorted(hand)
    assert len(set(melded)) == len(melded)
    assert all(Meld.of(m.cards) == m for m in a.melds)
    assert a.deadwood == sum(card_value(c) for c in a.unmatched)


def check_discards(hand: list[int]) -> None:
    after = deadwood_after_discards(hand)
    assert sorted(after) == sorted(hand)
    for c, dw in after.items():
        assert dw == reference.deadwood([x for x in hand if x != c])


def test_thousands_of_seeded_random_hands_match_the_reference() -> None:
    rng = random.Random(2024)
    for i in range(3000):
        check_arrangement(rng.sample(range(52), 10 if i % 3 else rng.randint(0, 11)))
    for _ in range(300):
        check_discards(rng.sample(range(52), 11))


@settings(max_examples=1000, deadline=None)
@given(st.integers(0, 11).flatmap(random_hand))
def test_random_hands_match_the_reference(hand: list[int]) -> None:
    check_arrangement(hand)


@pytest.mark.parametrize("kind", ADVERSARIAL_KINDS)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_adversarial_hands_match_the_reference(kind: str, data: st.DataObject) -> None:
    hand = data.draw(adversarial_hand(data.draw(st.sampled_from([10, 10, 11])), kind))
    check_arrangement(hand)
    if len(hand) == 11:
        check_discards(hand)


@settings(max_examples=300, deadline=None)
@given(st.one_of(random_hand(10), adversarial_hand(10)), st.integers(0, 25))
def test_all_arrangements_match_the_reference(hand: list[int], limit: int) -> None:
    got = sorted(
        (sorted(sorted(m.cards) for m in a.melds), a.deadwood) for a in all_arrangements(hand, limit)
    )
    want = sorted((sorted(sorted(m) for m in melds), dw) for melds, dw in reference.arrangements(hand, limit))
    assert got == want


def test_docstring_examples() -> None:
    import doctest

    import engine.cards
    import engine.melds

    for module in (engine.melds, engine.cards):
        assert doctest.testmod(module).failed == 0


def _argmin_discard(hand: list[int], keep: int | None) -> tuple[int, int]:
    """The simple player's discard read off the whole table: least deadwood, ties to the highest card."""
    after = deadwood_after_discards(hand)
    best = min(dw for card, dw in after.items() if card != keep)
    return max(card for card, dw in after.items() if card != keep and dw == best), best


@settings(max_examples=600, deadline=None)
@given(data=st.data())
def test_least_discard_is_the_tables_argmin(data: st.DataObject) -> None:
    """``least_discard_of_mask`` = the argmin of ``deadwood_after_discards`` (ties: highest card), with
    and without a kept card, on random and adversarial hands of 2..13 cards."""
    n = data.draw(st.sampled_from([11, 11, 11, 2, 5, 10, 12, 13]))
    hand = data.draw(st.one_of(random_hand(n), adversarial_hand(n)))
    keep = data.draw(st.one_of(st.none(), st.sampled_from(hand)))
    mask = sum(1 << c for c in hand)
    assert least_discard_of_mask(mask, keep) == _argmin_discard(hand, keep)


def test_least_discard_worked_example() -> None:
    # 7s 8s 9s + 8c 8d 8h, the rest Ac 2d 3h Kc Qd (26): shed a ten, leaving 16; of Kc (card 12) and
    # Qd (card 24) the higher card in the engine's order (suits c d h s) goes
    hand = parse_cards("7s 8s 9s 8c 8d 8h Ac 2d 3h Kc Qd")
    mask = sum(1 << c for c in hand)
    assert least_discard_of_mask(mask) == (parse_cards("Qd")[0], 16)
    # Qd just taken: Kc instead
    assert least_discard_of_mask(mask, parse_cards("Qd")[0]) == (parse_cards("Kc")[0], 16)
