"""Card tracking and opponent inference from a :class:`~engine.view.PlayerView` (levels 4-5).

Everything is rebuilt from the view each call, from public information only: the discard pile,
the cards the opponent took (``opponent_known``), and the hand's public ``history``, replayed to
learn which upcards the opponent declined (it passed the first upcard, or drew from the stock
while a card lay face up) and which cards it discarded.

Inference (a soft model, not certainty): each *unknown* card (not in our hand, not in the discard
pile, not known to be held by the opponent) gets a weight, proportional to how likely it is to be
in the opponent's concealed hand rather than in the stock. A player keeps cards that meld with what
it picked up and throws or declines cards it has no use for, so:

- cards that could share a meld with a card the opponent *took* are weighted up (``PICK``);
- cards that could share a meld with a card it *declined* or *discarded* are weighted down
  (``DECLINE``, ``DISCARD``).

:func:`sample_opponent_hands` draws concealed hands from these weights (weighted sampling without
replacement) for the Monte Carlo parts of level 5.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.bots.common import mask_of, neighbours
from engine.bots.posterior import observations
from engine.cards import Card, CardMask

if TYPE_CHECKING:
    from engine.view import PlayerView

PICK = 2.5
"""Weight factor for a card that can meld with a card the opponent took from the discard pile."""
DECLINE = 0.6
"""Weight factor for a card that could meld with an upcard the opponent declined."""
DISCARD = 0.7
"""Weight factor for a card that could meld with a card the opponent discarded."""


@dataclass(frozen=True, slots=True)
class Table:
    """What one player knows of the table, rebuilt from a view.

    - ``hand``: own cards (mask); ``dead``: cards out of play for good, the discard pile (mask).
    - ``opp_known``: cards the opponent holds for certain (mask); ``opp_hidden``: how many of its
      cards are concealed.
    - ``unknown``: cards in the opponent's concealed hand or the stock (ascending list).
    - ``opp_picked``, ``opp_declined``, ``opp_discarded``: cards the opponent took from the pile,
      declined as the upcard, and discarded, this hand (in order).
    - ``weights``: for each card of ``unknown``, the relative chance it is in the opponent's hand.
    """

    hand: CardMask
    dead: CardMask
    opp_known: CardMask
    opp_hidden: int
    unknown: list[Card]
    opp_picked: list[Card]
    opp_declined: list[Card]
    opp_discarded: list[Card]
    weights: list[float]

    def p_opponent(self) -> dict[Card, float]:
        """Card -> estimated probability that the opponent holds it: 1 for known cards, and for each
        unknown card its weight scaled so that the concealed cards add up to ``opp_hidden``
        (capped at 1)."""
        out: dict[Card, float] = {}
        m = self.opp_known
        while m:
            low = m & -m
            out[low.bit_length() - 1] = 1.0
            m ^= low
        total = sum(self.weights)
        if total > 0 and self.opp_hidden:
            scale = self.opp_hidden / total
            for card, w in zip(self.unknown, self.weights, strict=True):
                out[card] = min(1.0, w * scale)
        return out


def read_table(view: PlayerView) -> Table:
    """Replay ``view.history`` (public actions only) into a :class:`Table` for ``view.player``."""
    seen = observations(view)  # the opponent's takes, declines and discards, replayed once
    picked = [o.card for o in seen if o.kind == "take"]
    declined = [o.card for o in seen if o.kind == "decline"]
    discarded = [o.card for o in seen if o.kind == "discard"]
    hand = mask_of(view.hand)
    dead = mask_of(view.discard_pile)
    known = mask_of(view.opponent_known)
    unknown = [c for c in range(52) if not (hand | dead | known) >> c & 1]
    weight = dict.fromkeys(unknown, 1.0)
    for cards, factor in ((picked, PICK), (declined, DECLINE), (discarded, DISCARD)):
        for card in cards:
            for n in neighbours(card):
                if n in weight:
                    weight[n] *= factor
    # cards the opponent holds for certain also pull their meld partners up
    for card in view.opponent_known:
        for n in neighbours(card):
            if n in weight:
                weight[n] *= 1.3
    hidden = max(0, view.opponent_hand_size - len(view.opponent_known))
    return Table(
        hand=hand, dead=dead, opp_known=known, opp_hidden=hidden, unknown=unknown,
        opp_picked=picked, opp_declined=declined, opp_discarded=discarded,
        weights=[weight[c] for c in unknown],
    )


def sample_opponent_hands(table: Table, count: int, rng: random.Random) -> list[CardMask]:
    """``count`` possible opponent hands (masks): the known cards plus ``table.opp_hidden`` unknown
    cards drawn without replacement with probability proportional to ``table.weights``.

    Weighted sampling without replacement by exponential keys (Efraimidis-Spirakis): each card gets
    ``u ** (1 / w)`` and the largest keys win.
    """
    k = table.opp_hidden
    cards, weights = table.unknown, table.weights
    if k > len(cards):
        k = len(cards)
    hands: list[CardMask] = []
    rand = rng.random
    exponents = [(1.0 / w, c) for c, w in zip(cards, weights, strict=True)]
    for _ in range(count):
        keyed = sorted([(rand() ** e, c) for e, c in exponents], reverse=True)
        mask = table.opp_known
        for _key, card in keyed[:k]:
            mask |= 1 << card
        hands.append(mask)
    return hands
