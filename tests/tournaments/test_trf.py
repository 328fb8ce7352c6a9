"""TRF-16 (``tournaments.trf``): the fixed columns of a worked example, the reader giving back what the
writer wrote, names sanitised, bad input refused; no database."""

from __future__ import annotations

import datetime as dt

import pytest

from tournaments import trf
from tournaments.trf import Game, PlayerLine, Report

EXAMPLE = Report(
    name="Friday Gin", rounds=3, start=dt.date(2026, 12, 4), end=dt.date(2026, 12, 4),
    players=(
        PlayerLine(2, "bob", 1550, 1.0, 2, (Game(0, "-", "U"), Game(1, "w", "0"))),
        PlayerLine(1, "alice", 1612, 2.0, 1, (Game(3, "w", "1"), Game(2, "b", "1"))),
        PlayerLine(3, "=carol\nx\x00y", 0, 1.0, 3, (Game(1, "b", "0"), Game(0, "-", "U"))),
    ),
)


def test_worked_example_columns() -> None:
    text = trf.write(EXAMPLE)
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    lines = text.split("\r\n")[:-1]
    assert lines[:7] == ["012 Friday Gin", "042 2026/12/04", "052 2026/12/04", "062 3", "072 2",
                         "092 Swiss", "XXR 3"]
    alice, bob, carol = lines[7:]  # by starting rank
    assert alice == ("001    1      " + "alice".ljust(33) + " 1612" + " " * 28 + " 2.0    1"
                     "  0003 w 1  0002 b 1")
    # The Annex's columns (1-based): 5-8 rank, 15-47 name, 49-52 rating, 81-84 points, 86-89 rank,
    # 92-95 opponent, 97 colour, 99 result, then every 10 columns a round.
    assert (alice[4:8], alice[14:47].rstrip(), alice[48:52], alice[80:84], alice[85:89]) == (
        "   1", "alice", "1612", " 2.0", "   1")
    assert (alice[91:95], alice[96], alice[98], alice[101:105], alice[106], alice[108]) == (
        "0003", "w", "1", "0002", "b", "1")
    assert bob[91:99] == "0000 - U" and bob[101:109] == "0001 w 0"
    # Control characters become spaces; an unrated player's rating is blank (0 when read).
    assert carol[14:47].rstrip() == "=carol x y" and carol[48:52] == "    "


def test_reader_gives_back_what_the_writer_wrote() -> None:
    back = trf.read(trf.write(EXAMPLE))
    assert back.name == "Friday Gin" and back.rounds == 3 and back.start == dt.date(2026, 12, 4)
    assert [(p.number, p.name, p.rating, p.points, p.rank, p.games) for p in back.players] == [
        (1, "alice", 1612, 2.0, 1, (Game(3, "w", "1"), Game(2, "b", "1"))),
        (2, "bob", 1550, 1.0, 2, (Game(0, "-", "U"), Game(1, "w", "0"))),
        (3, "=carol x y", 0, 1.0, 3, (Game(1, "b", "0"), Game(0, "-", "U"))),
    ]
    # Round 2's pairing input: scores, opponents and byes of round 1 only.
    assert trf.field_before(back, 2) == [
        (1, 1.0, 1612, frozenset({3}), False), (2, 1.0, 1550, frozenset(), True),
        (3, 0.0, 0, frozenset({1}), False)]


def test_long_names_are_cut_to_the_column() -> None:
    line = trf.write(Report("x", (PlayerLine(1, "n" * 50, 1500, 0.0, 1),), 1)).split("\r\n")[5]
    assert line[14:47] == "n" * 33 and line[48:52] == "1500"


@pytest.mark.parametrize(("text", "message"), [
    ("001    1", "line 1: a 001 line has at least 89 columns, this one 8"),
    ("012 x\n" + "001    1" + " " * 72 + " x.0    1",
     "line 2: points (columns 81-84) ' x.0' is not a number"),
    ("012 x\n042 2026-12-04", "042: date '2026-12-04' is not YYYY/MM/DD"),
    ("022 nowhere", "no 012 line (tournament name)"),
])
def test_reader_refuses_malformed_files(text: str, message: str) -> None:
    with pytest.raises(trf.TrfError) as info:
        trf.read(text)
    assert str(info.value) == message


def test_writer_refuses_bad_games() -> None:
    with pytest.raises(trf.TrfError, match="bad game"):
        trf.write(Report("x", (PlayerLine(1, "a", 0, 0.0, 1, (Game(2, "x", "1"),)),), 1))
    with pytest.raises(trf.TrfError, match=r"starting rank 0 outside 1\.\.9999"):
        trf.write(Report("x", (PlayerLine(0, "a", 0, 0.0, 1),), 1))
