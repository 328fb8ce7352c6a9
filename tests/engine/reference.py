"""A deliberately simple brute-force reference for the meld and layoff searches (tests only).

Written independently of ``engine/melds.py`` and ``engine/layoffs.py``: cards are ``(rank, suit)``
pairs, every meld of the hand is listed by checking every 3+ subset of a rank or a suit, and the
search tries, for the first remaining card, "deadwood" or every meld that contains it.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

RANKS = "A23456789TJQK"
SUITS = "cdhs"

Pair = tuple[int, int]  # (rank 0..12, suit 0..3)


def to_pair(card: int) -> Pair:
    return card % 13, card // 13


def value(p: Pair) -> int:
    return min(p[0] + 1, 10)


def is_meld(cards: frozenset[Pair]) -> bool:
    """Set of 3-4 of one rank, or 3+ consecutive ranks of one suit (ace low)."""
    if len(cards) < 3:
        return False
    ranks = sorted(r for r, _ in cards)
    suits = {s for _, s in cards}
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    if len(suits) == 1:
        return all(b - a == 1 for a, b in itertools.pairwise(ranks))
    return False


def all_melds(cards: frozenset[Pair]) -> list[frozenset[Pair]]:
    """Every subset of ``cards`` that is a meld (sets by rank, runs by suit)."""
    found: list[frozenset[Pair]] = []
    groups: dict[tuple[str, int], list[Pair]] = {}
    for r, s in cards:
        groups.setdefault(("rank", r), []).append((r, s))
        groups.setdefault(("suit", s), []).append((r, s))
    for group in groups.values():
        for size in range(3, len(group) + 1):
            for combo in itertools.combinations(group, size):
                sub = frozenset(combo)
                if is_meld(sub):
                    found.append(sub)
    return found


@lru_cache(maxsize=200_000)
def least_deadwood(cards: frozenset[Pair]) -> int:
    """Least deadwood over every partition of ``cards`` into disjoint melds and deadwood."""
    if not cards:
        return 0
    first = min(cards)
    best = value(first) + least_deadwood(cards - {first})
    for meld in all_melds(cards):
        if first in meld:
            best = min(best, least_deadwood(cards - meld))
    return best


def deadwood(cards: list[int]) -> int:
    return least_deadwood(frozenset(to_pair(c) for c in cards))


def defense(defender: list[int], knocker_melds: list[list[int]]) -> int:
    """Defender's least deadwood: any sequence of layoffs (a card joins a knocker meld, extended so
    far, when the result is still a meld), then the least deadwood of what is left."""
    start_hand = frozenset(to_pair(c) for c in defender)
    start_melds = tuple(sorted(frozenset(to_pair(c) for c in m) for m in knocker_melds))
    # sorted() on frozensets is only for a stable key; order is irrelevant to the result
    seen: dict[tuple[frozenset[Pair], tuple[frozenset[Pair], ...]], int] = {}

    def walk(hand: frozenset[Pair], melds: tuple[frozenset[Pair], ...]) -> int:
        key = (hand, melds)
        if key in seen:
            return seen[key]
        best = least_deadwood(hand)
        for card in hand:
            for i, meld in enumerate(melds):
                grown = meld | {card}
                if is_meld(grown):
                    best = min(best, walk(hand - {card}, (*melds[:i], grown, *melds[i + 1:])))
        seen[key] = best
        return best

    return walk(start_hand, start_melds)


def arrangements(cards: list[int], max_deadwood: int) -> list[tuple[list[list[int]], int]]:
    """Every collection of disjoint melds of ``cards`` with deadwood <= ``max_deadwood``, as
    (melds as card-int lists, deadwood)."""
    pairs = frozenset(to_pair(c) for c in cards)
    melds = all_melds(pairs)
    total = sum(value(p) for p in pairs)
    out: list[tuple[list[list[int]], int]] = []
    for size in range(len(cards) // 3 + 1):
        for combo in itertools.combinations(melds, size):
            union: set[Pair] = set()
            ok = True
            for m in combo:
                if union & m:
                    ok = False
                    break
                union |= m
            if not ok:
                continue
            dw = total - sum(value(p) for p in union)
            if dw <= max_deadwood:
                out.append(([[s * 13 + r for r, s in m] for m in combo], dw))
    return out


def knock_net(knocker: list[int], defender: list[int], limit: int, undercut_bonus: int,
              tie_to_knocker: bool = False) -> int:
    """The knocker's best net result (its points, or minus the defender's) over every arrangement
    within ``limit`` (non-gin knocks only), each against the defender's best defense."""
    best: int | None = None
    for melds, kd in arrangements(knocker, limit):
        dd = defense(defender, melds)
        net = dd - kd if kd < dd or (kd == dd and tie_to_knocker) else -(kd - dd + undercut_bonus)
        best = net if best is None else max(best, net)
    assert best is not None
    return best
