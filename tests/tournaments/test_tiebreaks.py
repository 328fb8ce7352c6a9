"""Standings and tie-breaks (tournaments/tiebreaks.py) on a small tournament computed by hand."""

from __future__ import annotations

import pytest

from tournaments.tiebreaks import Result, Standing, standings

RATINGS = {"A": 1600, "B": 1500, "C": 1400, "D": 1300, "E": 1200}


def match(rnd: int, winner: str, loser: str, won: int, lost: int) -> list[Result]:
    return [Result(rnd, winner, loser, 1, won, lost), Result(rnd, loser, winner, 0, lost, won)]


def bye(rnd: int, player: str) -> list[Result]:
    return [Result(rnd, player, None, 1)]


# Round 1: A beats B 50-20, C beats D 50-45, E bye.
# Round 2: A beats C 50-10, E beats B 50-40, D bye.
# Round 3: E beats A 50-30, B beats D 50-0, C bye.
RESULTS = [
    *match(1, "A", "B", 50, 20), *match(1, "C", "D", 50, 45), *bye(1, "E"),
    *match(2, "A", "C", 50, 10), *match(2, "E", "B", 50, 40), *bye(2, "D"),
    *match(3, "E", "A", 50, 30), *match(3, "B", "D", 50, 0), *bye(3, "C"),
]


def test_hand_computed_tournament() -> None:
    # Scores: A 2, B 1, C 2, D 1, E 3.
    # Buchholz: A = B1 + C2 + E3 = 6; B = A2 + E3 + D1 = 6; C = D1 + A2 + bye (C had 1 before round 3)
    #   = 4; D = C2 + bye (0 before round 2) + B1 = 3; E = bye (0 before round 1) + B1 + A2 = 3.
    # Sonneborn-Berger (beaten opponents, bye's virtual opponent beaten): A = B1 + C2 = 3; B = D1;
    #   C = D1 + bye 1 = 2; D = bye 0 = 0; E = bye 0 + B1 + A2 = 3.
    # Hand points: A 30 + 40 - 20 = 50; B -30 - 10 + 50 = 10; C 5 - 40 = -35; D -5 - 50 = -55;
    #   E 10 + 20 = 30.
    assert standings(RATINGS, RESULTS) == [
        Standing(1, "E", 3, 3, 3, 30, 1200),
        Standing(2, "A", 2, 6, 3, 50, 1600),
        Standing(3, "C", 2, 4, 2, -35, 1400),
        Standing(4, "B", 1, 6, 1, 10, 1500),
        Standing(5, "D", 1, 3, 0, -55, 1300),
    ]


def test_each_tie_break_decides_in_turn_and_exact_ties_share_a_rank() -> None:
    # y and p: score 1, Buchholz 2 (x 2 + q 0 / q 0 + x 2), Sonneborn-Berger 0 (beat q, who has 0):
    # the hand points decide, y +49 (lost 49-50, won 50-0) over p 0 (won 50-0, lost 0-50).
    ratings = {"x": 1500, "y": 1400, "p": 1600, "q": 1500}
    results = [*match(1, "p", "q", 50, 0), *match(1, "x", "y", 50, 49), *match(2, "x", "p", 50, 0),
               *match(2, "y", "q", 50, 0)]
    assert standings(ratings, results) == [
        Standing(1, "x", 2, 2, 2, 51, 1500),
        Standing(2, "y", 1, 2, 0, 49, 1400),
        Standing(3, "p", 1, 2, 0, 0, 1600),
        Standing(4, "q", 0, 2, 0, -100, 1500),
    ]
    tied = standings({"m": 1500, "n": 1500, "o": 1400}, [])
    assert [(s.rank, s.player) for s in tied] == [(1, "m"), (1, "n"), (3, "o")]
    # Exact ties are listed by pairing number when given (then id), never changing the shared rank.
    numbered = standings({"m": 1500, "n": 1500, "o": 1400}, [], {"n": 1, "m": 2, "o": 3})
    assert [(s.rank, s.player) for s in numbered] == [(1, "n"), (1, "m"), (3, "o")]


def test_bad_results_raise() -> None:
    with pytest.raises(ValueError, match="unknown player 'Z'"):
        standings(RATINGS, [Result(1, "Z", None, 1)])
    with pytest.raises(ValueError, match="two results in one round"):
        standings(RATINGS, [Result(1, "A", None, 1), Result(1, "A", "B", 0)])
