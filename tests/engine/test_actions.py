"""Actions: canonical strings, parsing (any case, 10 for T), errors, ordering (docs/engine.md "Actions")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.actions import Action, ActionKind
from engine.cards import card_name, parse_card
from engine.errors import IllegalActionError

CANONICAL = ["take", "pass", "draw stock", "draw discard", "discard Kc", "knock Kc", "knock"]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_strings_round_trip(text: str) -> None:
    assert str(Action.parse(text)) == text


@pytest.mark.parametrize(
    ("text", "kind", "card"),
    [
        ("take", ActionKind.TAKE_UPCARD, None),
        ("pass", ActionKind.PASS, None),
        ("draw stock", ActionKind.DRAW_STOCK, None),
        ("draw discard", ActionKind.DRAW_DISCARD, None),
        ("discard Kc", ActionKind.DISCARD, "Kc"),
        ("knock 7h", ActionKind.KNOCK, "7h"),
        ("knock", ActionKind.BIG_GIN, None),
    ],
)
def test_parse_gives_kind_and_card(text: str, kind: ActionKind, card: str | None) -> None:
    action = Action.parse(text)
    assert action.kind is kind
    assert action.card == (None if card is None else parse_card(card))


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("DISCARD 10h", "discard Th"),
        ("  Knock   td ", "knock Td"),
        ("Draw  STOCK", "draw stock"),
        ("TAKE", "take"),
        ("discard as", "discard As"),
    ],
)
def test_parse_accepts_any_case_spacing_and_10(text: str, canonical: str) -> None:
    assert str(Action.parse(text)) == canonical


@pytest.mark.parametrize(
    "text",
    ["", "draw", "draw pile", "discard", "discard Xx", "discard 11h", "knock Kc Qc", "take Kc",
     "pass pass", "gin", "discard Kc extra"],
)
def test_malformed_text_is_rejected_naming_it(text: str) -> None:
    with pytest.raises(IllegalActionError) as info:
        Action.parse(text)
    assert info.value.code == "malformed_action"
    assert repr(text) in str(info.value)


def test_non_string_is_malformed() -> None:
    with pytest.raises(IllegalActionError) as info:
        Action.parse(42)  # type: ignore[arg-type]
    assert info.value.code == "malformed_action"


def test_constructors_match_parse_and_are_interned() -> None:
    assert Action.take() is Action.parse("take")
    assert Action.pass_() is Action.parse("pass")
    assert Action.draw_stock() is Action.parse("draw stock")
    assert Action.draw_discard() is Action.parse("draw discard")
    assert Action.big_gin() is Action.parse("knock")
    assert Action.discard("Kc") is Action.discard(parse_card("Kc")) is Action.parse("discard Kc")
    assert Action.knock("10s") == Action(ActionKind.KNOCK, parse_card("Ts"))


@pytest.mark.parametrize("bad", ["Zz", 52, -1, "10"])
def test_constructor_rejects_bad_card(bad: object) -> None:
    with pytest.raises(IllegalActionError) as info:
        Action.discard(bad)  # type: ignore[arg-type]
    assert info.value.code == "malformed_action"


def test_card_required_exactly_for_discard_and_knock() -> None:
    with pytest.raises(IllegalActionError):
        Action(ActionKind.DISCARD)
    with pytest.raises(IllegalActionError):
        Action(ActionKind.PASS, 3)


def test_sort_order_is_kind_then_card() -> None:
    actions = [Action.big_gin(), Action.knock("2c"), Action.discard("Ks"), Action.discard("Ac"),
               Action.draw_discard(), Action.draw_stock(), Action.pass_(), Action.take()]
    assert [str(a) for a in sorted(actions)] == [
        "take", "pass", "draw stock", "draw discard", "discard Ac", "discard Ks", "knock 2c", "knock",
    ]


def test_repr_pastes_back() -> None:
    action = Action.knock("Qd")
    assert repr(action) == "Action.parse('knock Qd')"
    assert eval(repr(action)) == action


@given(st.integers(0, 51), st.sampled_from(["discard", "knock"]), st.booleans())
def test_every_card_action_round_trips(card: int, verb: str, upper: bool) -> None:
    text = f"{verb} {card_name(card)}"
    action = Action.parse(text.upper() if upper else text)
    assert str(action) == text
    assert action.card == card


def test_state_machine_doctests() -> None:
    import doctest

    import engine.actions
    import engine.hand
    import engine.match

    for module in (engine.actions, engine.hand, engine.match):
        failed, tried = doctest.testmod(module)
        assert tried > 0 and failed == 0, module.__name__
