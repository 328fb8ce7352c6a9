"""The opponent's concealed cards as a posterior (level 5): Bayes over the unseen cards, given what the
opponent did this hand, under a model of how it plays.

**Prior.** Every set of ``hidden`` cards out of the *unknown* ones (not in our hand, not in the discard
pile, not known to be held by the opponent) is equally likely, as the deal and the stock make them.

**Evidence.** Each of the opponent's upcard decisions and discards, replayed from the view's public
history (:func:`observations`), is tested against the simple player (rules.md's glossary; the EAAI
challenge's ``SimpleGinRummyPlayer``, our level 3): it *takes* an upcard only when the card makes a
meld with its hand; it *declines* one (passes, or draws from the stock while a card lies face up) only
when the card makes none; it *discards* a card that is in no meld of its hand, and the one that leaves
the least deadwood, so it keeps no unmelded card worth more than the one it threw. People and the other
levels follow this loosely, so every test is soft: a hand that fails one keeps ``miss`` of its weight
(the noise of the policy) instead of none.

**When.** An observation is about the opponent's hand *at that moment*. Part of that hand is known (the
cards it had taken from the pile and not yet discarded); each concealed card of now was either held
then or drawn from the stock since, and is taken to have been held then with chance ``held = 1 - f``,
``f = min(1, RENEW * later stock draws / hidden)`` (most drawn cards are thrown again at once), each
card independently.

**Likelihood** of a concealed set ``S`` (:func:`likelihood`), a product over observations about a card
``c``. Let ``r`` run over the meld-partner pairs of ``c`` (two more of its rank; two suit neighbours
making three in a row, ace low) with the known cards taken out, keeping those made of unknown cards
only; ``r`` is *present* when ``r`` is in ``S``, and was held then with chance ``q_r = held ** |r|``;
``none = prod(1 - q_r for present r)`` is the chance that ``c`` made no meld then.

- take: ``miss + (1 - miss) * (1 - none)`` (1 when the known cards alone make the meld);
- decline or discard: ``miss + (1 - miss) * none``;
- discard, also: for each card of ``S`` worth more than ``c`` (rules.md card values) and in no meld of
  ``S`` plus the known cards: ``miss + (1 - miss) * (1 - held)``;
- decline, also the same as a discard. The policy does not imply it (a card passed says nothing about
  the others), but a simple player's hand stays low, and this reading of its passes brings the sampled
  hands nearer the true one: ``python scripts/bench_posterior.py --seed 3`` (and ``--seed 4``), 30
  hands between simple players each: 4.13 (3.97) cards of 10 in common with the true hand on average,
  4.08 (3.92) without it, 3.96 (3.83) with the tracker's weights, 3.31 (3.17) uniform.

**Sampling** (:func:`sample_posterior`): a Metropolis chain (Metropolis et al. 1953) over concealed sets
whose move swaps one concealed card for one unknown card outside (a symmetric proposal), accepted with
chance ``min(1, L(S') / L(S))``; its stationary distribution is the exact posterior, which the tests
check by enumerating small cases. Every hand it returns is the known cards plus ``hidden`` unknown
cards: a card the table has shown elsewhere (our hand, the discard pile) is never dealt to it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from engine.actions import ActionKind
from engine.bots.common import RUN_PARTNERS, SAME_RANK, mask_of
from engine.cards import Card, CardMask, card_value

if TYPE_CHECKING:
    from engine.view import PlayerView

MISS = 0.03
"""Share of its weight a hand keeps when it fails one test (the policy model's noise)."""
RENEW = 0.25
"""Share of the opponent's later stock draws taken to be still concealed (the rest thrown again)."""
STEPS = 1000
"""Metropolis steps per decision after the burn-in (level 5: one sample every ``STEPS // count``)."""
BURN_IN = 200
"""Metropolis steps discarded before the first sample."""

Kind = Literal["take", "decline", "discard"]


def _set_pairs(card: Card) -> tuple[CardMask, ...]:
    others = [c for c in range(52) if SAME_RANK[card] >> c & 1]
    return tuple((1 << a) | (1 << b) for i, a in enumerate(others) for b in others[i + 1:])


PARTNERS: tuple[tuple[CardMask, ...], ...] = tuple(_set_pairs(c) + RUN_PARTNERS[c] for c in range(52))
"""Card -> every pair of cards making a three-card meld with it (three set pairs, up to three run
windows). A card is in a meld of a hand exactly when one of its pairs is in the hand."""

_HIGHER: tuple[CardMask, ...] = tuple(
    sum(1 << c for c in range(52) if card_value(c) > card_value(card)) for card in range(52)
)
"""Card -> mask of the cards worth more points (rules.md: ace 1, pips, faces 10)."""


@dataclass(frozen=True, slots=True)
class Observation:
    """One decision of the opponent about ``card`` (``kind``: it took, declined or discarded it);
    ``known``: the other cards it held for certain then (mask); ``later_draws``: its stock draws
    after it."""

    kind: Kind
    card: Card
    known: CardMask
    later_draws: int


def observations(view: PlayerView) -> list[Observation]:
    """The opponent's upcard decisions and discards of this hand, replayed from ``view.history``
    (public actions only), in order."""
    me = view.player
    pile: list[Card] = [] if view.first_upcard is None else [view.first_upcard]
    held = 0  # the opponent's cards known held: taken from the pile, not discarded since
    seen: list[tuple[Kind, Card, CardMask, int]] = []
    draws = 0
    for event in view.history:
        kind = event.action.kind
        mine = event.seat == me
        if kind in (ActionKind.TAKE_UPCARD, ActionKind.DRAW_DISCARD):
            card = pile.pop() if pile else event.card
            if not mine and card is not None:
                seen.append(("take", card, held, draws))
                held |= 1 << card
        elif kind is ActionKind.PASS or kind is ActionKind.DRAW_STOCK:
            if not mine:
                if pile:
                    seen.append(("decline", pile[-1], held, draws))
                if kind is ActionKind.DRAW_STOCK:
                    draws += 1
        elif kind in (ActionKind.DISCARD, ActionKind.KNOCK):
            card = event.action.card
            assert card is not None
            pile.append(card)
            if not mine:
                held &= ~(1 << card)
                seen.append(("discard", card, held, draws))
    return [Observation(kind, card, known, draws - before) for kind, card, known, before in seen]


@dataclass(frozen=True, slots=True)
class Test:
    """An :class:`Observation` compiled for one unknown set (module docstring): ``meld`` (the card
    made a meld: a take), ``parts``: (concealed cards needed, chance they were all held then) of each
    partner pair; for a discard or a decline, ``higher``: the unknown cards worth more than it, ``known`` the
    cards known held then and ``held`` the chance a concealed card was held then."""

    meld: bool
    parts: tuple[tuple[CardMask, float], ...]
    higher: CardMask = 0
    known: CardMask = 0
    held: float = 0.0


def compile_tests(obs: Sequence[Observation], unknown: CardMask, hidden: int,
                  renew: float = RENEW) -> list[Test]:
    """The :class:`Test` of each observation that can tell concealed sets apart (those answering the
    same for every set only scale the posterior and are left out)."""
    tests: list[Test] = []
    for o in obs:
        f = min(1.0, renew * o.later_draws / hidden) if hidden else 1.0
        held = 1.0 - f
        parts: list[tuple[CardMask, float]] = []
        for pair in PARTNERS[o.card]:
            need = pair & ~o.known
            if need == 0:
                parts = []  # the known cards make the meld whatever is concealed
                break
            if need & ~unknown == 0 and held > 0.0:  # else a card of the pair is elsewhere
                parts.append((need, held ** need.bit_count()))
        higher = _HIGHER[o.card] & unknown if o.kind != "take" and held > 0.0 else 0
        if parts or higher:
            tests.append(Test(o.kind == "take", tuple(parts), higher, o.known, held))
    return tests


def likelihood(tests: Sequence[Test], concealed: CardMask, miss: float = MISS) -> float:
    """``P(observations | concealed)`` up to a factor shared by every concealed set (module
    docstring): the product of each test's soft answers."""
    weight = 1.0
    keep = 1.0 - miss
    partners = PARTNERS
    for test in tests:
        parts = test.parts
        if parts:
            none = 1.0
            for need, q in parts:
                if concealed & need == need:
                    none *= 1.0 - q
            weight *= miss + keep * ((1.0 - none) if test.meld else none)
        higher = concealed & test.higher
        if higher:
            hand = concealed | test.known
            fail = miss + keep * (1.0 - test.held)
            while higher:
                low = higher & -higher
                higher ^= low
                for pair in partners[low.bit_length() - 1]:
                    if hand & pair == pair:
                        break
                else:  # an unmelded card worth more than the discard
                    weight *= fail
    return weight


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the sampler needs from a view: the ``unknown`` cards (ascending), how many the opponent
    conceals (``hidden``), its ``known`` cards (mask) and the compiled ``tests``."""

    unknown: tuple[Card, ...]
    hidden: int
    known: CardMask
    tests: tuple[Test, ...]


def read_evidence(view: PlayerView, renew: float = RENEW) -> Evidence:
    """The :class:`Evidence` of ``view`` (public information only)."""
    known = mask_of(view.opponent_known)
    seen = mask_of(view.hand) | mask_of(view.discard_pile) | known
    unknown = tuple(c for c in range(52) if not seen >> c & 1)
    hidden = min(len(unknown), max(0, view.opponent_hand_size - len(view.opponent_known)))
    tests = compile_tests(observations(view), mask_of(unknown), hidden, renew)
    return Evidence(unknown, hidden, known, tuple(tests))


def sample_posterior(evidence: Evidence, count: int, rng: random.Random, steps: int = STEPS,
                     burn_in: int = BURN_IN, miss: float = MISS) -> list[CardMask]:
    """``count`` opponent hands (masks: the known cards plus ``hidden`` unknown ones) from the
    posterior: a Metropolis chain started at a uniform concealed set, ``burn_in`` steps dropped,
    then one sample every ``max(1, steps // count)`` steps. Without tests (nothing to tell sets
    apart) the hands are independent uniform draws.

    :raises ValueError: ``count`` < 0.
    """
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    unknown, hidden, known, tests = evidence.unknown, evidence.hidden, evidence.known, evidence.tests
    if not tests or hidden == 0 or hidden == len(unknown):
        return [known | mask_of(rng.sample(unknown, hidden)) for _ in range(count)]
    inside = rng.sample(unknown, hidden)
    chosen = set(inside)
    outside = [c for c in unknown if c not in chosen]
    mask = mask_of(inside)
    weight = likelihood(tests, mask, miss)
    every = max(1, steps // max(1, count))
    rand, randrange = rng.random, rng.randrange
    out: list[CardMask] = []
    step = -burn_in
    while len(out) < count:
        i, j = randrange(hidden), randrange(len(outside))
        a, b = inside[i], outside[j]
        new = mask ^ (1 << a) ^ (1 << b)
        new_weight = likelihood(tests, new, miss)
        if new_weight >= weight or rand() * weight < new_weight:
            inside[i], outside[j] = b, a
            mask, weight = new, new_weight
        step += 1
        if step > 0 and step % every == 0:
            out.append(known | mask)
    return out
