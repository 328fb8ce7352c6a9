"""The points of a knock as bitmask arithmetic: the bots' rollouts score thousands of knocks a decision.

:func:`knock_points` is :func:`engine.scoring.score_knock` reduced to its number (the knocker's points,
negative when it is undercut, times the multiplier) for a knock, gin or big gin: the same rules
(rules.md "One hand", points 5-7; the undercut bonus, the tie rule), the same choice of the knocker's
melds (the arrangement within the knock limit whose knock is worth most after the defender's best
layoffs), computed on card masks without building melds, layoffs or results. It is exact, not an
estimate: tests compare it with ``score_knock`` on many hands.

Why it is faster: the arrangements are walked as meld masks in ascending deadwood and the walk stops
at the first one whose no-layoff bound cannot beat the best found (the bound only falls as deadwood
rises), and each layoff choice is a mask, scored by the least-deadwood tables.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

from engine.cards import CardMask
from engine.melds import _RUNNABLE, deadwood_of_mask, hand_meld_masks
from engine.rules import RuleSet

_SUIT = 0x1FFF
_VALUE: tuple[int, ...] = tuple(min(c % 13 + 1, 10) for c in range(52))

_Meld = tuple[CardMask, bool]
"""A knocker's meld as (its cards' mask, whether it is a set)."""


def _melds_of(mask: CardMask) -> list[list[_Meld]]:
    """Per card of ``mask`` (ascending index into its cards): the melds whose lowest card it is
    (:func:`engine.melds.hand_meld_masks`)."""
    by_low: dict[int, list[_Meld]] = {}
    for meld in hand_meld_masks(mask):
        m = meld[0]
        by_low.setdefault((m & -m).bit_length() - 1, []).append(meld)
    return [by_low.get(x, []) for x in range(52) if mask >> x & 1]


def _arrangements(mask: CardMask, limit: int) -> list[tuple[int, list[_Meld]]]:
    """Every arrangement of ``mask`` with deadwood at most ``limit``: (deadwood, its melds), as
    :func:`engine.melds.arrangement_choices` lists them (non-maximal ones included)."""
    order = [x for x in range(52) if mask >> x & 1]
    by_low = _melds_of(mask)
    n = len(order)
    chosen: list[_Meld] = []
    out: list[tuple[int, list[_Meld]]] = []

    def walk(i: int, used: int, dw: int) -> None:
        while i < n and used >> order[i] & 1:
            i += 1
        if i == n:
            out.append((dw, list(chosen)))
            return
        for meld in by_low[i]:
            if not meld[0] & used:
                chosen.append(meld)
                walk(i + 1, used | meld[0], dw)
                chosen.pop()
        value = _VALUE[order[i]]
        if dw + value <= limit:
            walk(i + 1, used, dw + value)

    walk(0, 0, 0)
    return out


@functools.lru_cache(maxsize=1 << 15)
def _ranked_arrangements(mask: CardMask, limit: int) -> tuple[tuple[int, tuple[_Meld, ...]], ...]:
    """:func:`_arrangements` in ascending deadwood (a stable sort). Cached: a rollout's knocker
    often knocks with the same cards in world after world (a knock option always does)."""
    ranked = sorted(_arrangements(mask, limit), key=lambda choice: choice[0])
    return tuple((kd, tuple(melds)) for kd, melds in ranked)


def _layoff_choices(defender: CardMask, meld: _Meld) -> list[CardMask]:
    """The masks the defender holding ``defender`` can lay off on ``meld`` (none excluded)."""
    cards, is_set = meld
    if is_set:
        if cards.bit_count() != 3:
            return []
        low = cards & -cards
        rank = (low.bit_length() - 1) % 13
        four = (1 | 1 << 13 | 1 << 26 | 1 << 39) << rank
        missing = four & ~cards & defender
        return [missing] if missing else []
    low_card = (cards & -cards).bit_length() - 1
    high_card = cards.bit_length() - 1
    base = low_card - low_card % 13
    below = [0]
    c, laid = low_card - 1, 0
    while c >= base and defender >> c & 1:
        laid |= 1 << c
        below.append(laid)
        c -= 1
    above = [0]
    c, laid = high_card + 1, 0
    while c < base + 13 and defender >> c & 1:
        laid |= 1 << c
        above.append(laid)
        c += 1
    return [x | y for x in below for y in above if x | y]


def _defender_deadwood(defender: CardMask, melds: Sequence[_Meld], no_layoffs: int) -> int:
    """The defender's least deadwood after laying off on ``melds`` (as
    :func:`engine.layoffs.defense_of_mask`)."""
    per_meld = [choices for choices in (_layoff_choices(defender, m) for m in melds) if choices]
    if not per_meld:
        return no_layoffs
    best = no_layoffs
    for combo in itertools.product(*([0, *choices] for choices in per_meld)):
        laid = 0
        for m in combo:
            if laid & m:
                break
            laid |= m
        else:
            if laid:
                dw = deadwood_of_mask(defender & ~laid)
                if dw < best:
                    best = dw
    return best


def _layoff_reach(mask: CardMask) -> CardMask:
    """Every card a defender could lay off on some meld of some arrangement of ``mask`` (a superset):
    the suit neighbours of the cards that can sit in a run, and the missing card of each rank held
    three times."""
    reach = 0
    for s in range(4):
        runnable = _RUNNABLE[mask >> 13 * s & _SUIT]
        reach |= ((runnable << 1 | runnable >> 1) & _SUIT) << 13 * s
    a, b, c, d = mask & _SUIT, mask >> 13 & _SUIT, mask >> 26 & _SUIT, mask >> 39
    three = (a & b & (c | d)) | (c & d & (a | b))
    if three:
        spread = three | three << 13 | three << 26 | three << 39
        reach |= spread & ~mask
    return reach & ~mask


def _net(kd: int, dd: int, rules: RuleSet) -> int:
    if kd < dd or (kd == dd and rules.tie_goes_to == "knocker"):
        return dd - kd
    bonus = rules.gin_bonus if rules.undercut_gin_bonus and dd == 0 else rules.undercut_bonus
    return -(kd - dd + bonus)


def knock_points(knocker: CardMask, defender: CardMask, rules: RuleSet, knock_limit: int,
                 multiplier: int) -> int:
    """The knocker's points for knocking with the 10 cards ``knocker`` (11 for big gin) against the
    10 cards ``defender`` (masks; no validation): ``score_knock(...).points`` when the knocker wins
    the hand, minus them when it is undercut (gin and big gin: the bonus plus the defender's
    deadwood; a knock: the difference of the counts after the defender's layoffs, or the
    undercut's loss; times ``multiplier``).

    :raises ValueError: the knocker's least deadwood is over ``knock_limit`` (not a knock), or 11
        cards are not all melded (not a big gin).
    """
    least = deadwood_of_mask(knocker)
    no_layoffs = deadwood_of_mask(defender)
    if knocker.bit_count() == 11:
        if least:
            raise ValueError("big gin needs all 11 cards melded")
        return (rules.effective_big_gin_bonus + no_layoffs) * multiplier
    if least > knock_limit:
        raise ValueError(f"deadwood {least} is over the knock limit {knock_limit}")
    if least == 0:
        return (rules.gin_bonus + no_layoffs) * multiplier
    if not defender & _layoff_reach(knocker):
        # nothing can be laid off whatever the knocker shows: its least deadwood is its best knock
        return _net(least, no_layoffs, rules) * multiplier
    best: int | None = None
    for kd, melds in _ranked_arrangements(knocker, knock_limit):
        if best is not None and _net(kd, no_layoffs, rules) <= best:
            break  # the bound falls as kd rises: no later arrangement can do better
        net = _net(kd, _defender_deadwood(defender, melds, no_layoffs), rules)
        if best is None or net > best:
            best = net
    assert best is not None  # the least-deadwood arrangement is within the limit
    return best * multiplier
