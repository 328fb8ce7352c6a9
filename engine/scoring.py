"""Scoring one hand (rules.md "Scoring one hand", and "One hand", points 6-8).

Only one player scores. Knock: the knocker scores the defender's deadwood (after layoffs) minus its
own. Undercut (defender's count equal or lower; a tie goes by ``RuleSet.tie_goes_to``): the defender
scores the difference plus the undercut bonus. Gin (0 deadwood after the discard): gin bonus plus the
defender's whole deadwood, no layoffs. Big gin (all 11 cards melded): big-gin bonus plus the defender's
whole deadwood. Points are then multiplied (oklahoma: a spade first upcard doubles).

The knocker's melds are chosen for the knocker's best result (rules.md point 7): of every arrangement
within the knock limit, the one that scores best after the defender's best layoffs; ties go to the
least knocker deadwood, then to the first arrangement in :func:`engine.melds.all_arrangements` order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.cards import Card, card_name, from_mask, parse_card, to_mask
from engine.errors import DuplicateCardError, EngineError, IllegalActionError, InvalidCardError
from engine.layoffs import DefenderResult, Layoff, defense_of_mask
from engine.melds import (
    Arrangement,
    Meld,
    arrangement_choices,
    arrangement_of,
    best_arrangement_of_mask,
    deadwood_of_mask,
    validate_melds,
)
from engine.rules import RuleSet

HandKind = Literal["knock", "gin", "big_gin", "undercut", "dead"]
HAND_KINDS: tuple[HandKind, ...] = ("knock", "gin", "big_gin", "undercut", "dead")


@dataclass(frozen=True, slots=True)
class HandResult:
    """How one hand ended.

    - ``kind``: ``"knock"``, ``"gin"``, ``"big_gin"``, ``"undercut"`` or ``"dead"`` (nobody scores).
    - ``knocker``, ``winner``: seats (0 or 1), ``None`` for a dead hand.
    - ``points``: what the winner scores, after the multiplier; ``bonus``: the gin / big-gin /
      undercut bonus included (before the multiplier); ``multiplier``: 1 or 2.
    - ``knocker_deadwood``, ``defender_deadwood`` (after layoffs; whole deadwood after gin).
    - ``knocker_melds``, ``knocker_unmatched``, ``defender_melds``, ``defender_unmatched``,
      ``layoffs`` (defender cards laid onto ``knocker_melds[layoff.meld]``).
    """

    kind: HandKind
    knocker: int | None
    winner: int | None
    points: int
    knocker_deadwood: int = 0
    defender_deadwood: int = 0
    knocker_melds: tuple[Meld, ...] = ()
    knocker_unmatched: tuple[Card, ...] = ()
    defender_melds: tuple[Meld, ...] = ()
    defender_unmatched: tuple[Card, ...] = ()
    layoffs: tuple[Layoff, ...] = ()
    bonus: int = 0
    multiplier: int = 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, cards as names: every field, melds as lists of names, layoffs as
        ``{"card": "7s", "meld": 0}``."""
        return {
            "kind": self.kind,
            "knocker": self.knocker,
            "winner": self.winner,
            "points": self.points,
            "bonus": self.bonus,
            "multiplier": self.multiplier,
            "knocker_deadwood": self.knocker_deadwood,
            "defender_deadwood": self.defender_deadwood,
            "knocker_melds": [m.names() for m in self.knocker_melds],
            "knocker_unmatched": [card_name(c) for c in self.knocker_unmatched],
            "defender_melds": [m.names() for m in self.defender_melds],
            "defender_unmatched": [card_name(c) for c in self.defender_unmatched],
            "layoffs": [x.to_dict() for x in self.layoffs],
        }

    @classmethod
    def from_dict(cls, data: Any) -> HandResult:
        """The result written by :meth:`to_dict` (``HandResult.from_dict(r.to_dict()) == r``).

        :raises ValueError: (an ``EngineError``, code ``invalid_result``) not a dict, a key missing,
            a value of the wrong type, an unknown kind, a bad card or a set of cards that is no meld;
            the message names the key.
        """
        if not isinstance(data, dict):
            raise _bad_result(f"a hand result must be an object, got {type(data).__name__}")
        kind = _result_key(data, "kind", str)
        if kind not in HAND_KINDS:
            raise _bad_result(f"unknown hand result kind {kind!r}; kinds: {', '.join(HAND_KINDS)}")
        seats = {key: _result_seat(data, key) for key in ("knocker", "winner")}
        numbers = {
            key: _result_key(data, key, int)
            for key in ("points", "bonus", "multiplier", "knocker_deadwood", "defender_deadwood")
        }
        layoffs = []
        for item in _result_key(data, "layoffs", list):
            if not isinstance(item, dict) or type(item.get("meld")) is not int:
                raise _bad_result(f"a layoff is {{\"card\": name, \"meld\": index}}, got {item!r}")
            layoffs.append(Layoff(_result_card(item.get("card"), "layoffs"), item["meld"]))
        return cls(
            kind=kind,  # checked against HAND_KINDS above
            knocker=seats["knocker"],
            winner=seats["winner"],
            knocker_melds=_result_melds(data, "knocker_melds"),
            knocker_unmatched=_result_cards(data, "knocker_unmatched"),
            defender_melds=_result_melds(data, "defender_melds"),
            defender_unmatched=_result_cards(data, "defender_unmatched"),
            layoffs=tuple(layoffs),
            **numbers,
        )


def _bad_result(message: str) -> EngineError:
    return EngineError(message, code="invalid_result")


def _result_key(data: dict[str, Any], key: str, kind: type) -> Any:
    if key not in data:
        raise _bad_result(f"hand result lacks {key!r}")
    value = data[key]
    if type(value) is not kind:
        raise _bad_result(f"hand result field {key!r} must be {kind.__name__}, got {value!r}")
    return value


def _result_seat(data: dict[str, Any], key: str) -> int | None:
    if key not in data:
        raise _bad_result(f"hand result lacks {key!r}")
    value = data[key]
    if value is not None and (type(value) is not int or value not in (0, 1)):
        raise _bad_result(f"hand result field {key!r} must be 0, 1 or null, got {value!r}")
    return value  # checked just above


def _result_card(token: Any, key: str) -> Card:
    try:
        return parse_card(token)
    except InvalidCardError as exc:
        raise _bad_result(f"hand result field {key!r}: {exc}") from None


def _result_cards(data: dict[str, Any], key: str) -> tuple[Card, ...]:
    return tuple(_result_card(token, key) for token in _result_key(data, key, list))


def _result_melds(data: dict[str, Any], key: str) -> tuple[Meld, ...]:
    melds = []
    for names in _result_key(data, key, list):
        if not isinstance(names, list):
            raise _bad_result(f"hand result field {key!r} holds lists of card names, got {names!r}")
        cards = [_result_card(token, key) for token in names]
        try:
            melds.append(Meld.of(cards))
        except EngineError as exc:
            raise _bad_result(f"hand result field {key!r}: {exc}") from None
    return tuple(melds)


def dead_hand() -> HandResult:
    """The result of a dead hand (rules.md point 8): nobody scores, the same dealer deals again."""
    return HandResult(kind="dead", knocker=None, winner=None, points=0)


def _knock_result(
    arrangement: Arrangement, defense: DefenderResult, rules: RuleSet, knocker: int, multiplier: int
) -> HandResult:
    kd, dd = arrangement.deadwood, defense.deadwood
    if kd < dd or (kd == dd and rules.tie_goes_to == "knocker"):
        kind: HandKind = "knock"
        winner, points, bonus = knocker, dd - kd, 0
    else:
        kind, winner, bonus = "undercut", 1 - knocker, _undercut_bonus(dd, rules)
        points = kd - dd + bonus
    return HandResult(
        kind=kind, knocker=knocker, winner=winner, points=points * multiplier,
        knocker_deadwood=kd, defender_deadwood=dd,
        knocker_melds=arrangement.melds, knocker_unmatched=arrangement.unmatched,
        defender_melds=defense.melds, defender_unmatched=defense.unmatched,
        layoffs=defense.layoffs, bonus=bonus, multiplier=multiplier,
    )


def score_knock(
    knocker_cards: Iterable[Card],
    defender_cards: Iterable[Card],
    rules: RuleSet,
    *,
    knocker: int = 0,
    knock_limit: int | None = None,
    multiplier: int = 1,
    knocker_melds: Sequence[Iterable[Card]] | None = None,
) -> HandResult:
    """Score a knock, gin or big gin.

    :param knocker_cards: the knocker's 10 cards after its discard, or 11 for big gin.
    :param defender_cards: the defender's 10 cards.
    :param rules: bonuses and the tie rule; ``rules.knock_limit`` unless ``knock_limit`` is given
        (oklahoma: pass ``rules.hand_knock_limit(first_upcard)``).
    :param knocker: the knocker's seat (0 or 1); the defender is ``1 - knocker``.
    :param multiplier: points factor (``rules.hand_multiplier(first_upcard)``; 1 or 2).
    :param knocker_melds: the melds the knocker shows; ``None`` chooses them for the knocker's best
        result (module docstring).
    :raises IllegalActionError: ``knock_over_limit`` when the knocker's deadwood (least, or of the
        given melds) exceeds the limit; ``not_big_gin`` for 11 cards not all melded.
    :raises InvalidMeldError: ``knocker_melds`` are not disjoint melds of the knocker's cards.
    :raises InvalidCardError: bad cards; ``hand_size`` for a knocker without 10-11 cards or a defender
        without 10.
    :raises DuplicateCardError: a card repeats, within or across the hands.
    """
    kmask = to_mask(knocker_cards)
    dmask = to_mask(defender_cards)
    if kmask & dmask:
        raise DuplicateCardError(f"card in both hands: {card_name(from_mask(kmask & dmask)[0])!r}")
    if kmask.bit_count() not in (10, 11) or dmask.bit_count() != 10:
        raise EngineError(
            f"the knocker holds 10 or 11 cards and the defender 10, got {kmask.bit_count()} "
            f"and {dmask.bit_count()}", code="hand_size",
        )
    if knocker not in (0, 1):
        raise EngineError(f"knocker must be seat 0 or 1, got {knocker!r}", code="bad_seat")
    limit = rules.knock_limit if knock_limit is None else knock_limit
    kcards = from_mask(kmask)
    if knocker_melds is not None:
        shown: Arrangement | None = validate_melds(kcards, knocker_melds)
    else:
        shown = None
    if kmask.bit_count() == 11:
        best = shown if shown is not None else best_arrangement_of_mask(kmask)
        if best.deadwood != 0:
            raise IllegalActionError("big gin needs all 11 cards melded", code="not_big_gin")
        return _gin_result("big_gin", best, dmask, rules.effective_big_gin_bonus, knocker, multiplier)
    least = shown.deadwood if shown is not None else deadwood_of_mask(kmask)
    if least > limit:
        raise IllegalActionError(f"deadwood {least} is over the knock limit {limit}", code="knock_over_limit")
    if least == 0:
        best = shown if shown is not None else best_arrangement_of_mask(kmask)
        return _gin_result("gin", best, dmask, rules.gin_bonus, knocker, multiplier)
    if shown is not None:
        return _knock_result(shown, _defense(dmask, shown.melds, None), rules, knocker, multiplier)
    # Layoffs only lower the defender's count and the knocker's net result rises with that count,
    # so the count without layoffs bounds each arrangement's result: try the least deadwood first
    # and skip every arrangement whose bound cannot beat the best so far.
    no_layoffs = deadwood_of_mask(dmask)
    choices = sorted(arrangement_choices(kmask, limit), key=lambda choice: choice[0])
    best_key: tuple[int, int] | None = None
    best_choice: tuple[Meld, ...] = ()
    best_defense_found: tuple[int, tuple[Layoff, ...], int] = (0, (), 0)
    for kd, melds in choices:
        if best_key is not None and (_net(kd, no_layoffs, rules), -kd) <= best_key:
            continue
        defense = defense_of_mask(dmask, melds, no_layoffs)
        key = (_net(kd, defense[0], rules), -kd)
        if best_key is None or key > best_key:
            best_key, best_choice, best_defense_found = key, melds, defense
    assert best_key is not None  # the least-deadwood arrangement is within the limit
    melded = 0
    for meld in best_choice:
        melded |= meld.mask
    chosen = arrangement_of(best_choice, kmask & ~melded)
    reply = _defense(dmask, chosen.melds, best_defense_found)
    return _knock_result(chosen, reply, rules, knocker, multiplier)


def _defense(
    dmask: int, melds: tuple[Meld, ...], found: tuple[int, tuple[Layoff, ...], int] | None
) -> DefenderResult:
    """The defender's full reply, from a :func:`defense_of_mask` result when one is at hand."""
    _, layoffs, rest = found if found is not None else defense_of_mask(dmask, melds)
    own = best_arrangement_of_mask(rest)
    return DefenderResult(own.melds, layoffs, own.unmatched, own.deadwood)


def _net(knocker_deadwood: int, defender_deadwood: int, rules: RuleSet) -> int:
    """The knocker's result of a (non-gin) knock: its points, or minus the defender's (no multiplier)."""
    if knocker_deadwood < defender_deadwood or (
        knocker_deadwood == defender_deadwood and rules.tie_goes_to == "knocker"
    ):
        return defender_deadwood - knocker_deadwood
    return -(knocker_deadwood - defender_deadwood + _undercut_bonus(defender_deadwood, rules))


def _undercut_bonus(defender_deadwood: int, rules: RuleSet) -> int:
    """The undercut's bonus: the gin bonus for an undercut leaving no deadwood when
    ``rules.undercut_gin_bonus`` (seed 003: "vale como o Gin"), else ``rules.undercut_bonus``."""
    if rules.undercut_gin_bonus and defender_deadwood == 0:
        return rules.gin_bonus
    return rules.undercut_bonus


def _gin_result(
    kind: HandKind, arrangement: Arrangement, dmask: int, bonus: int, knocker: int, multiplier: int
) -> HandResult:
    defense = best_arrangement_of_mask(dmask)
    return HandResult(
        kind=kind, knocker=knocker, winner=knocker, points=(bonus + defense.deadwood) * multiplier,
        knocker_deadwood=0, defender_deadwood=defense.deadwood,
        knocker_melds=arrangement.melds, knocker_unmatched=arrangement.unmatched,
        defender_melds=defense.melds, defender_unmatched=defense.unmatched,
        bonus=bonus, multiplier=multiplier,
    )
