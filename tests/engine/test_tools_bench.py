"""engine.tools.bench's hand dump (the file an outside meld search is timed and checked on) and
engine.tools.knocktable's table arithmetic (issue 28)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.actions import ActionKind
from engine.bots.ladder import make_bot
from engine.cards import parse_cards, to_mask
from engine.melds import deadwood_of_mask
from engine.rules import preset
from engine.tools import bench, knocktable
from engine.tools.arena import play_bots
from engine.tools.knocktable import Position


def test_dump_writes_every_timed_hand_with_its_class_and_a_checksum(tmp_path, capsys):
    path = tmp_path / "hands.txt"
    bench.main(["--hands", "5", "--seconds", "0", "--dump", str(path)])
    lines = path.read_text().splitlines()
    assert len(lines) == 5 * len(bench.CLASSES)
    out = capsys.readouterr().out
    for name in bench.CLASSES:
        hands = [[int(c) for c in line.split()[1:]] for line in lines if line.split()[0] == name]
        assert len(hands) == 5
        assert all(len(set(h)) == len(h) == (11 if name.endswith("11") else 10) for h in hands)
        masks = [sum(1 << c for c in h) for h in hands]
        row = next(r for r in out.splitlines() if r.startswith(name + " "))
        assert int(row.split()[-1]) == bench.checksum(name, masks)


def test_checksum_worked_example():
    # 2c 3c 4c meld; 5d 7h 8s 9h Js Qh Kd are deadwood: 5+7+8+9+10+10+10
    ten = to_mask(parse_cards("2c 3c 4c 5d 7h 8s 9h Js Qh Kd"))
    assert bench.checksum("random10", [ten]) == 59
    # 2-5c and the three 7s meld; 9h Js Qh Kd (39) are deadwood, the best discard sheds a 10
    eleven = to_mask(parse_cards("2c 3c 4c 5c 7h 7s 7d 9h Js Qh Kd"))
    assert bench.checksum("random11", [eleven]) == 29
    per = bench.deadwood_after_discards_of_mask(eleven)
    # a 10 leaves 29; the 9h 30; an end of the run 39; a 7 (the pair left is deadwood) 39 + 14;
    # 3c (2c, 4c 5c left) 39 + 11; 4c (2c 3c, 5c left) 39 + 10
    assert sorted(per.values()) == [29, 29, 29, 30, 39, 39, 49, 50, 53, 53, 53]
    assert bench.checksum("discards11", [eleven]) == sum(per.values()) == 453


@pytest.mark.parametrize(("deadwood", "stock", "seen", "key"), [
    (10, 31, 15, "10/0/2"), (10, 24, 26, "10/0/0"), (3, 23, 20, "3/1/1"), (3, 18, 19, "3/1/2"),
    (1, 12, 30, "1/2/0"), (1, 11, 25, "1/3/1"), (7, 0, 40, "7/3/0"),
])
def test_cell_buckets_turn_and_cards_seen(deadwood, stock, seen, key):
    assert knocktable.cell(deadwood, stock, seen) == key


def test_table_knocks_where_the_mean_advantage_is_not_negative_and_regrets_are_exact():
    train = [
        Position("5/0/0", knocked=True, knock=4.0, play=6.0),   # advantage -2
        Position("5/0/0", knocked=True, knock=9.0, play=6.0),   # +3: mean +0.5 -> knock
        Position("8/1/0", knocked=False, knock=-2.0, play=1.0),  # -3 -> play on
    ]
    table = knocktable.build_table(train)
    assert table == {"5/0/0": {"n": 2, "advantage": 0.5, "knock": True},
                     "8/1/0": {"n": 1, "advantage": -3.0, "knock": False}}
    test = [
        Position("5/0/0", knocked=False, knock=10.0, play=7.0),  # table knocks: 0; level 5 played: 3
        Position("8/1/0", knocked=True, knock=0.0, play=2.0),    # table plays on: 0; level 5: 2
        Position("2/3/2", knocked=True, knock=1.0, play=5.0),    # empty cell knocks: 4; level 5: 4
    ]
    result = knocktable.measure(table, test)
    assert result["table"]["regret"] == pytest.approx(4 / 3, abs=1e-4)
    assert result["level5"]["regret"] == pytest.approx(3.0, abs=1e-4)
    assert result["always_knock"]["regret"] == pytest.approx((0 + 2 + 4) / 3, abs=1e-4)
    # paired differences -3, -2, 0: mean -5/3, sd sqrt(7/3), se sqrt(7/9)
    assert result["table_minus_level5"]["mean"] == pytest.approx(-5 / 3, abs=1e-4)
    assert result["table_minus_level5"]["se"] == pytest.approx((7 / 9) ** 0.5, abs=1e-4)
    assert result["level5_knock_share"] == pytest.approx(2 / 3, abs=1e-4)
    assert result["table_knock_share"] == pytest.approx(2 / 3, abs=1e-4)


def test_checked_in_knock_table_names_its_command_and_seed_and_each_cell_follows_its_advantage():
    path = Path(__file__).resolve().parents[2] / "data" / "knock_table.json"
    table = json.loads(path.read_text())
    assert table["command"] == (
        "python -m engine.tools.knocktable --matches 300 --seed 1 --workers 2 --out data/knock_table.json")
    assert (table["seed"], table["matches"], table["worlds"]) == (1, 300, 200)
    cells = table["cells"]
    assert len(cells) == 79
    assert sum(c["n"] for c in cells.values()) == 4932  # the training half's positions
    for key, c in cells.items():
        deadwood, stock, seen = map(int, key.split("/"))
        assert 1 <= deadwood <= 10 and 0 <= stock <= 3 and 0 <= seen <= 2
        assert c["n"] >= 1 and c["knock"] == (c["advantage"] >= 0)
    # what the self-play found (docs/bots.md): playing on beats knocking in every cell
    assert not any(c["knock"] for c in cells.values())


def test_table_bot_knocks_only_where_its_cell_says_so_and_the_reference_is_reproducible():
    kept: list = []
    rng = random.Random(7)
    bots = (knocktable._Recorder(1, kept), make_bot(3, seed=2))
    play_bots(bots, preset("classic"), rng, True)
    assert len(kept) >= 3
    never = {knocktable.cell(d, s, k): {"knock": False}
             for d in range(1, 11) for s in range(40) for k in range(53)}
    for i, (view, _) in enumerate(kept):
        hand = to_mask(view.hand)
        after = {a.card: deadwood_of_mask(hand ^ (1 << a.card))
                 for a in view.legal_actions if a.kind is ActionKind.KNOCK}
        least = min(after.values())
        # an empty table knocks (the simple player's rule) with the highest card of the least deadwood
        action = knocktable.TableBot(3, {}).choose(view)
        assert action.kind is ActionKind.KNOCK
        assert action.card == max(c for c in after if after[c] == least)
        # a table saying "play on" everywhere leaves level 5 a plain discard
        assert knocktable.TableBot(3, never).choose(view).kind is ActionKind.DISCARD
        if i >= 3:
            continue
        # the reference's values come from its own seeded random numbers only
        key, knock, play = knocktable.reference(view, 5, random.Random(1))
        assert (key, knock, play) == knocktable.reference(view, 5, random.Random(1))
        assert key.split("/")[0] == str(least)


@pytest.mark.parametrize(("main", "args", "message"), [
    (bench.main, ["--hands", "0"], "argument --hands: a hand count is an integer 1..1000000, got '0'"),
    (bench.main, ["--seconds", "nan"], "argument --seconds: seconds are a number 0..3600, got 'nan'"),
    (bench.main, ["--seconds", "inf"], "argument --seconds: seconds are a number 0..3600, got 'inf'"),
    (bench.main, ["--dump", "/nonexistent/dir/x.txt"],
     "argument --dump: cannot write a file at '/nonexistent/dir/x.txt': no such writable folder"),
    (knocktable.main, ["--matches", "1"],
     "argument --matches: a match count is an integer 2..1000000, got '1'"),
    (knocktable.main, ["--worlds", "0"], "argument --worlds: a world count is an integer 1..100000, got '0'"),
    (knocktable.main, ["--workers", "-3"],
     "argument --workers: a worker count is an integer 1..64, got '-3'"),
    (knocktable.main, ["--against", "6"], "argument --against: a bot level is an integer 1..5, got '6'"),
    (knocktable.main, ["--out", "/nonexistent/x.json"],
     "argument --out: cannot write a file at '/nonexistent/x.json': no such writable folder"),
])
def test_bad_arguments_stop_before_any_work_with_a_specific_message(main, args, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_play_refuses_a_file_that_is_not_a_table(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text('{"elo": {}}')
    with pytest.raises(SystemExit):
        knocktable.main(["--play", str(path)])
    assert "is not a table file (--out): KeyError('cells')" in capsys.readouterr().err
