"""Hand evaluation for the stronger bots: deadwood now and expected deadwood after the next draw.

A 10-card hand is worth keeping when it has little deadwood *and* many unknown cards would improve
it. :func:`lookahead` computes, over the cards the player may draw next, the least deadwood reached
by drawing the card and discarding the best card (a one-ply expectation), the chance that this
reaches the knock limit, and the chance of gin. Cards that meet nothing in the hand cannot make a
meld, so their result has a closed form and only the others need a meld search: that keeps level 5
within its time budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.bots.common import neighbours
from engine.cards import Card, CardMask, card_value
from engine.melds import deadwood_of_mask, least_discard_of_mask

NEIGHBOUR_MASK: tuple[CardMask, ...] = tuple(
    sum(1 << n for n in neighbours(c)) for c in range(52)
)
"""Card -> mask of the cards that can share a meld with it."""


@dataclass(frozen=True, slots=True)
class Outlook:
    """A 10-card hand's outlook (points; probabilities in 0..1).

    - ``deadwood``: least deadwood now.
    - ``expected``: expected least deadwood after drawing one card of the pool and discarding best.
    - ``p_knock``: chance that this draw reaches the knock limit; ``p_gin``: chance it reaches 0.
    """

    deadwood: int
    expected: float
    p_knock: float
    p_gin: float


def lookahead(
    hand: CardMask, pool: Sequence[Card], weights: Sequence[float] | None, knock_limit: int
) -> Outlook:
    """The :class:`Outlook` of the 10-card ``hand`` when the next card comes from ``pool``, each card
    with relative chance ``weights`` (uniform when ``None``); pool cards already in ``hand`` are
    skipped."""
    dw_now = deadwood_of_mask(hand)
    if not pool:
        return Outlook(dw_now, float(dw_now), float(dw_now <= knock_limit), float(dw_now == 0))
    nine = least_discard_of_mask(hand)[1]
    total = expected = p_knock = p_gin = 0.0
    for i, card in enumerate(pool):
        if hand >> card & 1:
            continue  # already held (a caller reusing a pool after a draw)
        w = 1.0 if weights is None else weights[i]
        if NEIGHBOUR_MASK[card] & hand:
            best = least_discard_of_mask(hand | 1 << card)[1]
        else:
            best = min(dw_now, card_value(card) + nine)
        total += w
        expected += w * best
        if best <= knock_limit:
            p_knock += w
            if best == 0:
                p_gin += w
    if total == 0:
        return Outlook(dw_now, float(dw_now), float(dw_now <= knock_limit), float(dw_now == 0))
    return Outlook(dw_now, expected / total, p_knock / total, p_gin / total)
