"""The deck: secure and seeded shuffles, and commitments to a deck order.

A deck is a ``list[Card]`` of the 52 cards in dealing order (see ``docs/engine.md``, "Dealing
convention"). Live play shuffles with :func:`shuffled_deck` (``secrets.SystemRandom``, rules.md "One
hand", point 1); tests and simulations use :func:`seeded_deck` (a simulation's seeds derived by
:func:`sub_seed`). The whole order is recorded so a hand can be rebuilt exactly; :func:`deck_commitment`
lets the platform publish a hash of the order before play and reveal ``salt`` and order afterwards.

Commitment format (fixed; verifiers depend on it): the SHA-256 hex digest of the UTF-8 string
``"<salt>:" + " ".join(card names in deck order)``, e.g. ``"ab12:7h As ... Kc"``.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Sequence

from engine.cards import ALL_CARDS, Card, format_cards, to_mask
from engine.errors import InvalidCardError

DECK_SIZE = 52


def shuffled_deck(rng: random.Random | None = None) -> list[Card]:
    """A uniformly shuffled 52-card deck.

    :param rng: the random source; ``None`` (live play) uses ``secrets.SystemRandom``.
    """
    deck = list(ALL_CARDS)
    (rng if rng is not None else secrets.SystemRandom()).shuffle(deck)
    return deck


def seeded_deck(seed: int) -> list[Card]:
    """A deck shuffled by ``random.Random(seed)``: the same seed always gives the same order.

    :raises TypeError: ``seed`` is not an ``int``.
    """
    if type(seed) is not int:
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    return shuffled_deck(random.Random(seed))


def sub_seed(seed: int, *path: int | str) -> int:
    """A seed in ``0 .. 2**63 - 1`` derived from ``seed`` and ``path`` (the first 8 bytes of the
    SHA-256 of ``"<seed>/<part>/<part>..."``): independent, named streams of one seeded simulation
    (a tournament's matches, a match's deals and its bots' choices), the same on every run, process and
    platform (no ``hash()``: string hashing is randomized per process).

    :raises TypeError: ``seed`` is not an ``int``, or a part of ``path`` is neither ``int`` nor ``str``.
    """
    if type(seed) is not int:
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    for part in path:
        if type(part) not in (int, str):
            raise TypeError(f"seed path parts must be int or str, got {type(part).__name__}")
    text = "/".join(str(part) for part in (seed, *path))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def new_salt() -> str:
    """A fresh random salt for :func:`deck_commitment`: 32 hex digits (128 bits)."""
    return secrets.token_hex(16)


def validate_deck(deck: Sequence[Card]) -> None:
    """Check that ``deck`` holds each of the 52 cards exactly once.

    :raises InvalidCardError: not 52 cards, or a value that is not a card.
    :raises DuplicateCardError: a card appears twice.
    """
    if len(deck) != DECK_SIZE:
        raise InvalidCardError(f"a deck has {DECK_SIZE} cards, got {len(deck)}")
    to_mask(deck)


def deck_commitment(deck: Sequence[Card], salt: str) -> str:
    """SHA-256 hex digest (64 lowercase hex digits) of ``"<salt>:" + "<card names in order>"``.

    :raises InvalidCardError: ``deck`` is not the 52 distinct cards.
    :raises DuplicateCardError: a card appears twice.
    :raises TypeError: ``salt`` is not a string.
    """
    if not isinstance(salt, str):
        raise TypeError(f"salt must be a string, got {type(salt).__name__}")
    validate_deck(deck)
    return hashlib.sha256(f"{salt}:{format_cards(deck)}".encode()).hexdigest()


def verify_commitment(deck: Sequence[Card], salt: str, commitment: str) -> bool:
    """Whether ``commitment`` is :func:`deck_commitment` of ``deck`` and ``salt`` (constant time).

    :raises InvalidCardError: ``deck`` is not the 52 distinct cards.
    """
    return hmac.compare_digest(deck_commitment(deck, salt), commitment.lower())
