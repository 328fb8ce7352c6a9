"""HandState: dealing, the phase machine, legality and its error codes, knocks and dead hands
(rules.md "One hand", "Scoring one hand"; docs/engine.md "Dealing convention", "Actions", "Phases")."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action, ActionKind
from engine.cards import ALL_CARDS, parse_card, parse_cards
from engine.deck import seeded_deck
from engine.errors import IllegalActionError, InvalidCardError
from engine.hand import HandState, Phase
from engine.rules import RuleSet, preset
from engine.scoring import score_knock
from tests.engine.dealing import make_deck

CLASSIC = preset("classic")
ALL_ACTIONS = [
    Action.take(), Action.pass_(), Action.draw_stock(), Action.draw_discard(), Action.big_gin(),
    *(Action.discard(c) for c in ALL_CARDS), *(Action.knock(c) for c in ALL_CARDS),
]

# A gin-ready 10 cards and a meld-free 98-point hand (reused across tests).
GIN_READY = "Ac 2c 3c 4c 5d 6d 7d 8c 8h 8s"
JUNK_98 = "Tc Td Jh Js Qc Qd Kh Ks 9h 9s"
JUNK_90 = "Tc Td Qh Qs Kd Ks 9h 9c 6d 6h"
KNOCK_10 = "Js Jh Jd 8c 7s 7h 7d 4s 3d 2s"


def strs(actions: list[Action]) -> list[str]:
    return [str(a) for a in actions]


def cards(text: str) -> tuple[int, ...]:
    return tuple(sorted(parse_cards(text)))


def play(state: HandState, *texts: str) -> None:
    for text in texts:
        state.apply(text)


def assert_52_distinct(state: HandState) -> None:
    everything = [*state.hands[0], *state.hands[1], *state.discard_pile, *state.stock]
    assert sorted(everything) == list(ALL_CARDS)


# ----------------------------------------------------------------------------- dealing


@pytest.mark.parametrize("dealer", [0, 1])
def test_deal_follows_the_fixed_convention(dealer: int) -> None:
    deck = seeded_deck(11)
    h = HandState(CLASSIC, dealer, deck)
    assert h.hands[1 - dealer] == tuple(sorted(deck[0:20:2]))
    assert h.hands[dealer] == tuple(sorted(deck[1:20:2]))
    assert h.first_upcard == h.upcard == deck[20]
    assert h.discard_pile == (deck[20],)
    assert h.stock == tuple(deck[21:])
    assert h.stock_size == 31
    assert h.phase is Phase.OFFER_NONDEALER
    assert h.current_player == 1 - dealer
    assert h.result is None and h.taken_card is None
    assert_52_distinct(h)


def test_bad_deck_and_dealer_are_rejected() -> None:
    deck = seeded_deck(1)
    with pytest.raises(InvalidCardError):
        HandState(CLASSIC, 0, deck[:51])
    with pytest.raises(InvalidCardError):
        HandState(CLASSIC, 0, [*deck[:51], deck[0]])
    with pytest.raises(ValueError, match="dealer") as info:
        HandState(CLASSIC, 2, deck)
    assert getattr(info.value, "code", None) == "invalid_dealer"


# ----------------------------------------------------------------------------- the upcard offer


def test_nondealer_takes_upcard_then_must_discard_another_card() -> None:
    h = HandState(CLASSIC, 0, make_deck(GIN_READY, JUNK_98, "7h"))
    assert strs(h.legal_actions()) == ["take", "pass"]
    assert h.legal_actions(0) == []
    event = h.apply("take", 1)
    assert (event.seat, str(event.action), event.card) == (1, "take", parse_card("7h"))
    assert h.phase is Phase.DISCARD and h.current_player == 1
    assert h.taken_card == parse_card("7h") and h.upcard is None and h.discard_pile == ()
    assert h.known == ((), cards("7h"))
    legal = strs(h.legal_actions())
    assert "discard 7h" not in legal and "knock 7h" not in legal
    order = ("Ac", "2c", "3c", "4c", "8c", "5d", "6d", "7d", "8h", "8s")
    assert legal[:10] == ["discard " + c for c in order]
    h.apply("discard 8c")
    assert h.phase is Phase.DRAW and h.current_player == 0 and h.upcard == parse_card("8c")
    assert h.taken_card is None
    assert strs(h.legal_actions()) == ["draw stock", "draw discard"]
    assert_52_distinct(h)


def test_dealer_may_take_after_nondealer_passes() -> None:
    h = HandState(CLASSIC, 1, make_deck(GIN_READY, JUNK_98, "7h"))
    h.apply("pass", 0)
    assert h.phase is Phase.OFFER_DEALER and h.current_player == 1
    assert strs(h.legal_actions()) == ["take", "pass"]
    h.apply("take", 1)
    assert h.phase is Phase.DISCARD and h.current_player == 1
    h.apply("discard Ks", 1)
    assert h.phase is Phase.DRAW and h.current_player == 0
    assert strs(h.legal_actions()) == ["draw stock", "draw discard"]


def test_both_pass_then_nondealer_draws_from_stock_only() -> None:
    h = HandState(CLASSIC, 0, make_deck(GIN_READY, JUNK_98, "7h", "2d 3d"))
    play(h, "pass", "pass")
    assert h.phase is Phase.DRAW and h.current_player == 1 and h.stock_only
    assert strs(h.legal_actions()) == ["draw stock"]
    with pytest.raises(IllegalActionError) as info:
        h.apply("draw discard")
    assert info.value.code == "stock_only"
    event = h.apply("draw stock")
    assert event.card == parse_card("2d") and not h.stock_only
    h.apply("discard 2d")
    # the dealer's draw may come from the discard pile (2d on top of 7h)
    assert strs(h.legal_actions()) == ["draw stock", "draw discard"]
    h.apply("draw discard")
    assert h.taken_card == parse_card("2d") and h.known == (cards("2d"), ())
    h.apply("discard Ks")
    assert h.known == (cards("2d"), ())
    assert h.discard_pile == cards("7h") + cards("Ks")


def test_taken_card_may_be_discarded_when_the_rule_allows() -> None:
    rules = CLASSIC.replace(may_discard_taken_card=True)
    h = HandState(rules, 0, make_deck(GIN_READY, JUNK_98, "7h"))
    h.apply("take")
    assert "discard 7h" in strs(h.legal_actions())
    h.apply("discard 7h")
    assert h.discard_pile == cards("7h") and h.known == ((), ())


# ----------------------------------------------------------------------------- knocking


def test_only_the_discard_that_gets_under_the_limit_allows_a_knock() -> None:
    # issue 2: with Js Jh Jd 8c 7s 7h 7d 4s 3d 2s Ac only 8c allows a knock (leaves 10)
    h = HandState(CLASSIC, 0, make_deck(KNOCK_10, JUNK_90, "Kc", "Ac"))
    play(h, "pass", "pass", "draw stock")
    legal = strs(h.legal_actions())
    assert [a for a in legal if a.startswith("knock")] == ["knock 8c"]
    assert len([a for a in legal if a.startswith("discard")]) == 11
    with pytest.raises(IllegalActionError) as info:
        h.apply("knock 4s")
    assert info.value.code == "knock_over_limit"
    h.apply("knock 8c")
    result = h.result
    assert result is not None and h.phase is Phase.ENDED and h.current_player is None
    assert result.kind == "knock" and result.knocker == 1 and result.winner == 1
    assert result.knocker_deadwood == 10 and result.defender_deadwood == 90 and result.points == 80
    assert h.discard_pile[-1] == parse_card("8c")
    assert h.legal_actions() == []
    assert_52_distinct(h)


def test_worked_example_2_knock_scores_2() -> None:
    # rules.md worked example 2: Qs lays off on 9s-Ts-Js; defender keeps 5s 7s = 12; knocker scores 2
    h = HandState(CLASSIC, 0, make_deck("4h 5h 6h 8d 8h 8s 9s Ts Js Kc", "Tc Td Th 6c 7c 8c 9c Qs 5s 7s",
                                        "2d", "3c"))
    play(h, "pass", "pass", "draw stock", "knock 3c")
    r = h.result
    assert r is not None
    assert (r.kind, r.winner, r.points, r.knocker_deadwood, r.defender_deadwood) == ("knock", 1, 2, 10, 12)
    expected = score_knock(h.hands[1], h.hands[0], CLASSIC, knocker=1, knock_limit=10)
    assert r == expected


def test_worked_example_3_undercut_scores_30_for_the_dealer() -> None:
    h = HandState(CLASSIC, 0, make_deck("4h 5h 6h 3c 3d 3s Td Jd Qd Qc", "9c 9h 9s 7d 8d 9d 3h 7h Kd 5s",
                                        "2c", "Ks"))
    play(h, "pass", "pass", "draw stock", "knock Ks")
    r = h.result
    assert r is not None
    assert (r.kind, r.knocker, r.winner, r.points, r.defender_deadwood) == ("undercut", 1, 0, 30, 5)


def test_gin_scores_bonus_plus_whole_deadwood() -> None:
    h = HandState(CLASSIC, 0, make_deck(GIN_READY, JUNK_98, "7h", "2h"))
    play(h, "pass", "pass", "draw stock")
    assert strs(h.legal_actions())[-1] == "knock 2h"
    h.apply("knock 2h")
    r = h.result
    assert r is not None and (r.kind, r.winner, r.points) == ("gin", 1, 25 + 98)


BIG_GIN_KNOCKER = "2h 3h 4h 5h 7c 7d 7s Jc Jd Jh"
DEFENDER_23 = "Qc Qd Qs Ad As 2c 2s 3d 4c Kc"


@pytest.mark.parametrize(("name", "points", "kind_bonus"), [("classic", 48, 25), ("hoyle", 54, 31)])
def test_big_gin_knocks_without_discarding(name: str, points: int, kind_bonus: int) -> None:
    # issue 2: big gin against a defender with 23: 54 with a big-gin bonus of 31, 48 as gin
    h = HandState(preset(name), 0, make_deck(BIG_GIN_KNOCKER, DEFENDER_23, "9d", "Js"))
    play(h, "pass", "pass", "draw stock")
    legal = strs(h.legal_actions())
    assert legal[-1] == "knock"
    event = h.apply("knock")
    assert event.action.kind is ActionKind.BIG_GIN and event.card is None
    r = h.result
    assert r is not None
    assert (r.kind, r.winner, r.defender_deadwood) == ("big_gin", 1, 23)
    assert (r.bonus, r.points) == (kind_bonus, points)
    assert len(h.hands[1]) == 11 and h.discard_pile == cards("9d")
    assert_52_distinct(h)


def test_big_gin_needs_all_eleven_melded() -> None:
    h = HandState(CLASSIC, 0, make_deck(BIG_GIN_KNOCKER, DEFENDER_23, "9d", "Ks"))
    play(h, "pass", "pass", "draw stock")
    assert "knock" not in strs(h.legal_actions())
    assert "knock Ks" in strs(h.legal_actions())  # plain gin is there
    with pytest.raises(IllegalActionError) as info:
        h.apply("knock")
    assert info.value.code == "not_big_gin"


# ----------------------------------------------------------------------------- oklahoma


@pytest.mark.parametrize(("upcard", "limit"), [("5h", 5), ("Kd", 10), ("9c", 9), ("Ad", 0), ("2d", 2)])
def test_oklahoma_knock_limit_is_the_first_upcard_value(upcard: str, limit: int) -> None:
    h = HandState(preset("oklahoma"), 0, make_deck(GIN_READY, JUNK_98, upcard))
    assert h.knock_limit == limit
    assert HandState(CLASSIC, 0, make_deck(GIN_READY, JUNK_98, upcard)).knock_limit == 10


def test_oklahoma_ace_upcard_allows_gin_only() -> None:
    okla = preset("oklahoma")
    # 2h 3h 4h 5c 6c 7c 9s 9d 9h with As: deadwood 1 after discarding the drawn Kd
    one = "2h 3h 4h 5c 6c 7c 9s 9d 9h As"
    h = HandState(okla, 0, make_deck(one, "Tc Td Jh Js Qc Qd Kh Ks 8d 8s", "Ac", "Kd"))
    play(h, "pass", "pass", "draw stock")
    assert [a for a in strs(h.legal_actions()) if a.startswith("knock")] == []
    with pytest.raises(IllegalActionError) as info:
        h.apply("knock Kd")
    assert info.value.code == "knock_over_limit"
    classic = HandState(CLASSIC, 0, make_deck(one, "Tc Td Jh Js Qc Qd Kh Ks 8d 8s", "Ac", "Kd"))
    play(classic, "pass", "pass", "draw stock")
    assert "knock Kd" in strs(classic.legal_actions())
    # drawing Ah instead makes A-2-3-4h: discarding As is gin, legal even at limit 0
    g = HandState(okla, 0, make_deck(one, "Tc Td Jh Js Qc Qd Kh Ks 8d 8s", "Ac", "Ah"))
    play(g, "pass", "pass", "draw stock")
    assert [a for a in strs(g.legal_actions()) if a.startswith("knock")] == ["knock As"]
    g.apply("knock As")
    assert g.result is not None and g.result.kind == "gin"


@pytest.mark.parametrize(("upcard", "multiplier"), [("Ks", 2), ("Kh", 1)])
def test_oklahoma_spade_upcard_doubles_the_hand(upcard: str, multiplier: int) -> None:
    h = HandState(preset("oklahoma"), 0, make_deck(GIN_READY, JUNK_98.replace(upcard, "7h"), upcard, "2h"))
    assert h.multiplier == multiplier
    play(h, "pass", "pass", "draw stock", "knock 2h")
    r = h.result
    assert r is not None and r.kind == "gin"
    assert r.points == (25 + r.defender_deadwood) * multiplier
    assert r.defender_deadwood == 98 - 10 + 7


# ----------------------------------------------------------------------------- dead hand


def draw_and_discard_until_over(h: HandState) -> int:
    draws = 0
    while not h.is_over:
        if h.phase in (Phase.OFFER_NONDEALER, Phase.OFFER_DEALER):
            h.apply("pass")
            continue
        card = h.apply("draw stock").card
        draws += 1
        assert card is not None
        h.apply(Action.discard(card))
    return draws


@pytest.mark.parametrize(("floor", "draws", "last_seat"), [(2, 29, 1), (3, 28, 0), (0, 31, 1)])
def test_dead_hand_when_a_discard_leaves_the_stock_at_its_floor(
    floor: int, draws: int, last_seat: int
) -> None:
    rules = CLASSIC.replace(stock_floor=floor)
    h = HandState(rules, 0, seeded_deck(5))
    assert draw_and_discard_until_over(h) == draws
    r = h.result
    assert r is not None and (r.kind, r.winner, r.points, r.knocker) == ("dead", None, 0, None)
    assert h.stock_size == floor and h.history[-1].seat == last_seat
    with pytest.raises(IllegalActionError) as info:
        h.apply("draw stock")
    assert info.value.code == "hand_over"
    assert_52_distinct(h)


def test_player_may_still_knock_after_drawing_down_to_the_floor() -> None:
    h = HandState(CLASSIC, 0, make_deck(GIN_READY, JUNK_98, "7h"))
    play(h, "pass", "pass")
    while h.stock_size > 3:
        card = h.apply("draw stock").card
        assert card is not None
        h.apply(Action.discard(card))
    assert h.current_player == 1 and not h.is_over
    drawn = h.apply("draw stock").card
    assert h.stock_size == 2 and drawn is not None
    assert str(Action.knock(drawn)) in strs(h.legal_actions())
    h.apply(Action.knock(drawn))
    assert h.result is not None and h.result.kind == "gin"


# ----------------------------------------------------------------------------- illegal actions


def scenario(steps: tuple[str, ...], rules: RuleSet = CLASSIC) -> HandState:
    h = HandState(rules, 0, make_deck(KNOCK_10, JUNK_90, "Kc", "Ac 5c"))
    play(h, *steps)
    return h


ILLEGAL = [
    ((), "pass", 0, "out_of_turn"),
    ((), "draw stock", None, "wrong_phase"),
    ((), "discard Js", None, "wrong_phase"),
    ((), "knock", None, "wrong_phase"),
    (("pass",), "draw discard", None, "wrong_phase"),
    (("pass", "pass"), "take", None, "wrong_phase"),
    (("pass", "pass"), "pass", None, "wrong_phase"),
    (("pass", "pass"), "discard Js", None, "wrong_phase"),
    (("pass", "pass"), "knock 8c", None, "wrong_phase"),
    (("pass", "pass"), "draw discard", None, "stock_only"),
    (("pass", "pass"), "draw stock", 0, "out_of_turn"),
    (("pass", "pass", "draw stock"), "draw stock", None, "wrong_phase"),
    (("pass", "pass", "draw stock"), "take", None, "wrong_phase"),
    (("pass", "pass", "draw stock"), "discard Kh", None, "card_not_held"),
    (("pass", "pass", "draw stock"), "knock Qd", None, "card_not_held"),
    (("pass", "pass", "draw stock"), "knock 4s", None, "knock_over_limit"),
    (("pass", "pass", "draw stock"), "knock", None, "not_big_gin"),
    (("pass", "pass", "draw stock"), "discard Js", 0, "out_of_turn"),
    (("take",), "discard Kc", None, "taken_card"),
    (("take",), "knock Kc", None, "taken_card"),
    (("pass", "pass", "draw stock", "knock 8c"), "draw stock", None, "hand_over"),
    (("pass", "pass", "draw stock", "knock 8c"), "pass", 1, "hand_over"),
    (("pass",), "hello", None, "malformed_action"),
]


@pytest.mark.parametrize(("steps", "text", "player", "code"), ILLEGAL)
def test_illegal_action_raises_its_code_and_changes_nothing(
    steps: tuple[str, ...], text: str, player: int | None, code: str
) -> None:
    h = scenario(steps)
    before = h.clone()
    legal_before = h.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        h.apply(text, player)
    assert info.value.code == code
    assert h == before
    assert h.legal_actions() == legal_before
    # the state still plays on normally
    if not h.is_over:
        h.apply(legal_before[0])


def test_clone_is_independent() -> None:
    h = scenario(("pass",))
    copy = h.clone()
    assert copy == h
    play(copy, "take", "discard Ks")
    assert copy != h
    assert h.phase is Phase.OFFER_DEALER and h.hands[0] == scenario(("pass",)).hands[0]


# ----------------------------------------------------------------------------- properties


def legal_by_trial(h: HandState) -> list[Action]:
    legal = []
    for action in ALL_ACTIONS:
        try:
            h.check(action)
        except IllegalActionError:
            continue
        legal.append(action)
    return sorted(legal)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), name=st.sampled_from(sorted(["classic", "oklahoma", "hoyle"])),
       taken_ok=st.booleans())
def test_legal_actions_are_exactly_the_actions_apply_accepts(seed: int, name: str, taken_ok: bool) -> None:
    rules = preset(name).replace(may_discard_taken_card=taken_ok)
    rng = random.Random(seed)
    h = HandState(rules, rng.randrange(2), seeded_deck(seed))
    while not h.is_over:
        legal = h.legal_actions()
        assert legal == sorted(legal) and len(set(legal)) == len(legal)
        assert legal == legal_by_trial(h)
        illegal = [a for a in ALL_ACTIONS if a not in legal]
        before = h.clone()
        for action in rng.sample(illegal, 3):
            with pytest.raises(IllegalActionError):
                h.apply(action)
        assert h == before
        # prefer knocks now and then so hands end in every way
        knocks = [a for a in legal if a.kind in (ActionKind.KNOCK, ActionKind.BIG_GIN)]
        h.apply(rng.choice(knocks) if knocks and rng.random() < 0.5 else rng.choice(legal))
        assert_52_distinct(h)
        assert len(h.hands[0]) + len(h.hands[1]) in (20, 21)
    assert h.legal_actions() == [] and legal_by_trial(h) == []


def test_deadwood_after_discards_of_the_player_to_act() -> None:
    from engine.melds import deadwood_after_discards

    h = HandState(CLASSIC, 0, make_deck(KNOCK_10, JUNK_90, "Kc", "Ac"))
    with pytest.raises(IllegalActionError) as info:
        h.deadwood_after_discards()
    assert info.value.code == "wrong_phase"
    play(h, "pass", "pass", "draw stock")
    table = h.deadwood_after_discards()
    assert table == deadwood_after_discards(h.hands[1])
    assert table[parse_card("8c")] == 10 and table[parse_card("4s")] == 14
    assert h.deadwood_after_discards() is table  # cached
