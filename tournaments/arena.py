"""Arena (docs/tournaments.md "Arena"): scoring, the pairing of one wave, performance and standings.

Framework-free (no Django: the import contract "framework-free modules" checks it), deterministic, typed.
The services (``tournaments.arena_play``) read the waiting players from the database, call
:func:`pair_wave`, and record each finished match with :func:`score_match`.

Scoring (lichess's Arena, with a match in the place of a game; gin has no draws):

- a match win scores :data:`WIN_POINTS` (2), a loss 0;
- on a streak (the player's two previous results in this event were wins: ``streak >= 2``, lichess's
  "fire") a win scores double, :data:`STREAK_WIN_POINTS` (4): the 2 extra points are the streak bonus;
- a loss ends the streak (back to 0); a win adds one to it;
- an aborted match with no winner (nobody moved, or the server aborted it) scores 0 for both and leaves
  both streaks as they were: it is not a result. A match one player aborted (resigned before both moved)
  is a loss for the aborter and a win for the opponent, as in the Swiss events.

So a player's score is always ``2 x wins + 2 x wins on a streak`` (:func:`score_identity`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

WIN_POINTS = 2
"""Points of a match win off a streak."""
STREAK_WIN_POINTS = 4
"""Points of a match win on a streak (double: 2 of them are the streak bonus)."""
STREAK_AFTER = 2
"""Wins in a row after which the next win scores double."""
EXACT_UP_TO = 120
"""A wave of at most this many waiting players that the fast pass leaves two or more unpaired is paired
again by an exact maximum matching (the most pairs possible); larger waves keep the fast pass's answer."""
PERFORMANCE_SPREAD = 500
"""lichess's tournament performance: average opponent rating + 500 x (2 x score share - 1)."""


@dataclass(frozen=True, slots=True)
class MatchScore:
    """What one match gives a seat: ``points`` (0, 2 or 4), ``on_streak`` (the seat was on a streak as
    it started, so a win scored double), ``streak_after`` (the seat's wins in a row after it)."""

    points: int
    on_streak: bool
    streak_after: int


def score_match(*, won: bool | None, streak: int) -> MatchScore:
    """The points of one match for a seat with ``streak`` wins in a row before it.

    :param won: True (won), False (lost), None (no result: aborted without a loser; scores 0, streak kept).
    :param streak: wins in a row before the match, >= 0.
    :raises ValueError: ``streak`` negative.

    >>> score_match(won=True, streak=0)
    MatchScore(points=2, on_streak=False, streak_after=1)
    >>> score_match(won=True, streak=2)
    MatchScore(points=4, on_streak=True, streak_after=3)
    >>> score_match(won=False, streak=5)
    MatchScore(points=0, on_streak=True, streak_after=0)
    """
    if streak < 0:
        raise ValueError(f"streak must be >= 0, got {streak}")
    on_streak = streak >= STREAK_AFTER
    if won is None:
        return MatchScore(0, on_streak, streak)
    if not won:
        return MatchScore(0, on_streak, 0)
    return MatchScore(STREAK_WIN_POINTS if on_streak else WIN_POINTS, on_streak, streak + 1)


def score_identity(results: Iterable[bool | None]) -> tuple[int, int, int]:
    """Replay a player's results in order: ``(score, match points, streak bonuses)``, where match points
    are 2 a win and the bonus 2 a win on a streak; ``score == match points + streak bonuses`` always.

    >>> score_identity([True, True, True, False, True, None, True])
    (12, 10, 2)
    """
    streak = score = match_points = bonus = 0
    for won in results:
        result = score_match(won=won, streak=streak)
        streak = result.streak_after
        score += result.points
        if won:
            match_points += WIN_POINTS
            bonus += result.points - WIN_POINTS
    return score, match_points, bonus


# ----------------------------------------------------------------------------------------------- waves


@dataclass(frozen=True, slots=True)
class Waiting:
    """A player waiting to be paired: ``id`` (a user id), ``score`` (Arena points), ``rating`` (fixed at
    the start or at a late join), ``waiting_since`` (seconds, any epoch: the longer waiting first among
    equals), ``last_opponent`` (the id met in the player's previous match, or None), ``is_bot``."""

    id: int
    score: int
    rating: float
    waiting_since: float
    last_opponent: int | None = None
    is_bot: bool = False


def rank_key(player: Waiting) -> tuple[float, float, float, int]:
    """The waiting list's order: score, then rating (both descending), then the longer waiting, then id."""
    return (-player.score, -player.rating, player.waiting_since, player.id)


def may_meet(a: Waiting, b: Waiting) -> bool:
    """False for two house bots (they would play at engine speed and run up scores: a bot waits for a
    person) and when a person would meet the opponent of their previous match (never the same opponent
    twice in a row). A house bot's own previous opponent does not count: a bot seeks no variety, and a
    person whose last opponent was another bot must not wait for ever because the one free bot has just
    played them (a field of two people and two bots, one person paused: a user's trial)."""
    if a.id == b.id or (a.is_bot and b.is_bot):
        return False
    return (a.is_bot or a.last_opponent != b.id) and (b.is_bot or b.last_opponent != a.id)


def pair_wave(waiting: Sequence[Waiting]) -> list[tuple[int, int]]:
    """Pair one wave: ``[(id, id), ...]`` in ranking order, the higher-ranked first.

    Players are ranked by :func:`rank_key`; each unpaired player from the top meets the nearest player
    below it in the ranking that :func:`may_meet` allows (lila pairs neighbours by rank in its waiting
    list). Then each two players left over (they may not meet each other) try a swap with a pair already
    made, nearest in the ranking first: ``x, y`` left and ``(a, b)`` paired become ``(x, a), (y, b)`` (or
    ``(x, b), (y, a)``) when both new pairs are allowed, so one more pair plays. Whoever is left waits for
    the next wave (so the only two waiting who met last both wait; a bot waits for a person). When two
    or more are still left in a wave of at most :data:`EXACT_UP_TO` players, an exact maximum matching
    (nearest ranks among the largest) replaces it if it pairs more: so such a wave pairs as many players
    as any pairing could (tests/tournaments/test_arena.py checks it against brute force).

    Never returns a player twice, a pair :func:`may_meet` refuses, or an id not in ``waiting``.
    Deterministic: the same input in any order gives the same output. About 10 ms for 1,000 waiting
    players (docs/tournaments.md "Arena").

    :raises ValueError: an id twice in ``waiting``.
    """
    ranked = sorted(waiting, key=rank_key)
    if len({p.id for p in ranked}) != len(ranked):
        raise ValueError("a player is twice in the waiting list")
    n = len(ranked)
    partner: list[int] = [-1] * n
    # Next index of a person at or below i: a bot's scan jumps over the bots below it (else a field
    # of many bots would make the pass quadratic).
    next_person = [n] * (n + 1)
    for i in range(n - 1, -1, -1):
        next_person[i] = i if not ranked[i].is_bot else next_person[i + 1]
    for i in range(n):
        if partner[i] >= 0:
            continue
        j = i + 1
        while j < n:
            if ranked[i].is_bot:
                j = next_person[j]
                if j >= n:
                    break
            if partner[j] < 0 and may_meet(ranked[i], ranked[j]):
                partner[i], partner[j] = j, i
                break
            j += 1
    left = [i for i in range(n) if partner[i] < 0]
    _repair(ranked, partner, left)
    if len(left) >= 2 and n <= EXACT_UP_TO:
        _exact(ranked, partner)
    pairs = [(ranked[i].id, ranked[partner[i]].id) for i in range(n) if i < partner[i]]
    return [(a, b) for a, b in pairs]


def _exact(ranked: list[Waiting], partner: list[int]) -> None:
    """The most pairs possible, nearest ranks among them: a maximum-cardinality matching of greatest
    weight ``n - rank gap`` (Edmonds' blossom algorithm, networkx, as the Swiss pairing uses), in place."""
    import networkx as nx  # only for the rare small waves the fast pass leaves short

    n = len(ranked)
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            if may_meet(ranked[i], ranked[j]):
                graph.add_edge(i, j, weight=n - (j - i))
    matching: set[tuple[int, int]] = nx.max_weight_matching(graph, maxcardinality=True)
    if len(matching) <= sum(1 for i in range(n) if partner[i] >= 0 and i < partner[i]):
        return
    partner[:] = [-1] * n
    for i, j in matching:
        partner[i], partner[j] = j, i


def _repair(ranked: list[Waiting], partner: list[int], left: list[int]) -> None:
    """Two-for-one swaps of the leftovers (see :func:`pair_wave`), in place on ``partner``."""
    changed = True
    while changed and len(left) >= 2:
        changed = False
        made = [i for i in range(len(partner)) if partner[i] >= 0 and i < partner[i]]
        two_people = any(not ranked[i].is_bot and not ranked[partner[i]].is_bot for i in made)
        for xi in range(len(left)):
            for yi in range(xi + 1, len(left)):
                x, y = left[xi], left[yi]
                if ranked[x].is_bot and ranked[y].is_bot and not two_people:
                    continue  # two bots need two people to take them: no pair has two
                centre = (x + y) / 2
                for a in sorted(made, key=lambda i: (abs(i - centre), i)):
                    b = partner[a]
                    for p, q in ((a, b), (b, a)):
                        if may_meet(ranked[x], ranked[p]) and may_meet(ranked[y], ranked[q]):
                            partner[x], partner[p] = p, x
                            partner[y], partner[q] = q, y
                            left.remove(x)
                            left.remove(y)
                            changed = True
                            break
                    if changed:
                        break
                if changed:
                    break
            if changed:
                break


# ------------------------------------------------------------------------------------------- standings


@dataclass(frozen=True, slots=True)
class Played:
    """One finished match as a player saw it: the opponent's ``opponent_rating`` and ``won``
    (True/False; None: no result, left out of the performance)."""

    opponent_rating: float
    won: bool | None


def performance(games: Sequence[Played]) -> float | None:
    """lichess's tournament performance rating over the matches with a result: the average opponent
    rating + 500 x (2 x wins / matches - 1); None with no match played. Rounded to a whole number.

    >>> performance([Played(1500, True), Played(1700, False)])
    1600.0
    >>> performance([Played(1500, True), Played(1700, True)])
    2100.0
    """
    rated = [g for g in games if g.won is not None]
    if not rated:
        return None
    average = sum(g.opponent_rating for g in rated) / len(rated)
    share = sum(1 for g in rated if g.won) / len(rated)
    return float(round(average + PERFORMANCE_SPREAD * (2 * share - 1)))


@dataclass(frozen=True, slots=True)
class Line:
    """One standings line: ``player`` (id), ``score``, ``performance`` (None: no match), ``rating``,
    ``name`` (the last tie-break, so an order never depends on row ids), ``rank`` (shared when equal on
    score and performance; 1 first)."""

    player: int
    score: int
    performance: float | None
    rating: float
    name: str
    rank: int = 0


def standings(lines: Iterable[Line]) -> list[Line]:
    """Order by score, then performance (none counts lowest), then rating, then name; players equal on
    score and performance share a rank (``1, 2, 2, 4``)."""
    ordered = sorted(lines, key=lambda line: (
        -line.score, -(line.performance if line.performance is not None else float("-inf")),
        -line.rating, line.name, line.player))
    out: list[Line] = []
    for index, line in enumerate(ordered):
        if out and (out[-1].score, out[-1].performance) == (line.score, line.performance):
            rank = out[-1].rank
        else:
            rank = index + 1
        out.append(Line(line.player, line.score, line.performance, line.rating, line.name, rank))
    return out
