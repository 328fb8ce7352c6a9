"""Monte Carlo estimates over sampled opponent hands (level 5): what knocking now is worth, how
far the opponent is from knocking, and which discards it would take.

The opponent's concealed cards are drawn by :func:`engine.bots.tracker.sample_opponent_hands`
(weighted by what its picks, declines and discards say); every estimate is an average over those
samples, scored with the engine's own rules (:func:`engine.knock_points.knock_points`: ``score_knock``'s
number, layoffs and all).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.bots.common import forms_meld
from engine.cards import Card, CardMask
from engine.knock_points import knock_points
from engine.melds import deadwood_of_mask, least_discard_of_mask
from engine.rules import RuleSet


@dataclass(frozen=True, slots=True)
class KnockEstimate:
    """Averages over sampled opponent hands, in points from the knocker's side.

    - ``ev``: mean points of knocking now (negative when undercuts dominate).
    - ``p_undercut``: share of samples where knocking now loses points (an undercut).
    - ``opp_deadwood``: the opponent's mean least deadwood (10 cards, before layoffs).
    - ``p_opp_ready``: share of samples where the opponent could knock after one more draw of a
      card it already holds the partners for (its 10-card deadwood minus its worst card is within
      the limit), a cheap proxy for "it knocks soon".
    """

    ev: float
    p_undercut: float
    opp_deadwood: float
    p_opp_ready: float


def knock_estimate(
    hand10: CardMask, samples: Sequence[CardMask], rules: RuleSet, knock_limit: int, multiplier: int
) -> KnockEstimate:
    """:class:`KnockEstimate` of knocking with the 10-card ``hand10`` (deadwood within
    ``knock_limit``) against each sampled 10-card opponent hand."""
    total = undercut = 0.0
    opp_dw = 0.0
    ready = 0
    for opp in samples:
        points = knock_points(hand10, opp, rules, knock_limit, multiplier)
        total += points
        undercut += points < 0
        opp_dw += deadwood_of_mask(opp)
        if least_discard_of_mask(opp)[1] <= knock_limit:
            ready += 1
    n = max(1, len(samples))
    return KnockEstimate(total / n, undercut / n, opp_dw / n, ready / n)


def meld_danger(card: Card, samples: Sequence[CardMask]) -> float:
    """Share of sampled opponent hands with which ``card`` would make a meld (so the opponent,
    seeing it as the upcard, would take it)."""
    if not samples:
        return 0.0
    return sum(1 for opp in samples if forms_meld(opp, card)) / len(samples)
