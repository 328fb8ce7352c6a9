"""Melds and the least-deadwood arrangement of a hand (rules.md "One hand", points 4-5).

A *set* is 3 or 4 cards of one rank; a *run* is 3+ consecutive cards of one suit, ace low only. Deadwood
is the value of the cards in no meld, taking the arrangement with the least deadwood over every
partition into disjoint melds.

How the search is exact and fast: sets are the only melds that cross suits. At import we build, for
each of the 8192 masks of one suit's 13 ranks, the least deadwood using runs only (and the runs that
achieve it) -- a structural table, not a cache. A hand is a 52-bit mask; for each rank holding 3 or 4
cards we try "no set", the 4-set and each 3-subset (pruned: leaving a card out of a set, or making no
set, only helps when the cards left can sit in a run), remove the set cards and add the four per-suit
table lookups. Most random hands have no rank with 3+ cards: 4 lookups.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from engine.cards import Card, CardMask, card_name, card_value, format_cards, from_mask, to_mask
from engine.errors import InvalidCardError, InvalidMeldError

MeldKind = Literal["set", "run"]

_SUIT = 0x1FFF
_VAL13: tuple[int, ...] = tuple(min(r + 1, 10) for r in range(13))
_VALUE: tuple[int, ...] = tuple(_VAL13[c % 13] for c in range(52))


def _build_run_tables() -> tuple[list[int], list[tuple[int, ...]], list[int]]:
    """Per 13-bit suit mask: least deadwood with runs only, the runs achieving it (13-bit masks,
    ascending), and the bits that lie in some 3-window fully present (cards that can be in a run)."""
    dw = [0] * 8192
    sel: list[tuple[int, ...]] = [()] * 8192
    runnable = [0] * 8192
    for m in range(1, 8192):
        low = m & -m
        r = low.bit_length() - 1
        best = _VAL13[r] + dw[m ^ low]
        best_sel = sel[m ^ low]
        run = low
        for e in range(r + 1, 13):
            if not m >> e & 1:
                break
            run |= 1 << e
            if e - r >= 2 and dw[m ^ run] < best:
                best = dw[m ^ run]
                best_sel = (run, *sel[m ^ run])
        dw[m] = best
        sel[m] = best_sel
        starts = m & m >> 1 & m >> 2  # ranks starting three in a row
        runnable[m] = starts | starts << 1 | starts << 2
    return dw, sel, runnable


_RUN_DW, _RUN_SEL, _RUNNABLE = _build_run_tables()


@dataclass(frozen=True, slots=True)
class Meld:
    """A set or a run. ``cards`` are ascending card ints (sets: suit order c d h s; runs: rank order).

    Build with :meth:`of` (validates); ``str(meld)`` is ``"7s 8s 9s"``.
    """

    kind: MeldKind
    cards: tuple[Card, ...]

    @classmethod
    def of(cls, cards: Iterable[Card]) -> Meld:
        """The meld made of ``cards`` (any order).

        :raises InvalidMeldError: the cards are not a set of 3-4 of one rank or a run of 3+ of one
            suit (ace low), or a card repeats.
        :raises InvalidCardError: a value is not a card.
        """
        ordered = tuple(sorted(cards))
        kind = meld_kind(ordered)
        if kind is None:
            raise InvalidMeldError(f"not a meld: {format_cards(ordered)}")
        return cls(kind, ordered)

    @property
    def mask(self) -> CardMask:
        """The meld's cards as a bitmask."""
        m = 0
        for c in self.cards:
            m |= 1 << c
        return m

    @property
    def value(self) -> int:
        """Sum of the card values of the meld."""
        return sum(card_value(c) for c in self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def names(self) -> list[str]:
        """Card names in order, for JSON."""
        return [card_name(c) for c in self.cards]

    def __str__(self) -> str:
        return format_cards(self.cards)


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Melds chosen from a hand: ``melds`` (ordered by first card), ``unmatched`` cards (ascending)
    and ``deadwood``, the sum of the unmatched cards' values (points)."""

    melds: tuple[Meld, ...]
    unmatched: tuple[Card, ...]
    deadwood: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"melds": [["7s", ...]], "unmatched": [...], "deadwood": N}``."""
        return {
            "melds": [m.names() for m in self.melds],
            "unmatched": [card_name(c) for c in self.unmatched],
            "deadwood": self.deadwood,
        }


def meld_kind(cards: Iterable[Card]) -> MeldKind | None:
    """``"set"``, ``"run"`` or ``None`` for distinct ``cards``.

    :raises InvalidCardError: a value is not a card.
    :raises DuplicateCardError: a card repeats.
    """
    mask = to_mask(cards)
    n = mask.bit_count()
    if n < 3:
        return None
    for suit in range(4):
        sm = mask >> (13 * suit) & _SUIT
        if sm.bit_count() == n:
            low = sm & -sm
            # consecutive bits: sm + low clears the whole block into one higher bit
            return "run" if (sm + low) & sm == 0 else None
    if n <= 4:
        ranks = {c % 13 for c in from_mask(mask)}
        if len(ranks) == 1:
            return "set"
    return None


def is_meld(cards: Iterable[Card]) -> bool:
    """Whether ``cards`` form a set or a run (rules.md "One hand", point 4). False on bad input."""
    try:
        return meld_kind(cards) is not None
    except InvalidCardError:
        return False


def validate_melds(hand: Iterable[Card], melds: Iterable[Iterable[Card]]) -> Arrangement:
    """The arrangement of ``hand`` that shows exactly ``melds``.

    :raises InvalidMeldError: a group is not a meld, two melds share a card, or a meld card is not
        in ``hand``.
    :raises InvalidCardError: a value is not a card, or ``hand`` repeats a card.
    """
    hand_mask = to_mask(hand)
    used = 0
    built: list[Meld] = []
    for group in melds:
        meld = Meld.of(group)
        m = meld.mask
        if m & ~hand_mask:
            missing = format_cards(from_mask(m & ~hand_mask))
            raise InvalidMeldError(f"meld {meld} uses cards not in the hand: {missing}")
        if m & used:
            shared = format_cards(from_mask(m & used))
            raise InvalidMeldError(f"meld {meld} shares {shared} with another meld")
        used |= m
        built.append(meld)
    return arrangement_of(built, hand_mask & ~used)


def arrangement_of(melds: Iterable[Meld], unmatched_mask: CardMask) -> Arrangement:
    """The :class:`Arrangement` of already valid, disjoint ``melds`` and the cards ``unmatched_mask``
    (no validation)."""
    unmatched = tuple(from_mask(unmatched_mask))
    return Arrangement(
        tuple(sorted(melds, key=lambda m: m.cards)), unmatched, sum(card_value(c) for c in unmatched)
    )


_SPREAD = 1 | 1 << 13 | 1 << 26 | 1 << 39  # one bit per suit at rank 0


def _spread(suits: int) -> int:
    """4-bit suit set -> the cards of those suits at rank 0 (bits 0, 13, 26, 39)."""
    return sum(1 << (13 * s) for s in range(4) if suits >> s & 1)


def _build_set_options() -> dict[int, tuple[int, ...]]:
    """Key: (held cards of one rank) | (those that can sit in a run) << 1, both as rank-0 spreads.
    Value: the removal masks worth trying at that rank (rank 0; shift by the rank).

    Pruning, still exact: a 3-subset of a 4-set leaving card x out only beats the 4-set when x is in
    a run, so x must be runnable; "no set" only beats some set when at most 2 of the rank's cards are
    deadwood, so at least ``count - 2`` of them must be runnable."""
    table: dict[int, tuple[int, ...]] = {}
    for held in range(16):
        count = held.bit_count()
        if count < 3:
            continue
        for runnable in range(16):
            if runnable & ~held:
                continue
            opts = [_spread(held)]
            if count == 4:
                opts.extend(_spread(held ^ 1 << s) for s in range(4) if runnable >> s & 1)
            if runnable.bit_count() >= count - 2:
                opts.append(0)
            table[_spread(held) | _spread(runnable) << 1] = tuple(opts)
    return table


_SET_OPTIONS = _build_set_options()
# unpruned: held rank-0 spread -> none, the whole set and (for 4 cards) every 3-subset
_ALL_SET_OPTIONS: dict[int, tuple[int, ...]] = {
    _spread(held): (0, _spread(held), *(_spread(held ^ 1 << s) for s in range(4) if held >> s & 1))
    if held.bit_count() == 4 else (0, _spread(held))
    for held in range(16) if held.bit_count() >= 3
}


def _set_options(mask: CardMask, three: int) -> list[list[int]]:
    """For each rank with 3+ cards in ``mask`` (bits of ``three``): the removal masks worth trying."""
    r = _RUNNABLE
    runnable = (
        r[mask & _SUIT] | r[mask >> 13 & _SUIT] << 13 | r[mask >> 26 & _SUIT] << 26 | r[mask >> 39] << 39
    )
    options: list[list[int]] = []
    while three:
        low = three & -three
        three ^= low
        k = low.bit_length() - 1
        key = (mask >> k & _SPREAD) | (runnable >> k & _SPREAD) << 1
        options.append([o << k for o in _SET_OPTIONS[key]])
    return options


def _dw(mask: CardMask) -> int:
    """Least deadwood of the cards in ``mask`` (no validation)."""
    t = _RUN_DW
    a = mask & _SUIT
    b = mask >> 13 & _SUIT
    c = mask >> 26 & _SUIT
    d = mask >> 39
    three = (a & b & (c | d)) | (c & d & (a | b))
    if not three:
        return t[a] + t[b] + t[c] + t[d]
    best = 1 << 30
    if not three & (three - 1):  # one rank with 3+ cards: the usual case
        k = three.bit_length() - 1
        r = _RUNNABLE
        runnable = r[a] | r[b] << 13 | r[c] << 26 | r[d] << 39
        for o in _SET_OPTIONS[(mask >> k & _SPREAD) | (runnable >> k & _SPREAD) << 1]:
            m = mask & ~(o << k)
            v = t[m & _SUIT] + t[m >> 13 & _SUIT] + t[m >> 26 & _SUIT] + t[m >> 39]
            if v < best:
                best = v
        return best
    for combo in itertools.product(*_set_options(mask, three)):
        rem = 0
        for o in combo:
            rem |= o
        m = mask & ~rem
        v = t[m & _SUIT] + t[m >> 13 & _SUIT] + t[m >> 26 & _SUIT] + t[m >> 39]
        if v < best:
            best = v
    return best


def deadwood_of_mask(mask: CardMask) -> int:
    """Least deadwood (points) of the cards in the 52-bit ``mask``; the fastest entry point.

    The caller guarantees ``0 <= mask < 2**52``.
    """
    return _dw(mask)


def deadwood(cards: Iterable[Card]) -> int:
    """Least deadwood (points) of distinct ``cards`` over every partition into melds (rules.md point 5).

    :raises InvalidCardError: a value is not a card.
    :raises DuplicateCardError: a card repeats.
    """
    return _dw(to_mask(cards))


@functools.lru_cache(maxsize=4096)
def best_arrangement_of_mask(mask: CardMask) -> Arrangement:
    """:func:`best_arrangement` of the cards in ``mask`` (no validation).

    Memoized (the result is immutable): a hand is arranged again and again while it does not change
    (the state of the seat not acting, every state's reveal of the previous hand, the bots)."""
    t = _RUN_DW
    a = mask & _SUIT
    b = mask >> 13 & _SUIT
    c = mask >> 26 & _SUIT
    d = mask >> 39
    three = (a & b & (c | d)) | (c & d & (a | b))
    best_rem: tuple[int, ...] = ()
    if three:
        best = 1 << 30
        for combo in itertools.product(*_set_options(mask, three)):
            rem = 0
            for r in combo:
                rem |= r
            m = mask & ~rem
            v = t[m & _SUIT] + t[m >> 13 & _SUIT] + t[m >> 26 & _SUIT] + t[m >> 39]
            if v < best:
                best = v
                best_rem = combo
    melds: list[Meld] = []
    rest = mask
    for rem in best_rem:
        if rem:
            melds.append(Meld("set", tuple(from_mask(rem))))
            rest &= ~rem
    for s in range(4):
        for run in _RUN_SEL[rest >> (13 * s) & _SUIT]:
            run_mask = run << (13 * s)
            melds.append(Meld("run", tuple(from_mask(run_mask))))
            rest &= ~run_mask
    return arrangement_of(melds, rest)


def best_arrangement(cards: Iterable[Card]) -> Arrangement:
    """The least-deadwood arrangement of 0..52 distinct ``cards`` (rules.md "One hand", point 5).

    >>> from engine.cards import parse_cards
    >>> a = best_arrangement(parse_cards("7s 8s 9s 7h 7d"))
    >>> [str(m) for m in a.melds], a.deadwood
    (['7s 8s 9s'], 14)

    :raises InvalidCardError: a value is not a card.
    :raises DuplicateCardError: a card repeats.
    """
    return best_arrangement_of_mask(to_mask(cards))


def deadwood_after_discards(cards: Iterable[Card]) -> dict[Card, int]:
    """For a hand (normally 11 cards): each card -> least deadwood of the hand without it (points).

    Keys follow ascending card order. The UI shows these numbers; bots use them.

    :raises InvalidCardError: a value is not a card.
    :raises DuplicateCardError: a card repeats.
    """
    return deadwood_after_discards_of_mask(to_mask(cards))


def deadwood_after_discards_of_mask(mask: CardMask) -> dict[Card, int]:
    """:func:`deadwood_after_discards` of the cards in ``mask`` (no validation)."""
    t = _RUN_DW
    a = mask & _SUIT
    b = mask >> 13 & _SUIT
    c = mask >> 26 & _SUIT
    d = mask >> 39
    result: dict[Card, int] = {}
    three = (a & b & (c | d)) | (c & d & (a | b))
    if three:
        return _after_discards_with_sets(mask, three)
    # no set possible with or without any one card: only the discard's suit changes
    suits = (a, b, c, d)
    base = (t[a], t[b], t[c], t[d])
    total = base[0] + base[1] + base[2] + base[3]
    for s in range(4):
        sm = suits[s]
        rest = total - base[s]
        while sm:
            low = sm & -sm
            sm ^= low
            result[13 * s + low.bit_length() - 1] = rest + t[suits[s] ^ low]
    return result


def _all_set_choices(mask: CardMask, three: int) -> list[tuple[int, ...]]:
    """For each rank with 3+ cards in ``mask`` (bits of ``three``): every set choice, unpruned (none,
    the 4-set, every 3-subset), as removal masks: the choices a discard's deadwood must consider."""
    lists: list[tuple[int, ...]] = []
    while three:
        low = three & -three
        three ^= low
        k = low.bit_length() - 1
        lists.append(tuple(o << k for o in _ALL_SET_OPTIONS[mask >> k & _SPREAD]))
    return lists


def _set_choice_suits(mask: CardMask, three: int) -> Iterator[tuple[int, tuple[int, int, int, int]]]:
    """Each unpruned set choice of ``mask`` (:func:`_all_set_choices`; one empty choice when ``three``
    is 0): (the set cards' mask, the four 13-bit suit masks of the cards left)."""
    for combo in itertools.product(*_all_set_choices(mask, three)):
        rem = 0
        for o in combo:
            rem |= o
        m = mask & ~rem
        yield rem, (m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39)


def _build_shed_tables() -> tuple[list[int], list[int]]:
    """Per 13-bit suit mask: the least runs-only deadwood left after removing one of its cards, and
    the highest rank achieving it (-1 and a huge count for the empty mask)."""
    least = [1 << 30] * 8192
    rank = [-1] * 8192
    for m in range(1, 8192):
        rest = m
        while rest:
            low = rest & -rest
            rest ^= low
            v = _RUN_DW[m ^ low]
            if v <= least[m]:  # ascending ranks: "<=" keeps the highest among equals
                least[m], rank[m] = v, low.bit_length() - 1
    return least, rank


_SHED_DW, _SHED_RANK = _build_shed_tables()


def least_discard_of_mask(mask: CardMask, keep: Card | None = None) -> tuple[Card, int]:
    """The simple player's discard from the cards in ``mask`` (normally 11): (the card whose discard
    leaves the least deadwood, that deadwood), never ``keep`` (the card just taken from the pile);
    ties go to the highest card (it sheds the most points). The same as the argmin of
    :func:`deadwood_after_discards_of_mask` without building it: per choice of sets, one table
    lookup per suit gives that suit's best discard.

    The caller guarantees ``0 <= mask < 2**52`` and at least one card other than ``keep``.
    """
    t, shed_dw, shed_rank = _RUN_DW, _SHED_DW, _SHED_RANK
    a = mask & _SUIT
    b = mask >> 13 & _SUIT
    c = mask >> 26 & _SUIT
    d = mask >> 39
    three = (a & b & (c | d)) | (c & d & (a | b))
    best, best_card = 1 << 30, -1
    for _rem, parts in _set_choice_suits(mask, three):  # no rank of 3+: one choice, no set
        total = t[parts[0]] + t[parts[1]] + t[parts[2]] + t[parts[3]]
        for s in range(4):
            part = parts[s]
            if part:
                v = total - t[part] + shed_dw[part]
                card = 13 * s + shed_rank[part]
                if v < best or (v == best and card > best_card):
                    best, best_card = v, card
    if best_card == keep and keep is not None:
        # rare (the taken card made a meld): the full table, without that card
        after = deadwood_after_discards_of_mask(mask)
        best, best_card = 1 << 30, -1
        for card, v in after.items():
            if card != keep and (v < best or (v == best and card > best_card)):
                best, best_card = v, card
    return best_card, best


def _after_discards_with_sets(mask: CardMask, three: int) -> dict[Card, int]:
    """Deadwood after each discard when some rank holds 3+ cards, sharing the set enumeration.

    Every choice of sets of ``mask ^ card`` is a choice of sets of ``mask`` avoiding ``card``, so
    for each unpruned choice (per such rank: none, the 4-set, every 3-subset) and each card not in
    it, the runs-only deadwood of the rest without the card is one suit lookup away."""
    t = _RUN_DW
    cards = [(x, x // 13, 1 << (x % 13)) for x in from_mask(mask)]
    best = dict.fromkeys((x for x, _, _ in cards), 1 << 30)
    for rem, parts in _set_choice_suits(mask, three):
        vals = (t[parts[0]], t[parts[1]], t[parts[2]], t[parts[3]])
        total = vals[0] + vals[1] + vals[2] + vals[3]
        for x, s, bit in cards:
            if not rem >> x & 1:
                v = total - vals[s] + t[parts[s] ^ bit]
                if v < best[x]:
                    best[x] = v
    return best


def hand_meld_masks(mask: CardMask) -> list[tuple[CardMask, bool]]:
    """Every meld whose cards are all in ``mask``, as (its cards' mask, whether it is a set), in
    :func:`hand_melds`' order (the bots' knock scoring walks these without building melds)."""
    melds: list[tuple[CardMask, bool]] = []
    a = mask & _SUIT
    b = mask >> 13 & _SUIT
    c = mask >> 26 & _SUIT
    d = mask >> 39
    three = (a & b & (c | d)) | (c & d & (a | b))
    while three:
        low = three & -three
        three ^= low
        r = low.bit_length() - 1
        cards = [x for x in (r, 13 + r, 26 + r, 39 + r) if mask >> x & 1]
        melds.extend((sum(1 << x for x in combo), True) for combo in itertools.combinations(cards, 3))
        if len(cards) == 4:
            melds.append((sum(1 << x for x in cards), True))
    for s, sm in enumerate((a, b, c, d)):
        starts = sm & sm >> 1 & sm >> 2  # ranks starting three in a row
        while starts:
            low = starts & -starts
            starts ^= low
            lo = low.bit_length() - 1
            run = 7 << lo
            hi = lo + 2
            while hi < 13 and sm >> hi & 1:
                melds.append((run << 13 * s, False))
                hi += 1
                run |= 1 << hi
    return melds


def hand_melds(mask: CardMask) -> list[Meld]:
    """Every meld (sets of 3 and 4, runs of every length >= 3) whose cards are all in ``mask``.

    Order: sets by rank (each rank's 3-subsets, then its 4-set), then runs by suit, start, length."""
    return [Meld("set" if is_set else "run", tuple(from_mask(m))) for m, is_set in hand_meld_masks(mask)]


def all_arrangements(cards: Iterable[Card], max_deadwood: int | None = None) -> Iterator[Arrangement]:
    """Every arrangement of ``cards``: every collection of disjoint melds, including non-maximal ones
    (a 4-run shown as a 3-run plus a deadwood card, a 4-set as a 3-set, no melds at all), each once.

    With ``max_deadwood``, only arrangements whose deadwood is at most that (the knocker's choices
    within the knock limit, rules.md point 7). Order is deterministic.

    :raises InvalidCardError: a value is not a card.
    :raises DuplicateCardError: a card repeats.
    """
    mask = to_mask(cards)
    for _, melds in arrangement_choices(mask, max_deadwood):
        used = 0
        for m in melds:
            used |= m.mask
        yield arrangement_of(melds, mask & ~used)


def arrangement_choices(
    mask: CardMask, max_deadwood: int | None = None
) -> list[tuple[int, tuple[Meld, ...]]]:
    """:func:`all_arrangements` of ``mask`` as (deadwood, melds) pairs, same order (no validation)."""
    order = from_mask(mask)
    by_min: dict[Card, list[tuple[int, Meld]]] = {c: [] for c in order}
    for meld in hand_melds(mask):
        by_min[meld.cards[0]].append((meld.mask, meld))
    limit = (1 << 30) if max_deadwood is None else max_deadwood
    n = len(order)
    chosen: list[Meld] = []
    out: list[tuple[int, tuple[Meld, ...]]] = []

    def walk(i: int, used: int, dw: int) -> None:
        while i < n and used >> order[i] & 1:
            i += 1
        if i == n:
            out.append((dw, tuple(chosen)))
            return
        card = order[i]
        for meld_mask, meld in by_min[card]:
            if not meld_mask & used:
                chosen.append(meld)
                walk(i + 1, used | meld_mask, dw)
                chosen.pop()
        value = _VALUE[card]
        if dw + value <= limit:
            walk(i + 1, used, dw + value)

    walk(0, 0, 0)
    return out
