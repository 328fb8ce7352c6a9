"""Forbidden pairings in the Swiss pairing (an organiser's choice, issue 26): absolute whenever any
pairing avoids them, before rematches, the bye's rank and score groups; checked by known answers and
against a brute force over every pairing of small fields."""

from __future__ import annotations

import itertools
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.tournaments.test_swiss import check_shape, matchings
from tournaments import swiss
from tournaments.swiss import Player, pair_round


def partners(pairing: swiss.Pairing) -> set[frozenset[str]]:
    return {frozenset(pair) for pair in pairing.pairs}


def test_a_forbidden_pair_of_neighbours_is_split() -> None:
    # a v b and c v d by the ranking; a and b may not meet: each floats down (a v c, b v d and
    # a v d, b v c tie on every rule: same gaps, same ranking distance 4).
    players = [Player("a", 1, 1500, forbidden=frozenset({"b"})), Player("b", 1, 1490),
               Player("c", 0, 1480), Player("d", 0, 1470)]
    pairing = pair_round(players)
    assert partners(pairing) in ({frozenset("ac"), frozenset("bd")}, {frozenset("ad"), frozenset("bc")})
    assert pairing.forbidden == 0 and pairing.rematches == 0
    assert pairing.score_gap == 2.0  # (1 - 0)^2 twice


def test_a_forbidden_pair_weighs_more_than_a_rematch() -> None:
    # a-c and b-d met before, a-b forbidden, so either a rematch or the forbidden pair: the rematch.
    players = [Player("a", 1, 1500, opponents=frozenset({"c"}), forbidden=frozenset({"b"})),
               Player("b", 1, 1490, opponents=frozenset({"d"})), Player("c", 0, 1480), Player("d", 0, 1470)]
    pairing = pair_round(players)
    assert partners(pairing) == {frozenset("ad"), frozenset("bc")}
    assert (pairing.forbidden, pairing.rematches) == (0, 0)
    players = [Player("a", 1, 1500, opponents=frozenset({"c", "d"}), forbidden=frozenset({"b"})),
               Player("b", 1, 1490), Player("c", 0, 1480), Player("d", 0, 1470)]
    pairing = pair_round(players)
    assert frozenset("ab") not in partners(pairing)
    assert (pairing.forbidden, pairing.rematches) == (0, 1)


def test_the_bye_moves_up_rather_than_pair_a_forbidden_pair() -> None:
    # Three players, c the lowest: a v b would be forbidden, so the bye goes to b (then a v c).
    players = [Player("a", 0, 1500, forbidden=frozenset({"b"})), Player("b", 0, 1490), Player("c", 0, 1480)]
    pairing = pair_round(players)
    assert pairing.pairs == (("a", "c"),) and pairing.bye == "b"


def test_forbidden_only_when_no_pairing_avoids_it_and_then_as_few_as_possible() -> None:
    # Two players forbidden to each other: nothing else exists, so they meet (counted).
    pairing = pair_round([Player("a", 0, 1500, forbidden=frozenset({"b"})), Player("b", 0, 1400)])
    assert pairing.pairs == (("a", "b"),) and pairing.forbidden == 1
    # Four players, a forbidden with everyone: one forbidden pair, never two.
    players = [Player("a", 0, 1500, forbidden=frozenset("bcd")), Player("b", 0, 1490),
               Player("c", 0, 1480), Player("d", 0, 1470, forbidden=frozenset("bc"))]
    pairing = pair_round(players)
    assert pairing.forbidden == 1 and partners(pairing) == {frozenset("ad"), frozenset("bc")}


def test_forbidden_naming_itself_or_not_a_list_is_refused() -> None:
    with pytest.raises(swiss.PairingError, match=r"players\[0\]\.forbidden: 'a' lists itself"):
        pair_round([Player("a", 0, 1500, forbidden=frozenset({"a"})), Player("b", 0, 1500)])
    with pytest.raises(swiss.PairingError, match=r"players\[0\]\.forbidden: must be a list of ids"):
        swiss.parse_problem({"players": [{"id": "a", "score": 0, "rating": 1, "forbidden": "b"}]})
    answer = swiss.answer_line(
        '{"players": [{"id": "a", "score": 1, "rating": 1500, "forbidden": ["b"]},'
        ' {"id": "b", "score": 1, "rating": 1490}, {"id": "c", "score": 1, "rating": 1480},'
        ' {"id": "d", "score": 0, "rating": 1470}]}')
    # a v b forbidden: a v c (gap 0), b v d (gap 1); a v d, b v c would have gap 1 + 0 too but the
    # ranking distance 3 + 1 = 4 equals 2 + 2: the tie goes to the first found, so check the rules only.
    assert len(answer["pairs"]) == 2 and ["a", "b"] not in answer["pairs"]


def brute_force(players: list[Player]) -> tuple[int, int, str | None]:
    """(least forbidden pairs, least rematches among those, the bye the rules give among those), by
    enumerating every pairing (the bye among the eligible only, rule 1)."""
    active = swiss.ranked(p for p in players if not p.withdrawn)
    met: dict[str, set[str]] = {p.id: set() for p in active}
    barred: dict[str, set[str]] = {p.id: set() for p in active}
    for p in active:
        for table, ids in ((met, p.opponents), (barred, p.forbidden)):
            for o in ids:
                if o in table:
                    table[p.id].add(o)
                    table[o].add(p.id)
    candidates: list[str | None] = [None]
    if len(active) % 2:
        eligible = [p.id for p in active if not p.had_bye] or [p.id for p in active]
        candidates = list(reversed(eligible))
    best: tuple[int, int, int] | None = None
    best_bye: str | None = None
    for position, bye in enumerate(candidates):
        for pairs in matchings([p.id for p in active if p.id != bye]):
            key = (sum(1 for a, b in pairs if b in barred[a]), sum(1 for a, b in pairs if b in met[a]),
                   position)
            if best is None or key < best:
                best, best_bye = key, bye
    assert best is not None
    return best[0], best[1], best_bye


@st.composite
def fields(draw: st.DrawFn, max_players: int = 9) -> list[Player]:
    n = draw(st.integers(0, max_players))
    ids = [f"p{i}" for i in range(n)]
    combos = list(itertools.combinations(range(n), 2)) or [(0, 0)]
    met_pairs = draw(st.sets(st.sampled_from(combos)))
    barred_pairs = draw(st.sets(st.sampled_from(combos)))
    scores = draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=n, max_size=n))
    byes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    opponents: dict[str, set[str]] = {pid: set() for pid in ids}
    forbidden: dict[str, set[str]] = {pid: set() for pid in ids}
    for table, chosen in ((opponents, met_pairs), (forbidden, barred_pairs)):
        for a, b in chosen:
            if a != b:  # one side lists the other, either side (the pairing reads both ways)
                x, y = (a, b) if draw(st.booleans()) else (b, a)
                table[ids[x]].add(ids[y])
    players = [Player(ids[i], scores[i], 1400 + i % 3, frozenset(opponents[ids[i]]), byes[i],
                      forbidden=frozenset(forbidden[ids[i]])) for i in range(n)]
    return players


@pytest.mark.parametrize("block", [2, swiss.BLOCK])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=fields())
def test_matches_brute_force_with_forbidden_pairs(block: int, players: list[Player]) -> None:
    with mock.patch.object(swiss, "BLOCK", block):
        pairing = pair_round(players)
    check_shape(players, pairing)
    forbidden, rematches, bye = brute_force(players)
    assert (pairing.forbidden, pairing.rematches, pairing.bye) == (forbidden, rematches, bye)
