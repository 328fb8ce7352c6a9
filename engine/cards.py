"""Cards, card sets and poker notation.

A card is a small ``int`` in ``0..51``: ``suit * 13 + rank`` with ranks ``0..12`` for ``A 2 .. T J Q K``
and suits ``0..3`` for clubs, diamonds, hearts, spades (``c d h s``). A set of cards is also an ``int``
bitmask (bit ``card``), so the 13 cards of one suit are one contiguous 13-bit field:
``(mask >> (13 * suit)) & 0x1FFF``. Notation is poker notation (rules.md, "Card notation"): rank
``A23456789TJQK`` then suit ``cdhs``; input also accepts ``10`` for ``T`` and any case.

>>> parse_card("10h") == parse_card("TH")
True
>>> card_name(parse_card("td"))
'Td'
>>> format_cards(parse_cards("As 7h Td"))
'As 7h Td'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

from engine.errors import DuplicateCardError, InvalidCardError

Card: TypeAlias = int
"""A card, ``0..51`` (``suit * 13 + rank``)."""

CardMask: TypeAlias = int
"""A set of cards as a 52-bit mask (bit ``card`` set when the card is present)."""

RANKS = "A23456789TJQK"
SUITS = "cdhs"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
ACE, JACK, QUEEN, KING = 0, 10, 11, 12
SUIT_MASK = 0x1FFF
FULL_DECK: CardMask = (1 << 52) - 1
ALL_CARDS: tuple[Card, ...] = tuple(range(52))

_VALUES: tuple[int, ...] = tuple(min(c % 13 + 1, 10) for c in range(52))
_NAMES: tuple[str, ...] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(52))
_BY_NAME: dict[str, Card] = {name.lower(): c for c, name in enumerate(_NAMES)}
_BY_NAME.update({"10" + SUITS[c // 13]: c for c in range(52) if c % 13 == 9})


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0 = ace .. 12 = king) and ``suit`` (0..3 = c d h s).

    :raises InvalidCardError: rank or suit out of range.
    """
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise InvalidCardError(f"no card with rank {rank} and suit {suit}")
    return suit * 13 + rank


def card_rank(card: Card) -> int:
    """Rank index of ``card``: 0 = ace .. 12 = king."""
    return card % 13


def card_suit(card: Card) -> int:
    """Suit index of ``card``: 0..3 = clubs, diamonds, hearts, spades."""
    return card // 13


def card_value(card: Card) -> int:
    """Deadwood points of ``card`` (rules.md, "Card values"): A = 1, 2-9 face value, T J Q K = 10."""
    return _VALUES[card]


def card_name(card: Card) -> str:
    """Canonical poker notation of ``card`` (``"Td"``).

    :raises InvalidCardError: ``card`` is not in ``0..51``.
    """
    if not (isinstance(card, int) and 0 <= card < 52):
        raise InvalidCardError(f"not a card: {card!r}")
    return _NAMES[card]


def parse_card(token: str) -> Card:
    """Parse one card in poker notation, any case, ``10`` allowed for ``T``.

    :raises InvalidCardError: the token is not a card; the message names the token.
    """
    if not isinstance(token, str):
        raise InvalidCardError(f"not a card: {token!r} (expected a string such as 'As')")
    card = _BY_NAME.get(token.strip().lower())
    if card is None:
        raise InvalidCardError(f"not a card: {token!r} (expected rank A23456789TJQK + suit cdhs)")
    return card


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse distinct cards from a whitespace/comma separated string or an iterable of tokens.

    >>> [card_name(c) for c in parse_cards("As, 10d 7H")]
    ['As', 'Td', '7h']

    :raises InvalidCardError: a token is not a card (named in the message).
    :raises DuplicateCardError: a card appears twice (named in the message).
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards: list[Card] = []
    seen = 0
    for token in tokens:
        card = parse_card(token)
        if seen >> card & 1:
            raise DuplicateCardError(f"duplicate card: {token!r}")
        seen |= 1 << card
        cards.append(card)
    return cards


def format_cards(cards: Iterable[Card]) -> str:
    """Space-separated canonical notation, in the given order."""
    return " ".join(card_name(c) for c in cards)


def card_names(cards: Iterable[Card]) -> list[str]:
    """Canonical notation of each card, in the given order (for JSON)."""
    return [card_name(c) for c in cards]


def to_mask(cards: Iterable[Card]) -> CardMask:
    """Bitmask of ``cards``.

    :raises DuplicateCardError: a card appears twice.
    :raises InvalidCardError: a value is not a card.
    """
    mask = 0
    for card in cards:
        if not (isinstance(card, int) and 0 <= card < 52):
            raise InvalidCardError(f"not a card: {card!r}")
        bit = 1 << card
        if mask & bit:
            raise DuplicateCardError(f"duplicate card: {card_name(card)!r}")
        mask |= bit
    return mask


def from_mask(mask: CardMask) -> list[Card]:
    """Cards of ``mask`` in ascending order (clubs A..K, then diamonds, hearts, spades)."""
    cards: list[Card] = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def mask_value(mask: CardMask) -> int:
    """Sum of the deadwood values of the cards in ``mask``."""
    return sum(_VALUES[c] for c in from_mask(mask))


def sort_by_suit(cards: Iterable[Card]) -> list[Card]:
    """Cards ordered by suit (c d h s), then rank: the UI's "sort by suit"."""
    return sorted(cards)


def sort_by_rank(cards: Iterable[Card]) -> list[Card]:
    """Cards ordered by rank (A..K), then suit: the UI's "sort by rank"."""
    return sorted(cards, key=lambda c: (c % 13, c // 13))
