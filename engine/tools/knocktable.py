"""``python -m engine.tools.knocktable``: a knock table from self-play, measured against level 5's own
knock decision (issue 28, "Knock decisions from a table computed offline by self-play").

Level 5 decides "knock now or play on" at every position where it may knock without gin by comparing
the knock's exact value over its sampled opponent hands with the rollout value of its best discard
(:meth:`engine.bots.expert.ExpertBot._by_rollouts`, 100 worlds). A table over (deadwood, turn, cards
seen) would replace that comparison with a lookup, in the spirit of the EAAI Gin Rummy papers'
counterfactual-regret knock strategies. This tool measures whether it would decide better:

1. **Self-play**: ``--matches`` matches to 100 of level 5 against level 5 (classic rules, seeds from
   :func:`engine.tools.arena.match_seed`). Every position where the player to move may knock with
   deadwood above 0 is kept, with level 5's own decision there (knocked or not).
2. **Reference**: each kept position is valued by a deeper search of the same kind, with fresh random
   numbers: ``--worlds`` posterior worlds (:func:`engine.bots.posterior.sample_posterior`); knocking is
   worth the best knock card's mean points over them (:func:`engine.bots.montecarlo.knock_estimate`)
   and playing on the best of **every** legal discard's mean rollout points over the same worlds
   (:func:`engine.bots.rollout.discard_values`, no pruning). Points are from the mover's side.
3. **Table**: built from the first half of the matches. A cell is (the best knock's deadwood 1-10,
   the stock's bucket, the cards-seen bucket, see :func:`cell`); it says "knock" when the reference's
   mean advantage of knocking over playing on is >= 0 in that cell (an empty cell says "knock", the
   simple player's rule).
4. **Measure** on the second half (positions the table never saw): each decision rule's regret, the
   reference's best value minus the value of the rule's choice (points a position, >= 0), for the
   table, level 5's own decision and "always knock".

Prints a JSON object: ``positions`` (train, test), each rule's mean regret with its standard error,
the paired difference table minus level 5 with its standard error, and the table's knock shares.
``--out`` writes the table (cells, the command and its seed) to a file. Deterministic for a given seed.

The regret above judges one decision with the reference's continuation (the simple player's policy,
which knocks at its next chance), so a rule that defers every knock is never charged for deferring
again next turn. Hence the decisive measure, ``--play TABLE``: matches to 100 against ``--against``
(default level 3) in the arena's duplicate pairs and seeds (:func:`engine.tools.arena.match_seed`), each
match played twice, once by level 5 and once by level 5 deciding its knocks by the table
(:class:`TableBot`); prints both win rates with Wilson 95% intervals, the paired difference with its
standard error, and the hands' knocker deadwood and kinds.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any, TypeVar

from engine.actions import Action, ActionKind
from engine.bots.common import mask_of, options
from engine.bots.expert import ExpertBot
from engine.bots.ladder import make_bot
from engine.bots.montecarlo import knock_estimate
from engine.bots.posterior import read_evidence, sample_posterior
from engine.bots.rollout import discard_values, make_worlds
from engine.cards import Card
from engine.melds import deadwood_of_mask
from engine.rules import preset
from engine.tools.arena import (
    MAX_MATCHES,
    MAX_WORKERS,
    MatchRecord,
    int_arg,
    match_seed,
    play_bots,
    wilson,
    writable_path,
)
from engine.view import PlayerView

Job = TypeVar("Job")
Out = TypeVar("Out")

STOCK_EDGES = (24, 18, 12)
"""Stock sizes (cards) opening the turn buckets 0-3: >= 24, 18-23, 12-17, <= 11 (31 after the deal)."""

SEEN_EDGES = (26, 20)
"""Cards seen by the mover (its hand, the pile, the opponent's known cards) opening the seen buckets
0-2: >= 26, 20-25, <= 19."""


def _bucket(value: int, edges: Sequence[int]) -> int:
    for i, edge in enumerate(edges):
        if value >= edge:
            return i
    return len(edges)


def cell(deadwood: int, stock: int, seen: int) -> str:
    """The table key ``"deadwood/turn/seen"`` of a position: the best knock's deadwood (1-10), the
    stock's bucket (:data:`STOCK_EDGES`) and the cards-seen bucket (:data:`SEEN_EDGES`)."""
    return f"{deadwood}/{_bucket(stock, STOCK_EDGES)}/{_bucket(seen, SEEN_EDGES)}"


def knock_deadwoods(view: PlayerView, knocks: Iterable[Card]) -> dict[Card, int]:
    """The deadwood (points) left by knocking with each of ``knocks`` from ``view``'s 11 cards."""
    hand = mask_of(view.hand)
    return {c: deadwood_of_mask(hand ^ (1 << c)) for c in knocks}


def cards_seen(view: PlayerView) -> int:
    """Cards the mover has seen: its hand, the discard pile and the opponent's known cards."""
    return (mask_of(view.hand) | mask_of(view.discard_pile) | mask_of(view.opponent_known)).bit_count()


def _map(fn: Callable[[Job], Out], jobs: list[Job], workers: int) -> list[Out]:
    if workers == 1:
        return [fn(j) for j in jobs]
    with get_context("spawn").Pool(workers) as pool:
        return pool.map(fn, jobs, chunksize=1)


@dataclass(frozen=True, slots=True)
class Position:
    """One kept position: its table ``key``, whether level 5 ``knocked``, and the reference's values
    (points, mover's side) of knocking (``knock``) and of playing on (``play``)."""

    key: str
    knocked: bool
    knock: float
    play: float


class _Recorder:
    """Level 5, keeping every view where it may knock with deadwood above 0 and what it did there."""

    def __init__(self, seed: int, kept: list[tuple[PlayerView, bool]]) -> None:
        self.bot = ExpertBot(5, random.Random(seed))
        self.kept = kept

    def choose(self, view: PlayerView) -> Action:
        action = self.bot.choose(view)
        opts = options(view.legal_actions)
        if (opts.decision == "discard" and opts.knocks and opts.big_gin is None
                and min(knock_deadwoods(view, opts.knocks).values()) > 0):
            self.kept.append((view, action.kind is ActionKind.KNOCK))
        return action


class TableBot:
    """Level 5 whose "knock now or play on" at a deadwood above 0 is the table's cell (an empty cell
    knocks); when it knocks, it knocks with the card leaving the least deadwood (the highest such
    card); when it plays on, level 5 chooses among the discards (the knocks removed from its view)."""

    def __init__(self, seed: int, cells: dict[str, dict[str, Any]]) -> None:
        self.bot = ExpertBot(5, random.Random(seed))
        self.cells = cells

    def choose(self, view: PlayerView) -> Action:
        opts = options(view.legal_actions)
        if opts.decision == "discard" and opts.knocks and opts.big_gin is None:
            after = knock_deadwoods(view, opts.knocks)
            least = min(after.values())
            if least > 0:
                if self.cells.get(cell(least, view.stock_size, cards_seen(view)), {"knock": True})["knock"]:
                    return opts.knocks[max(c for c in after if after[c] == least)]
                view = dataclasses.replace(view, legal_actions=tuple(
                    a for a in view.legal_actions if a.kind is not ActionKind.KNOCK))
        return self.bot.choose(view)


def play_pair(job: tuple[int, int, int, dict[str, dict[str, Any]], bool]) -> list[MatchRecord]:
    """Match ``index`` of run ``seed`` against level ``against``, played by level 5 (unless
    ``alone``) and by :class:`TableBot` (same decks, same seeds)."""
    seed, index, against, cells, alone = job
    out = []
    for table in (True,) if alone else (False, True):
        rng = random.Random(match_seed(seed, index // 2))
        a_seed, b_seed = rng.getrandbits(63), rng.getrandbits(63)
        a = TableBot(a_seed, cells) if table else make_bot(5, seed=a_seed)
        out.append(play_bots((a, make_bot(against, seed=b_seed)), preset("classic"), rng,  # type: ignore[arg-type]
                             index % 2 == 0))
    return out


def summarize_pairs(pairs: Sequence[Sequence[MatchRecord]]) -> dict[str, Any]:
    """Each player's match win rate (Wilson 95%), hand kinds and the mean knocker deadwood of its own
    knocks; with both players, the paired difference."""
    out: dict[str, Any] = {"matches": len(pairs)}
    names = ("table",) if pairs and len(pairs[0]) == 1 else ("level5", "table")
    for i, name in enumerate(names):
        records = [p[i] for p in pairs]
        wins = sum(r.a_won for r in records)
        lo, hi = wilson(wins, len(records))
        hands = [h for r in records for h in r.hands]
        own = [h.knocker_deadwood for h in hands if h.winner == "a" and h.kind == "knock"]
        kinds = {k: sum(h.kind == k for h in hands) for k in ("knock", "gin", "undercut", "dead")}
        out[name] = {"wins": wins, "rate": round(wins / max(1, len(records)), 4),
                     "wilson95": [round(lo, 4), round(hi, 4)], "hands": len(hands), "kinds": kinds,
                     "own_knocks": len(own),
                     "own_knock_deadwood": round(sum(x or 0 for x in own) / len(own), 2) if own else None}
    if len(names) == 2:
        diff = _mean_se([float(p[1].a_won) - float(p[0].a_won) for p in pairs])
        out["table_minus_level5"] = {"mean": round(diff[0], 4), "se": round(diff[1], 4)}
    return out


def reference(view: PlayerView, worlds: int, rng: random.Random) -> tuple[str, float, float]:
    """(table key, knock value, play-on value) of a kept position (see the module docstring)."""
    opts = options(view.legal_actions)
    hand = mask_of(view.hand)
    evidence = read_evidence(view)
    samples = sample_posterior(evidence, worlds, rng)
    rules, limit, mult = view.rules, view.knock_limit, view.multiplier
    knockable = sorted(opts.knocks)
    knock = max(knock_estimate(hand ^ (1 << c), samples, rules, limit, mult).ev for c in knockable)
    allowed = sorted((set(opts.discards) | set(opts.knocks)) - {view.taken_card}) or sorted(opts.discards)
    below = view.discard_pile[-1] if view.discard_pile else None
    made = make_worlds(samples, list(evidence.unknown), view.stock_size, rng)
    play = max(discard_values(hand, allowed, made, below, rules, limit, mult).values())
    deadwood = min(knock_deadwoods(view, knockable).values())
    return cell(deadwood, view.stock_size, cards_seen(view)), knock, play


def play_and_value(job: tuple[int, int, int]) -> list[Position]:
    """Match ``index`` of run ``seed`` (level 5 v level 5), its kept positions valued by
    :func:`reference` with ``worlds`` worlds."""
    seed, index, worlds = job
    rng = random.Random(match_seed(seed, index // 2))
    kept: list[tuple[PlayerView, bool]] = []
    bots = (_Recorder(rng.getrandbits(63), kept), _Recorder(rng.getrandbits(63), kept))
    play_bots(bots, preset("classic"), rng, index % 2 == 0)  # type: ignore[arg-type]
    ref_rng = random.Random(f"knocktable:{seed}:{index}")
    out = []
    for view, knocked in kept:
        key, knock, play = reference(view, worlds, ref_rng)
        out.append(Position(key, knocked, knock, play))
    return out


def build_table(train: Sequence[Position]) -> dict[str, dict[str, Any]]:
    """Cells: ``{key: {"n", "advantage" (mean knock - play, points), "knock" (advantage >= 0)}}``."""
    sums: dict[str, list[float]] = {}
    for p in train:
        sums.setdefault(p.key, []).append(p.knock - p.play)
    return {k: {"n": len(v), "advantage": round(sum(v) / len(v), 3), "knock": sum(v) >= 0}
            for k, v in sorted(sums.items())}


def _mean_se(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    if n < 2:
        return (xs[0] if xs else 0.0), 0.0
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, math.sqrt(var / n)


def measure(table: dict[str, dict[str, Any]], test: Sequence[Position]) -> dict[str, Any]:
    """Each rule's mean regret (points a position) on ``test``, and table minus level 5, paired."""
    def regret(p: Position, knocks: bool) -> float:
        return max(p.knock, p.play) - (p.knock if knocks else p.play)

    rules = {
        "table": [regret(p, table.get(p.key, {"knock": True})["knock"]) for p in test],
        "level5": [regret(p, p.knocked) for p in test],
        "always_knock": [regret(p, True) for p in test],
    }
    out: dict[str, Any] = {}
    for name, values in rules.items():
        mean, se = _mean_se(values)
        out[name] = {"regret": round(mean, 4), "se": round(se, 4)}
    diff = _mean_se([a - b for a, b in zip(rules["table"], rules["level5"], strict=True)])
    out["table_minus_level5"] = {"mean": round(diff[0], 4), "se": round(diff[1], 4)}
    out["level5_knock_share"] = round(sum(p.knocked for p in test) / max(1, len(test)), 4)
    out["table_knock_share"] = round(
        sum(table.get(p.key, {"knock": True})["knock"] for p in test) / max(1, len(test)), 4)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the self-play, build the table from the first half, measure it on the second."""
    parser = argparse.ArgumentParser(prog="python -m engine.tools.knocktable",
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--matches", type=int_arg(2, MAX_MATCHES, "a match count"), default=80,
                        help="matches (self-play: the first half builds the table, the second judges it)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int_arg(1, 100_000, "a world count"), default=200,
                        help="the reference's worlds a position")
    parser.add_argument("--workers", type=int_arg(1, MAX_WORKERS, "a worker count"), default=1)
    parser.add_argument("--out", type=writable_path, help="write the table to this JSON file")
    parser.add_argument("--play", type=argparse.FileType("r"),
                        help="a table file (--out): play it in matches instead (docstring)")
    parser.add_argument("--against", type=int_arg(1, 5, "a bot level"), default=3, help="--play's opponent")
    parser.add_argument("--alone", action="store_true",
                        help="--play: the table's matches only (level 5's: engine.tools.arena, same seed)")
    args = parser.parse_args(argv)
    if args.play:
        with args.play as f:
            try:
                cells = json.load(f)["cells"]
            except (ValueError, KeyError, TypeError) as e:
                parser.error(f"--play: {f.name} is not a table file (--out): {e!r}")
        play_jobs = [(args.seed, i, args.against, cells, args.alone) for i in range(args.matches)]
        pairs = _map(play_pair, play_jobs, args.workers)
        print(json.dumps(summarize_pairs(pairs), indent=1))
        return 0
    jobs = [(args.seed, i, args.worlds) for i in range(args.matches)]
    per_match = _map(play_and_value, jobs, args.workers)
    half = args.matches // 2
    train = [p for m in per_match[:half] for p in m]
    test = [p for m in per_match[half:] for p in m]
    table = build_table(train)
    result = {"positions": [len(train), len(test)], **measure(table, test)}
    print(json.dumps(result, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": "python -m engine.tools.knocktable " + " ".join(sys.argv[1:]),
                       "seed": args.seed, "matches": args.matches, "worlds": args.worlds,
                       "cells": table}, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
