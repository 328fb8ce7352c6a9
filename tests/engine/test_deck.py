"""Deck: secure and seeded shuffles, commitments (rules.md "One hand", point 1)."""

import hashlib
import random

import pytest

from engine.cards import format_cards
from engine.deck import (
    deck_commitment,
    new_salt,
    seeded_deck,
    shuffled_deck,
    sub_seed,
    validate_deck,
    verify_commitment,
)
from engine.errors import DuplicateCardError, InvalidCardError


def test_shuffled_deck_is_a_permutation_of_52() -> None:
    deck = shuffled_deck()
    assert sorted(deck) == list(range(52))
    assert sorted(shuffled_deck(random.Random(1))) == list(range(52))


def test_seeded_deck_is_reproducible_and_seed_dependent() -> None:
    assert seeded_deck(7) == seeded_deck(7)
    assert seeded_deck(7) != seeded_deck(8)
    assert seeded_deck(7) == shuffled_deck(random.Random(7))
    with pytest.raises(TypeError):
        seeded_deck("7")  # type: ignore[arg-type]


def test_sub_seed_is_the_documented_digest_and_names_independent_streams() -> None:
    digest = hashlib.sha256(b"7/deal/3").digest()
    assert sub_seed(7, "deal", 3) == int.from_bytes(digest[:8], "big") >> 1
    assert sub_seed(7) == int.from_bytes(hashlib.sha256(b"7").digest()[:8], "big") >> 1
    seeds = {sub_seed(seed, kind, n) for seed in (0, 1, 2**62) for kind in ("deal", "bot") for n in range(50)}
    assert len(seeds) == 300 and all(0 <= s < 2**63 for s in seeds)
    with pytest.raises(TypeError):
        sub_seed("7")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sub_seed(7, 1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sub_seed(7, True)


def test_commitment_is_sha256_of_the_documented_string() -> None:
    deck = seeded_deck(3)
    expected = hashlib.sha256(("salty:" + format_cards(deck)).encode()).hexdigest()
    assert deck_commitment(deck, "salty") == expected
    assert len(expected) == 64
    assert verify_commitment(deck, "salty", expected)
    assert verify_commitment(deck, "salty", expected.upper())
    assert not verify_commitment(deck, "other", expected)
    swapped = [deck[1], deck[0], *deck[2:]]
    assert not verify_commitment(swapped, "salty", expected)


def test_new_salt_is_fresh_hex() -> None:
    a, b = new_salt(), new_salt()
    assert a != b and len(a) == 32 and int(a, 16) >= 0


def test_bad_decks_are_rejected() -> None:
    with pytest.raises(InvalidCardError, match="52"):
        validate_deck(list(range(51)))
    with pytest.raises(DuplicateCardError):
        deck_commitment([0, *range(51)], "s")
    with pytest.raises(InvalidCardError):
        deck_commitment([*range(51), 52], "s")
