"""tournaments.arena (pure): scoring with streaks, one wave's pairing (no one twice, no immediate rematch,
no two house bots, as many pairs as possible), performance and standings; worked examples and
property tests against brute force."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.arena import (
    Line,
    MatchScore,
    Played,
    Waiting,
    may_meet,
    pair_wave,
    performance,
    score_identity,
    score_match,
    standings,
)


def test_scoring_worked_example() -> None:
    # W W W(fire: 4) L W W W(fire: 4) W(fire: 4): 2+2+4+0+2+2+4+4 = 20 = 7 wins x 2 + 3 bonuses x 2
    results = [True, True, True, False, True, True, True, True]
    assert score_identity(results) == (20, 14, 6)
    assert score_match(won=True, streak=1) == MatchScore(points=2, on_streak=False, streak_after=2)
    assert score_match(won=True, streak=2) == MatchScore(points=4, on_streak=True, streak_after=3)
    assert score_match(won=False, streak=3) == MatchScore(points=0, on_streak=True, streak_after=0)
    # an aborted match without a loser is no result: 0 points, the streak kept
    assert score_match(won=None, streak=2) == MatchScore(points=0, on_streak=True, streak_after=2)
    with pytest.raises(ValueError, match="streak must be >= 0"):
        score_match(won=True, streak=-1)


@settings(deadline=None)
@given(st.lists(st.sampled_from([True, False, None]), max_size=40))
def test_score_is_match_points_plus_streak_bonuses(results: list[bool | None]) -> None:
    score, match_points, bonus = score_identity(results)
    assert score == match_points + bonus
    assert match_points == 2 * results.count(True)
    # a bonus is earned exactly by a win whose two previous results (None skipped) were wins
    played = [r for r in results if r is not None]
    assert bonus == 2 * sum(1 for i, r in enumerate(played)
                            if r and i >= 2 and played[i - 1] and played[i - 2])


def _w(pk: int, score: int = 0, *, last: int | None = None, bot: bool = False, rating: float = 1500,
       since: float = 0.0) -> Waiting:
    return Waiting(id=pk, score=score, rating=rating, waiting_since=since, last_opponent=last, is_bot=bot)


def test_wave_pairs_rank_neighbours() -> None:
    field = [_w(1, 4), _w(2, 0), _w(3, 6), _w(4, 2), _w(5, 2, rating=1600), _w(6, 0, since=-5)]
    # ranking: 3 (6), 1 (4), 5 (2, 1600), 4 (2), 6 (0, waited longer), 2 (0)
    assert pair_wave(field) == [(3, 1), (5, 4), (6, 2)]
    assert pair_wave(list(reversed(field))) == [(3, 1), (5, 4), (6, 2)]  # any input order


def test_wave_never_repeats_the_last_opponent() -> None:
    assert pair_wave([_w(1, 4, last=2), _w(2, 4, last=1), _w(3, 2)]) == [(1, 3)]
    # the only two waiting met last: both wait
    assert pair_wave([_w(1, last=2), _w(2, last=1)]) == []
    # either person's memory is enough
    assert pair_wave([_w(1, last=2), _w(2, last=9)]) == []
    # a house bot's memory is not: a person whose last match was against another bot meets the one free
    # bot that has just played them (a user's trial: otherwise they waited to the end); never a person's
    # own last opponent, bot or not
    assert pair_wave([_w(1, last=3), _w(2, 4, bot=True, last=1)]) == [(2, 1)]
    assert pair_wave([_w(1, last=2), _w(2, 4, bot=True, last=1)]) == []


def test_wave_bots_wait_for_people() -> None:
    assert pair_wave([_w(1, 8, bot=True), _w(2, 6, bot=True), _w(3, 0)]) == [(1, 3)]
    assert pair_wave([_w(1, bot=True), _w(2, bot=True)]) == []


def test_wave_swaps_to_pair_more() -> None:
    # the greedy pass makes (1, 2) and leaves 3 and 4, who met last: a swap pairs all four
    field = [_w(1), _w(2), _w(3, last=4), _w(4, last=3)]
    pairs = pair_wave(field)
    assert len(pairs) == 2 and {p for pair in pairs for p in pair} == {1, 2, 3, 4}
    assert all(may_meet(*[next(w for w in field if w.id == i) for i in pair]) for pair in pairs)


def test_wave_rejects_a_player_twice() -> None:
    with pytest.raises(ValueError, match="twice"):
        pair_wave([_w(1), _w(1)])


waiting_lists = st.integers(0, 10).flatmap(lambda n: st.lists(
    st.builds(lambda pk, score, rating, last, bot: (pk, score, rating, last, bot),
              st.just(0), st.sampled_from([0, 2, 4, 6]), st.sampled_from([1400, 1500, 1600]),
              st.one_of(st.none(), st.integers(0, max(n - 1, 0))), st.booleans()),
    min_size=n, max_size=n))


@settings(max_examples=400, deadline=None)
@given(waiting_lists)
def test_wave_properties_against_brute_force(rows: list[tuple[int, int, int, int | None, bool]]) -> None:
    field = [Waiting(id=i, score=s, rating=r, waiting_since=0.0, last_opponent=last, is_bot=bot)
             for i, (_, s, r, last, bot) in enumerate(rows)]
    pairs = pair_wave(field)
    seen = [p for pair in pairs for p in pair]
    assert len(seen) == len(set(seen))  # nobody twice
    by_id = {w.id: w for w in field}
    assert all(may_meet(by_id[a], by_id[b]) for a, b in pairs)  # no rematch, no bot v bot
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(by_id)
    graph.add_edges_from((a.id, b.id) for a, b in itertools.combinations(field, 2) if may_meet(a, b))
    assert len(pairs) == len(nx.max_weight_matching(graph, maxcardinality=True))  # as many as possible


def test_wave_of_1000_is_sound() -> None:
    # Its speed is a benchmark's (docs/tournaments.md "Arena": `tournament_simulate --bench-wave 1000`),
    # never a timed assertion that load could break.
    rng = random.Random(7)
    field = [Waiting(id=i, score=rng.randrange(0, 40, 2), rating=rng.gauss(1500, 200),
                     waiting_since=rng.random(), last_opponent=rng.randrange(1000), is_bot=rng.random() < 0.2)
             for i in range(1000)]
    pairs = pair_wave(field)
    assert len(pairs) == 500
    assert len({p for pair in pairs for p in pair}) == 1000


def test_performance_and_standings() -> None:
    assert performance([]) is None
    assert performance([Played(1500, True), Played(1700, False)]) == 1600.0
    assert performance([Played(1500, True), Played(1700, True), Played(1600, None)]) == 2100.0
    assert performance([Played(1400, False)]) == 900.0
    lines = standings([
        Line(player=1, score=4, performance=1600.0, rating=1500, name="ana"),
        Line(player=2, score=4, performance=1800.0, rating=1400, name="bia"),
        Line(player=3, score=0, performance=None, rating=1900, name="caio"),
        Line(player=4, score=0, performance=1100.0, rating=1300, name="duda"),
        Line(player=5, score=4, performance=1600.0, rating=1550, name="eva"),
    ])
    assert [(line.player, line.rank) for line in lines] == [(2, 1), (5, 2), (1, 2), (4, 4), (3, 5)]
