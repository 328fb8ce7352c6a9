"""Benchmark: pair round 7 of a 1,000-player Swiss after a realistic 6-round history (issue 11: <= 1 s).

    .venv/bin/python scripts/bench_swiss.py [--players 1000] [--rounds 6] [--seed 1] [--repeat 5]

The history is played out by the pairing itself: each round is paired by ``pair_round``, each match
won by the higher-rated player with the Elo expectation (ratings drawn around 1500, sd 200), byes
scored as wins. Prints the time of every round's pairing and the best/median of ``--repeat`` runs of
the measured round, plus which path answered it (the proven fast path or the exact matching).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments import swiss


def history(players: int, rounds: int, seed: int) -> tuple[list[swiss.Player], list[float]]:
    rng = random.Random(seed)
    ids = [f"p{i}" for i in range(players)]
    rating = {pid: rng.gauss(1500, 200) for pid in ids}
    score = dict.fromkeys(ids, 0.0)
    met: dict[str, set[str]] = {pid: set() for pid in ids}
    byes: set[str] = set()
    times = []
    for _ in range(rounds):
        field = [swiss.Player(p, score[p], rating[p], frozenset(met[p]), p in byes) for p in ids]
        start = time.perf_counter()
        pairing = swiss.pair_round(field)
        times.append(time.perf_counter() - start)
        if pairing.bye:
            byes.add(pairing.bye)
            score[pairing.bye] += 1
        for a, b in pairing.pairs:
            met[a].add(b)
            met[b].add(a)
            expected = 1 / (1 + 10 ** ((rating[b] - rating[a]) / 400))
            score[a if rng.random() < expected else b] += 1
    return [swiss.Player(p, score[p], rating[p], frozenset(met[p]), p in byes) for p in ids], times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=6, help="rounds of history before the measured one")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--exact", action="store_true", help="also time the exact matching alone")
    args = parser.parse_args()
    field, times = history(args.players, args.rounds, args.seed)
    print("history rounds (s):", " ".join(f"{t:.3f}" for t in times))
    runs = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        pairing = swiss.pair_round(field)
        runs.append(time.perf_counter() - start)
    fast_pairs, fast_bye = swiss._fast(swiss._Field(field))
    fast = swiss._Field(field).proven(fast_pairs, fast_bye)
    print(
        f"round {args.rounds + 1} of {args.players} players: best {min(runs):.3f} s, "
        f"median {statistics.median(runs):.3f} s; rematches {pairing.rematches}, "
        f"score gap {pairing.score_gap}, answered by {'fast path (proven)' if fast else 'exact matching'}"
    )
    if not args.exact:
        return
    pitch = swiss._Field(field)
    start = time.perf_counter()
    swiss._exact(pitch, swiss.FAST_K)
    elapsed = time.perf_counter() - start
    print(f"exact matching alone on the k={swiss.FAST_K} neighbour graph: {elapsed:.3f} s")


if __name__ == "__main__":
    main()
