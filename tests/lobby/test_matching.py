"""Quick-pairing waves (lobby.matching; docs/lobby.md "Pairing"): worked examples, and the wave's pairs
checked against a brute-force enumeration of every pairing on random small waves."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lobby.matching import BAND, Waiter, pair_wave, window

START, GROWTH = 100.0, 10.0  # the default pools' window: ±100 points, +10 a second waited


def w(key: int, rating: float, waited: float = 0.0, last: int | None = None,
      user: int | None = None) -> Waiter:
    """A waiter whose user id is its key unless told."""
    return Waiter(key=key, user_id=key if user is None else user, rating=rating, waited=waited,
                  last_opponent=last)


def value(waiters: Sequence[Waiter], pairs: Sequence[tuple[int, int]]) -> tuple[int, float]:
    """(number of pairs, total rating gap) of a wave's pairs."""
    by_key = {x.key: x for x in waiters}
    return len(pairs), round(sum(abs(by_key[a].rating - by_key[b].rating) for a, b in pairs), 6)


def compatible(a: Waiter, b: Waiter, n: int, start: float, growth: float) -> bool:
    """The pairing rule restated from docs/lobby.md, independently of the module's code."""
    if a.user_id == b.user_id:
        return False
    gap = abs(a.rating - b.rating)
    if gap > start + growth * max(0.0, a.waited) or gap > start + growth * max(0.0, b.waited):
        return False
    mutual_repeat = a.last_opponent == b.user_id and b.last_opponent == a.user_id
    return not mutual_repeat or n == 2


def brute_force(waiters: Sequence[Waiter], start: float, growth: float,
                band: int | None = None) -> tuple[int, float]:
    """The best (most pairs, then least total gap) over every pairing of the waiters, by enumeration.

    With ``band``, only pairings whose pairs are at most ``band`` places apart in (rating, key) order:
    the search space of the module's dynamic programme. Waiters must have distinct users.
    """
    order = sorted(waiters, key=lambda x: (x.rating, x.key))
    place = {x.key: i for i, x in enumerate(order)}
    n = len(order)
    best = (0, 0.0)

    def walk(rest: list[Waiter], pairs: int, gap: float) -> None:
        nonlocal best
        if (pairs, -gap) > (best[0], -best[1]):
            best = (pairs, gap)
        if len(rest) < 2:
            return
        first, others = rest[0], rest[1:]
        walk(others, pairs, gap)  # the first one waits
        for i, other in enumerate(others):
            if band is not None and abs(place[first.key] - place[other.key]) > band:
                continue
            if compatible(first, other, n, start, growth):
                walk(others[:i] + others[i + 1:], pairs + 1, gap + abs(first.rating - other.rating))

    walk(list(order), 0, 0.0)
    return best[0], round(best[1], 6)


def assert_valid(waiters: Sequence[Waiter], pairs: Sequence[tuple[int, int]], start: float,
                 growth: float) -> None:
    """Every pair is allowed by the rule; no key and no user appears twice."""
    by_key = {x.key: x for x in waiters}
    keys = [k for pair in pairs for k in pair]
    assert len(keys) == len(set(keys))
    users = [by_key[k].user_id for k in keys]
    assert len(users) == len(set(users))
    n = len({x.user_id for x in waiters})
    for a, b in pairs:
        assert compatible(by_key[a], by_key[b], n, start, growth)
        assert by_key[a].rating <= by_key[b].rating


# --- the window ------------------------------------------------------------------------------------

def test_window_widens_by_growth_points_per_second() -> None:
    assert window(0, start=100, growth=10) == 100.0
    assert window(1, start=100, growth=10) == 110.0
    assert window(12.5, start=100, growth=10) == 225.0
    assert window(30, start=100, growth=10) == 400.0


def test_window_cap_and_a_negative_wait() -> None:
    assert window(60, start=100, growth=10, cap=400) == 400.0
    assert window(20, start=100, growth=10, cap=400) == 300.0
    assert window(-3, start=100, growth=10) == 100.0  # a clock read just before the join was stamped


@pytest.mark.parametrize("kwargs", [dict(start=-1, growth=10), dict(start=100, growth=-1),
                                    dict(start=100, growth=10, cap=-5)])
def test_window_refuses_negative_parameters(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        window(3, **kwargs)


def test_two_players_150_apart_meet_when_both_windows_reach_150() -> None:
    # 1500 and 1650: windows 100 at first; one waiting 10 s (window 200) is not enough while the other's
    # window is 100; after 5 s each (windows 150 both) they are paired.
    assert pair_wave([w(1, 1500, 0), w(2, 1650, 0)], start=START, growth=GROWTH) == []
    assert pair_wave([w(1, 1500, 10), w(2, 1650, 0)], start=START, growth=GROWTH) == []
    assert pair_wave([w(1, 1500, 10), w(2, 1650, 4.9)], start=START, growth=GROWTH) == []
    assert pair_wave([w(1, 1500, 5), w(2, 1650, 5)], start=START, growth=GROWTH) == [(1, 2)]


# --- the best wave ---------------------------------------------------------------------------------

def test_most_pairs_beats_the_closest_pair() -> None:
    # Closest first (1480-1500, gap 20) would leave 1400 and 1580 (180 apart, outside ±100): one pair.
    # The wave takes two pairs, gaps 80 + 80.
    waiters = [w(1, 1400), w(2, 1480), w(3, 1500), w(4, 1580)]
    pairs = pair_wave(waiters, start=START, growth=GROWTH)
    assert pairs == [(1, 2), (3, 4)]
    assert value(waiters, pairs) == (2, 160.0)


def test_least_total_gap_among_the_most_pairs() -> None:
    # Four players 50 apart, all compatible: (1400,1450)+(1500,1550) = 100 beats 200 for the others.
    waiters = [w(3, 1500), w(1, 1400), w(4, 1550), w(2, 1450)]
    assert pair_wave(waiters, start=START, growth=GROWTH) == [(1, 2), (3, 4)]


def test_first_come_does_not_matter_the_longest_waiter_is_not_served_first() -> None:
    # 1500 waited 20 s (window 300) but its best partner for the wave is not the nearest one it sees:
    # 1560 and 1620 are 60 apart, 1500 and 1440 are 60 apart: total 120; pairing 1500-1560 first would
    # leave 1440 and 1620 (180 apart, windows 100): one pair.
    waiters = [w(1, 1500, 20), w(2, 1560), w(3, 1620), w(4, 1440)]
    assert pair_wave(waiters, start=START, growth=GROWTH) == [(4, 1), (2, 3)]


def test_an_odd_player_waits_and_nobody_appears_twice() -> None:
    waiters = [w(1, 1500), w(2, 1510), w(3, 1530)]
    assert pair_wave(waiters, start=START, growth=GROWTH) == [(1, 2)]


def test_empty_and_single_waves() -> None:
    assert pair_wave([], start=START, growth=GROWTH) == []
    assert pair_wave([w(1, 1500, 100)], start=START, growth=GROWTH) == []


# --- no rematch in a row ---------------------------------------------------------------------------

def test_last_opponents_are_not_paired_again_when_others_wait() -> None:
    # 1 and 2 just played each other. Without the rule: (1,2)+(3,4), gap 10. With it: 1 and 2 meet 3 and 4.
    waiters = [w(1, 1500, 10, last=2), w(2, 1505, 10, last=1), w(3, 1600, 10), w(4, 1605, 10)]
    pairs = pair_wave(waiters, start=START, growth=GROWTH)
    assert value(waiters, pairs) == (2, 200.0)
    assert (1, 2) not in pairs and (3, 4) not in pairs


def test_last_opponents_are_paired_when_they_are_the_only_two_waiting() -> None:
    waiters = [w(1, 1500, 0, last=2), w(2, 1505, 0, last=1)]
    assert pair_wave(waiters, start=START, growth=GROWTH) == [(1, 2)]


def test_a_third_player_out_of_reach_still_counts_as_waiting() -> None:
    # Three waiting: the exception is for two only, so 1 and 2 wait for someone else.
    waiters = [w(1, 1500, 0, last=2), w(2, 1505, 0, last=1), w(3, 2500, 0)]
    assert pair_wave(waiters, start=START, growth=GROWTH) == []


def test_a_one_sided_last_opponent_is_no_rematch() -> None:
    # 1 last played 2, but 2 has played 3 since: 1 and 2 are not "the same two twice in a row".
    waiters = [w(1, 1500, 0, last=2), w(2, 1505, 0, last=3), w(4, 1900, 0)]
    assert pair_wave(waiters, start=START, growth=GROWTH) == [(1, 2)]


# --- one user, one seat ----------------------------------------------------------------------------

def test_one_user_under_two_keys_is_paired_once_under_the_longest_wait() -> None:
    waiters = [w(1, 1500, 3, user=7), w(2, 1510, 9, user=7), w(3, 1505, 0, user=8), w(4, 1495, 0, user=9)]
    pairs = pair_wave(waiters, start=START, growth=GROWTH)
    assert_valid(waiters, pairs, START, GROWTH)
    # key 2 (waited 9 s) stands for user 7: 1505-1510 (gap 5); key 1 at 1500 would have tied 1495/1505.
    assert pairs == [(3, 2)]


def test_a_user_is_never_paired_with_themself() -> None:
    assert pair_wave([w(1, 1500, 0, user=5), w(2, 1500, 0, user=5)], start=START, growth=GROWTH) == []


def test_input_order_does_not_change_the_pairs() -> None:
    rng = random.Random(21)
    waiters = [w(i, round(rng.gauss(1500, 200)), rng.uniform(0, 20)) for i in range(60)]
    expected = pair_wave(waiters, start=START, growth=GROWTH)
    for _ in range(5):
        rng.shuffle(waiters)
        assert pair_wave(waiters, start=START, growth=GROWTH) == expected


def test_band_must_be_positive() -> None:
    with pytest.raises(ValueError):
        pair_wave([w(1, 1500), w(2, 1500)], start=START, growth=GROWTH, band=0)


# --- against brute force -----------------------------------------------------------------------------

def waves(max_size: int) -> st.SearchStrategy[tuple[list[Waiter], float, float]]:
    """Random waves: ratings on a coarse grid (ties happen), waits, last opponents among the wave, and a
    window narrow or wide."""
    def build(draw: st.DrawFn) -> tuple[list[Waiter], float, float]:
        n = draw(st.integers(0, max_size))
        start = draw(st.sampled_from([0.0, 20.0, 50.0, 100.0]))
        growth = draw(st.sampled_from([0.0, 5.0, 10.0, 30.0]))
        waiters = []
        for i in range(n):
            rating = 1200 + 10 * draw(st.integers(0, 60))
            waited = draw(st.sampled_from([0.0, 1.0, 2.5, 5.0, 10.0, 30.0]))
            last = draw(st.one_of(st.none(), st.integers(0, max(0, n - 1))))
            waiters.append(w(i, rating, waited, last=last))
        return waiters, start, growth
    return st.composite(build)()


@settings(max_examples=400, deadline=None)
@given(waves(BAND + 1))
def test_exact_optimum_on_waves_no_larger_than_the_band(case: tuple[list[Waiter], float, float]) -> None:
    # With at most BAND + 1 players every pair is within BAND places: the programme is exact.
    waiters, start, growth = case
    pairs = pair_wave(waiters, start=start, growth=growth)
    assert_valid(waiters, pairs, start, growth)
    assert value(waiters, pairs) == brute_force(waiters, start, growth)


@settings(max_examples=300, deadline=None)
@given(waves(10), st.integers(1, 4))
def test_exact_optimum_over_pairings_within_the_band(case: tuple[list[Waiter], float, float],
                                                     band: int) -> None:
    # Larger waves with a narrow band: the programme's answer is the best of every pairing whose pairs
    # are at most ``band`` places apart (what the module doc promises), and a valid wave.
    waiters, start, growth = case
    pairs = pair_wave(waiters, start=start, growth=growth, band=band)
    assert_valid(waiters, pairs, start, growth)
    assert value(waiters, pairs) == brute_force(waiters, start, growth, band=band)


def test_default_band_against_brute_force_on_seeded_waves_of_8_to_11() -> None:
    # Measured (docs/lobby.md "Pairing"): waves larger than the band, default pool windows, ratings
    # normal around 1500 (sd 150), waits 0-30 s, 1 in 5 players' last opponent in the wave. The
    # programme found the optimum in all 600 waves; the bound below allows one miss, and each miss may
    # only be one pair fewer (never a wave that leaves two more players waiting).
    rng = random.Random(2121)
    misses = 0
    for _ in range(600):
        n = rng.randint(BAND + 2, 11)
        waiters = [w(i, round(rng.gauss(1500, 150)), rng.uniform(0, 30),
                     last=rng.randrange(n) if rng.random() < 0.2 else None) for i in range(n)]
        pairs = pair_wave(waiters, start=START, growth=GROWTH)
        assert_valid(waiters, pairs, START, GROWTH)
        got, best = value(waiters, pairs), brute_force(waiters, START, GROWTH)
        if got != best:
            misses += 1
            assert got[0] >= best[0] - 1
    assert misses <= 1
