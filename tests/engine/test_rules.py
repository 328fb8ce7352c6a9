"""Rule sets: every preset's values (rules.md "rule options and presets") and validation."""

import pytest

from engine import PRESETS, RuleSet, preset
from engine.cards import parse_card
from engine.errors import InvalidRuleSetError

EXPECTED = {
    # name: knock_limit_from_upcard, gin, big gin, undercut, next dealer, first dealer, target,
    #       game, per hand, shutout bonus, shutout doubles, spades double
    "classic": (False, 25, None, 25, "alternate", "random", 100, 0, 0, 0, False, False),
    "table": (False, 25, None, 25, "loser", "computer", 100, 0, 0, 0, False, False),
    "brazilian": (False, 20, None, 10, "alternate", "random", 100, 100, 20, 100, False, False),
    "oklahoma": (True, 25, 31, 25, "alternate", "random", 100, 0, 0, 0, False, True),
    "hoyle": (False, 25, 31, 25, "winner", "random", 100, 100, 25, 0, True, False),
    # seed 003: its own fields (deal, second deck, tie, undercut gin) in tests/engine/test_seed003.py
    "two_deck": (False, 25, None, 25, "loser", "cut", 100, 0, 0, 0, False, False),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_preset_values(name: str) -> None:
    r = preset(name)
    assert r.name == name
    got = (
        r.knock_limit_from_upcard, r.gin_bonus, r.big_gin_bonus, r.undercut_bonus, r.next_dealer,
        r.first_dealer, r.target, r.game_bonus, r.hand_bonus, r.shutout_bonus, r.shutout_doubles,
        r.spade_doubles,
    )
    assert got == EXPECTED[name]
    # shared by every preset
    shared = (r.knock_limit, r.stock_floor, r.may_discard_taken_card)
    assert shared == (10, 2, False)
    assert r.tie_goes_to == ("knocker" if name == "two_deck" else "defender")


def test_presets_are_exactly_the_six() -> None:
    assert set(PRESETS) == set(EXPECTED)
    assert RuleSet() == preset("classic")


def test_effective_big_gin_bonus() -> None:
    assert preset("classic").effective_big_gin_bonus == 25
    assert preset("brazilian").effective_big_gin_bonus == 20
    assert preset("oklahoma").effective_big_gin_bonus == 31


@pytest.mark.parametrize(
    ("upcard", "limit", "mult"), [("7s", 7, 2), ("Ah", 0, 1), ("Kd", 10, 1), ("2c", 2, 1)]
)
def test_oklahoma_limit_and_multiplier_from_upcard(upcard: str, limit: int, mult: int) -> None:
    ok = preset("oklahoma")
    assert ok.hand_knock_limit(parse_card(upcard)) == limit
    assert ok.hand_multiplier(parse_card(upcard)) == mult
    assert preset("classic").hand_knock_limit(parse_card(upcard)) == 10
    assert preset("classic").hand_multiplier(parse_card(upcard)) == 1


def test_custom_rule_sets_from_real_tables() -> None:
    custom = preset("classic").replace(
        name="house", gin_bonus=20, undercut_bonus=20, tie_goes_to="knocker", stock_floor=3,
        may_discard_taken_card=True, next_dealer="loser",
    )
    assert RuleSet.from_dict(custom.to_dict()) == custom
    assert RuleSet.from_dict({"preset": "hoyle", "target": 150}).target == 150
    assert RuleSet.from_dict({"preset": "hoyle", "target": 150}).big_gin_bonus == 31


@pytest.mark.parametrize(
    ("change", "word"),
    [
        ({"knock_limit": -1}, "knock_limit"),
        ({"knock_limit": 10.5}, "knock_limit"),
        ({"gin_bonus": "25"}, "gin_bonus"),
        ({"big_gin_bonus": -3}, "big_gin_bonus"),
        ({"tie_goes_to": "nobody"}, "tie_goes_to"),
        ({"next_dealer": "random"}, "next_dealer"),
        ({"spade_doubles": 1}, "spade_doubles"),
        ({"target": 0}, "target"),
        ({"name": ""}, "name"),
        ({"no_such_option": 1}, "no_such_option"),
    ],
)
def test_bad_options_are_rejected_by_name(change: dict[str, object], word: str) -> None:
    with pytest.raises(InvalidRuleSetError, match=word) as info:
        preset("classic").replace(**change)
    assert info.value.code == "invalid_rules"


def test_unknown_preset_lists_the_presets() -> None:
    with pytest.raises(InvalidRuleSetError, match="classic"):
        preset("vegas")
    with pytest.raises(InvalidRuleSetError):
        RuleSet.from_dict({"preset": "vegas"})
    with pytest.raises(InvalidRuleSetError):
        RuleSet.from_dict("classic")  # type: ignore[arg-type]
