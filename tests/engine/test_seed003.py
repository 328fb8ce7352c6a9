"""Seed 003's table (``preset("two_deck")``): known answers from the seed's own worked examples
(``../shared/seeds/003_991b131b0098a8a6.txt``), the eleven-card deal without an upcard, the second
deck's knock-limit card and the cut for the first deal, and that rule dicts stored before these fields
existed load (and replay) with the old behaviour.
"""

from __future__ import annotations

import random

import pytest

from engine.cards import parse_card, parse_cards
from engine.deck import seeded_deck
from engine.errors import EngineError, IllegalActionError, InvalidRuleSetError
from engine.events import CutEvent, DealEvent, from_json, log_from_json, log_to_json, redact_for, to_json
from engine.hand import HandState, Phase
from engine.match import MatchState, cut_for_deal, replay
from engine.rules import PRESETS, RuleSet, preset
from engine.scoring import score_knock
from engine.tools.playout import random_playout

TWO_DECK = preset("two_deck")


def deck_for(nondealer: str, dealer: str, stock: str) -> list[int]:
    """A 52-card order dealing ``nondealer`` (11 cards) and ``dealer`` (10) by the eleven deal, then
    ``stock`` on top of the stock (the rest follows in card order)."""
    a, b, s = parse_cards(nondealer), parse_cards(dealer), parse_cards(stock)
    assert len(a) == 11 and len(b) == 10
    deck = [0] * 21
    deck[0:21:2] = a
    deck[1:20:2] = b
    used = set(deck) | set(s)
    return deck + s + [c for c in range(52) if c not in used]


def test_the_two_deck_preset_sets_each_seed_rule() -> None:
    assert (TWO_DECK.deal, TWO_DECK.knock_limit_from_second_deck, TWO_DECK.tie_goes_to) == (
        "eleven", True, "knocker",
    )
    assert (TWO_DECK.undercut_gin_bonus, TWO_DECK.next_dealer, TWO_DECK.first_dealer) == (
        True, "loser", "cut",
    )
    assert not TWO_DECK.knock_limit_from_upcard and not TWO_DECK.spade_doubles


def test_oito_the_seeds_knock_with_the_second_decks_eight() -> None:
    """"5, 6 e 7 de Paus; 9, 9, 9; Ás de Paus, 2 de Ouros, 4 de Copas e dama de Copas": with an 8 turned
    from the second deck, drawing another ace and discarding the queen of hearts leaves 8 ("Oito!")."""
    held = "5c 6c 7c 9d 9h 9s Ac 2d 4h Qh"
    deck = deck_for(held + " Kd", "2c 3c 4c 5d 6d 7d 8c 8s Jc Js", "Ts Ah")
    hand = HandState(TWO_DECK, 1, deck, limit_card=parse_card("8d"))
    assert (hand.phase, hand.current_player, hand.upcard, hand.first_upcard) == (Phase.DISCARD, 0, None, None)
    assert len(hand.hands[0]) == 11 and len(hand.hands[1]) == 10 and hand.stock_size == 31
    assert hand.knock_limit == 8
    hand.apply("discard Kd", 0)  # the non-dealer opens by discarding
    assert hand.phase is Phase.DRAW and hand.current_player == 1
    hand.apply("draw stock", 1)
    hand.apply("discard Ts", 1)
    event = hand.apply("draw stock", 0)
    assert event.card == parse_card("Ah")
    assert "knock Qh" in [str(a) for a in hand.legal_actions()]
    hand.apply("knock Qh", 0)
    assert hand.result is not None and hand.result.knocker_deadwood == 8
    # with a 7 turned the same knock is over the limit
    strict = HandState(TWO_DECK, 1, deck, limit_card=parse_card("7s"))
    for action, seat in (("discard Kd", 0), ("draw stock", 1), ("discard Ts", 1), ("draw stock", 0)):
        strict.apply(action, seat)
    with pytest.raises(IllegalActionError) as over:
        strict.apply("knock Qh", 0)
    assert over.value.code == "knock_over_limit"


@pytest.mark.parametrize(
    ("card", "limit"), [("Kh", 10), ("Qs", 10), ("Jd", 10), ("Tc", 10), ("8d", 8), ("Ac", 1)]
)
def test_the_second_decks_card_sets_the_limit(card: str, limit: int) -> None:
    assert TWO_DECK.hand_knock_limit(None, parse_card(card)) == limit


def test_the_seeds_layoff_example_is_worth_two() -> None:
    """Knocker "4, 5, 6 de Copas; 8, 8, 8; 9, 10, Valete de Espadas e um Rei" (a face card turned: limit
    10); defender "10, 10, 10; 6, 7, 8, 9 de Paus; Dama de Espadas, 5 e 7 de Espadas": the queen of
    spades lays off on the spade run, 5 + 7 = 12 stay, "apenas dois pontos"."""
    result = score_knock(
        parse_cards("4h 5h 6h 8d 8h 8s 9s Ts Js Kd"), parse_cards("Tc Td Th 6c 7c 8c 9c Qs 5s 7s"),
        TWO_DECK, knocker=0, knock_limit=10,
    )
    assert (result.kind, result.winner, result.points) == ("knock", 0, 2)
    assert (result.knocker_deadwood, result.defender_deadwood) == (10, 12)
    assert [x.card for x in result.layoffs] == [parse_card("Qs")]


def test_the_seeds_undercut_example() -> None:
    """Knocker "4, 5, 6 de Copas; 3, 3, 3; 10, Valete e Dama de Ouros e Dama de Paus de lenha" (10);
    defender "9, 9, 9; 7, 8, 9 de Ouros; 3 de Copas, 7 de Copas, Rei de Ouros e 5 de Espadas": the 3 and 7
    of hearts and the king of diamonds lay off, the 5 of spades stays, less than the knocker's queen."""
    result = score_knock(
        parse_cards("4h 5h 6h 3c 3d 3s Td Jd Qd Qc"), parse_cards("9c 9h 9s 7d 8d 9d 3h 7h Kd 5s"),
        TWO_DECK, knocker=0, knock_limit=10,
    )
    assert (result.kind, result.winner) == ("undercut", 1)
    assert (result.knocker_deadwood, result.defender_deadwood) == (10, 5)
    assert sorted(x.card for x in result.layoffs) == sorted(parse_cards("3h 7h Kd"))
    assert (result.bonus, result.points) == (25, 10 - 5 + 25)


KNOCKER = "4h 5h 6h 3c 3d 3s Td Jd Qd"  # + one deadwood card


def test_a_tie_goes_to_the_knocker() -> None:
    """"a rebatida ... ficando com uma lenha menor": equal counts are no undercut here (classic: they are)."""
    knocker, defender = parse_cards(KNOCKER + " 5c"), parse_cards("9c 9h 9s 7d 8d 9d 4c Ac 3h Kd")
    tie = score_knock(knocker, defender, TWO_DECK, knocker=0, knock_limit=10)
    assert (tie.knocker_deadwood, tie.defender_deadwood) == (5, 5)
    assert (tie.kind, tie.winner, tie.points) == ("knock", 0, 0)
    classic = score_knock(knocker, defender, preset("classic"), knocker=0)
    assert (classic.kind, classic.winner, classic.points) == ("undercut", 1, 25)


def test_an_undercut_that_leaves_no_deadwood_counts_as_gin() -> None:
    """"Quando a rebatida for sem lenha ... ela valerá como o Gin": the gin bonus, not the undercut's."""
    rules = TWO_DECK.replace(gin_bonus=30, undercut_bonus=10)
    knocker = parse_cards(KNOCKER + " Qc")
    # 3h, 2h (below it) and 7h extend the heart run, Kd the diamond run: nothing is left
    zero = score_knock(knocker, parse_cards("9c 9h 9s 7d 8d 9d 3h 2h 7h Kd"), rules, knocker=0,
                       knock_limit=10)
    assert (zero.kind, zero.winner, zero.defender_deadwood) == ("undercut", 1, 0)
    assert (zero.bonus, zero.points) == (30, 10 + 30)
    some = score_knock(knocker, parse_cards("9c 9h 9s 7d 8d 9d 3h Ac 7h Kd"), rules, knocker=0,
                       knock_limit=10)
    assert (some.kind, some.defender_deadwood, some.bonus, some.points) == ("undercut", 1, 10, 10 - 1 + 10)
    plain = score_knock(knocker, parse_cards("9c 9h 9s 7d 8d 9d 3h 2h 7h Kd"),
                        rules.replace(undercut_gin_bonus=False), knocker=0, knock_limit=10)
    assert (plain.bonus, plain.points) == (10, 20)


def test_the_eleven_deal_in_a_match_records_the_limit_card_and_replays() -> None:
    match = MatchState(TWO_DECK, first_dealer=1)
    rounds = ((parse_card("7h"), parse_card("7s")), (parse_card("2c"), parse_card("Kd")))
    cut = match.cut(rounds)
    assert cut == CutEvent(rounds, 1)
    deal = match.deal(seeded_deck(5), limit_card=parse_card("9c"))
    assert (deal.no_upcard, deal.limit_card) == (True, parse_card("9c"))
    assert to_json(deal)["no_upcard"] is True and to_json(deal)["limit_card"] == "9c"
    assert from_json(to_json(deal)) == deal and from_json(to_json(cut)) == cut
    assert match.hand is not None and match.hand.knock_limit == 9
    # what each player sees of the deal: own 11 / 10 cards, no upcard, the turned card
    deck = seeded_deck(5)
    seen0, seen1 = redact_for(0, deal), redact_for(1, deal)
    assert seen0["upcard"] is None and len(seen0["hand_cards"]) == 11 and len(seen1["hand_cards"]) == 10
    assert set(parse_cards(" ".join(seen0["hand_cards"]))) == set(deck[0:21:2])
    assert seen0["limit_card"] == "9c" and "deck" not in seen0
    view = match.view(0)
    assert view.first_upcard is None and view.upcard is None and view.knock_limit == 9
    assert view.to_dict()["first_upcard"] is None
    # a whole seeded match replays from its log, cut and limit cards included
    played = random_playout(TWO_DECK, 11)
    assert played.is_over
    log = log_from_json(log_to_json(played.events))
    assert all(isinstance(e, DealEvent) and e.no_upcard and e.limit_card is not None
               for e in log if isinstance(e, DealEvent))
    assert replay(TWO_DECK, played.first_dealer, log) == played


def test_the_cut_is_checked_and_drawn_fairly() -> None:
    match = MatchState(TWO_DECK, first_dealer=0)
    for bad in ([(parse_card("Kc"), parse_card("2d"))][:0], [(parse_card("7h"), parse_card("7s"))],
                [(parse_card("2c"), parse_card("Kd"))], [(parse_card("Kc"), parse_card("Kc"))]):
        with pytest.raises(IllegalActionError) as refused:
            match.cut(bad)
        assert refused.value.code == "bad_cut"
    match.cut([(parse_card("Kc"), parse_card("Qd"))])  # king high
    with pytest.raises(IllegalActionError):
        match.cut([(parse_card("Kc"), parse_card("Qd"))])
    assert MatchState(TWO_DECK, 1).cut([(parse_card("Ac"), parse_card("2d"))]).dealer == 1  # ace low
    with pytest.raises(IllegalActionError):
        MatchState(preset("classic"), 0).cut([(parse_card("Kc"), parse_card("Qd"))])
    rng = random.Random(3)
    dealers = []
    for _ in range(400):
        rounds, dealer = cut_for_deal(rng)
        assert all(a % 13 == b % 13 for a, b in rounds[:-1]) and rounds[-1][0] % 13 != rounds[-1][1] % 13
        assert MatchState(TWO_DECK, dealer).cut(rounds).dealer == dealer
        dealers.append(dealer)
    assert 160 < dealers.count(0) < 240


def test_the_limit_card_must_match_the_rules() -> None:
    with pytest.raises(EngineError) as missing:
        MatchState(TWO_DECK, 0).deal(seeded_deck(1))
    assert missing.value.code == "limit_card"
    with pytest.raises(EngineError):
        MatchState(preset("classic"), 0).deal(seeded_deck(1), limit_card=3)
    with pytest.raises(InvalidRuleSetError):
        RuleSet(deal="eleven", spade_doubles=True)
    with pytest.raises(InvalidRuleSetError):
        RuleSet(knock_limit_from_upcard=True, knock_limit_from_second_deck=True)
    with pytest.raises(InvalidRuleSetError):
        RuleSet.from_dict({"deal": "twelve"})


def test_rule_dicts_stored_before_the_new_fields_load_with_the_old_behaviour() -> None:
    """A match row's rules are ``RuleSet.to_dict()`` of its day: without deal / second-deck / undercut-gin
    fields they must give the old deal (upcard) and scoring, and their logs must replay unchanged."""
    for name, rules in PRESETS.items():
        if name == "two_deck":
            continue
        old = {k: v for k, v in rules.to_dict().items()
               if k not in ("deal", "knock_limit_from_second_deck", "undercut_gin_bonus")}
        loaded = RuleSet.from_dict(old)
        assert loaded == rules and loaded.deal == "upcard" and not loaded.undercut_gin_bonus
        played = random_playout(loaded, 4)
        rows = log_to_json(played.events)
        assert all("no_upcard" not in r and "limit_card" not in r for r in rows)
        assert replay(loaded, played.first_dealer, log_from_json(rows)) == played
