"""The posterior over the opponent's concealed cards (engine.bots.posterior, issue 28): what it reads from
the history, its likelihood on worked examples, a sampler that matches the exact posterior on small
cases enumerated by brute force, and hands that never hold a card the table has shown elsewhere."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from engine.bots import make_bot
from engine.bots.common import mask_of
from engine.bots.posterior import (
    MISS,
    Evidence,
    Observation,
    compile_tests,
    likelihood,
    observations,
    read_evidence,
    sample_posterior,
)
from engine.cards import parse_card, parse_cards
from engine.deck import shuffled_deck
from engine.hand import HandState
from engine.rules import PRESETS, preset
from tests.engine.dealing import make_deck

CLASSIC = preset("classic")
ND = "7h 8h Kc Qd Js 2c 5d 3s 9c 4h"
DE = "Ac 2d 3h 4s 6c 6d Th Jc Qh Ks"


def m(cards: str) -> int:
    return mask_of(parse_cards(cards))


def played(upcard: str, actions: tuple[str, ...], stock: str = "") -> HandState:
    state = HandState(CLASSIC, 0, make_deck(ND, DE, upcard, stock))
    for text in actions:
        state.apply(text)
    return state


def test_observations_read_declines_draws_and_discards() -> None:
    # seat 1 passes Kh, seat 0 (the opponent, seen from seat 1) passes it too, seat 1 draws and throws
    # 4h, seat 0 draws from the stock (declining 4h) and throws Ks
    state = played("Kh", ("pass", "pass", "draw stock", "discard 4h", "draw stock", "discard Ks"), "5c 9d")
    assert observations(state.view(1)) == [
        Observation("decline", parse_card("Kh"), 0, 1),  # one stock draw came after it
        Observation("decline", parse_card("4h"), 0, 1),  # the draw that declined it came after it
        Observation("discard", parse_card("Ks"), 0, 0),
    ]


def test_observations_read_a_take_and_the_card_then_known() -> None:
    state = played("9h", ("pass", "take", "discard Ks"))
    assert observations(state.view(1)) == [
        Observation("take", parse_card("9h"), 0, 0),
        Observation("discard", parse_card("Ks"), m("9h"), 0),  # it held 9h for certain then
    ]
    # seat 0's own actions are not evidence about seat 1
    assert observations(state.view(0)) == [Observation("decline", parse_card("9h"), 0, 0)]


def test_likelihood_worked_example() -> None:
    # the opponent passed 7s with nothing known; it conceals 3 cards, no draw since (held = 1)
    unknown = m("5s 6s 8s 9s 7c 7d 2h 3d")
    tests = compile_tests([Observation("decline", parse_card("7s"), 0, 0)], unknown, 3)
    # 6s 8s make a run with 7s: the pass says no; 8s (worth 8 > 7) is in no meld of the hand: a
    # simple player's hand stays low. Two failed tests: miss * miss.
    assert likelihood(tests, m("6s 8s 2h")) == pytest.approx(MISS * MISS)
    # 7c 7d make a set with 7s (one failed test); 2h 3d are low and unmelded
    assert likelihood(tests, m("7c 7d 2h")) == pytest.approx(MISS)
    assert likelihood(tests, m("2h 3d 5s")) == pytest.approx(1.0)
    # 8s 9s 7c: 8s 9s make a run with 7s (a miss), and 8s, 9s, worth more, are unmelded (two more)
    assert likelihood(tests, m("8s 9s 7c")) == pytest.approx(MISS**3)


def test_likelihood_softens_with_later_draws() -> None:
    # two stock draws since, 4 concealed: each concealed card was held then with chance
    # 1 - 0.25 * 2 / 4 = 0.875; the pair 6s 8s with chance 0.875 ** 2
    unknown = m("5s 6s 8s 9s 7c 7d 2h 3d")
    tests = compile_tests([Observation("decline", parse_card("7s"), 0, 2)], unknown, 4)
    held = 0.875
    none = 1 - held**2
    high = MISS + (1 - MISS) * (1 - held)  # 8s, unmelded, worth more than 7s
    assert likelihood(tests, m("6s 8s 2h 3d")) == pytest.approx((MISS + (1 - MISS) * none) * high)


def test_a_take_wants_the_meld_and_known_cards_settle_it() -> None:
    unknown = m("7c 7d 2h 3d Ks")
    take = Observation("take", parse_card("7h"), 0, 0)
    tests = compile_tests([take], unknown, 2)
    assert likelihood(tests, m("7c 7d")) == pytest.approx(1.0)
    assert likelihood(tests, m("2h 3d")) == pytest.approx(MISS)
    # it already held 7s 7c for certain: the take is explained whatever it conceals
    assert compile_tests([Observation("take", parse_card("7h"), m("7s 7c"), 0)], unknown, 2) == []


def exact_posterior(evidence: Evidence, miss: float) -> dict[int, float]:
    weights = {mask_of(s): likelihood(evidence.tests, mask_of(s), miss)
               for s in itertools.combinations(evidence.unknown, evidence.hidden)}
    total = sum(weights.values())
    return {s: w / total for s, w in weights.items()}


@pytest.mark.parametrize(("case", "miss"), [(0, 0.2), (1, 0.05), (2, 0.3)])
def test_the_sampler_follows_the_exact_posterior(case: int, miss: float) -> None:
    """Brute force: every concealed set of a small unknown set enumerated and weighted by the
    likelihood; the chain's frequencies agree with that distribution (total variation < 0.03, every
    set within 0.012) and never leave its support."""
    unknown = [
        parse_cards("5s 6s 8s 9s 7c 7d 2h Kh"),
        parse_cards("Ac 2c 3c 4c Ad As 9h Th"),
        parse_cards("Jd Qd Kd Jc Js 5h 6h 7h 8c"),
    ][case]
    obs = [
        [Observation("decline", parse_card("7s"), 0, 0), Observation("take", parse_card("7h"), 0, 1),
         Observation("discard", parse_card("6h"), 0, 2)],
        [Observation("take", parse_card("Ah"), 0, 0), Observation("discard", parse_card("5c"), m("Ah"), 0),
         Observation("decline", parse_card("8h"), 0, 1)],
        [Observation("discard", parse_card("Jh"), 0, 3), Observation("decline", parse_card("4h"), 0, 1),
         Observation("take", parse_card("Kc"), 0, 0)],
    ][case]
    hidden = 3
    known = m("Qc") if case == 2 else 0
    tests = compile_tests(obs, mask_of(unknown), hidden)
    assert tests, "the case must tell sets apart"
    evidence = Evidence(tuple(sorted(unknown)), hidden, known, tuple(tests))
    exact = exact_posterior(evidence, miss)
    n = 30_000
    draws = sample_posterior(evidence, n, random.Random(case), steps=3 * n, burn_in=500, miss=miss)
    assert all(d & known == known and (d & ~known).bit_count() == hidden for d in draws)
    freq = Counter(d & ~known for d in draws)
    assert set(freq) <= set(exact)
    tv = sum(abs(freq[s] / n - p) for s, p in exact.items()) / 2
    assert tv < 0.03
    assert max(abs(freq[s] / n - p) for s, p in exact.items()) < 0.012
    # and the posterior is far from uniform here: the test would notice a sampler ignoring it
    uniform = 1 / len(exact)
    assert sum(abs(p - uniform) for p in exact.values()) / 2 > 0.1


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_samples_never_hold_a_card_shown_elsewhere(name: str) -> None:
    """Seeded hands between a level-3 and a level-2 bot under every preset: at each of seat 0's
    decisions, every sampled opponent hand holds the cards the opponent is known to hold, the right
    number of cards, and none of seat 0's cards or of the discard pile."""
    rules = preset(name)
    rng = random.Random(name)
    checked = 0
    for hand_no in range(6):
        state = HandState(rules, hand_no % 2, shuffled_deck(rng),
                          limit_card=rng.randrange(52) if rules.knock_limit_from_second_deck else None)
        bots = (make_bot(3, seed=hand_no), make_bot(2, seed=hand_no))
        while not state.is_over:
            seat = state.current_player
            assert seat is not None
            view = state.view(seat)
            if seat == 0:
                evidence = read_evidence(view)
                shown = mask_of(view.hand) | mask_of(view.discard_pile)
                known = mask_of(view.opponent_known)
                for hand in sample_posterior(evidence, 20, random.Random(checked)):
                    assert hand & shown == 0
                    assert hand & known == known
                    assert hand.bit_count() == view.opponent_hand_size
                    assert hand & ~state.hand_mask(1) & ~mask_of(evidence.unknown) == 0
                checked += 1
            state.apply(bots[seat].choose(view), seat)
    assert checked >= 20


def test_no_evidence_gives_uniform_draws_and_counts_are_checked() -> None:
    evidence = Evidence(tuple(parse_cards("2c 3c 4c 5c")), 2, 0, ())
    draws = sample_posterior(evidence, 6000, random.Random(5))
    freq = Counter(draws)
    assert len(freq) == 6 and all(abs(c / 6000 - 1 / 6) < 0.02 for c in freq.values())
    assert sample_posterior(evidence, 0, random.Random(5)) == []
    with pytest.raises(ValueError, match="count must be >= 0"):
        sample_posterior(evidence, -1, random.Random(5))
