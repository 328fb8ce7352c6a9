"""Calibrate the assistance signal (docs/fairplay.md "Assistance signal") on seeded house-bot matches.

    PYTHONPATH=.:platform .venv/bin/python scripts/fairplay_calibrate.py play --matches 6 --seed 25 \\
        --out var/fairplay_calibration.jsonl
    PYTHONPATH=.:platform .venv/bin/python scripts/fairplay_calibrate.py report var/fairplay_calibration.jsonl

``play`` plays ``--matches`` matches (classic, target 100, the site's default) of each pairing of
:data:`PAIRINGS` (levels 1-4 among themselves, level 5 against levels 1-4), every bot seeded from
``(seed, pairing, match)``, and tallies both seats with :func:`fairplay.assistance.tally_seat` exactly as
the site does (the same sample of discard decisions, level 5's seed from the view, the judge's worlds).
A level-5 seat stands for a player copying level 5's moves: its bot has its own seed, not the analysis's,
so its Monte Carlo choice may differ from the analysis's level 5 where two moves are close. One JSON line
per seat: ``{"level", "opponent", "seed", "decisions", "agreed", "loss", "judged", "judged_agreed",
"draws", "draws_contested", "draws_agreed", "seconds"}`` (:class:`fairplay.assistance.Tally`).

``report`` reads those lines and prints, per level: seats, contested decisions, their pooled agreement
with level 5, the between-seat spread of agreement beyond the binomial noise, loss per contested decision,
the agreement on every judged decision, the draws; then the bands' constants
(:data:`fairplay.assistance.BANDS`, spread floored at ``--floor``) it would ship, and the share of windows
flagged at :data:`fairplay.assistance.THRESHOLD` for each level in each band (an honest level in any band:
false positives; level 5: detections), for windows of 1, 5, 10 and :data:`fairplay.assistance.WINDOW`
matches drawn with replacement from the level's seats (seeded: ``--windows`` of them).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

from engine.bots import make_bot
from engine.deck import shuffled_deck
from engine.match import MatchState
from engine.rules import preset
from fairplay import assistance

PAIRINGS = ((1, 2), (1, 3), (2, 4), (3, 4), (4, 4), (2, 3), (5, 1), (5, 2), (5, 3), (5, 4))
"""(level A, level B): A in seat 0. Every level 1-4 meets others; level 5 meets each of them."""


def play_one(level_a: int, level_b: int, seed: int) -> list[dict[str, object]]:
    """Play one match and tally both seats (a JSON-ready dict each)."""
    rng = random.Random(seed)
    bots = (make_bot(level_a, seed=rng.getrandbits(63)), make_bot(level_b, seed=rng.getrandbits(63)))
    match = MatchState(preset("classic"), rng.randrange(2))
    moves: list[list[tuple[object, object]]] = [[], []]
    while not match.is_over and match.hand_number < 200:
        match.deal(shuffled_deck(rng))
        hand = match.hand
        assert hand is not None
        while not hand.is_over:
            seat = hand.current_player
            assert seat is not None
            view = match.view(seat)
            action = bots[seat].choose(view)
            if len(view.legal_actions) > 1:
                moves[seat].append((view, action))
            match.apply(action, seat)
    rows = []
    for seat, (level, other) in enumerate(((level_a, level_b), (level_b, level_a))):
        clock = time.process_time()
        t = assistance.tally_seat(moves[seat])  # type: ignore[arg-type]
        rows.append({"level": level, "opponent": other, "seed": seed, "decisions": t.decisions,
                     "agreed": t.agreed, "loss": round(t.loss, 3), "judged": t.judged,
                     "judged_agreed": t.judged_agreed, "draws": t.draws, "draws_contested": t.draws_contested,
                     "draws_agreed": t.draws_agreed, "seconds": round(time.process_time() - clock, 2)})
    return rows


def play(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as f:
        for i in range(args.matches):
            for a, b in PAIRINGS:
                seed = random.Random(f"fairplay:{args.seed}:{a}:{b}:{i}").getrandbits(63)
                for row in play_one(a, b, seed):
                    f.write(json.dumps(row) + "\n")
                    f.flush()
                print(f"match {i} {a}v{b} done", file=sys.stderr, flush=True)
    return 0


def _between(rows: list[dict[str, float]]) -> float:
    """The spread (sd) of true agreement between seats: the variance of the seats' rates minus their
    mean binomial variance, floored at 0."""
    rates = [r["agreed"] / r["decisions"] for r in rows if r["decisions"]]
    if len(rates) < 2:
        return 0.0
    p = sum(r["agreed"] for r in rows) / sum(r["decisions"] for r in rows)
    noise = statistics.fmean(p * (1 - p) / r["decisions"] for r in rows if r["decisions"])
    return math.sqrt(max(0.0, statistics.variance(rates) - noise))


def report(args: argparse.Namespace) -> int:
    rows = [json.loads(line) for line in Path(args.file).read_text().splitlines() if line.strip()]
    by_level: dict[int, list[dict[str, float]]] = {}
    for r in rows:
        by_level.setdefault(r["level"], []).append(r)
    bands: dict[int, assistance.Band] = {}
    print("level seats contested agreement spread loss/dec | judged all_agree | draws contested agreed"
          " | s/seat")
    for level in sorted(by_level):
        rs = by_level[level]
        n = sum(r["decisions"] for r in rs)
        agree = sum(r["agreed"] for r in rs) / n
        spread = _between(rs)
        loss = sum(r["loss"] for r in rs) / n
        judged = sum(r["judged"] for r in rs)
        all_agree = sum(r["judged_agreed"] for r in rs) / judged
        draws = sum(r["draws"] for r in rs)
        d_cont = sum(r["draws_contested"] for r in rs)
        d_agree = sum(r["draws_agreed"] for r in rs)
        secs = statistics.fmean(r["seconds"] for r in rs)
        print(f"{level:5} {len(rs):5} {n:9} {agree:9.3f} {spread:6.3f} {loss:8.2f} | {judged:6} "
              f"{all_agree:9.3f} | {draws:5} {d_cont:9} {d_agree:6} | {secs:6.1f}")
        if level <= 4:
            bands[level] = assistance.Band(level, round(agree, 3), round(max(spread, args.floor), 3),
                                           round(loss, 2))
    print("\nBANDS =", {k: (b.mean, b.spread, b.loss) for k, b in bands.items()},
          f"(spread floored at {args.floor})")
    rng = random.Random(args.seed)
    print(f"\nshare flagged (z >= {assistance.THRESHOLD}, at least {assistance.MIN_DECISIONS} decisions) "
          f"of {args.windows} windows drawn from each level's seats, in each band:")
    for window in (1, 5, 10, assistance.WINDOW):
        print(f"  window {window:2} matches:")
        for level in sorted(by_level):
            rs = by_level[level]
            parts = []
            for band in bands.values():
                flagged = 0
                for _ in range(args.windows):
                    pick = [rng.choice(rs) for _ in range(window)]
                    fig = assistance.rolling([(r["decisions"], r["agreed"], r["loss"]) for r in pick], window)
                    z = assistance.z_score(fig, band)
                    flagged += z is not None and z >= assistance.THRESHOLD
                parts.append(f"band {band.level}: {flagged / args.windows:.3f}")
            print(f"    level {level}: " + ", ".join(parts))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    pp = sub.add_parser("play")
    pp.add_argument("--matches", type=int, default=6)
    pp.add_argument("--seed", type=int, default=25)
    pp.add_argument("--out", default="var/fairplay_calibration.jsonl")
    rp = sub.add_parser("report")
    rp.add_argument("file")
    rp.add_argument("--seed", type=int, default=25)
    rp.add_argument("--windows", type=int, default=2000)
    rp.add_argument("--floor", type=float, default=0.08)
    args = p.parse_args(argv)
    return play(args) if args.command == "play" else report(args)


if __name__ == "__main__":
    sys.exit(main())
