"""Decision-time benchmark of a bot level (issue 4: level 5 median <= 50 ms, max <= 1 s on one core).

``python -m engine.tools.botbench --level 5 --against 3 --matches 10 --seed 1`` plays matches with the
arena's seeding and times every ``choose`` call of the measured level (``time.process_time``, CPU of one
process), printing the count, median, 90th and 99th percentiles and maximum in milliseconds, overall
and by decision kind (offer, draw, discard). ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from engine.actions import Action
from engine.bots.base import Bot
from engine.bots.common import options
from engine.bots.ladder import make_bot
from engine.tools.arena import add_match_args, level_arg, match_seed, play_bots, rules_for
from engine.view import PlayerView


class _Timed:
    """A bot whose every ``choose`` call is timed into ``times[decision kind]`` (seconds)."""

    def __init__(self, bot: Bot, times: dict[str, list[float]]) -> None:
        self.bot = bot
        self.level = bot.level
        self.times = times

    def choose(self, view: PlayerView) -> Action:
        """The wrapped bot's action, its time recorded."""
        start = time.process_time()
        action = self.bot.choose(view)
        self.times[options(view.legal_actions).decision].append(time.process_time() - start)
        return action


def time_decisions(level: int, against: int, matches: int, seed: int, rules_name: str = "classic",
                   target: int | None = None) -> dict[str, list[float]]:
    """Decision kind -> seconds per ``choose`` call of ``level`` over ``matches`` matches."""
    rules = rules_for(rules_name, target)
    times: dict[str, list[float]] = {"offer": [], "draw": [], "discard": []}
    for index in range(matches):
        rng = random.Random(match_seed(seed, index // 2))
        timed = _Timed(make_bot(level, seed=rng.getrandbits(63)), times)
        play_bots((timed, make_bot(against, seed=rng.getrandbits(63))), rules, rng, index % 2 == 0, 500)
    return times


def _stats(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"count": 0}
    ordered = sorted(values)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return {"count": len(ordered), "median_ms": round(statistics.median(ordered) * 1000, 3),
            "p90_ms": round(pick(0.9), 3), "p99_ms": round(pick(0.99), 3),
            "max_ms": round(ordered[-1] * 1000, 3)}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark command line; returns the exit status."""
    p = argparse.ArgumentParser(prog="python -m engine.tools.botbench", description=__doc__.split("\n")[0])
    p.add_argument("--level", type=level_arg, default=5, help="the level timed, 1..5 (default %(default)s)")
    p.add_argument("--against", type=level_arg, default=3, help="its opponent's level (default %(default)s)")
    add_match_args(p, matches=10, matches_help="matches to play", workers=False, target=False,
                   seed_help="seed of the decks and the bots, as the arena's")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    times = time_decisions(args.level, args.against, args.matches, args.seed, args.rules)
    report: dict[str, Any] = {"level": args.level, "against": args.against, "matches": args.matches,
                              "all": _stats([t for v in times.values() for t in v])}
    report.update({kind: _stats(v) for kind, v in times.items()})
    if args.json:
        print(json.dumps(report))
    else:
        for key in ("all", "offer", "draw", "discard"):
            print(f"level {args.level} {key}: {report[key]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
