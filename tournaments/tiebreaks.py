"""Swiss standings and tie-breaks, framework-free (no Django).

Scoring: match win 1, loss 0, bye 1 (a forfeit counts as the win or loss it is, against that opponent).
Players are ordered by score, then by these tie-breaks in turn (all descending):

1. **Buchholz**: the sum of the final scores of the player's opponents. A bye counts as a *virtual
   opponent* whose score is the player's own score before that round (FIDE's rule for unplayed rounds,
   without its half points for later rounds, as gin has no draws), so a bye neither helps nor hurts much.
2. **Sonneborn-Berger**: the sum of the final scores of the opponents the player beat (the virtual
   opponent of a bye counts as beaten).
3. **Hand-point differential**: over the tournament's matches, hand points scored minus hand points
   conceded (a bye counts 0).
4. **Rating**: the player's rating at the start.

Ties left after all four share a rank (``rank`` is the position of the first of them, 1-based); they
are listed by pairing number (the starting rank), then id.

**Removed players** (an account closed for a fair-play violation, docs/fairplay.md): their line leaves the
standings and the others are ranked again without it; every result stands (their opponents keep the
points won or lost against them, and their score still counts in those opponents' Buchholz and
Sonneborn-Berger: the matches were played).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Result", "Standing", "standings"]


@dataclass(frozen=True)
class Result:
    """One player's result in one round (each match gives two, one per side).

    - ``round``: 1-based round number.
    - ``player`` / ``opponent``: ids; ``opponent`` is ``None`` for a bye.
    - ``points``: 1 win (or bye), 0 loss.
    - ``hand_points`` / ``hand_points_against``: the match's final score for and against the player
      (0 and 0 for a bye).
    """

    round: int
    player: str
    opponent: str | None
    points: float
    hand_points: int = 0
    hand_points_against: int = 0


@dataclass(frozen=True)
class Standing:
    """A player's line in the standings: ``rank`` (1-based, shared by exact ties), ``score``,
    ``buchholz``, ``sonneborn_berger``, ``hand_point_diff``, ``rating``."""

    rank: int
    player: str
    score: float
    buchholz: float
    sonneborn_berger: float
    hand_point_diff: int
    rating: float

    def key(self) -> tuple[float, float, float, int, float]:
        """The sort key (all components descending): score, Buchholz, Sonneborn-Berger, hand points,
        rating."""
        return (self.score, self.buchholz, self.sonneborn_berger, self.hand_point_diff, self.rating)


def standings(
    ratings: Mapping[str, float], results: Iterable[Result], numbers: Mapping[str, int] | None = None,
    removed: Collection[str] = frozenset(),
) -> list[Standing]:
    """The standings of a tournament from its results so far.

    :param ratings: every player's rating (players with no result yet get a line with zeros).
    :param results: each player's result per round (a played match yields a ``Result`` for each side).
    :param numbers: the players' pairing numbers (``swiss.Player.number``; missing: 0).
    :param removed: players whose line is left out (see the module docstring); their results count.
    :returns: the lines in order (score, then the tie-breaks; exact ties, which share their ``rank``,
        in the order of ``numbers``, then id, for a stable order).
    :raises ValueError: a result for a player not in ``ratings``, or two results of one player in one
        round.
    """
    by_player: dict[str, list[Result]] = {player: [] for player in ratings}
    for result in results:
        if result.player not in by_player:
            raise ValueError(f"result for unknown player {result.player!r}")
        by_player[result.player].append(result)
    for player, rows in by_player.items():
        rows.sort(key=lambda r: r.round)
        rounds = [r.round for r in rows]
        if len(set(rounds)) != len(rounds):
            raise ValueError(f"player {player!r} has two results in one round")
    score = {player: sum(r.points for r in rows) for player, rows in by_player.items()}

    lines = []
    for player, rows in by_player.items():
        if player in removed:
            continue
        buchholz = 0.0
        sonneborn = 0.0
        running = 0.0  # the player's score before the current row's round
        for row in rows:
            opponent_score = running if row.opponent is None else score.get(row.opponent, 0.0)
            buchholz += opponent_score
            sonneborn += opponent_score * row.points
            running += row.points
        lines.append(
            Standing(
                rank=0,
                player=player,
                score=score[player],
                buchholz=buchholz,
                sonneborn_berger=sonneborn,
                hand_point_diff=sum(r.hand_points - r.hand_points_against for r in rows),
                rating=ratings[player],
            )
        )
    return _ranked(lines, numbers or {})


def _ranked(lines: Sequence[Standing], numbers: Mapping[str, int]) -> list[Standing]:
    ordered = sorted(lines, key=lambda s: (tuple(-v for v in s.key()), numbers.get(s.player, 0), s.player))
    out: list[Standing] = []
    for position, line in enumerate(ordered, start=1):
        rank = out[-1].rank if out and out[-1].key() == line.key() else position
        out.append(
            Standing(
                rank=rank,
                player=line.player,
                score=line.score,
                buchholz=line.buchholz,
                sonneborn_berger=line.sonneborn_berger,
                hand_point_diff=line.hand_point_diff,
                rating=line.rating,
            )
        )
    return out
