"""Card notation: parsing, printing, errors naming the token (rules.md "Card notation")."""

import pytest

from engine import parse_cards
from engine.cards import (
    card_name,
    card_value,
    format_cards,
    from_mask,
    make_card,
    parse_card,
    sort_by_rank,
    sort_by_suit,
    to_mask,
)
from engine.errors import DuplicateCardError, EngineError, InvalidCardError


def test_every_card_round_trips_through_its_name() -> None:
    names = [card_name(c) for c in range(52)]
    assert len(set(names)) == 52
    assert [parse_card(n) for n in names] == list(range(52))
    assert names[:3] == ["Ac", "2c", "3c"] and names[-1] == "Ks"


@pytest.mark.parametrize(
    ("token", "name"),
    [("As", "As"), ("as", "As"), ("AS", "As"), ("10h", "Th"), ("10H", "Th"), ("td", "Td"), (" 7c ", "7c")],
)
def test_input_accepts_10_and_any_case(token: str, name: str) -> None:
    assert card_name(parse_card(token)) == name


def test_card_integers_are_suit_times_13_plus_rank() -> None:
    assert parse_card("Ac") == 0
    assert parse_card("Kc") == 12
    assert parse_card("Ad") == 13
    assert parse_card("Ks") == 51
    assert make_card(9, 2) == parse_card("Th")


@pytest.mark.parametrize("token", ["1s", "11h", "Zs", "Ax", "", "A", "Ass", "10", "0c"])
def test_bad_token_raises_naming_the_token(token: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        parse_card(token)
    assert repr(token) in str(info.value)
    assert info.value.code == "invalid_card"
    assert isinstance(info.value, ValueError) and isinstance(info.value, EngineError)


def test_parse_cards_names_the_bad_token_in_a_list() -> None:
    with pytest.raises(InvalidCardError, match="'Xx'"):
        parse_cards("As Td Xx 7h")


def test_duplicate_card_raises_naming_it() -> None:
    with pytest.raises(DuplicateCardError, match="'ts'") as info:
        parse_cards("As Ts 7h ts")
    assert info.value.code == "duplicate_card"
    with pytest.raises(DuplicateCardError, match="'10h'"):
        parse_cards(["Th", "10h"])


def test_parse_cards_string_and_list_agree() -> None:
    assert parse_cards("As, Td 7h") == parse_cards(["As", "Td", "7h"]) == [39, 22, 32]
    assert format_cards(parse_cards("as 10d 7H")) == "As Td 7h"
    assert parse_cards("") == []


def test_card_values() -> None:
    values = {n: card_value(parse_card(n)) for n in ["Ac", "2d", "5h", "9s", "Tc", "Jd", "Qh", "Ks"]}
    assert values == {"Ac": 1, "2d": 2, "5h": 5, "9s": 9, "Tc": 10, "Jd": 10, "Qh": 10, "Ks": 10}


def test_masks_and_sorting() -> None:
    cards = parse_cards("Ks 2c Ah 2s")
    assert from_mask(to_mask(cards)) == sorted(cards)
    assert format_cards(sort_by_suit(cards)) == "2c Ah 2s Ks"
    assert format_cards(sort_by_rank(cards)) == "Ah 2c 2s Ks"
    with pytest.raises(DuplicateCardError):
        to_mask([3, 3])
    with pytest.raises(InvalidCardError):
        to_mask([52])
    with pytest.raises(InvalidCardError):
        card_name(-1)
