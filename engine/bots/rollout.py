"""Determinized Monte Carlo for level 5: play the rest of a hand out from sampled hidden cards.

A *world* is one guess at what the bot cannot see, consistent with its view: the opponent's 10 cards
(drawn by :func:`engine.bots.tracker.sample_opponent_hands`, weighted by what its picks, declines and
discards say) and an order for the stock (the other unknown cards, shuffled). Nothing here reads
hidden state: worlds are built from the view's public cards only, by the bot's own seeded generator,
so two deals that differ only in hidden cards give the same worlds and the same decisions.

:func:`rollout` plays one world to the end of the hand with the simple player's policy on both sides
(rules.md "One hand": take the upcard only for a meld, discard the least deadwood, knock at once;
dead hand at the stock floor) and scores it with the engine's own rules
(:func:`engine.knock_points.knock_points`: ``score_knock``'s number, layoffs and undercuts included).
Level 5 compares its candidate discards by their mean rollout value over the same worlds (common
random numbers), so the noise of the worlds largely cancels between candidates.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.bots.common import forms_meld
from engine.cards import Card, CardMask
from engine.knock_points import knock_points
from engine.melds import least_discard_of_mask
from engine.rules import RuleSet

MAX_TURNS = 80
"""Safety stop of a rollout (turns): two players can trade discards without drawing from the stock."""


@dataclass(frozen=True, slots=True)
class World:
    """One determinization: the opponent's concealed-and-known 10 cards (mask) and the stock, top
    first (its length is the view's stock size)."""

    opponent: CardMask
    stock: tuple[Card, ...]


def make_worlds(opponents: Sequence[CardMask], unknown: Sequence[Card], stock_size: int,
                rng: random.Random) -> list[World]:
    """One :class:`World` per sampled opponent hand: the unknown cards it does not hold, shuffled by
    ``rng``, as the stock (``stock_size`` cards; fewer only if the view's counts disagree)."""
    worlds = []
    for opp in opponents:
        rest = [c for c in unknown if not opp >> c & 1]
        rng.shuffle(rest)
        worlds.append(World(opp, tuple(rest[:stock_size])))
    return worlds


@functools.lru_cache(maxsize=1 << 16)
def _simple_turn(hand: CardMask, taken: Card | None) -> tuple[Card, int]:
    """The simple player's discard from an 11-card ``hand``: (card, deadwood left), never ``taken``;
    ties go to the highest card (sheds points first). Cached: the worlds of one decision replay the
    same opponent turns for every candidate discard."""
    return least_discard_of_mask(hand, taken)


def rollout(me: CardMask, world: World, pile_top: Card | None, pile_below: Card | None, rules: RuleSet,
            knock_limit: int, multiplier: int, opponent_moves: bool = True) -> int:
    """Hand points from my side (positive: I score; negative: the opponent scores; 0: dead hand) of
    playing ``world`` out from: my 10 cards ``me``, the discard pile's top two cards, the opponent to
    move (or me, when ``opponent_moves`` is false), both sides playing the simple player's policy."""
    hands = [me, world.opponent]
    stock = world.stock
    pos = 0
    floor = rules.stock_floor
    pile = [c for c in (pile_below, pile_top) if c is not None]
    turn = 1 if opponent_moves else 0
    for _ in range(MAX_TURNS):
        hand = hands[turn]
        top = pile[-1] if pile else None
        if top is not None and forms_meld(hand, top):
            pile.pop()
            taken: Card | None = top
            hand |= 1 << top
        else:
            if len(stock) - pos <= floor:
                return 0  # cannot happen in a legal position; treat as dead
            hand |= 1 << stock[pos]
            pos += 1
            taken = None
        card, dw = _simple_turn(hand, taken)
        hand ^= 1 << card
        hands[turn] = hand
        if dw <= knock_limit:
            points = knock_points(hand, hands[1 - turn], rules, knock_limit, multiplier)
            return points if turn == 0 else -points
        if len(stock) - pos <= floor:
            return 0  # dead hand (rules.md point 8)
        pile.append(card)
        turn ^= 1
    return 0  # both sides keep trading pile cards: call it a dead hand


def discard_values(hand11: CardMask, candidates: Sequence[Card], worlds: Sequence[World],
                   below: Card | None, rules: RuleSet, knock_limit: int, multiplier: int,
                   prune_after: int = 0, prune: float = 0.0) -> dict[Card, float]:
    """Mean :func:`rollout` value (points, my side) of discarding each of ``candidates`` from my
    11-card ``hand11`` onto ``below`` (the pile's top card), over the same ``worlds`` (common random
    numbers: the worlds' noise largely cancels between candidates).

    Successive halving when ``prune_after`` > 0: after the first ``prune_after`` worlds, candidates
    whose mean trails the leader's by more than ``prune`` points are dropped and only the others
    play the remaining worlds. The result holds the surviving candidates only (never empty when
    ``candidates`` is not); each mean is over every world.
    """
    def play(cards: Sequence[Card], part: Sequence[World]) -> None:
        for card in cards:
            mine = hand11 ^ (1 << card)
            totals[card] += sum(rollout(mine, w, card, below, rules, knock_limit, multiplier) for w in part)

    totals = dict.fromkeys(candidates, 0)
    head = prune_after if 0 < prune_after < len(worlds) else len(worlds)
    play(candidates, worlds[:head])
    alive = list(candidates)
    if head < len(worlds) and alive:
        lead = max(totals.values())
        alive = [c for c in alive if totals[c] >= lead - prune * head]
        play(alive, worlds[head:])
    n = max(1, len(worlds))
    return {c: totals[c] / n for c in alive}
