"""How near the opponent models come to the true hidden hand, and what the posterior costs.

    python scripts/bench_posterior.py [--hands 30] [--seed 3] [--samples 100] [--json]

Deals ``--hands`` seeded hands (classic rules) between two simple players (level 3, the policy the
posterior models) and, at each of seat 0's decisions after the first six actions, samples
``--samples`` opponent hands three ways from seat 0's view: uniform over the unknown cards, the
tracker's weights (``engine.bots.tracker.sample_opponent_hands``) and the posterior
(``engine.bots.posterior.sample_posterior``). Prints, per model, the mean number of cards a sampled
hand shares with the opponent's true hand (of 10; the cards known to be held count for every model)
and, for the posterior, the CPU per decision (``time.process_time``: median and 99th percentile, ms).
The views hold public information only; the true hand is read from the engine's state for the score.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from engine.bots import make_bot  # noqa: E402
from engine.bots.posterior import Evidence, read_evidence, sample_posterior  # noqa: E402
from engine.bots.tracker import read_table, sample_opponent_hands  # noqa: E402
from engine.deck import shuffled_deck  # noqa: E402
from engine.hand import HandState  # noqa: E402
from engine.rules import preset  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hands", type=int, default=30)
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--samples", type=int, default=100)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    rng = random.Random(args.seed)
    shared: dict[str, list[float]] = {"uniform": [], "tracker": [], "posterior": []}
    cpu: list[float] = []
    n = args.samples
    for hand_no in range(args.hands):
        state = HandState(preset("classic"), 0, shuffled_deck(rng))
        bots = (make_bot(3, seed=2 * hand_no), make_bot(3, seed=2 * hand_no + 1))
        while not state.is_over:
            seat = state.current_player
            assert seat is not None
            view = state.view(seat)
            if seat == 0 and len(view.history) > 6:
                truth = state.hand_mask(1)
                evidence = read_evidence(view)
                start = time.process_time()
                posterior = sample_posterior(read_evidence(view), n, random.Random(1))
                cpu.append(time.process_time() - start)
                uniform = sample_posterior(Evidence(evidence.unknown, evidence.hidden, evidence.known, ()), n,
                                           random.Random(1))
                tracker = sample_opponent_hands(read_table(view), n, random.Random(1))
                for name, hands in (("uniform", uniform), ("tracker", tracker), ("posterior", posterior)):
                    shared[name].append(sum((h & truth).bit_count() for h in hands) / n)
            state.apply(bots[seat].choose(view), seat)
    report = {
        "hands": args.hands, "seed": args.seed, "positions": len(cpu),
        "shared_cards": {k: round(statistics.fmean(v), 3) for k, v in shared.items()},
        "posterior_cpu_ms": {"median": round(statistics.median(cpu) * 1000, 2),
                             "p99": round(sorted(cpu)[int(0.99 * (len(cpu) - 1))] * 1000, 2)},
    }
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
