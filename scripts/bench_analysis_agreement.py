"""The computer analysis against a deep, slow reference search: how often its choice agrees (issue 28).

    python scripts/bench_analysis_agreement.py [--matches 9] [--truth 200] [--positions 600]
        [--reference 2000] [--seed 1] [--workers 2] [--json]

**Positions**: every decision (two or more legal options) of ``--matches`` seeded 10-hand bot matches,
levels 1 v 5, 2 v 4 and 3 v 5 in turn (classic rules; ``bench_analysis.bot_record``).
Two references, each playing every legal option out (``engine.analysis.playout``) in many worlds, none
dropped early:

- **the true hand** (``--truth`` worlds): the opponent's real hand at that moment, each world a new
  shuffle of the real stock's cards. It sees what the player could not, so no evaluator matches it,
  but it is the right yardstick in expectation: the real hand is one draw from the true distribution
  of hands given what the player saw (the bots' real play made it), so over many positions the mean
  value an evaluator's choice gets here ranks evaluators by the expected points of their choices,
  whatever model of the opponent they assume. ``truth regret``: the true hand's best value minus its
  value of the evaluator's choice (points, mean over positions; lower is better); each evaluator's
  difference from the first (``v1``) comes with its standard error over positions (one real hand a
  position makes this figure noisy: about 0.3 points at 240 positions).
- **the posterior**, on ``--positions`` of them spread evenly (``--reference`` worlds drawn from
  level 5's posterior, 20 Metropolis steps a world): the analysis' valuation with ten times its
  worlds and no successive halving. It assumes the
  posterior's opponent model, so it favours evaluators that assume it too; ``agreement`` (the
  evaluator's best is this reference's best), ``regret`` (this reference's value of its best minus
  that of the evaluator's choice) and ``marks`` (the evaluator's mark of the move played equals this
  reference's: ``engine.analysis.classify`` of its cost and error).

**Evaluators** (:data:`EVALUATORS`, all through ``engine.analysis.judge``): ``v1``, the analysis as
version 1 shipped it (400 worlds weighted by the tracker, stages 50/100/200); ``p400``, the posterior
at version 1's worlds and stages; ``now``, as it ships (``engine.analysis.Settings()``).

Also each evaluator's CPU seconds per position (``time.process_time`` in the worker) and the posterior
reference's own noise (the mean standard error of its best-minus-second gap).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench_analysis import bot_record  # noqa: E402

from engine import analysis  # noqa: E402
from engine.actions import Action  # noqa: E402
from engine.bots.posterior import read_evidence, sample_posterior  # noqa: E402
from engine.bots.rollout import World, make_worlds  # noqa: E402
from engine.cards import parse_card  # noqa: E402
from engine.match import MatchState  # noqa: E402
from engine.rules import RuleSet  # noqa: E402

V1_STAGES = ((50, 8.0), (100, 4.0), (200, 2.5))
"""Analysis version 1's successive-halving stages."""
EVALUATORS: dict[str, analysis.Settings] = {
    "v1": analysis.Settings(worlds=400, stages=V1_STAGES, opponents="tracker"),
    "p400": analysis.Settings(worlds=400, stages=V1_STAGES, opponents="posterior"),
    "now": analysis.Settings(),
}
LEVELS = ((1, 5), (2, 4), (3, 5))
POSITIONS: list[tuple[analysis.Position, int]] = []
"""(position, the opponent's true hand as a mask), filled before the workers fork."""


def with_truth(record: dict[str, Any]) -> list[tuple[analysis.Position, int]]:
    """Every decision of ``record`` (``analysis.positions``) with the opponent's true hand then, read
    from a second replay of the record kept in step."""
    match = MatchState(RuleSet.from_dict(record["rules"]), record["first_dealer"])
    if record.get("cut") is not None:
        match.cut([(parse_card(a), parse_card(b)) for a, b in record["cut"]])
    steps = iter((hand, act) for hand in record["hands"] for act in hand["actions"])
    out = []
    for pos in analysis.positions(record):
        hand_record, act = next(steps)
        if match.hand is None or match.hand.is_over:
            limit = hand_record.get("limit_card")
            match.deal([parse_card(c) for c in hand_record["deck"]],
                       limit_card=None if limit is None else parse_card(limit))
        assert match.hand is not None
        if pos.is_decision:
            out.append((pos, match.hand.hand_mask(1 - pos.seat)))
        match.apply(Action.parse(act["action"]), act["seat"])
    return out


def truth(pos: analysis.Position, opponent: int, worlds: int) -> dict[str, float]:
    """Every legal option's mean over ``worlds`` shuffles of the real stock, the opponent's real hand."""
    view = pos.view
    start = analysis._Start.of(view)
    rng = random.Random(f"truth:{pos.hand}:{pos.step}:{pos.seat}")
    stock = [c for c in read_evidence(view).unknown if not opponent >> c & 1]
    played = []
    for _ in range(worlds):
        rng.shuffle(stock)
        played.append(World(opponent, tuple(stock)))
    return {str(a): statistics.fmean(analysis.playout(start, w, a) for w in played)
            for a in view.legal_actions}


def reference(pos: analysis.Position, worlds: int) -> dict[str, Any]:
    """The posterior search of ``pos``: ``{"means": option -> mean points over ``worlds`` posterior
    worlds, "best": the best option, "gap_se": the standard error of best minus second (points),
    "mark": the mark of the move played}``."""
    view = pos.view
    start = analysis._Start.of(view)
    rng = random.Random(f"reference:{pos.hand}:{pos.step}:{pos.seat}")
    evidence = read_evidence(view)
    hands = sample_posterior(evidence, worlds, rng, steps=20 * worlds)
    played = make_worlds(hands, evidence.unknown, view.stock_size, rng)
    values = {str(a): [analysis.playout(start, w, a) for w in played] for a in view.legal_actions}
    means = {a: sum(v) / len(v) for a, v in values.items()}
    ranked = sorted(means, key=lambda a: -means[a])
    best, second = ranked[0], ranked[1]
    chosen = str(pos.action)
    cost = means[best] - means[chosen]
    error = _paired_se(values[best], values[chosen]) if best != chosen else 0.0
    return {"means": means, "best": best, "gap_se": _paired_se(values[best], values[second]),
            "mark": analysis.classify(cost, error)}


def _paired_se(a: list[int], b: list[int]) -> float:
    """The standard error of the mean of ``a - b`` world by world (common random numbers)."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    return statistics.stdev(diffs) / math.sqrt(len(diffs))


def work(job: tuple[int, int, int]) -> dict[str, Any]:
    """One position: the true-hand values, the posterior reference (``worlds`` > 0) and each evaluator."""
    index, worlds, truth_worlds = job
    pos, opponent = POSITIONS[index]
    ref = reference(pos, worlds) if worlds else None
    true = truth(pos, opponent, truth_worlds)
    out: dict[str, Any] = {"decision": analysis.decision_of(pos.view),
                           "ref_gap_se": ref["gap_se"] if ref else None}
    for name, settings in EVALUATORS.items():
        t = time.process_time()
        j = analysis.judge(pos.view, pos.action, settings)
        mine = out[name] = {"cpu": time.process_time() - t, "truth": max(true.values()) - true[j.best]}
        if ref is not None:
            mine.update(agree=j.best == ref["best"], regret=ref["means"][ref["best"]] - ref["means"][j.best],
                        mark=j.mark == ref["mark"])
    return out


def _mean(values: list[float]) -> float:
    return round(statistics.fmean(values), 3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=9, help="seeded 10-hand matches (1..60)")
    parser.add_argument("--truth", type=int, default=200, help="true-hand worlds (stock shuffles)")
    parser.add_argument("--positions", type=int, default=600, help="positions with the posterior reference")
    parser.add_argument("--reference", type=int, default=2000, help="posterior reference worlds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if (not 1 <= args.matches <= 60 or not 1 <= args.truth <= 100000 or not 1 <= args.positions <= 100000
            or not 100 <= args.reference <= 100000 or args.workers < 1):
        parser.error("--matches 1..60, --truth 1..100000, --positions >= 1, --reference 100..100000, "
                     "--workers >= 1")
    for i in range(args.matches):
        POSITIONS.extend(with_truth(bot_record(LEVELS[i % len(LEVELS)], 10, args.seed + i)))
    step = len(POSITIONS) / min(args.positions, len(POSITIONS))
    referenced = {int(i * step) for i in range(min(args.positions, len(POSITIONS)))}
    jobs = [(i, args.reference if i in referenced else 0, args.truth) for i in range(len(POSITIONS))]
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        rows = pool.map(work, jobs, chunksize=2)
    refs = [r for r in rows if r["ref_gap_se"] is not None]
    report: dict[str, Any] = {
        "matches": args.matches, "positions": len(rows), "truth_worlds": args.truth, "seed": args.seed,
        "reference_positions": len(refs), "reference_worlds": args.reference,
        "reference_gap_se": _mean([r["ref_gap_se"] for r in refs]),
    }
    first = next(iter(EVALUATORS))
    for name, settings in EVALUATORS.items():
        diffs = [r[name]["truth"] - r[first]["truth"] for r in rows]
        report[name] = {
            "settings": settings.to_dict(),
            "cpu_per_position_s": round(statistics.fmean(r[name]["cpu"] for r in rows), 4),
            "truth_regret": _mean([r[name]["truth"] for r in rows]),
            "truth_vs_first": _mean(diffs),
            "truth_vs_first_se": round(statistics.stdev(diffs) / math.sqrt(len(diffs)), 3),
            "agreement": _mean([r[name]["agree"] for r in refs]),
            "regret": _mean([r[name]["regret"] for r in refs]),
            "marks": _mean([r[name]["mark"] for r in refs]),
        }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{report['positions']} positions of {args.matches} matches; true hand: {args.truth} stock "
          f"shuffles; posterior reference: {report['reference_positions']} positions, {args.reference} "
          f"worlds (mean s.e. of its best-second gap {report['reference_gap_se']} points)")
    for name in EVALUATORS:
        r = report[name]
        print(f"{name:4} CPU {r['cpu_per_position_s']:.3f} s/position | true hand: regret "
              f"{r['truth_regret']:.3f} pts ({r['truth_vs_first']:+.3f} +- {r['truth_vs_first_se']:.3f} "
              f"vs {first}) | posterior: "
              f"agreement {r['agreement']:.3f}, regret {r['regret']:.3f} pts, marks {r['marks']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
