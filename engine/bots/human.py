"""Levels 1 and 2: weaker than the baseline the way people are (issue 4, "The bots").

Their mistakes are the common human ones, each bounded in cost:

- *Holding high cards too long*: discarding a ten or a face card looks worse to them than it is
  (``hold_high`` points), so they often keep a lone king over a lone five.
- *Missing a two-way card*: an upcard that fills a run (or, rarely, a set) is overlooked with
  probability ``miss_run`` / ``miss_set``.
- *Knocking late*: they knock only when the deadwood is at most ``knock_at`` (or the stock is nearly
  gone), and they never play on for gin.
- Among the few best discards (``top``), they pick one at random, weighted towards the best, but never
  one costing more than ``cost_bound`` deadwood points over the best, and never a card of a finished
  meld unless that costs nothing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.bots.common import completes_run, completes_set, discard_action, mask_of, options
from engine.cards import card_value
from engine.melds import best_arrangement_of_mask, deadwood_after_discards_of_mask

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.view import PlayerView


@dataclass(frozen=True, slots=True)
class Habits:
    """A weaker level's habits (points for costs, probabilities in 0..1); see the module docstring."""

    hold_high: float
    cost_bound: int
    top: tuple[float, ...]
    miss_run: float
    miss_set: float
    knock_at: int


HABITS: dict[int, Habits] = {
    1: Habits(hold_high=5.0, cost_bound=8, top=(0.5, 0.3, 0.2), miss_run=0.5, miss_set=0.15, knock_at=5),
    2: Habits(hold_high=3.0, cost_bound=4, top=(0.7, 0.3), miss_run=0.25, miss_set=0.05, knock_at=6),
}


class HumanBot:
    """Level 1 or 2 (see the module docstring). ``rng`` drives every slip and tie break."""

    def __init__(self, level: int, rng: random.Random) -> None:
        if level not in HABITS:
            raise ValueError(f"HumanBot plays levels 1 and 2, got {level!r}")
        self.level = level
        self.habits = HABITS[level]
        self.rng = rng

    def choose(self, view: PlayerView) -> Action:
        """This level's action for ``view`` (one of ``view.legal_actions``).

        :raises ValueError: the view has no legal action.
        """
        opts = options(view.legal_actions)
        hand = mask_of(view.hand)
        habits = self.habits
        if opts.decision != "discard":
            upcard = view.upcard
            if opts.take is not None and upcard is not None:
                if completes_set(hand, upcard) and self.rng.random() >= habits.miss_set:
                    return opts.take
                if completes_run(hand, upcard) and self.rng.random() >= habits.miss_run:
                    return opts.take
            if opts.decline is None:
                assert opts.take is not None
                return opts.take
            return opts.decline
        if opts.big_gin is not None:
            return opts.big_gin
        allowed = sorted((set(opts.discards) | set(opts.knocks)) - {view.taken_card})
        if not allowed:
            allowed = sorted(set(opts.discards) | set(opts.knocks))
        after = deadwood_after_discards_of_mask(hand)
        least = min(after[c] for c in allowed)
        melded = 0
        for meld in best_arrangement_of_mask(hand).melds:
            melded |= meld.mask
        near_gone = view.stock_size <= view.rules.stock_floor + 3
        knockable = [c for c in allowed if c in opts.knocks]
        if knockable:
            best_knock = min(after[c] for c in knockable)
            if best_knock == 0 or best_knock <= habits.knock_at or near_gone:
                card = self.rng.choice([c for c in knockable if after[c] == best_knock])
                return opts.knocks[card]
        candidates = [
            c for c in allowed
            if after[c] - least <= habits.cost_bound and not (melded >> c & 1 and after[c] > least)
        ]

        def felt_cost(card: int) -> float:
            bias = habits.hold_high if card_value(card) == 10 and not melded >> card & 1 else 0.0
            return after[card] + bias + self.rng.random() * 0.01

        ranked = sorted(candidates, key=felt_cost)[: len(habits.top)]
        weights = list(habits.top[: len(ranked)])
        card = self.rng.choices(ranked, weights=weights)[0]
        return discard_action(opts, card, knock=False)
