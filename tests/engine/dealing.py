"""Test helpers: 52-card orders that deal chosen hands (docs/engine.md, "Dealing convention")."""

from __future__ import annotations

from engine.cards import ALL_CARDS, Card, parse_cards


def make_deck(nondealer: str, dealer: str, upcard: str, stock: str = "") -> list[Card]:
    """A deck dealing ``nondealer`` and ``dealer`` (10 cards each), first upcard ``upcard``, the stock
    starting with ``stock`` (top first) followed by every other card in ascending order."""
    nd, de, up, top = parse_cards(nondealer), parse_cards(dealer), parse_cards(upcard), parse_cards(stock)
    assert len(nd) == 10 and len(de) == 10 and len(up) == 1
    used = [*nd, *de, *up, *top]
    assert len(set(used)) == len(used), "cards repeat"
    deck: list[Card] = []
    for a, b in zip(nd, de, strict=True):
        deck += [a, b]
    deck += up + top + [c for c in ALL_CARDS if c not in set(used)]
    assert sorted(deck) == list(ALL_CARDS)
    return deck
