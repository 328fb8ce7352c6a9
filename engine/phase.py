"""The phases of one hand (docs/engine.md, "Phases"); shared by ``hand.py`` and ``view.py``."""

from __future__ import annotations

from enum import Enum


class Phase(Enum):
    """Where a hand stands (rules.md, "One hand", points 2-3 and 6-8).

    ``OFFER_NONDEALER`` -> ``OFFER_DEALER`` -> ``DRAW`` <-> ``DISCARD`` -> ``ENDED``; a take during
    either offer goes straight to ``DISCARD``. The value is the JSON form.
    """

    OFFER_NONDEALER = "offer_nondealer"
    """The non-dealer may take the first upcard or pass."""
    OFFER_DEALER = "offer_dealer"
    """The non-dealer passed; the dealer may take the first upcard or pass."""
    DRAW = "draw"
    """The player to act draws from the stock or the discard pile."""
    DISCARD = "discard"
    """The player to act holds 11 cards: discard, knock, or big gin."""
    ENDED = "ended"
    """The hand is over (knock, gin, big gin, undercut or dead hand); ``result`` is set."""
