"""Round robin of the bot levels and their calibrated Elo (issue 4, "The arena").

``python -m engine.tools.roundrobin --matches 100 --seed 1 [--levels 1 2 3 4 5] [--workers N]
--out data/bot_elo.json`` plays every pair of levels ``--matches`` times with the arena
(:func:`engine.tools.arena.run_matches`, alternating the first dealer), fits a Bradley-Terry model to
the match results by maximum likelihood, expresses it on the Elo scale (a 400-point gap = 10:1 odds)
with level 3 anchored at 1500, prints the table and writes it to ``--out`` (``-``: nowhere). The
caller names the file: ``data/bot_elo.json`` is the one the site reads (``ratings.bot_elo``, once per
process).

File format (``data/bot_elo.json``)::

    {"anchor": {"level": 3, "elo": 1500}, "elo": {"1": 1120, ..., "5": 1650},
     "rules": "classic", "target": 100, "matches_per_pair": 100, "seed": 1,
     "pairs": [{"a": 1, "b": 2, "matches": 100, "a_wins": 12, "match_win_rate": 0.12}, ...],
     "command": "python -m engine.tools.roundrobin ..."}
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.tools.arena import add_match_args, level_arg, rules_for, run_matches

ANCHOR_LEVEL = 3
ANCHOR_ELO = 1500.0


def bradley_terry_elo(
    wins: Mapping[tuple[int, int], int], games: Mapping[tuple[int, int], int], *,
    anchor: int = ANCHOR_LEVEL, anchor_elo: float = ANCHOR_ELO, prior: float = 0.5,
    iterations: int = 10000, tolerance: float = 1e-10,
) -> dict[int, float]:
    """Maximum-likelihood Bradley-Terry strengths as Elo ratings.

    :param wins: ``(i, j) -> matches i won against j``; ``games``: ``(i, j) -> matches between them``
        (either order, counted once per unordered pair).
    :param prior: a virtual ``prior`` win each way per pair played, so a pair won 100-0 still gives
        a finite rating.
    :returns: player -> rating, with ``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))`` and
        ``R[anchor] == anchor_elo``.
    :raises ValueError: ``anchor`` played no game, or a count is negative or exceeds its games.
    """
    players = sorted({p for pair in games for p in pair})
    if anchor not in players:
        raise ValueError(f"anchor {anchor} played no game")
    n: dict[tuple[int, int], float] = {}
    w: dict[tuple[int, int], float] = {}
    for (i, j), count in games.items():
        won = wins.get((i, j), 0)
        lost = count - won if (j, i) not in wins else wins[(j, i)]
        if count < 0 or won < 0 or lost < 0 or won + lost > count:
            raise ValueError(f"bad counts for pair {(i, j)}: {won} + {lost} wins of {count} games")
        if count == 0:
            continue
        n[(i, j)] = n.get((i, j), 0.0) + count + 2 * prior
        n[(j, i)] = n[(i, j)]
        w[(i, j)] = w.get((i, j), 0.0) + won + prior
        w[(j, i)] = w.get((j, i), 0.0) + lost + prior
    strength = dict.fromkeys(players, 1.0)
    for _ in range(iterations):
        # Hunter's MM update: p_i = W_i / sum_j n_ij / (p_i + p_j)
        new: dict[int, float] = {}
        for i in players:
            total_wins = sum(w.get((i, j), 0.0) for j in players if j != i)
            denom = sum(n[(i, j)] / (strength[i] + strength[j]) for j in players if (i, j) in n)
            new[i] = total_wins / denom if denom else strength[i]
        scale = new[anchor]
        new = {p: v / scale for p, v in new.items()}
        change = max(abs(new[p] - strength[p]) for p in players)
        strength = new
        if change < tolerance:
            break
    return {p: anchor_elo + 400.0 * math.log10(strength[p]) for p in players}


def round_robin(levels: Sequence[int], matches: int, rules_name: str, target: int | None, seed: int,
                workers: int = 1, progress: bool = True) -> dict[str, Any]:
    """Play every pair of ``levels`` ``matches`` times and return the data-file dict (module doc).

    The lower level of each pair is bot A; pair ``k`` uses seed ``seed + k``.

    :raises ValueError: fewer than two levels, level 3 missing, or bad arena arguments.
    """
    levels = sorted(set(levels))
    if len(levels) < 2 or ANCHOR_LEVEL not in levels:
        raise ValueError(f"a round robin needs two or more levels including {ANCHOR_LEVEL}, got {levels}")
    rules = rules_for(rules_name, target)
    wins: dict[tuple[int, int], int] = {}
    games: dict[tuple[int, int], int] = {}
    pairs: list[dict[str, Any]] = []
    for k, (a, b) in enumerate(itertools.combinations(levels, 2)):
        records = run_matches(a, b, rules, matches, seed + k, workers=workers, progress=progress,
                              desc=f"{a} vs {b}")
        a_wins = sum(1 for r in records if r.a_won)
        wins[(a, b)] = a_wins
        wins[(b, a)] = matches - a_wins
        games[(a, b)] = matches
        pairs.append({"a": a, "b": b, "matches": matches, "a_wins": a_wins,
                      "match_win_rate": round(a_wins / matches, 4)})
    elo = bradley_terry_elo(wins, games)
    return {
        "anchor": {"level": ANCHOR_LEVEL, "elo": ANCHOR_ELO},
        "elo": {str(level): round(elo[level], 1) for level in levels},
        "rules": rules.name,
        "target": rules.target,
        "matches_per_pair": matches,
        "seed": seed,
        "pairs": pairs,
    }


def format_table(data: Mapping[str, Any]) -> str:
    """The round robin as text: each pair's result, then the Elo per level."""
    lines = [f"round robin, rules {data['rules']}, target {data['target']}, "
             f"{data['matches_per_pair']} matches per pair, seed {data['seed']}"]
    for p in data["pairs"]:
        lines.append(f"  level {p['a']} vs level {p['b']}: {p['a_wins']}/{p['matches']} "
                     f"({p['match_win_rate']:.1%}) for level {p['a']}")
    lines.append("calibrated Elo (level 3 = 1500): " + ", ".join(
        f"level {k} {v:.0f}" for k, v in data["elo"].items()))
    return "\n".join(lines)


def _checked_out(p: argparse.ArgumentParser, text: str) -> Path:
    """``--out`` as a path, checked writable before the matches (which take minutes): not empty, not a
    folder, in an existing folder, and openable for writing (a file this check creates is removed)."""
    out = Path(text)
    if not text.strip():
        p.error("argument --out: empty path")
    if text.endswith(("/", os.sep)) or out.is_dir():
        p.error(f"argument --out: {text!r} is a folder")
    if not out.parent.is_dir():
        p.error(f"argument --out: {text!r} is in a folder that does not exist")
    existed = out.exists()
    try:
        with out.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        p.error(f"argument --out: cannot write {text!r}: {exc.strerror}")
    if not existed:
        out.unlink()
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the round robin command line; returns the exit status."""
    p = argparse.ArgumentParser(prog="python -m engine.tools.roundrobin", description=__doc__.split("\n")[0])
    p.add_argument("--levels", type=level_arg, nargs="+", default=[1, 2, 3, 4, 5],
                   help="bot levels to pair (1..5, including 3, the anchor)")
    add_match_args(p, matches=100, matches_help="matches per pair",
                   seed_help="seed of the first pair, pair k uses seed + k")
    p.add_argument("--out", required=True,
                   help="JSON file to write, - for none; data/bot_elo.json is the file the level picker and "
                        "the rating system read, so a trial run passes another path or -")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = p.parse_args(argv)
    if ANCHOR_LEVEL not in args.levels:
        p.error(f"argument --levels: must include {ANCHOR_LEVEL}, the anchor of the ratings")
    out = None if args.out == "-" else _checked_out(p, args.out)
    try:
        data = round_robin(args.levels, args.matches, args.rules, args.target, args.seed,
                           workers=args.workers, progress=not args.no_progress)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    data["command"] = "python -m engine.tools.roundrobin " + " ".join(
        sys.argv[1:] if argv is None else list(argv))
    print(format_table(data))
    if out is not None:
        try:
            out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            print(f"error: cannot write {str(out)!r}: {exc.strerror}", file=sys.stderr)
            return 1
        print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
