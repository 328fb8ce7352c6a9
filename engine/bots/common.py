"""Helpers every bot level shares: reading a :class:`~engine.view.PlayerView`'s legal actions by
decision kind, and small card-pattern tests (does a card form a meld with a hand).

Nothing here reads hidden state: every function takes a view, cards or masks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from engine.actions import Action, ActionKind
from engine.cards import Card, CardMask

Decision = Literal["offer", "draw", "discard"]

_SUIT = 0x1FFF


@dataclass(frozen=True, slots=True)
class Options:
    """A view's legal actions sorted by what they decide.

    - ``decision``: ``"offer"`` (take or pass the first upcard), ``"draw"`` (stock or discard pile)
      or ``"discard"`` (discard, knock or big gin).
    - ``take``: the action taking the upcard (``take`` or ``draw discard``), or ``None`` if illegal.
    - ``decline``: ``pass`` or ``draw stock``, or ``None`` if illegal.
    - ``discards`` / ``knocks``: card -> the legal ``discard`` / ``knock`` action for that card.
    - ``big_gin``: the ``knock`` (big gin) action, or ``None``.
    """

    decision: Decision
    take: Action | None
    decline: Action | None
    discards: dict[Card, Action]
    knocks: dict[Card, Action]
    big_gin: Action | None


def options(legal: Sequence[Action]) -> Options:
    """Group ``legal`` (a view's ``legal_actions``) by decision.

    :raises ValueError: ``legal`` is empty (the bot was asked to move when it may not).
    """
    if not legal:
        raise ValueError("no legal action: the bot is not to move")
    take = decline = big_gin = None
    discards: dict[Card, Action] = {}
    knocks: dict[Card, Action] = {}
    decision: Decision = "discard"
    for action in legal:
        kind = action.kind
        if kind is ActionKind.TAKE_UPCARD:
            take, decision = action, "offer"
        elif kind is ActionKind.PASS:
            decline, decision = action, "offer"
        elif kind is ActionKind.DRAW_DISCARD:
            take, decision = action, "draw"
        elif kind is ActionKind.DRAW_STOCK:
            decline, decision = action, "draw"
        elif kind is ActionKind.DISCARD:
            assert action.card is not None
            discards[action.card] = action
        elif kind is ActionKind.KNOCK:
            assert action.card is not None
            knocks[action.card] = action
        else:
            big_gin = action
    return Options(decision, take, decline, discards, knocks, big_gin)


def discard_action(opts: Options, card: Card, knock: bool) -> Action:
    """The action discarding ``card``: a knock when ``knock`` is true and knocking with it is legal."""
    if knock and card in opts.knocks:
        return opts.knocks[card]
    if card in opts.discards:
        return opts.discards[card]
    return opts.knocks[card]


def mask_of(cards: Iterable[Card]) -> CardMask:
    """Bitmask of ``cards`` (no validation: the view's cards are already valid)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _same_rank(card: Card) -> CardMask:
    rank, suit = card % 13, card // 13
    return sum(1 << (13 * s + rank) for s in range(4) if s != suit)


def _run_partners(card: Card) -> tuple[CardMask, ...]:
    rank, suit = card % 13, card // 13
    windows = range(max(0, rank - 2), min(rank, 10) + 1)  # three in a row holding the rank, ace low
    return tuple(((7 << lo) ^ (1 << rank)) << (13 * suit) for lo in windows)


SAME_RANK: tuple[CardMask, ...] = tuple(_same_rank(c) for c in range(52))
"""Card -> the other three cards of its rank."""
RUN_PARTNERS: tuple[tuple[CardMask, ...], ...] = tuple(_run_partners(c) for c in range(52))
"""Card -> for each three-in-a-row window of its suit holding it, the window's two other cards."""


def forms_meld(hand: CardMask, card: Card) -> bool:
    """Whether ``card`` makes a meld (rules.md point 4) with cards of ``hand``: two more of its rank,
    or two neighbours of its suit making three in a row (ace low only). Table lookups: the bots'
    rollouts ask this for every upcard."""
    if (hand & SAME_RANK[card]).bit_count() >= 2:
        return True
    for pair in RUN_PARTNERS[card]:  # noqa: SIM110 (any() over a generator costs a frame a call)
        if hand & pair == pair:
            return True
    return False


def completes_run(hand: CardMask, card: Card) -> bool:
    """Whether ``card`` makes a run of three or more with cards of its suit in ``hand``."""
    for pair in RUN_PARTNERS[card]:  # noqa: SIM110 (as in forms_meld)
        if hand & pair == pair:
            return True
    return False


def completes_set(hand: CardMask, card: Card) -> bool:
    """Whether ``card`` makes a set with two or more cards of its rank in ``hand``."""
    return (hand & SAME_RANK[card]).bit_count() >= 2


def neighbours(card: Card) -> list[Card]:
    """Cards that can share a meld with ``card``: the other three of its rank and the suit
    neighbours within two ranks (ace low only)."""
    rank, suit = card % 13, card // 13
    out = [s * 13 + rank for s in range(4) if s != suit]
    out.extend(suit * 13 + r for r in range(max(0, rank - 2), min(12, rank + 2) + 1) if r != rank)
    return out
