"""The arena and the round robin (issue 4, "The arena"): determinism, statistics, Elo fit."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from engine.tools.arena import main as arena_main
from engine.tools.arena import play_match, rules_for, run_matches, summarize, wilson
from engine.tools.botbench import main as bench_main
from engine.tools.roundrobin import bradley_terry_elo, round_robin
from engine.tools.roundrobin import main as rr_main


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson(50, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-4) and math.isclose(hi, 0.5962, abs_tol=1e-4)
    assert wilson(0, 10)[0] == 0.0 and math.isclose(wilson(0, 10)[1], 0.2775, abs_tol=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_same_seed_same_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--a", "4", "--b", "2", "--matches", "3", "--target", "50", "--seed", "7", "--json",
            "--no-progress"]
    assert arena_main(argv) == 0
    first = capsys.readouterr().out
    assert arena_main(argv) == 0
    assert capsys.readouterr().out == first
    data = json.loads(first)
    assert data["matches"] == 3 and data["a"] == 4 and data["b"] == 2 and data["target"] == 50
    assert 0 <= data["match_win_ci95"][0] <= data["match_win_rate"] <= data["match_win_ci95"][1] <= 1
    assert math.isclose(sum(data["kinds"].values()), 1.0, abs_tol=1e-3)
    t = data["turns"]
    assert t["min"] <= t["q1"] <= t["median"] <= t["q3"] <= t["max"]


def test_workers_do_not_change_the_result() -> None:
    rules = rules_for("classic", 50)
    one = run_matches(3, 2, rules, 4, 11, workers=1)
    two = run_matches(3, 2, rules, 4, 11, workers=2)
    assert one == two
    assert summarize(3, 2, rules, 11, one) == summarize(3, 2, rules, 11, two)


def test_match_record_is_consistent() -> None:
    rules = rules_for("brazilian", None)
    record = play_match(3, 3, rules, seed=5, a_deals_first=True)
    won = [h for h in record.hands if h.winner is not None]
    assert all(h.points > 0 for h in won)
    assert all(h.kind == "dead" for h in record.hands if h.winner is None)
    # scores before end bonuses reach the target; the bonuses only add
    raw_a = sum(h.points for h in record.hands if h.winner == "a")
    raw_b = sum(h.points for h in record.hands if h.winner == "b")
    assert max(raw_a, raw_b) >= rules.target
    assert record.scores[0] >= raw_a and record.scores[1] >= raw_b
    assert record.a_won == (raw_a >= rules.target)


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        (arena_main, ["--a", "6", "--b", "3"], "argument --a: a bot level is an integer 1..5, got '6'"),
        (arena_main, ["--a", "3", "--b", "x"], "argument --b: a bot level is an integer 1..5, got 'x'"),
        (arena_main, ["--a", "3", "--b", "3", "--matches", "0"], "--matches: a match count is an integer"),
        (arena_main, ["--a", "3", "--b", "3", "--workers", "-2"], "--workers: a worker count is an integer"),
        (arena_main, ["--a", "3", "--b", "3", "--rules", "nosuch"], "argument --rules: invalid choice"),
        (bench_main, ["--level", "0"], "argument --level: a bot level is an integer 1..5, got '0'"),
        (bench_main, ["--against", "7"], "argument --against: a bot level is an integer 1..5, got '7'"),
        (bench_main, ["--matches", "-3"], "--matches: a match count is an integer 1..1000000, got '-3'"),
        (bench_main, ["--rules", "nosuch"], "argument --rules: invalid choice"),
        (rr_main, ["--levels", "0", "3"], "argument --levels: a bot level is an integer 1..5, got '0'"),
        (rr_main, ["--matches", "0"], "argument --matches: a match count is an integer 1..1000000, got '0'"),
        (rr_main, ["--out", "{tmp}"], "is a folder"),
        (rr_main, ["--out", "{tmp}/no/such/elo.json"], "is in a folder that does not exist"),
        (rr_main, ["--out", "{tmp}/no/"], "is a folder"),
        (rr_main, ["--out", ""], "argument --out: empty path"),
        (rr_main, ["--out", "/proc/elo.json"], "argument --out: cannot write '/proc/elo.json'"),
        (rr_main, ["--levels", "2", "4", "--out", "-"], "argument --levels: must include 3"),
        (rr_main, ["--matches", "1"], "the following arguments are required: --out"),
        (arena_main, ["--a", "\u00b2", "--b", "3"], "--a: a bot level is an integer 1..5, got '\u00b2'"),
        (arena_main, ["--a", "3", "--b", "2", "--matches", "9" * 23], "count is an integer 1..1000000"),
        (arena_main, ["--a", "3", "--b", "2", "--workers", "99999999"], "a worker count is an integer 1..64"),
    ],
)
def test_bad_arguments_give_a_specific_error_before_any_match(
    command: Any, args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        command([a.replace("{tmp}", str(tmp_path)) for a in args])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_bradley_terry_recovers_known_ratings() -> None:
    truth = {1: 1250.0, 3: 1500.0, 5: 1720.0}
    wins: dict[tuple[int, int], int] = {}
    games: dict[tuple[int, int], int] = {}
    for i in truth:
        for j in truth:
            if i < j:
                p = 1 / (1 + 10 ** ((truth[j] - truth[i]) / 400))
                games[(i, j)] = 100000
                wins[(i, j)] = round(p * 100000)
                wins[(j, i)] = 100000 - wins[(i, j)]
    elo = bradley_terry_elo(wins, games, prior=0)
    assert elo[3] == 1500.0
    for level, rating in truth.items():
        assert math.isclose(elo[level], rating, abs_tol=0.5)


def test_bradley_terry_is_finite_for_a_whitewash() -> None:
    elo = bradley_terry_elo({(2, 3): 0, (3, 2): 10}, {(2, 3): 10})
    # a virtual half win each way: 0.5 wins of 11 games against 10.5
    assert elo[3] == 1500.0
    assert math.isclose(elo[2], 1500 + 400 * math.log10(0.5 / 10.5), abs_tol=1e-3)


def test_round_robin_is_reproducible() -> None:
    a = round_robin([2, 3], 2, "classic", 30, seed=3, progress=False)
    b = round_robin([2, 3], 2, "classic", 30, seed=3, progress=False)
    assert a == b
    assert a["elo"]["3"] == 1500.0 and a["pairs"][0]["matches"] == 2
    with pytest.raises(ValueError, match="including 3"):
        round_robin([1, 2], 2, "classic", 30, seed=3, progress=False)


def test_twin_matches_deal_the_same_cards_to_swapped_seats(monkeypatch: pytest.MonkeyPatch) -> None:
    """Duplicate pairs: matches 2k and 2k + 1 deal the same decks, the first dealer swapped."""
    import engine.tools.arena as arena
    from engine.deck import shuffled_deck

    decks: list[tuple[int, ...]] = []
    dealers: list[int] = []

    def recording(rng: object) -> list[int]:
        deck = shuffled_deck(rng)  # type: ignore[arg-type]
        decks.append(tuple(deck))
        return deck

    real_match = arena.MatchState

    class Recording(real_match):  # type: ignore[misc, valid-type]
        def __init__(self, rules: object, first_dealer: int) -> None:
            dealers.append(first_dealer)
            super().__init__(rules, first_dealer)

    monkeypatch.setattr(arena, "shuffled_deck", recording)
    monkeypatch.setattr(arena, "MatchState", Recording)
    records = run_matches(3, 3, rules_for("classic", 30), 2, 5)
    first_len = len(records[0].hands)
    assert dealers == [0, 1]
    assert decks[0] == decks[first_len]  # hand 1 of each twin: the same deck
