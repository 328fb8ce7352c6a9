"""Layoffs: the defender's least deadwood after a knock (rules.md "One hand", point 7).

The defender lays unmatched cards onto the knocker's melds: the 4th card of a 3-card set, or cards
extending a run at either end, chained (a card may extend an extension). The defender chooses its own
melds and its layoffs together, so a card may leave the defender's own meld to be laid off, and a card
able to lay off may stay in the defender's own meld.

Search: per knocker meld we list every layoff choice (a 3-set: the 4th card or not; a run: the first
``i`` held cards below it and the first ``j`` above it, for every ``i``, ``j``), take every combination
whose cards are disjoint (two runs of one suit, or a run and a set, may compete for a card), and
score the defender's remaining cards with the exact least-deadwood search.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import Card, CardMask, card_name, to_mask
from engine.errors import InvalidMeldError
from engine.melds import Meld, best_arrangement_of_mask, deadwood_of_mask


@dataclass(frozen=True, slots=True)
class Layoff:
    """One card the defender lays off: ``card`` onto ``meld``, an index into the knocker's melds."""

    card: Card
    meld: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"card": "7s", "meld": 0}``."""
        return {"card": card_name(self.card), "meld": self.meld}


@dataclass(frozen=True, slots=True)
class DefenderResult:
    """The defender's best reply to a knock.

    ``melds``: the defender's own melds; ``layoffs``: cards laid off, grouped by knocker meld, each
    chain in the order it is laid (outward from the meld); ``unmatched``: cards left (ascending);
    ``deadwood``: their total value (points).
    """

    melds: tuple[Meld, ...]
    layoffs: tuple[Layoff, ...]
    unmatched: tuple[Card, ...]
    deadwood: int


_Option = tuple[CardMask, tuple[Layoff, ...]]


def layoff_options(defender_mask: CardMask, meld: Meld, index: int) -> list[_Option]:
    """Every layoff choice the defender holding ``defender_mask`` has on one knocker meld.

    Each option is (mask of the cards laid off, the layoffs in chain order); the first is "none".
    """
    options: list[_Option] = [(0, ())]
    cards = meld.cards
    if meld.kind == "set":
        if len(cards) == 3:
            rank = cards[0] % 13
            for suit in range(4):
                c = 13 * suit + rank
                if c not in cards and defender_mask >> c & 1:
                    options.append((1 << c, (Layoff(c, index),)))
        return options
    suit_base = cards[0] - cards[0] % 13
    below: list[Card] = []
    c = cards[0] - 1
    while c >= suit_base and defender_mask >> c & 1:
        below.append(c)
        c -= 1
    above: list[Card] = []
    c = cards[-1] + 1
    while c < suit_base + 13 and defender_mask >> c & 1:
        above.append(c)
        c += 1
    for i in range(len(below) + 1):
        for j in range(len(above) + 1):
            if i == j == 0:
                continue
            laid = below[:i] + above[:j]
            options.append((to_mask(laid), tuple(Layoff(x, index) for x in laid)))
    return options


def best_defense(defender_cards: Iterable[Card], knocker_melds: Sequence[Meld]) -> DefenderResult:
    """The defender's least possible deadwood after a knock, with its melds and layoffs.

    :param defender_cards: the defender's cards (normally 10), distinct.
    :param knocker_melds: the melds the knocker shows (``Meld`` values, disjoint from the defender's
        cards). The knocker's own deadwood cards take no layoffs.
    :raises InvalidCardError: a value is not a card.
    :raises DuplicateCardError: a card repeats.
    :raises InvalidMeldError: a knocker meld shares a card with the defender or another meld.
    """
    mask = to_mask(defender_cards)
    shown = 0
    for meld in knocker_melds:
        m = meld.mask
        if m & (mask | shown):
            raise InvalidMeldError(f"knocker meld {meld} shares a card with the defender or another meld")
        shown |= m
    _, best_laid, best_rest = defense_of_mask(mask, knocker_melds)
    arrangement = best_arrangement_of_mask(best_rest)
    return DefenderResult(arrangement.melds, best_laid, arrangement.unmatched, arrangement.deadwood)


def defense_of_mask(
    mask: CardMask, knocker_melds: Sequence[Meld], no_layoff_deadwood: int | None = None
) -> tuple[int, tuple[Layoff, ...], CardMask]:
    """:func:`best_defense` of the defender's cards ``mask`` (no validation): (least deadwood, the
    layoffs, the cards left to the defender's own arrangement). ``no_layoff_deadwood`` may pass the
    defender's least deadwood without layoffs when the caller already has it."""
    per_meld = [layoff_options(mask, meld, i) for i, meld in enumerate(knocker_melds)]
    per_meld = [opts for opts in per_meld if len(opts) > 1]
    best_dw = deadwood_of_mask(mask) if no_layoff_deadwood is None else no_layoff_deadwood
    best_laid: tuple[Layoff, ...] = ()
    best_rest = mask
    if not per_meld:
        return best_dw, best_laid, best_rest
    for combo in itertools.product(*per_meld):
        laid = 0
        clash = False
        for m, _ in combo:
            if laid & m:
                clash = True
                break
            laid |= m
        if clash or not laid:
            continue
        rest = mask & ~laid
        dw = deadwood_of_mask(rest)
        if dw < best_dw:
            best_dw = dw
            best_laid = tuple(x for _, layoffs in combo for x in layoffs)
            best_rest = rest
    return best_dw, best_laid, best_rest
