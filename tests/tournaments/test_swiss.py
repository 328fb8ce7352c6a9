"""Swiss pairing (tournaments/swiss.py): known answers, brute-force cross-checks, the JSONL command."""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments import swiss
from tournaments.swiss import Player, pair_round

ROOT = Path(__file__).resolve().parents[2]


def field(
    *rows: tuple[str, float, float], met: str = "", byes: str = "", withdrawn: str = ""
) -> list[Player]:
    """Players from (id, score, rating) rows; ``met`` is "a-b c-d", ``byes``/``withdrawn`` are "a b"."""
    opponents: dict[str, set[str]] = {pid: set() for pid, _, _ in rows}
    for pair in met.split():
        a, b = pair.split("-")
        opponents[a].add(b)
        opponents[b].add(a)
    return [
        Player(pid, score, rating, frozenset(opponents[pid]), pid in byes.split(), pid in withdrawn.split())
        for pid, score, rating in rows
    ]


def partners(pairing: swiss.Pairing) -> set[frozenset[str]]:
    return {frozenset(pair) for pair in pairing.pairs}


# --- known answers ------------------------------------------------------------------------------------


def test_equal_scores_pair_neighbours_in_rating_order_monrad() -> None:
    players = field(("a", 0, 1500), ("b", 0, 1700), ("c", 0, 1600), ("d", 0, 1400))
    assert pair_round(players) == swiss.Pairing((("b", "c"), ("a", "d")), None, rematches=0, score_gap=0)


def test_pairing_numbers_order_equal_score_and_rating_before_the_id() -> None:
    # Four players of one rating (house bots of one level): the pairing numbers, not the ids, give the
    # ranking, so the same field pairs alike whatever ids a database gave them.
    numbers = (("9", 1), ("10", 4), ("2", 2), ("30", 3))
    players = [Player(pid, 0, 1500, number=number) for pid, number in numbers]
    assert [p.id for p in swiss.ranked(players)] == ["9", "2", "30", "10"]
    assert pair_round(players).pairs == (("9", "2"), ("30", "10"))
    # The rating still ranks first; without numbers (all 0) the id decides, as before.
    assert swiss.ranked([*players, Player("1", 0, 1600, number=5)])[0].id == "1"
    assert pair_round([Player(p.id, 0, 1500) for p in players]).pairs == (("10", "2"), ("30", "9"))
    bye = pair_round([*players, Player("5", 0, 1500, number=5)])
    assert bye.bye == "5"  # the last pairing number of the lowest group


def test_greedy_top_down_would_force_a_rematch_the_global_matching_avoids() -> None:
    # Greedy down the ranking: a-b (first one a has not met), then c-d have met: a forced rematch.
    # The only rematch-free pairing is a-c, b-d.
    players = field(("a", 1, 1900), ("b", 1, 1800), ("c", 1, 1700), ("d", 1, 1600), met="c-d a-d")
    assert swiss._greedy(swiss._Field(players), [0, 1, 2, 3]) == [(0, 1), (2, 3)]
    pairing = pair_round(players)
    assert partners(pairing) == {frozenset("ac"), frozenset("bd")}
    assert pairing.rematches == 0


def test_greedy_shape_across_score_groups_floats_instead_of_rematching() -> None:
    # Top group a, b (2 points) has met; c..f (1 point), g, h (0). Pairing a-b is a rematch, so both
    # float into the 1-point group: cost 1 + 1, and the 1-point group's other two pair each other.
    players = field(
        ("a", 2, 1500), ("b", 2, 1400), ("c", 1, 1900), ("d", 1, 1800), ("e", 1, 1700), ("f", 1, 1600),
        ("g", 0, 1500), ("h", 0, 1400), met="a-b c-g",
    )
    pairing = pair_round(players)
    assert pairing.rematches == 0
    assert pairing.score_gap == 2
    found = partners(pairing)
    assert frozenset("gh") in found
    assert {frozenset(p) & {"a", "b"} for p in found if p & {"a", "b"}} == {frozenset("a"), frozenset("b")}


def test_odd_field_bye_to_lowest_ranked_without_one() -> None:
    players = field(("a", 2, 1500), ("b", 1, 1500), ("c", 1, 1400), ("d", 0, 1600), ("e", 0, 1500), byes="e")
    pairing = pair_round(players)
    assert pairing.bye == "d"
    assert partners(pairing) == {frozenset("ab"), frozenset("ce")}


def test_everyone_had_a_bye_so_the_lowest_ranked_gets_another() -> None:
    players = field(("a", 1, 1500), ("b", 1, 1400), ("c", 1, 1300), byes="a b c")
    assert pair_round(players).bye == "c"


def test_withdrawn_players_are_never_paired() -> None:
    players = field(("a", 2, 1500), ("b", 1, 1500), ("c", 1, 1400), ("d", 0, 1600), withdrawn="b")
    pairing = pair_round(players)
    assert "b" not in {pid for pair in pairing.pairs for pid in pair}
    assert pairing.bye == "d"
    assert pairing.pairs == (("a", "c"),)


def test_rematch_only_when_unavoidable() -> None:
    # Three rounds of a 4-player round robin done: every pairing is a rematch; the least is 2.
    players = field(("a", 2, 1), ("b", 2, 0), ("c", 1, 0), ("d", 1, 0), met="a-b a-c a-d b-c b-d c-d")
    pairing = pair_round(players)
    assert pairing.rematches == 2
    assert partners(pairing) == {frozenset("ab"), frozenset("cd")}


def test_bye_moves_up_when_the_lowest_bye_forces_a_rematch() -> None:
    # e lowest without a bye, but then c-d (met) would have to play; d getting the bye avoids it.
    players = field(
        ("a", 1, 5), ("b", 1, 4), ("c", 1, 3), ("d", 0, 2), ("e", 0, 1), met="a-b a-c b-c a-d b-d"
    )
    pairing = pair_round(players)
    assert pairing.rematches == 0
    assert pairing.bye in {"a", "b", "c", "d"}


def test_tiny_fields() -> None:
    assert pair_round([]) == swiss.Pairing((), None, 0, 0)
    assert pair_round(field(("a", 0, 1))) == swiss.Pairing((), "a", 0, 0)
    assert pair_round(field(("a", 0, 1), ("b", 3, 1), withdrawn="a")).bye == "b"


@pytest.mark.parametrize(
    ("players", "message"),
    [
        (field(("a", 0, 1), ("a", 0, 1)), "players[1].id: duplicate id 'a'"),
        (field(("a", -1, 1)), "players[0].score: must be a multiple of 0.5, >= 0, got -1"),
        (field(("a", 0.3, 1)), "players[0].score: must be a multiple of 0.5, >= 0, got 0.3"),
        (field(("a", 0, float("nan"))), "players[0].rating: must be a finite number, got nan"),
        ([Player("a", 0, 1, frozenset({"a"}))], "players[0].opponents: 'a' lists itself"),
        ([Player("a", 0, 1, number=-1)], "players[0].number: must be an integer >= 0, got -1"),
    ],
)
def test_malformed_players_raise(players: list[Player], message: str) -> None:
    with pytest.raises(swiss.PairingError) as caught:
        pair_round(players)
    assert str(caught.value) == message


# --- brute force on small fields ----------------------------------------------------------------------


def matchings(items: list[str]) -> Iterator[list[tuple[str, str]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for k, other in enumerate(rest):
        for tail in matchings(rest[:k] + rest[k + 1 :]):
            yield [(first, other), *tail]


def brute_force(players: list[Player]) -> tuple[int, str | None, int]:
    """(least rematches, the bye the rules give among those, least squared gap with that bye) in
    quarter points, by enumerating every pairing."""
    active = swiss.ranked(p for p in players if not p.withdrawn)
    by_id = {p.id: p for p in active}
    met = {p.id: set(p.opponents) for p in active}
    for p in players:
        for o in p.opponents:
            if o in met:
                met[o].add(p.id)
    candidates: list[str | None] = [None]
    if len(active) % 2:
        eligible = [p.id for p in active if not p.had_bye] or [p.id for p in active]
        candidates = list(reversed(eligible))  # lowest-ranked first
    best: tuple[int, int, int] | None = None
    best_bye: str | None = None
    for position, bye in enumerate(candidates):
        rest = [p.id for p in active if p.id != bye]
        for pairs in matchings(rest):
            rematches = sum(1 for a, b in pairs if b in met[a])
            gap = sum(round(2 * by_id[a].score - 2 * by_id[b].score) ** 2 for a, b in pairs)
            key = (rematches, position, gap)
            if best is None or key < best:
                best, best_bye = key, bye
    assert best is not None
    return best[0], best_bye, best[2]


@st.composite
def histories(draw: st.DrawFn, max_players: int = 9) -> list[Player]:
    n = draw(st.integers(0, max_players))
    ids = [f"p{i}" for i in range(n)]
    scores = draw(st.lists(st.sampled_from([0, 0.5, 1, 1.5, 2, 3]), min_size=n, max_size=n))
    ratings = draw(st.lists(st.integers(1400, 1410), min_size=n, max_size=n))
    met_pairs = draw(st.sets(st.sampled_from(list(itertools.combinations(range(n), 2)) or [(0, 0)])))
    byes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    gone = [b and i % 3 == 0 for i, b in enumerate(draw(st.lists(st.booleans(), min_size=n, max_size=n)))]
    opponents: dict[str, set[str]] = {pid: set() for pid in ids}
    for a, b in met_pairs:
        if a != b:
            opponents[ids[a]].add(ids[b])
            if draw(st.booleans()):  # sometimes only one side lists the meeting
                opponents[ids[b]].add(ids[a])
    return [
        Player(ids[i], scores[i], ratings[i], frozenset(opponents[ids[i]]), byes[i], gone[i])
        for i in range(n)
    ]


def check_shape(players: list[Player], pairing: swiss.Pairing) -> None:
    active = {p.id for p in players if not p.withdrawn}
    seated = [pid for pair in pairing.pairs for pid in pair] + ([pairing.bye] if pairing.bye else [])
    assert sorted(seated) == sorted(active)  # every active player exactly once, nobody withdrawn
    assert (pairing.bye is None) == (len(active) % 2 == 0)
    if pairing.bye is not None:
        without = {p.id for p in players if not p.withdrawn and not p.had_bye}
        assert not without or pairing.bye in without  # no second bye while someone has none


@pytest.mark.parametrize("block", [2, 4, swiss.BLOCK])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=histories())
def test_matches_brute_force_on_small_fields(block: int, players: list[Player]) -> None:
    # Small blocks make the fast path cut score groups and merge blocks, as it does in large fields.
    with mock.patch.object(swiss, "BLOCK", block):
        pairing = pair_round(players)
    check_shape(players, pairing)
    rematches, bye, gap = brute_force(players)
    assert pairing.rematches == rematches  # no avoidable rematch
    assert pairing.bye == bye
    assert pairing.score_gap * 4 * 10 <= gap * 11  # within 10% of the least squared score gap


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories(max_players=40))
def test_no_avoidable_rematch_on_larger_fields(players: list[Player]) -> None:
    pairing = pair_round(players)
    check_shape(players, pairing)
    if pairing.rematches:
        # Independent check: for no allowed bye do the other active players have a perfect matching
        # avoiding every earlier meeting (maximum-cardinality matching of the "not met" graph).
        active = [p for p in players if not p.withdrawn]
        met = {frozenset((p.id, o)) for p in players for o in p.opponents}
        eligible = [p.id for p in active if not p.had_bye] or [p.id for p in active]
        for bye in eligible if len(active) % 2 else [None]:
            rest = [p.id for p in active if p.id != bye]
            graph = nx.Graph()
            graph.add_nodes_from(rest)
            graph.add_edges_from(e for e in itertools.combinations(rest, 2) if frozenset(e) not in met)
            assert len(nx.max_weight_matching(graph, maxcardinality=True)) * 2 < len(rest)


# --- the JSONL command --------------------------------------------------------------------------------


def run_cli(*lines: str) -> list[dict[str, object]]:
    out = io.StringIO()
    assert swiss.main(["--jsonl"], io.StringIO("\n".join(lines) + "\n"), out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_jsonl_answers_and_errors_line_by_line() -> None:
    good = {
        "players": [
            {
                "id": "p1", "score": 1.0, "rating": 1600, "opponents": ["p2"], "had_bye": False,
                "withdrawn": False,
            },
            {"id": "p2", "score": 0.0, "rating": 1500, "opponents": ["p1"]},
            {"id": "p3", "score": 1.0, "rating": 1550, "opponents": [], "had_bye": True},
            {"id": "p4", "score": 0.0, "rating": 1450},
            {"id": "p5", "score": 0.0, "rating": 1400, "opponents": ["p9"]},
        ]
    }
    out = run_cli(
        json.dumps(good),
        "not json",
        "",
        json.dumps([1]),
        json.dumps({"players": [{"id": "a", "score": "1", "rating": 1}]}),
        json.dumps({"players": [{"id": "a", "score": 1, "rating": 1, "withdrawn": 1}]}),
        json.dumps({"players": [{"id": "a", "score": 1, "rating": 1, "withdrawm": True}]}),
        json.dumps({"players": [{"id": "a", "score": 1}]}),
        '{"players": [{"id": "a", "score": NaN, "rating": 1}]}',
        json.dumps({"players": [{"id": "a", "score": 0, "rating": 1}, {"id": "a", "score": 0, "rating": 1}]}),
        "[" * 100_000,
        json.dumps({"players": [], "round": 2}),
        json.dumps({"players": [{"id": "", "score": 0, "rating": 1}]}),
        json.dumps({"players": [{"id": "a", "score": 0, "rating": 1, "number": 2},
                                {"id": "b", "score": 0, "rating": 1, "number": 1}]}),
        json.dumps({"players": [{"id": "a", "score": 0, "rating": 1, "number": 1.5}]}),
    )
    assert out[0] == {"pairs": [["p1", "p3"], ["p2", "p4"]], "bye": "p5"}
    assert out[1]["error"].startswith("bad JSON: Expecting value")
    assert out[2:] == [
        {"error": 'empty line: expected a problem {"players": [...]}'},
        {"error": 'a problem must be a JSON object {"players": [...]}'},
        {"error": "players[0].score: must be a number, got str"},
        {"error": "players[0].withdrawn: must be true or false, got int"},
        {"error": "players[0]: unknown key 'withdrawm'"},
        {"error": "players[0].rating: missing"},
        {"error": "bad JSON: NaN is not a number JSON allows"},
        {"error": "players[1].id: duplicate id 'a'"},
        out[10],
        {"error": "unknown key 'round' (only 'players')"},
        {"error": "players[0].id: must be a non-empty string of at most 200 characters"},
        {"pairs": [["b", "a"]], "bye": None},
        {"error": "players[0].number: must be an integer >= 0"},
    ]
    assert out[10]["error"].startswith("bad JSON")


def test_jsonl_through_python_dash_m() -> None:
    problem = {"players": [{"id": "x", "score": 0, "rating": 1}, {"id": "y", "score": 0, "rating": 2}]}
    done = subprocess.run(
        [sys.executable, "-m", "tournaments.swiss", "--jsonl"],
        input=json.dumps(problem) + "\n{oops\n",
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=True,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0] == {"pairs": [["y", "x"]], "bye": None}
    assert lines[1]["error"].startswith("bad JSON")
    assert done.stderr == ""


def test_swiss_module_imports_no_django() -> None:
    code = (
        "import sys, tournaments.swiss, tournaments.tiebreaks;"
        "print(any(m.startswith('django') for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "False"


def test_the_proof_rejects_a_pairing_above_the_bound() -> None:
    # Scores 2, 1, 1, 0: pairing neighbours costs 1 + 1; a-d + b-c costs 4 + 0, over 110% of it.
    pitch = swiss._Field(field(("a", 2, 1), ("b", 1, 1), ("c", 1, 0), ("d", 0, 1)))
    assert pitch.lower_bound(None) == 8  # quarter points: (4-2)^2 + (2-0)^2
    assert pitch.proven([(0, 1), (2, 3)], None)
    assert not pitch.proven([(0, 3), (1, 2)], None)
    assert not swiss._Field(field(("a", 0, 1), ("b", 0, 0), met="a-b")).proven([(0, 1)], None)
