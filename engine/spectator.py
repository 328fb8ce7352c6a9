"""The third party's view of a hand in play: what both players have shown, nothing else.

A spectator (``/watch/<id>/``) sees each player's number of cards, the cards each took from the discard
pile and still holds (``HandState.known``), the discard pile, the upcard, the stock's size, and every
move, a stock draw without its card. Never a concealed card of either player, never the stock order.
Once a hand has ended, everything about it is public (the table reveals it to both players too).

Framework-free, ``mypy --strict``; the JSON shapes are documented in ``docs/protocol.md`` ("watch").
"""

from __future__ import annotations

from typing import Any

from engine.actions import ActionKind
from engine.cards import card_name, card_names
from engine.hand import HandState

Json = dict[str, Any]

_PUBLIC_DRAWS = frozenset((ActionKind.TAKE_UPCARD, ActionKind.DRAW_DISCARD))


def spectator_hand(hand: HandState, *, number: int) -> Json:
    """Hand ``number`` (in play) as a spectator may see it::

        {"number", "dealer", "phase", "to_act", "card_counts": [n0, n1],
         "known": [[cards seat 0 took from the pile and holds], [seat 1]], "discard_pile" (bottom ->
         top), "upcard", "first_upcard", "taken_card", "stock_count", "knock_limit", "limit_card" (the
         second deck's card that set the knock limit, two_deck rules; else None), "multiplier",
         "moves": [{"seat", "action", "card" (only for take / draw discard)}]}
    """
    moves = [
        {
            "seat": e.seat, "action": str(e.action),
            "card": card_name(e.card) if e.card is not None and e.action.kind in _PUBLIC_DRAWS else None,
        }
        for e in hand.history
    ]
    upcard, taken = hand.upcard, hand.taken_card
    return {
        "number": number,
        "dealer": hand.dealer,
        "phase": hand.phase.value,
        "to_act": hand.current_player,
        "card_counts": [len(hand.hands[0]), len(hand.hands[1])],
        "known": [card_names(sorted(k)) for k in hand.known],
        "discard_pile": card_names(hand.discard_pile),
        "upcard": None if upcard is None else card_name(upcard),
        "first_upcard": None if hand.first_upcard is None else card_name(hand.first_upcard),
        "taken_card": None if taken is None else card_name(taken),
        "stock_count": hand.stock_size,
        "knock_limit": hand.knock_limit,
        "limit_card": None if hand.limit_card is None else card_name(hand.limit_card),
        "multiplier": hand.multiplier,
        "moves": moves,
    }


def concealed_cards(hand: HandState) -> set[str]:
    """The names of every card a spectator must not see while ``hand`` is in play: the stock and each
    player's cards not taken from the discard pile (for tests and audits)."""
    known = {c for k in hand.known for c in k}
    held = {c for h in hand.hands for c in h if c not in known}
    return set(card_names(sorted(held | set(hand.stock))))
