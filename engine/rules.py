"""Rule sets: every option of rules.md ("Where the sources disagree") as one validated value.

A :class:`RuleSet` is immutable; presets are named rule sets (:data:`PRESETS`), and custom rule sets
are built with :meth:`RuleSet.replace` or :meth:`RuleSet.from_dict`. Points are game points,
deadwood values as in rules.md ("Card values").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from engine.cards import ACE, SPADES, Card, card_suit, card_value
from engine.errors import InvalidRuleSetError

NextDealer = Literal["alternate", "loser", "winner"]
FirstDealer = Literal["random", "computer", "cut"]
TieWinner = Literal["defender", "knocker"]
DealMode = Literal["upcard", "eleven"]


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One complete set of rule options (rules.md, "rule options and presets").

    Fields (all points are game points):

    - ``knock_limit``: most deadwood allowed to knock (10 in every preset but oklahoma).
    - ``knock_limit_from_upcard``: oklahoma; the limit is the first upcard's value, ace = gin only (0).
    - ``gin_bonus``: bonus for gin (25; brazilian 20).
    - ``big_gin_bonus``: bonus for big gin; ``None`` means big gin counts as gin (gets ``gin_bonus``).
    - ``undercut_bonus``: bonus to a defender who undercuts (25; brazilian 10).
    - ``tie_goes_to``: who wins when the counts are equal: ``"defender"`` (an undercut, every preset)
      or ``"knocker"`` (the knocker wins, scoring 0).
    - ``stock_floor``: the hand is dead when a discard leaves the stock at this many cards (2).
    - ``may_discard_taken_card``: whether the card just taken from the discard pile may be discarded
      in the same turn (False in every preset).
    - ``next_dealer``: ``"alternate"``, ``"loser"`` (loser of the hand deals) or ``"winner"``.
    - ``first_dealer``: ``"random"`` or ``"computer"`` (the bot deals first; table preset).
    - ``target``: points that end the match (100; table 50 or 100).
    - ``game_bonus``: added to the match winner at the end (brazilian, hoyle: 100).
    - ``hand_bonus``: added at the end to each player per hand won (brazilian 20, hoyle 25).
    - ``shutout_bonus``: added to the winner if the loser won no hand (brazilian 100).
    - ``shutout_doubles``: the winner's whole total is doubled if the loser won no hand (hoyle).
    - ``spade_doubles``: a first upcard of spades doubles the hand's points (oklahoma).
    - ``discard_draw_limit``: every hand ends: once the discard pile has been drawn from this many
      times in a hand (taking the first upcard counts), the next discard without a knock ends the hand
      dead, whatever the stock holds (50 in every preset, after OpenSpiel's cap of 50 upcard draws;
      ``None`` = no limit, the rule sets stored before this option existed). See :data:`HAND_END_OPTION`.

    Seed 003's table (preset ``two_deck``; each field off by default, so rule dicts stored before
    they existed load with the old behaviour):

    - ``deal``: ``"upcard"`` (10 cards each, the 21st card turned as the first upcard) or ``"eleven"``
      (11 cards to the non-dealer, 10 to the dealer, no upcard: the non-dealer starts by discarding;
      docs/engine.md "Dealing convention").
    - ``knock_limit_from_second_deck``: the knock limit is the value of a card turned from a second
      deck before each hand (a face card 10, an ace 1); the card is a chance outcome recorded in the
      hand's deal event (``DealEvent.limit_card``).
    - ``undercut_gin_bonus``: an undercut that leaves the defender no deadwood earns the gin bonus
      instead of the undercut bonus ("vale como o Gin").
    - ``first_dealer`` ``"cut"``: each player cuts a card, the higher rank (king high, ace low, suits
      equal) deals first, equal ranks cut again; the cuts are recorded (``CutEvent``).
    - "An undercut needs strictly less deadwood" is ``tie_goes_to="knocker"``; "who scored fewer points
      in the previous hand deals" is ``next_dealer="loser"`` (only the hand's winner scores).
    """

    name: str = "classic"
    knock_limit: int = 10
    knock_limit_from_upcard: bool = False
    gin_bonus: int = 25
    big_gin_bonus: int | None = None
    undercut_bonus: int = 25
    tie_goes_to: TieWinner = "defender"
    stock_floor: int = 2
    may_discard_taken_card: bool = False
    next_dealer: NextDealer = "alternate"
    first_dealer: FirstDealer = "random"
    target: int = 100
    game_bonus: int = 0
    hand_bonus: int = 0
    shutout_bonus: int = 0
    shutout_doubles: bool = False
    spade_doubles: bool = False
    deal: DealMode = "upcard"
    knock_limit_from_second_deck: bool = False
    undercut_gin_bonus: bool = False
    discard_draw_limit: int | None = 50

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every option's type and range.

        :raises InvalidRuleSetError: naming the first bad option and its value.
        """
        ints = {
            "knock_limit": (0, 100), "gin_bonus": (0, 1000), "undercut_bonus": (0, 1000),
            "stock_floor": (0, 20), "target": (1, 10000), "game_bonus": (0, 10000),
            "hand_bonus": (0, 1000), "shutout_bonus": (0, 10000),
        }
        for field, (low, high) in ints.items():
            value = getattr(self, field)
            if type(value) is not int or not low <= value <= high:
                raise InvalidRuleSetError(f"{field} must be an integer in {low}..{high}, got {value!r}")
        if self.discard_draw_limit is not None and (
            type(self.discard_draw_limit) is not int or not 1 <= self.discard_draw_limit <= 1000
        ):
            raise InvalidRuleSetError(
                f"discard_draw_limit must be null or an integer in 1..1000, got {self.discard_draw_limit!r}"
            )
        if self.big_gin_bonus is not None and (
            type(self.big_gin_bonus) is not int or not 0 <= self.big_gin_bonus <= 1000
        ):
            raise InvalidRuleSetError(
                f"big_gin_bonus must be null or an integer in 0..1000, got {self.big_gin_bonus!r}"
            )
        bools = (
            "knock_limit_from_upcard", "may_discard_taken_card", "shutout_doubles", "spade_doubles",
            "knock_limit_from_second_deck", "undercut_gin_bonus",
        )
        for field in bools:
            if type(getattr(self, field)) is not bool:
                raise InvalidRuleSetError(f"{field} must be true or false, got {getattr(self, field)!r}")
        choices: dict[str, tuple[str, ...]] = {
            "tie_goes_to": ("defender", "knocker"),
            "next_dealer": ("alternate", "loser", "winner"),
            "first_dealer": ("random", "computer", "cut"),
            "deal": ("upcard", "eleven"),
        }
        for field, allowed in choices.items():
            if getattr(self, field) not in allowed:
                raise InvalidRuleSetError(
                    f"{field} must be one of {', '.join(allowed)}, got {getattr(self, field)!r}"
                )
        if self.deal == "eleven" and (self.knock_limit_from_upcard or self.spade_doubles):
            raise InvalidRuleSetError(
                "knock_limit_from_upcard and spade_doubles need an upcard: not with deal 'eleven'"
            )
        if self.knock_limit_from_upcard and self.knock_limit_from_second_deck:
            raise InvalidRuleSetError(
                "the knock limit comes from the first upcard or from a second deck, not both"
            )
        if not isinstance(self.name, str) or not 0 < len(self.name) <= 40:
            raise InvalidRuleSetError(f"name must be a string of 1..40 characters, got {self.name!r}")

    def hand_knock_limit(self, first_upcard: Card | None, limit_card: Card | None = None) -> int:
        """The knock limit of a hand whose first upcard is ``first_upcard`` (``None``: no upcard) and
        whose second-deck card is ``limit_card``: oklahoma, the upcard's value with an ace allowing gin
        only; ``knock_limit_from_second_deck``, the turned card's value (seed 003: "a carta aberta do
        baralho suplementar", a face card 10, an ace 1); otherwise ``knock_limit``.

        :raises InvalidRuleSetError: the card the rules take the limit from is missing.
        """
        if self.knock_limit_from_second_deck:
            if limit_card is None:
                raise InvalidRuleSetError("these rules take the knock limit from a second deck's card")
            return card_value(limit_card)
        if not self.knock_limit_from_upcard:
            return self.knock_limit
        if first_upcard is None:
            raise InvalidRuleSetError("these rules take the knock limit from the first upcard")
        return 0 if first_upcard % 13 == ACE else card_value(first_upcard)

    def hand_multiplier(self, first_upcard: Card | None) -> int:
        """2 when ``spade_doubles`` and the first upcard is a spade, else 1."""
        if first_upcard is None:
            return 1
        return 2 if self.spade_doubles and card_suit(first_upcard) == SPADES else 1

    @property
    def effective_big_gin_bonus(self) -> int:
        """The bonus big gin actually earns (``gin_bonus`` when big gin counts as gin)."""
        return self.gin_bonus if self.big_gin_bonus is None else self.big_gin_bonus

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with ``changes`` applied (validated).

        :raises InvalidRuleSetError: an unknown option or a bad value.
        """
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise InvalidRuleSetError(f"unknown rule option(s): {', '.join(unknown)}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every option as JSON-ready values; ``RuleSet.from_dict(r.to_dict()) == r``."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """A rule set from ``data``: ``{"preset": name, ...overrides}`` or a full ``to_dict()``.

        A full ``to_dict()`` stored before an option existed gets that option's old behaviour: see
        :data:`HAND_END_OPTION`.

        :raises InvalidRuleSetError: not a dict, an unknown preset or option, or a bad value.
        """
        if not isinstance(data, dict):
            raise InvalidRuleSetError(f"rules must be an object, got {type(data).__name__}")
        data = dict(data)
        if HAND_END_OPTION not in data and "preset" not in data and data.keys() >= _STORED_BEFORE_HAND_END:
            data[HAND_END_OPTION] = None
        base = preset(data.pop("preset", "classic"))
        return base.replace(**data)

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """The named preset; see :func:`preset`."""
        return preset(name)


HAND_END_OPTION = "discard_draw_limit"
"""The option that makes every hand end. A full rule set stored before it existed (a ``to_dict()`` with
``name`` but without this key) is read with ``None``, no limit, so old matches replay to the same
outcome; a new rule set, or ``{"preset": ...}``, gets the preset's limit (50)."""
_STORED_BEFORE_HAND_END = frozenset((
    "name", "knock_limit", "knock_limit_from_upcard", "gin_bonus", "big_gin_bonus", "undercut_bonus",
    "tie_goes_to", "stock_floor", "may_discard_taken_card", "next_dealer", "first_dealer", "target",
    "game_bonus", "hand_bonus", "shutout_bonus", "shutout_doubles", "spade_doubles",
))
"""The keys of every ``to_dict()`` written before :data:`HAND_END_OPTION` existed."""

PRESETS: dict[str, RuleSet] = {
    # rules.md: classic (seed 004), the default.
    "classic": RuleSet(),
    # seed 000: the computer deals first; loser of the hand deals next; target 50 or 100.
    "table": RuleSet(name="table", next_dealer="loser", first_dealer="computer"),
    # seed 002: gin 20, undercut 10; game 100, 20 per hand won, +100 shutout.
    "brazilian": RuleSet(
        name="brazilian", gin_bonus=20, undercut_bonus=10,
        game_bonus=100, hand_bonus=20, shutout_bonus=100,
    ),
    # seed 003 + common practice: knock limit from the first upcard, big gin 31, spades double.
    "oklahoma": RuleSet(
        name="oklahoma", knock_limit_from_upcard=True, big_gin_bonus=31, spade_doubles=True,
    ),
    # common practice (Hoyle): big gin 31, winner deals, game 100, 25 a hand (box), shutout doubles.
    "hoyle": RuleSet(
        name="hoyle", big_gin_bonus=31, next_dealer="winner",
        game_bonus=100, hand_bonus=25, shutout_doubles=True,
    ),
    # seed 003 ("Gin Rummy - O Jogo / Regras", 2009): 11 cards to the non-dealer, no upcard; the knock
    # limit is a card turned from a second deck; a tie goes to the knocker; an undercut leaving no
    # deadwood counts as gin; who scored fewer points (the hand's loser) deals next; the first dealer
    # is cut for (high card). Bonuses are not given there: classic's.
    "two_deck": RuleSet(
        name="two_deck", deal="eleven", knock_limit_from_second_deck=True, tie_goes_to="knocker",
        undercut_gin_bonus=True, next_dealer="loser", first_dealer="cut",
    ),
}
DEFAULT_RULES = PRESETS["classic"]


def preset(name: str) -> RuleSet:
    """The preset named ``name`` (``classic``, ``table``, ``brazilian``, ``oklahoma``, ``hoyle``,
    ``two_deck``).

    :raises InvalidRuleSetError: unknown name (the message lists the presets).
    """
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise InvalidRuleSetError(
            f"unknown rule preset {name!r}; presets: {', '.join(PRESETS)}"
        ) from None
