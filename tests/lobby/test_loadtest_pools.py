"""``scripts/loadtest_pools``' own bookkeeping (issue 21): its figures from worked examples (the run itself
needs a server and is done by hand: docs/lobby.md "Load test")."""

from __future__ import annotations

import pytest

from scripts.lib import loadtest_pools as lp


def test_summary_nearest_rank_percentiles() -> None:
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert lp.summary(values) == {"n": 100, "p50": 50.0, "p95": 95.0, "max": 100.0}
    assert lp.summary([0.123456], 2) == {"n": 1, "p50": 0.12, "p95": 0.12, "max": 0.12}
    assert lp.summary([]) == {"n": 0, "p50": None, "p95": None, "max": None}


def test_a_player_in_two_matches_at_once_is_found() -> None:
    matches = [
        (1, 2, 0.0, 10.0),   # 1 and 2 play from 0 to 10
        (1, 3, 10.0, 20.0),  # 1 again from 10: it ends exactly as the next starts, no overlap
        (2, 4, 9.0, 15.0),   # 2 starts at 9, before its match with 1 ended at 10: twice
        (5, 6, 0.0, None),   # 5 still in play ...
        (5, 7, 50.0, 60.0),  # ... and another match for 5: twice
        (8, None, 0.0, 1.0),  # a table without its second player counts for 8 only
    ]
    assert lp.players_in_two_matches(matches) == {2: 1, 5: 1}


def test_three_overlapping_matches_count_twice() -> None:
    matches = [(1, 2, 0.0, 100.0), (1, 3, 10.0, 20.0), (1, 4, 30.0, 40.0)]
    assert lp.players_in_two_matches(matches) == {1: 2}


def test_bad_matches_need_two_entries_of_two_players() -> None:
    entries = [(10, 1), (10, 2), (11, 3), (12, 4), (12, 4), (13, 5), (13, 6), (13, 7)]
    assert lp.bad_matches(entries) == [11, 12, 13]
    assert lp.bad_matches([(10, 1), (10, 2)]) == []


def test_wave_durations_group_by_pool_and_wave_clock() -> None:
    rows = [
        (1, 100.0, 100.010), (1, 100.0, 100.025), (1, 100.0, 100.020),  # pool 1's wave at 100: 25 ms
        (2, 100.0, 100.005),  # pool 2's wave at the same clock is another wave: 5 ms
        (1, 101.0, 101.040),  # pool 1's next wave: 40 ms
    ]
    assert [round(d, 3) for d in lp.wave_durations(rows)] == [0.025, 0.04, 0.005]


def test_rating_gaps_of_matches_with_two_entries() -> None:
    assert lp.rating_gaps([(1, 1500.0), (2, 1400.0), (1, 1560.0), (2, 1480.5), (3, 1700.0)]) == [60.0, 80.5]


def test_addresses_of_players_spread_over_loopback() -> None:
    assert lp.address_of(0, 40) == "127.0.0.2"
    assert lp.address_of(39, 40) == "127.0.0.2"
    assert lp.address_of(40, 40) == "127.0.0.3"
    assert lp.address_of(1999, 40) == "127.0.0.51"
    assert lp.address_of(254 * 40, 40) == "127.0.1.0"
    with pytest.raises(ValueError):
        lp.address_of(0xFFFFFF * 40, 40)


def test_table_one_row_a_level() -> None:
    level = {
        "players": 100, "duration_s": 60.2, "pairings": 812,
        "wait_s": {"p50": 1.2, "p95": 3.4, "max": 7.0}, "gap": {"p50": 20.0, "p95": 90.0},
        "wave_ms": {"p50": 30.5, "max": 120.0}, "paired_twice": 0, "errors": {"timeout_pool": 2, "x": 1},
    }
    lines = lp.table([level]).splitlines()
    assert lines[0].startswith("| players | s | pairings | wait p50 / p95 / max s |")
    assert lines[2] == "| 100 | 60.2 | 812 | 1.2 / 3.4 / 7.0 | 20.0 / 90.0 | 30.5 / 120.0 | 0 | 3 |"


def test_arguments() -> None:
    args = lp.parse_args(["100", "500", "--duration", "30"])
    assert (args.levels, args.duration, args.pool, args.per_address) == ([100, 500], 30.0, "50-20-rated", 20)
    assert lp.parse_args([]).levels == [100, 500, 2000]
    with pytest.raises(SystemExit):
        lp.parse_args(["1"])
    with pytest.raises(SystemExit):
        lp.parse_args(["100", "--duration", "0"])


def test_pause_argument() -> None:
    assert lp.parse_args([]).pause == [0.0, 0.0]
    assert lp.parse_args(["--pause", "5", "15"]).pause == [5.0, 15.0]
    assert lp.parse_args(["--pause", "3"]).pause == [3.0, 3.0]
    with pytest.raises(SystemExit):
        lp.parse_args(["--pause", "5", "1"])


def test_connect_errors_name_the_refusal_status() -> None:
    class Response:
        status_code = 503

    class InvalidStatus(Exception):
        response = Response()

    assert lp.connect_error("pool_connect", InvalidStatus()) == "pool_connect:InvalidStatus:503"
    assert lp.connect_error("match_connect", TimeoutError()) == "match_connect:TimeoutError"
