"""``engine.knock_points.knock_points`` is ``score_knock``'s number, exactly: cross-checked on many seeded
knocks (meld-heavy hands, every preset's tie and undercut rules, knock limits 1..10, multipliers 1
and 2), and worked examples with layoffs and undercuts."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.bots.common import mask_of
from engine.cards import from_mask, parse_cards
from engine.knock_points import knock_points
from engine.melds import deadwood_of_mask
from engine.rules import PRESETS, RuleSet, preset
from engine.scoring import score_knock

CLASSIC = preset("classic")


def signed(knocker: int, defender: int, rules: RuleSet, limit: int, multiplier: int) -> int:
    result = score_knock(from_mask(knocker), from_mask(defender), rules, knock_limit=limit,
                         multiplier=multiplier)
    return result.points if result.winner == 0 else -result.points


def meldy(rng: random.Random, taken: int, n: int) -> int:
    """``n`` cards not in ``taken``, built mostly from runs and sets (so knocks and layoffs abound)."""
    mask = 0
    while mask.bit_count() < n:
        room = n - mask.bit_count()
        kind = rng.random()
        if kind < 0.4 and room >= 3:
            suit, lo = rng.randrange(4), rng.randrange(11)
            cards = [13 * suit + r for r in range(lo, min(13, lo + rng.randint(3, min(room, 6))))]
        elif kind < 0.7 and room >= 3:
            rank = rng.randrange(13)
            cards = [13 * s + rank for s in rng.sample(range(4), rng.choice((3, 4) if room >= 4 else (3,)))]
        else:
            cards = [rng.randrange(52)]
        for c in cards:
            if not (taken | mask) >> c & 1 and mask.bit_count() < n:
                mask |= 1 << c
    return mask


RULES = [*(PRESETS[name] for name in sorted(PRESETS)),
         dataclasses.replace(CLASSIC, tie_goes_to="knocker"),
         dataclasses.replace(CLASSIC, undercut_gin_bonus=True, undercut_bonus=10)]


@pytest.mark.parametrize("seed", range(4))
def test_equals_score_knock_on_many_knocks(seed: int) -> None:
    rng = random.Random(seed)
    checked = gins = undercuts = layoffs = 0
    while checked < 1500:
        knocker = meldy(rng, 0, 10)
        least = deadwood_of_mask(knocker)
        if least > 10:
            continue
        limit = rng.choice((10, 10, 10, rng.randint(max(1, least), 10)))
        defender = meldy(rng, knocker, 10) if rng.random() < 0.7 else mask_of(
            rng.sample([c for c in range(52) if not knocker >> c & 1], 10))
        rules = rng.choice(RULES)
        multiplier = rng.choice((1, 2))
        expected = signed(knocker, defender, rules, limit, multiplier)
        assert knock_points(knocker, defender, rules, limit, multiplier) == expected, (
            from_mask(knocker), from_mask(defender), rules.name, limit, multiplier)
        checked += 1
        gins += least == 0
        undercuts += expected < 0
        layoffs += deadwood_of_mask(defender) != score_knock(
            from_mask(knocker), from_mask(defender), rules, knock_limit=limit).defender_deadwood
    # the sample really exercises every branch
    assert gins > 50 and undercuts > 50 and layoffs > 50, (gins, undercuts, layoffs)


def test_worked_examples() -> None:
    # A knock with the run 7s-9s and the set 8c 8d 8h, deadwood Ac 2d 3h 4c = 10.
    knocker = mask_of(parse_cards("7s 8s 9s 8c 8d 8h Ac 2d 3h 4c"))
    assert deadwood_of_mask(knocker) == 10
    defender = mask_of(parse_cards("6s Ts Js 2c 2h Kc Qd 5d 9h 4d"))
    # without layoffs 6+10+10+2+2+10+10+5+9+4 = 68; 6s, Ts, Js laid on the run: 42
    assert knock_points(knocker, defender, CLASSIC, 10, 1) == 42 - 10
    assert knock_points(knocker, defender, CLASSIC, 10, 2) == 2 * (42 - 10)
    # gin: 25 + the defender's whole count (no layoffs)
    gin = mask_of(parse_cards("7s 8s 9s 8c 8d 8h Ac 2c 3c 4c"))
    assert knock_points(gin, defender, CLASSIC, 10, 1) == 25 + 68
    # undercut: the defender's As (1) beats the knocker's 10: 10 - 1 + the 25 bonus to the defender
    low = mask_of(parse_cards("4h 5h 6h Kh Kc Kd 5s 5d 5c As"))
    assert knock_points(knocker, low, CLASSIC, 10, 1) == -(10 - 1 + 25)
    with pytest.raises(ValueError, match="over the knock limit 5"):
        knock_points(knocker, defender, CLASSIC, 5, 1)
    # big gin (11 cards): its bonus (rules.effective_big_gin_bonus) plus the defender's count
    big = mask_of(parse_cards("Ac Ad Ah 7s 8s 9s 3c 4c 5c 6c 7c"))
    for rules in RULES:
        assert knock_points(big, defender, rules, 10, 2) == signed(big, defender, rules, 10, 2) == 2 * (
            rules.effective_big_gin_bonus + 68)
    with pytest.raises(ValueError, match="big gin needs all 11 cards melded"):
        knock_points(knocker | 1 << 51, defender, CLASSIC, 10, 1)
