"""Hypothesis strategies for hands: uniform random hands and adversarial ones (tests only).

Adversarial classes (issue 2): cards fitting a set and a run at once, 4-card sets crossing runs, long
runs, aces and kings at run ends, and dense rank x suit blocks mixing all of these.
"""

from __future__ import annotations

from hypothesis import strategies as st

ADVERSARIAL_KINDS = ("overlap", "four_set_cross", "long_run", "ends", "block")


def card(rank: int, suit: int) -> int:
    return suit * 13 + rank


def random_hand(n: int) -> st.SearchStrategy[list[int]]:
    """``n`` distinct cards, uniformly."""
    return st.permutations(range(52)).map(lambda p: list(p[:n]))


@st.composite
def adversarial_core(draw: st.DrawFn, kind: str) -> list[int]:
    """The structured part of an adversarial hand of class ``kind``."""
    if kind == "overlap":  # a rank in 3 suits, one of whose cards also sits in a run
        r = draw(st.integers(0, 12))
        suits = draw(st.permutations(range(4)))[:3]
        s = suits[0]
        lo = draw(st.integers(max(0, r - 2), min(r, 10)))
        cards = [card(r, t) for t in suits] + [card(x, s) for x in range(lo, lo + 3)]
        if draw(st.booleans()):  # a second overlap in another suit
            lo2 = draw(st.integers(max(0, r - 2), min(r, 10)))
            cards += [card(x, suits[1]) for x in range(lo2, lo2 + 3)]
    elif kind == "four_set_cross":  # all four of a rank, runs through it in two suits
        r = draw(st.integers(0, 12))
        cards = [card(r, t) for t in range(4)]
        for s in draw(st.permutations(range(4)))[:2]:
            lo = draw(st.integers(max(0, r - 2), min(r, 10)))
            cards += [card(x, s) for x in range(lo, lo + 3)]
    elif kind == "long_run":
        s = draw(st.integers(0, 3))
        length = draw(st.integers(5, 10))
        lo = draw(st.integers(0, 13 - length))
        cards = [card(x, s) for x in range(lo, lo + length)]
    elif kind == "ends":  # A 2 3 and J Q K of several suits
        pool = [card(r, s) for r in (0, 1, 2, 10, 11, 12) for s in range(4)]
        cards = draw(st.permutations(pool))[: draw(st.integers(6, 11))]
    else:  # block: 3-4 consecutive ranks in 3-4 suits
        width = draw(st.integers(3, 4))
        lo = draw(st.integers(0, 13 - width))
        suits = draw(st.permutations(range(4)))[: draw(st.integers(3, 4))]
        cards = [card(x, s) for x in range(lo, lo + width) for s in suits]
        cards = draw(st.permutations(cards))
    return list(dict.fromkeys(cards))


@st.composite
def adversarial_hand(draw: st.DrawFn, n: int, kind: str | None = None) -> list[int]:
    """``n`` distinct cards: an adversarial core (of ``kind``, or any) topped up with random cards."""
    k = kind if kind is not None else draw(st.sampled_from(ADVERSARIAL_KINDS))
    core = draw(adversarial_core(k))[:n]
    rest = [c for c in draw(st.permutations(range(52))) if c not in core]
    return core + rest[: n - len(core)]


@st.composite
def dense_deal(draw: st.DrawFn, n: int = 20) -> list[int]:
    """``n`` distinct cards from a small pool (5-7 ranks x 4 suits: a middle window, or the ace or
    king end), so the two hands dealt from it interlock: many layoffs, competing runs and sets."""
    width = draw(st.integers(max(5, -(-n // 4)), 7))
    where = draw(st.sampled_from(["low", "high", "middle"]))
    lo = 0 if where == "low" else 13 - width if where == "high" else draw(st.integers(0, 13 - width))
    pool = [card(r, s) for r in range(lo, lo + width) for s in range(4)]
    return draw(st.permutations(pool))[:n]
