"""Swiss pairing of one round, framework-free (no Django): the tournament runner's core.

Input: the field's players (:class:`Player`: id, score, rating, past opponents, forbidden opponents,
bye taken, withdrawn, pairing number).
Output: a :class:`Pairing` (pairs in board order, the bye or ``None``). The rules, in priority order:

0. Forbidden pairings (an organiser's choice: two players who must never meet) are absolute: the number
   of forbidden pairs paired is the least possible (zero whenever any pairing avoids them all), before
   rules 2-5 (a forbidden pair is paired only when no pairing allowed by rule 1 avoids it).
1. Withdrawn players are never paired. With an odd number of active players one gets the bye; only a
   player who has had no bye may get it, unless every active player has had one.
2. No avoidable rematch: the number of pairs who met before is the least possible over the whole field
   (zero whenever any pairing avoids rematches). A greedy top-down pass can paint itself into a corner
   (the last two players already met) where a global matching would not; this module decides it with a
   minimum-weight perfect matching (Edmonds' blossom algorithm, networkx) when its fast path cannot
   prove its own answer optimal.
3. The bye goes to the lowest-ranked eligible player (ranking: score, then rating, both descending;
   then pairing number, then id, for a deterministic order).
4. Pairing within score groups, floating to the next group when needed: the sum over the pairs of the
   squared score difference is within 10% of the least possible among the pairings that satisfy 1-3
   (in practice it is the least possible: the exact matching minimises it).
5. Within those, pairs close in the ranking meet (1 v 2, 3 v 4 when nothing else matters: the Monrad
   order), which keeps the pairing deterministic and stable.

How it stays fast (1,000 players in about 0.1 s): the fast path cuts the ranking into blocks where the
score changes (and every ``BLOCK`` players within a long group), pairs each block down its ranking
(each player with the next one it has not met nor is forbidden), re-pairs a block by the exact
matching when that leaves a rematch, a forbidden pair or a score gap above the block's lower bound,
and accepts the result only with a proof that it is optimal by rules 0-4: no forbidden pair, no
rematch, the bye on the lowest-ranked eligible player, and a squared-gap sum within 10% of a lower
bound, the cost of pairing neighbours in the ranking (for a convex cost of the score gap, pairing
sorted neighbours is the least-cost perfect matching with no rematch constraint). Otherwise the exact
matching runs over the whole field on the graph of each player's ``k`` ranking neighbours and its
result is accepted under the same proof; ``k`` grows fourfold until the graph is complete, where the
exact matching is optimal by rules 0-5 with no proof needed (a forbidden pair weighs more than every
rematch, bye, gap and distance term together, a rematch more than the rest: the weights are exact
integers, so the order of the rules is lexicographic).

Scores are in half points (0, 0.5, 1, ...): our tournaments score whole points (win 1, loss 0, bye 1),
and half points keep the module usable for drawn games.

``python -m tournaments.swiss --jsonl`` reads one problem a line and writes one answer a line (see
:func:`main` and docs/tournaments.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import networkx as nx

__all__ = ["Pairing", "PairingError", "Player", "main", "pair_round", "parse_problem", "ranked"]

FAST_K = 8
"""Ranking neighbours per player in the first exact-matching graph (grown fourfold when not proven)."""

BLOCK = 24
"""Longest run of one score group the fast path pairs as one block (exact matching on <= 24+ players
takes a few milliseconds)."""

MAX_ID_LENGTH = 200


class PairingError(ValueError):
    """A malformed pairing problem (the message names the field); nothing was paired."""


@dataclass(frozen=True)
class Player:
    """One entrant as the pairing sees it.

    - ``id``: unique, non-empty.
    - ``score``: points so far (win 1, loss 0, bye 1; a multiple of 0.5, >= 0).
    - ``rating``: Elo at the start (orders players within a score group, higher first).
    - ``opponents``: ids met in earlier rounds (ids not in the field are ignored); a meeting counts for
      both players when either lists the other.
    - ``had_bye``: received a bye in an earlier round.
    - ``withdrawn``: left the tournament; never paired again, keeps its points.
    - ``number``: pairing number, the player's place in the starting rank (1 first; 0 when the caller
      has none): ranks players equal on score and rating, before the id. A tournament gives it from
      the field's ratings and names, so the order never depends on database ids.
    - ``forbidden``: ids this player must never be paired with (ids not in the field are ignored;
      either player listing the other forbids the pair): avoided before anything else, paired only
      when no pairing of the field avoids it.
    """

    id: str
    score: float
    rating: float
    opponents: frozenset[str] = field(default_factory=frozenset)
    had_bye: bool = False
    withdrawn: bool = False
    number: int = 0
    forbidden: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Pairing:
    """One round's pairing: ``pairs`` in board order (the higher-ranked player first in each pair and
    boards ordered by it), ``bye`` the id of the player sitting out with a win, or ``None``.

    ``rematches`` counts pairs who met before (0 unless unavoidable); ``forbidden`` counts forbidden
    pairs paired (0 unless no pairing avoids them); ``score_gap`` is the sum over the
    pairs of the squared score difference (points squared).
    """

    pairs: tuple[tuple[str, str], ...]
    bye: str | None
    rematches: int
    score_gap: float
    forbidden: int = 0


def _rank_key(player: Player) -> tuple[float, float, int, str]:
    return (-player.score, -player.rating, player.number, player.id)


def ranked(players: Iterable[Player]) -> list[Player]:
    """The players in ranking order: score, then rating (both descending), then pairing number, then
    id."""
    return sorted(players, key=_rank_key)


def _validate(players: Sequence[Player]) -> None:
    seen: set[str] = set()
    for index, player in enumerate(players):
        where = f"players[{index}]"
        if not player.id:
            raise PairingError(f"{where}.id: must be a non-empty string")
        if player.id in seen:
            raise PairingError(f"{where}.id: duplicate id {player.id!r}")
        seen.add(player.id)
        if not math.isfinite(player.score) or player.score < 0 or (player.score * 2) % 1:
            raise PairingError(f"{where}.score: must be a multiple of 0.5, >= 0, got {player.score!r}")
        if not math.isfinite(player.rating):
            raise PairingError(f"{where}.rating: must be a finite number, got {player.rating!r}")
        if player.id in player.opponents:
            raise PairingError(f"{where}.opponents: {player.id!r} lists itself")
        if player.id in player.forbidden:
            raise PairingError(f"{where}.forbidden: {player.id!r} lists itself")
        if type(player.number) is not int or player.number < 0:
            raise PairingError(f"{where}.number: must be an integer >= 0, got {player.number!r}")


class _Field:
    """The active players in ranking order, with integer scores (half points), a met-before and a
    forbidden test (``met[i]``, ``barred[i]``: sets of indices, symmetric)."""

    def __init__(self, players: Sequence[Player]) -> None:
        self.order = ranked(p for p in players if not p.withdrawn)
        self.n = len(self.order)
        self.halves = [round(p.score * 2) for p in self.order]
        index = {p.id: i for i, p in enumerate(self.order)}
        self.met: list[set[int]] = [set() for _ in self.order]
        self.barred: list[set[int]] = [set() for _ in self.order]
        for i, player in enumerate(self.order):
            for other in player.opponents:
                j = index.get(other)
                if j is not None:
                    self.met[i].add(j)
                    self.met[j].add(i)
            for other in player.forbidden:
                j = index.get(other)
                if j is not None:
                    self.barred[i].add(j)
                    self.barred[j].add(i)
        if self.n % 2:
            eligible = [i for i, p in enumerate(self.order) if not p.had_bye]
            self.bye_eligible = eligible or list(range(self.n))
        else:
            self.bye_eligible = []

    def clash(self, i: int, j: int) -> bool:
        """True when ``i`` and ``j`` met before or are a forbidden pair."""
        return j in self.met[i] or j in self.barred[i]

    def gap(self, i: int, j: int) -> int:
        """Squared score difference in quarter points (half points, squared)."""
        return (self.halves[i] - self.halves[j]) ** 2

    def lower_bound(self, bye: int | None) -> int:
        """Least squared-gap sum of any perfect matching of the field less ``bye``, ignoring rematches:
        neighbours in the ranking paired (optimal for a convex function of the score gap)."""
        rest = [i for i in range(self.n) if i != bye]
        return sum(self.gap(rest[k], rest[k + 1]) for k in range(0, len(rest) - 1, 2))

    def result(self, pairs: list[tuple[int, int]], bye: int | None) -> Pairing:
        ordered = sorted((min(i, j), max(i, j)) for i, j in pairs)
        return Pairing(
            pairs=tuple((self.order[i].id, self.order[j].id) for i, j in ordered),
            bye=None if bye is None else self.order[bye].id,
            rematches=sum(1 for i, j in ordered if j in self.met[i]),
            score_gap=sum(self.gap(i, j) for i, j in ordered) / 4,
            forbidden=sum(1 for i, j in ordered if j in self.barred[i]),
        )

    def proven(self, pairs: list[tuple[int, int]], bye: int | None) -> bool:
        """True when ``pairs`` + ``bye`` seats every active player once, is optimal by rules 2-3 and
        within 10% of optimal by rule 4 (rule 0 too: no forbidden pair, as no rematch)."""
        seated = [i for pair in pairs for i in pair] + ([] if bye is None else [bye])
        if len(seated) != self.n or set(seated) != set(range(self.n)):
            return False
        if any(self.clash(i, j) for i, j in pairs):
            return False
        if bye is not None and bye != self.bye_eligible[-1]:
            return False
        gap = sum(self.gap(i, j) for i, j in pairs)
        return gap * 10 <= self.lower_bound(bye) * 11


def _greedy(pitch: _Field, free: list[int]) -> list[tuple[int, int]]:
    """Down the ranking, each unpaired player of ``free`` (an even-sized list, ranking order) with the
    next unpaired one it has not met nor is forbidden (or, failing that, the next unpaired one)."""
    free = list(free)
    pairs: list[tuple[int, int]] = []
    while free:
        i = free.pop(0)
        pick = next((k for k, j in enumerate(free) if not pitch.clash(i, j)), 0)
        pairs.append((i, free.pop(pick)))
    return pairs


def _blocks(pitch: _Field, rest: list[int]) -> list[list[int]]:
    """``rest`` (ranking order, even size) cut into blocks of even size: at every even position where
    the score changes (pairing neighbours never crosses there, so the lower bound is the sum of the
    blocks' bounds), and within a long score group every ``BLOCK`` players."""
    blocks: list[list[int]] = []
    start = 0
    for t in range(2, len(rest), 2):
        if pitch.halves[rest[t - 1]] != pitch.halves[rest[t]] or t - start >= BLOCK:
            blocks.append(rest[start:t])
            start = t
    blocks.append(rest[start:])
    return blocks


def _fast(pitch: _Field) -> tuple[list[tuple[int, int]], int | None]:
    """The bye to the lowest-ranked eligible player; the rest cut into blocks (:func:`_blocks`), each
    paired greedily, or, when the greedy pass leaves a rematch or a score gap above the block's lower
    bound, by the exact matching over the block, merged with the next blocks (up to ``4 * BLOCK``
    players) while that still falls short. The caller proves the whole result or discards it."""
    bye = pitch.bye_eligible[-1] if pitch.n % 2 else None
    rest = [i for i in range(pitch.n) if i != bye]
    blocks = _blocks(pitch, rest)
    pairs: list[tuple[int, int]] = []
    index = 0
    while index < len(blocks):
        block = blocks[index]
        index += 1
        local = _greedy(pitch, block)
        if not _locally_optimal(pitch, block, local):
            while True:
                local, _ = _exact(pitch, len(block), block)
                if _locally_optimal(pitch, block, local) or index == len(blocks) or len(block) > 4 * BLOCK:
                    break
                block = block + blocks[index]  # the block's pairs are redone with the next block's
                index += 1
        pairs.extend(local)
    return pairs, bye


def _locally_optimal(pitch: _Field, block: list[int], pairs: list[tuple[int, int]]) -> bool:
    """No rematch, no forbidden pair and the squared-gap sum of the pairing neighbours in ``block`` (its
    lower bound)."""
    if any(pitch.clash(i, j) for i, j in pairs):
        return False
    bound = sum(pitch.gap(block[k], block[k + 1]) for k in range(0, len(block), 2))
    return sum(pitch.gap(i, j) for i, j in pairs) <= bound


def _exact(
    pitch: _Field, k: int, members: list[int] | None = None
) -> tuple[list[tuple[int, int]], int | None]:
    """Minimum-weight perfect matching over the graph joining each player of ``members`` (default:
    the whole field, ranking order) to its ``k`` ranking neighbours among them (the complete graph when
    ``k >= len(members) - 1``), plus, when their number is odd, a bye vertex joined to every eligible
    player. The weights encode rules 0-5 lexicographically as exact integers:
    forbidden pair >> rematch >> bye rank >> squared score gap >> ranking distance."""
    nodes = list(range(pitch.n)) if members is None else members
    n = len(nodes)
    halves = [pitch.halves[i] for i in nodes]
    max_gap = max((max(halves) - min(halves)) ** 2, 1) if n else 1
    w_rank = n * n + 1  # > any sum of ranking distances
    w_bye = (n * max_gap + 1) * w_rank  # > any sum of the gap and distance terms
    w_rematch = (n + 1) * w_bye  # > any bye term
    w_forbid = (n + 1) * w_rematch  # > any rematch term (at most n / 2 pairs)
    top = w_forbid + w_rematch + max_gap * w_rank + n + n * w_bye + 1  # every weight positive
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n + (n % 2)))
    for a in range(n):
        i = nodes[a]
        for b in range(a + 1, min(n, a + k + 1)):
            j = nodes[b]
            cost = ((j in pitch.barred[i]) * w_forbid + (j in pitch.met[i]) * w_rematch
                    + pitch.gap(i, j) * w_rank + (b - a))
            graph.add_edge(a, b, weight=top - cost)
    if n % 2:
        position = {i: a for a, i in enumerate(nodes)}
        for rank_from_bottom, i in enumerate(reversed(pitch.bye_eligible)):
            graph.add_edge(position[i], n, weight=top - rank_from_bottom * w_bye)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs: list[tuple[int, int]] = []
    bye = None
    for a, b in matching:
        if n % 2 and n in (a, b):
            bye = nodes[a if b == n else b]
        else:
            pairs.append((nodes[a], nodes[b]))
    if len(pairs) * 2 + (bye is not None) != n:  # cannot happen for k >= 2: the band holds a matching
        raise AssertionError("no perfect matching in the pairing graph")
    return pairs, bye


def pair_round(players: Sequence[Player]) -> Pairing:
    """Pair one round of a Swiss tournament by rules 1-5 of the module docstring.

    :param players: the whole field, withdrawn players included (they are skipped).
    :returns: the :class:`Pairing` (empty when fewer than two active players, the lone one on a bye).
    :raises PairingError: duplicate or empty id, a score that is negative, not finite or not a multiple
        of 0.5, a rating not finite, a player listing itself as an opponent or as forbidden.
    """
    _validate(players)
    pitch = _Field(players)
    if pitch.n <= 1:
        return pitch.result([], 0 if pitch.n else None)
    pairs, bye = _fast(pitch)
    if pitch.proven(pairs, bye):
        return pitch.result(pairs, bye)
    k = FAST_K
    while True:
        pairs, bye = _exact(pitch, k)
        if k >= pitch.n - 1 or pitch.proven(pairs, bye):
            return pitch.result(pairs, bye)
        k *= 4


# --- JSONL command line -------------------------------------------------------------------------------

_PLAYER_KEYS = {"id", "score", "rating", "opponents", "forbidden", "had_bye", "withdrawn", "number"}


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PairingError(f"{where}: must be a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise PairingError(f"{where}: must be a finite number")
    return float(value)


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise PairingError(f"{where}: must be true or false, got {type(value).__name__}")
    return value


def parse_problem(problem: Any) -> list[Player]:
    """The players of one JSONL problem ``{"players": [{"id", "score", "rating", "opponents"?,
    "forbidden"?, "had_bye"?, "withdrawn"?, "number"?}, ...]}`` (``opponents`` and ``forbidden``
    default to ``[]``, the flags to
    ``false``, ``number`` to 0).

    :raises PairingError: the shape is wrong (the message names the field); unknown keys are errors,
        so a misspelt ``withdrawn`` is not silently ignored.
    """
    if not isinstance(problem, dict):
        raise PairingError("a problem must be a JSON object {\"players\": [...]}")
    extra = set(problem) - {"players"}
    if extra:
        raise PairingError(f"unknown key {sorted(extra)[0]!r} (only 'players')")
    entries = problem.get("players")
    if not isinstance(entries, list):
        raise PairingError("players: must be a list")
    players = []
    for index, entry in enumerate(entries):
        where = f"players[{index}]"
        if not isinstance(entry, dict):
            raise PairingError(f"{where}: must be an object")
        unknown = set(entry) - _PLAYER_KEYS
        if unknown:
            raise PairingError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        for key in ("id", "score", "rating"):
            if key not in entry:
                raise PairingError(f"{where}.{key}: missing")
        pid = entry["id"]
        if not isinstance(pid, str) or not pid or len(pid) > MAX_ID_LENGTH or "\x00" in pid:
            raise PairingError(
                f"{where}.id: must be a non-empty string of at most {MAX_ID_LENGTH} characters"
            )
        number = entry.get("number", 0)
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise PairingError(f"{where}.number: must be an integer >= 0")
        opponents = entry.get("opponents", [])
        if not isinstance(opponents, list) or not all(isinstance(o, str) for o in opponents):
            raise PairingError(f"{where}.opponents: must be a list of ids")
        forbidden = entry.get("forbidden", [])
        if not isinstance(forbidden, list) or not all(isinstance(o, str) for o in forbidden):
            raise PairingError(f"{where}.forbidden: must be a list of ids")
        players.append(
            Player(
                id=pid,
                score=_number(entry["score"], f"{where}.score"),
                rating=_number(entry["rating"], f"{where}.rating"),
                opponents=frozenset(opponents),
                forbidden=frozenset(forbidden),
                had_bye=_flag(entry.get("had_bye", False), f"{where}.had_bye"),
                withdrawn=_flag(entry.get("withdrawn", False), f"{where}.withdrawn"),
                number=number,
            )
        )
    return players


def answer_line(line: str) -> dict[str, Any]:
    """The answer to one input line: ``{"pairs": [[a, b], ...], "bye": id | null}`` or
    ``{"error": message}``; never raises."""
    try:
        problem = json.loads(line, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        return {"error": f"bad JSON: {exc}"}
    try:
        pairing = pair_round(parse_problem(problem))
    except PairingError as exc:
        return {"error": str(exc)}
    return {"pairs": [list(pair) for pair in pairing.pairs], "bye": pairing.bye}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """``python -m tournaments.swiss --jsonl``: one answer line per input line, in order (a blank line
    gets an ``error`` line too, so answers stay aligned with problems). Exit status 0 once the input
    is read to its end."""
    parser = argparse.ArgumentParser(prog="python -m tournaments.swiss", description=__doc__.split("\n")[0])
    parser.add_argument("--jsonl", action="store_true", required=True, help="read and write JSON lines")
    parser.parse_args(argv)
    source = stdin if stdin is not None else sys.stdin
    sink = stdout if stdout is not None else sys.stdout
    for line in source:
        if not line.strip():
            reply: dict[str, Any] = {"error": "empty line: expected a problem {\"players\": [...]}"}
        else:
            reply = answer_line(line)
        sink.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sink.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
