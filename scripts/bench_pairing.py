"""Benchmark: CPU time of one quick-pairing wave (issue 21: <= 100 ms of CPU for 1,000 waiting players).

    .venv/bin/python scripts/bench_pairing.py [--sizes 100 500 1000 2000] [--repeat 15] [--seed 21]
        [--out var/bench/pairing.json]

Each repeat draws a new wave: ratings normal around 1500 (sd 250, rounded to whole points), waits
uniform over 0-30 s, one player in ten with a last opponent who is also waiting (they were paired
together last time: the no-rematch rule removes that edge), and pairs it with the default pools' window
(``--start`` 100 points, ``--growth`` 10 points a second). Measures ``time.process_time`` around
``lobby.matching.pair_wave`` alone (this process's CPU, not wall time: a busy machine does not inflate
it much). Prints a table of median and max CPU ms per size, with the pairs made and the players left
waiting, and writes the same as JSON to ``--out``.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from lobby.matching import BAND, Waiter, pair_wave  # noqa: E402


def wave(size: int, rng: random.Random) -> list[Waiter]:
    """A random wave of ``size`` waiters (see the module doc)."""
    waiters = [Waiter(key=i + 1, user_id=1000 + i, rating=round(rng.gauss(1500, 250)),
                      waited=rng.uniform(0, 30), last_opponent=None) for i in range(size)]
    order = list(range(size))
    rng.shuffle(order)
    for a, b in zip(order[: size // 10: 2], order[1: size // 10: 2], strict=False):
        x, y = waiters[a], waiters[b]
        waiters[a] = Waiter(x.key, x.user_id, x.rating, x.waited, y.user_id)
        waiters[b] = Waiter(y.key, y.user_id, y.rating, y.waited, x.user_id)
    return waiters


def measure(size: int, repeat: int, rng: random.Random, start: float, growth: float) -> dict[str, Any]:
    cpu: list[float] = []
    pairs: list[int] = []
    for _ in range(repeat):
        waiters = wave(size, rng)
        t0 = time.process_time()
        result = pair_wave(waiters, start=start, growth=growth)
        cpu.append(time.process_time() - t0)
        pairs.append(len(result))
    return {
        "size": size, "repeat": repeat,
        "cpu_ms_median": round(1000 * statistics.median(cpu), 1), "cpu_ms_max": round(1000 * max(cpu), 1),
        "pairs_median": statistics.median(pairs), "left_waiting_median": size - 2 * statistics.median(pairs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500, 1000, 2000])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--start", type=float, default=100.0)
    parser.add_argument("--growth", type=float, default=10.0)
    parser.add_argument("--out", default=str(ROOT / "var" / "bench" / "pairing.json"))
    args = parser.parse_args()
    if min(args.sizes) < 0 or args.repeat < 1:
        parser.error("sizes must be >= 0 and repeat >= 1")
    rng = random.Random(args.seed)
    pair_wave(wave(50, rng), start=args.start, growth=args.growth)  # warm up (imports, caches)
    load0 = os.getloadavg()[0]
    rows = [measure(size, args.repeat, rng, args.start, args.growth) for size in args.sizes]
    print(f"pair_wave CPU time (band {BAND}, window {args.start:g} + {args.growth:g}/s, {args.repeat} waves "
          f"per size, seed {args.seed}; loadavg {load0:.2f})")
    print("| waiting | CPU ms median | CPU ms max | pairs (median) | left waiting |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['size']} | {r['cpu_ms_median']} | {r['cpu_ms_max']} | {r['pairs_median']} | "
              f"{r['left_waiting_median']} |")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"band": BAND, "start": args.start, "growth": args.growth, "seed": args.seed,
            "cpus": os.cpu_count(), "loadavg": round(load0, 2),
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    out.write_text(json.dumps({"meta": meta, "sizes": rows}, indent=2) + "\n")
    print(f"\nResults: {out}")


if __name__ == "__main__":
    main()
