"""Computer analysis speed on one core: CPU time per judged decision and per 10-hand match.

    python scripts/bench_analysis.py [--matches 2] [--hands 10] [--levels 3,5] [--worlds 400] [--json]

Plays ``--matches`` seeded bot-vs-bot matches of ``--hands`` hands each (classic rules, a target no one
reaches, then seat 1 resigns: the replay file of a finished match), then times
``engine.analysis.analyse`` on each with ``time.process_time`` (CPU seconds of this process; the
analysis is single-threaded, and the process is pinned to one core when the OS allows it). Prints the
decisions judged, seconds per decision (overall and by kind: offer, draw, discard; median and 90th
percentile from timing each ``judge`` call) and seconds per match, or one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from engine import analysis  # noqa: E402
from engine.bots import make_bot  # noqa: E402
from engine.deck import deck_commitment, shuffled_deck  # noqa: E402
from engine.events import DealEvent  # noqa: E402
from engine.match import MatchState  # noqa: E402
from engine.replay_format import record_from_events  # noqa: E402
from engine.rules import preset  # noqa: E402


def bot_record(levels: tuple[int, int], hands: int, seed: int) -> dict[str, Any]:
    """The replay file of ``hands`` hands between house bots of ``levels`` (seat 0, seat 1), classic
    rules, then seat 1 resigns."""
    rules = preset("classic").replace(target=10000)
    rng = random.Random(seed)
    bots = [make_bot(levels[0], seed), make_bot(levels[1], seed + 1)]
    match = MatchState(rules, seed % 2)
    while match.hand_number < hands:
        match.deal(shuffled_deck(rng))
        hand = match.hand
        assert hand is not None
        while not hand.is_over:
            seat = hand.current_player
            assert seat is not None
            match.apply(bots[seat].choose(match.view(seat)), seat)
    match.resign(1)
    deals = [e for e in match.events if isinstance(e, DealEvent)]
    return record_from_events(
        rules=rules, first_dealer=seed % 2, events=match.events,
        secrets=[(f"s{i}", deck_commitment(e.deck, f"s{i}")) for i, e in enumerate(deals)],
        players=[{"name": f"bot {levels[0]}", "bot_level": levels[0]},
                 {"name": f"bot {levels[1]}", "bot_level": levels[1]}],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=2, help="matches to analyse (1..100)")
    parser.add_argument("--hands", type=int, default=10, help="hands per match (1..50)")
    parser.add_argument("--levels", default="3,5", help="bot levels of seats 0 and 1, e.g. 3,5")
    parser.add_argument("--worlds", type=int, default=analysis.Settings().worlds, help="worlds per decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.matches <= 100 or not 1 <= args.hands <= 50 or not 1 <= args.worlds <= 10000:
        parser.error("--matches 1..100, --hands 1..50, --worlds 1..10000")
    try:
        a, b = (int(x) for x in args.levels.split(","))
    except ValueError:
        parser.error("--levels is two levels 1..5, e.g. 3,5")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    settings = analysis.Settings(worlds=args.worlds)

    per_kind: dict[str, list[float]] = {"offer": [], "draw": [], "discard": []}
    per_match: list[float] = []
    marks = {"?!": 0, "?": 0, "??": 0}
    for i in range(args.matches):
        record = bot_record((a, b), args.hands, args.seed + i)
        start = time.process_time()
        decisions = [p for p in analysis.positions(record) if p.is_decision]
        for pos in decisions:
            t = time.process_time()
            j = analysis.judge(pos.view, pos.action, settings)
            per_kind[j.decision].append(time.process_time() - t)
            if j.mark:
                marks[j.mark] += 1
        per_match.append(time.process_time() - start)
    every = [t for times in per_kind.values() for t in times]
    hands_scale = 10 / args.hands

    def stats(times: list[float]) -> dict[str, float | int]:
        if not times:
            return {"count": 0}
        ordered = sorted(times)
        return {"count": len(times), "mean_s": round(statistics.fmean(times), 4),
                "median_s": round(statistics.median(times), 4),
                "p90_s": round(ordered[int(0.9 * (len(ordered) - 1))], 4), "max_s": round(ordered[-1], 4)}

    report = {
        "settings": settings.to_dict(), "levels": [a, b], "matches": args.matches, "hands": args.hands,
        "decisions": stats(every), "by_kind": {k: stats(v) for k, v in per_kind.items()},
        "per_match_s": [round(t, 2) for t in per_match],
        "per_10_hand_match_s": round(statistics.fmean(per_match) * hands_scale, 2),
        "decisions_per_match": round(len(every) / args.matches, 1), "marks": marks,
    }
    if args.json:
        print(json.dumps(report))
        return 0
    d = report["decisions"]
    print(f"{args.matches} matches of {args.hands} hands (bots {a} v {b}), {settings.worlds} worlds, 1 core")
    print(f"decisions judged: {d['count']} ({report['decisions_per_match']} a match); marks {marks}")
    print(f"per decision: mean {d['mean_s']:.3f} s, median {d['median_s']:.3f} s, p90 {d['p90_s']:.3f} s, "
          f"max {d['max_s']:.3f} s (CPU)")
    for kind, s in report["by_kind"].items():
        if s["count"]:
            print(f"  {kind:8} {s['count']:4}  mean {s['mean_s']:.3f} s  median {s['median_s']:.3f} s  "
                  f"p90 {s['p90_s']:.3f} s")
    print(f"per match: {', '.join(f'{t:.1f} s' for t in per_match)}; "
          f"per 10-hand match: {report['per_10_hand_match_s']:.1f} s (CPU)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
