"""FIDE TRF-16 (Tournament Report File, FIDE Handbook C.04 Annex 2) writer and reader, framework-free.

An outside pairing program (JaVaFo, bbpPairings) reads a Swiss event's players and results from it and
can check our pairings. The layout, 1-based columns as in the Annex:

- ``012 <name>``, ``022`` city, ``032`` federation, ``042``/``052`` start/end date ``YYYY/MM/DD``,
  ``062`` players, ``072`` rated players, ``092`` type, ``102`` chief arbiter; ``XXR <n>`` the number of
  rounds (the JaVaFo/bbpPairings extension: how many rounds the event has, played or not).
- A player, ``001``::

      cols  1-3  "001"         cols 58-68  FIDE id (blank here)
      cols  5-8  starting rank cols 70-79  birth date (blank)
      col  10    sex (blank)   cols 81-84  points, one decimal ("  3.0")
      cols 11-13 title (blank) cols 86-89  rank
      cols 15-47 name (33)     then per round r (1-based), 10 characters from col 92 + 10(r-1):
      cols 49-52 rating        ``oooo c r``: opponent's starting rank (4, "0000" for none), colour
      cols 54-56 federation    w/b/-, result

  Results: ``1`` win, ``0`` loss, ``=`` draw, ``+``/``-`` forfeit win/loss (with the opponent),
  ``U`` pairing-allocated bye (ours: a full point), ``F``/``H``/``Z`` full/half/zero-point bye,
  blank: not paired (as ``Z``).

Conventions of this site (docs/tournaments.md "Results and exports"): gin has seats, not colours; seat 0
is written as white (``w``), seat 1 as black (``b``). Starting ranks are the pairing numbers
(``selectors.pairing_numbers``). Ratings are rounded to whole points (0 = unrated, at most 9999). The
file is UTF-8 (JaVaFo and bbpPairings read it; the Annex's ASCII is a subset), lines end with ``\\r\\n``
(Remark 1: each line ends with CR). Names lose control characters (newline, NUL...) and are cut to 33
characters, as the column allows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

__all__ = ["Game", "PlayerLine", "Report", "TrfError", "read", "write"]

RESULTS = frozenset("10=+-UFHZWDL ")
"""Every result code of the Annex (``W``/``D``/``L``: a game of less than one move; blank: unpaired)."""
COLOURS = frozenset("wb- ")
NAME_WIDTH = 33
ROUND_START = 91
"""0-based index of the first round block (column 92)."""
ROUND_WIDTH = 10


class TrfError(ValueError):
    """A malformed report or line; the message names the line number and the field."""


@dataclass(frozen=True)
class Game:
    """One round of one player: ``opponent`` starting rank (0: none, a bye), ``colour`` ``w``/``b``/``-``,
    ``result`` one of :data:`RESULTS`."""

    opponent: int
    colour: str
    result: str

    @property
    def is_bye(self) -> bool:
        """A bye that scores (``U``, ``F``, ``H``): what the Swiss pairing counts as "had a bye"."""
        return self.opponent == 0 and self.result in ("U", "F", "H")


@dataclass(frozen=True)
class PlayerLine:
    """A ``001`` line: ``number`` starting rank (1..9999), ``name``, ``rating`` (whole Elo, 0 unrated),
    ``points`` (multiple of 0.5), ``rank`` (1-based final place), ``games`` one per round played so far."""

    number: int
    name: str
    rating: int
    points: float
    rank: int
    games: tuple[Game, ...] = ()
    federation: str = ""


@dataclass(frozen=True)
class Report:
    """A whole file: the tournament lines and the players ordered by starting rank."""

    name: str
    players: tuple[PlayerLine, ...]
    rounds: int
    start: date | None = None
    end: date | None = None
    city: str = ""
    federation: str = ""
    type: str = "Swiss"
    arbiter: str = ""


def clean(text: str, width: int | None = None) -> str:
    """``text`` with every control character (C0, DEL, C1: newline, NUL, tab...) made a space, stripped,
    cut to ``width`` characters."""
    out = "".join(" " if (ord(c) < 32 or 127 <= ord(c) < 160) else c for c in text).strip()
    return out[:width].rstrip() if width is not None else out


def _date(value: date | None) -> str:
    return "" if value is None else f"{value:%Y/%m/%d}"


def _player(p: PlayerLine) -> str:
    if not 1 <= p.number <= 9999:
        raise TrfError(f"player {p.name!r}: starting rank {p.number} outside 1..9999")
    rating = min(max(p.rating, 0), 9999)
    line = (f"001 {p.number:>4} {'':1}{'':3} {clean(p.name, NAME_WIDTH):<{NAME_WIDTH}} "
            f"{rating if rating else '':>4} {clean(p.federation, 3):<3} {'':>11} {'':<10} "
            f"{p.points:>4.1f} {p.rank:>4}")
    for game in p.games:
        if game.colour not in COLOURS or game.result not in RESULTS or not 0 <= game.opponent <= 9999:
            raise TrfError(f"player {p.number}: bad game {game!r}")
        line += f"  {game.opponent:04d} {game.colour} {game.result}"
    return line.rstrip()


def write(report: Report) -> str:
    """The report as TRF-16 text (``\\r\\n`` line ends). Raises :class:`TrfError` on a starting rank
    outside 1..9999 or a game with an unknown colour or result."""
    lines = [f"012 {clean(report.name)}"]
    for code, value in (("022", clean(report.city)), ("032", clean(report.federation, 3)),
                        ("042", _date(report.start)), ("052", _date(report.end))):
        if value:
            lines.append(f"{code} {value}")
    lines.append(f"062 {len(report.players)}")
    lines.append(f"072 {sum(1 for p in report.players if p.rating > 0)}")
    lines.append(f"092 {clean(report.type)}")
    if report.arbiter:
        lines.append(f"102 {clean(report.arbiter)}")
    lines.append(f"XXR {report.rounds}")
    lines.extend(_player(p) for p in sorted(report.players, key=lambda p: p.number))
    return "\r\n".join(lines) + "\r\n"


def _int(text: str, where: str) -> int:
    text = text.strip()
    if not text:
        return 0
    if not text.isdigit():
        raise TrfError(f"{where}: not a whole number: {text!r}")
    return int(text)


def _read_player(line: str, where: str) -> PlayerLine:
    if len(line) < 89:
        raise TrfError(f"{where}: a 001 line has at least 89 columns, this one {len(line)}")
    try:
        points = float(line[80:84])
    except ValueError:
        raise TrfError(f"{where}: points (columns 81-84) {line[80:84]!r} is not a number") from None
    games = []
    for start in range(ROUND_START, len(line), ROUND_WIDTH):
        block = line[start:start + 8].ljust(8)
        if block.strip() == "":
            games.append(Game(0, "-", " "))
            continue
        colour, result = block[5], block[7]
        if colour not in COLOURS or result not in RESULTS:
            raise TrfError(f"{where}: round {len(games) + 1}: colour {colour!r} or result {result!r} unknown")
        games.append(Game(_int(block[0:4], f"{where} round {len(games) + 1} opponent"), colour, result))
    return PlayerLine(
        number=_int(line[4:8], f"{where} starting rank"), name=line[14:47].strip(),
        rating=_int(line[48:52], f"{where} rating"), points=points, rank=_int(line[85:89], f"{where} rank"),
        games=tuple(games), federation=line[53:56].strip(),
    )


def _read_date(text: str, where: str) -> date | None:
    text = text.strip()
    if not text:
        return None
    try:
        year, month, day = (int(x) for x in text.split("/"))
        return date(year, month, day)
    except ValueError:
        raise TrfError(f"{where}: date {text!r} is not YYYY/MM/DD") from None


def read(text: str) -> Report:
    """Parse TRF-16 text (``\\n`` or ``\\r\\n`` line ends; unknown line codes are skipped, as the Annex
    allows). Raises :class:`TrfError` naming the line on a short or malformed ``001`` line, a bad date or
    a missing ``012``."""
    fields: dict[str, str] = {}
    players: list[PlayerLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        code = line[:3]
        if code == "001":
            players.append(_read_player(line, f"line {number}"))
        elif code in ("012", "022", "032", "042", "052", "092", "102", "XXR"):
            fields[code] = line[4:].strip()
    if "012" not in fields:
        raise TrfError("no 012 line (tournament name)")
    played = max((len(p.games) for p in players), default=0)
    return Report(
        name=fields["012"], players=tuple(sorted(players, key=lambda p: p.number)),
        rounds=_int(fields.get("XXR", ""), "XXR") or played,
        start=_read_date(fields.get("042", ""), "042"), end=_read_date(fields.get("052", ""), "052"),
        city=fields.get("022", ""), federation=fields.get("032", ""), type=fields.get("092", ""),
        arbiter=fields.get("102", ""),
    )


def field_before(report: Report, round_number: int) -> list[tuple[int, float, int, frozenset[int], bool]]:
    """What a Swiss pairing of round ``round_number`` (1-based) needs from rounds before it, per player:
    ``(starting rank, score, rating, opponents' starting ranks, had a bye)``. Scores count ``1``/``+``/
    ``W``/``U``/``F`` as 1, ``=``/``D``/``H`` as 0.5, the rest 0."""
    value = {"1": 1.0, "+": 1.0, "W": 1.0, "U": 1.0, "F": 1.0, "=": 0.5, "D": 0.5, "H": 0.5}
    out = []
    for p in report.players:
        games: Sequence[Game] = p.games[:round_number - 1]
        out.append((p.number, sum(value.get(g.result, 0.0) for g in games), p.rating,
                    frozenset(g.opponent for g in games if g.opponent), any(g.is_bye for g in games)))
    return out
