"""Bot-vs-bot arena (issue 4, "The arena"): ``python -m engine.tools.arena --a 5 --b 3 --matches 400``.

Plays ``--matches`` matches to ``--target`` between bot levels A and B under a rule preset, A always in
seat 0 and the first dealer alternating (A deals first in even-numbered matches), and prints A's match
win rate with its 95% Wilson interval, A's hand win rate, points per hand and hand statistics (turns
per hand: median, quartiles, min, max; shares of knock, gin, big gin, undercut and dead hands; mean
knocker deadwood at the knock). ``--json`` prints one JSON object instead (:func:`summarize`).

Reproducible: match ``i`` uses decks and bot seeds derived from ``(seed, i // 2)`` only, so the same
seed gives the same result whatever ``--workers`` is. Matches are played in *duplicate* pairs: matches
``2k`` and ``2k + 1`` deal the same sequence of decks, A dealing first in ``2k`` and B in ``2k + 1``, so
(with alternating deals) each bot is dealt, hand for hand, the cards the other was dealt in the twin
match. Deck luck then largely cancels and the win rate measures play, not the cards. A *turn* is one
player's turn ending in a discard, a knock or big gin (passing the first upcard is not a turn).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

from engine.actions import ActionKind
from engine.bots import make_bot
from engine.bots.base import Bot
from engine.deck import shuffled_deck
from engine.match import MatchState
from engine.rules import PRESETS, RuleSet, preset

_TURN_ENDS = (ActionKind.DISCARD, ActionKind.KNOCK, ActionKind.BIG_GIN)
HAND_KINDS = ("knock", "gin", "big_gin", "undercut", "dead")


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand: ``kind``, ``winner`` (``"a"``, ``"b"`` or ``None``), ``points`` scored by the winner,
    ``turns``, and ``knocker_deadwood`` (``None`` for a dead hand)."""

    kind: str
    winner: str | None
    points: int
    turns: int
    knocker_deadwood: int | None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One match: ``a_won``, final ``scores`` (A, B) with end bonuses, and its ``hands``."""

    a_won: bool
    scores: tuple[int, int]
    hands: tuple[HandRecord, ...]


def match_seed(seed: int, index: int) -> int:
    """The seed of match ``index`` in a run seeded ``seed`` (stable across processes and runs)."""
    return random.Random(f"arena:{seed}:{index}").getrandbits(63)


def play_match(level_a: int, level_b: int, rules: RuleSet, seed: int, a_deals_first: bool,
               max_hands: int = 500) -> MatchRecord:
    """Play one match, A in seat 0, B in seat 1, decks and bot seeds from ``seed``.

    :param max_hands: safety stop (a match of only dead hands); the leader then wins.
    :raises ValueError: a level is not 1..5.
    """
    rng = random.Random(seed)
    bots = (make_bot(level_a, seed=rng.getrandbits(63)), make_bot(level_b, seed=rng.getrandbits(63)))
    return play_bots(bots, rules, rng, a_deals_first, max_hands)


def play_bots(bots: tuple[Bot, Bot], rules: RuleSet, rng: random.Random, a_deals_first: bool,
              max_hands: int = 500) -> MatchRecord:
    """Play one match between ``bots`` (A in seat 0, B in seat 1), each hand's deck shuffled by ``rng``.

    The loop behind :func:`play_match`, also used by ``engine.tools.botbench`` to time a wrapped bot.
    """
    match = MatchState(rules, 0 if a_deals_first else 1)
    hands: list[HandRecord] = []
    while not match.is_over and match.hand_number < max_hands:
        deck = shuffled_deck(rng)
        # seed 003's table turns a second deck's card for the knock limit (a chance outcome too)
        match.deal(deck, limit_card=rng.randrange(52) if rules.knock_limit_from_second_deck else None)
        hand = match.hand
        assert hand is not None
        while not hand.is_over:
            seat = hand.current_player
            assert seat is not None
            match.apply(bots[seat].choose(match.view(seat)), seat)
        result = hand.result
        assert result is not None
        turns = sum(1 for e in hand.history if e.action.kind in _TURN_ENDS)
        winner = None if result.winner is None else ("a" if result.winner == 0 else "b")
        knocker_dw = None if result.kind == "dead" else result.knocker_deadwood
        hands.append(HandRecord(result.kind, winner, result.points, turns, knocker_dw))
    final = match.final_scores or match.scores
    a_won = match.winner == 0 if match.winner is not None else final[0] > final[1]
    return MatchRecord(a_won, (final[0], final[1]), tuple(hands))


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95% by default); ``(0, 1)`` when ``n == 0``."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _quartiles(values: Sequence[int]) -> tuple[float, float, float]:
    if len(values) < 2:
        v = float(values[0]) if values else 0.0
        return (v, v, v)
    q = statistics.quantiles(values, n=4, method="inclusive")
    return (q[0], q[1], q[2])


def summarize(level_a: int, level_b: int, rules: RuleSet, seed: int,
              matches: Sequence[MatchRecord]) -> dict[str, Any]:
    """The arena's statistics of ``matches`` as one JSON-ready dict.

    Keys: ``a``, ``b``, ``rules``, ``target``, ``seed``, ``matches``, ``a_wins``, ``match_win_rate``,
    ``match_win_ci95`` ([low, high], Wilson), ``hands``, ``hands_won_a``, ``hands_won_b``,
    ``hand_win_rate`` (A's share of hands with a winner), ``hand_win_ci95``, ``points_per_hand_a``,
    ``points_per_hand_b``, ``net_points_per_hand`` (A minus B, over every hand, dead ones included),
    ``turns`` (``median``, ``q1``, ``q3``, ``min``, ``max``, ``mean``), ``kinds`` (hand kind -> share of
    all hands), ``mean_knocker_deadwood`` (knock, undercut, gin and big gin hands) and
    ``mean_knocker_deadwood_no_gin`` (knock and undercut hands only).
    """
    hands = [h for m in matches for h in m.hands]
    n_hands = len(hands)
    a_wins = sum(1 for m in matches if m.a_won)
    won_a = sum(1 for h in hands if h.winner == "a")
    won_b = sum(1 for h in hands if h.winner == "b")
    pts_a = sum(h.points for h in hands if h.winner == "a")
    pts_b = sum(h.points for h in hands if h.winner == "b")
    turns = sorted(h.turns for h in hands)
    q1, median, q3 = _quartiles(turns)
    knocks = [h.knocker_deadwood for h in hands if h.knocker_deadwood is not None]
    plain = [h.knocker_deadwood for h in hands
             if h.knocker_deadwood is not None and h.kind in ("knock", "undercut")]
    lo, hi = wilson(a_wins, len(matches))
    hlo, hhi = wilson(won_a, won_a + won_b)
    return {
        "a": level_a,
        "b": level_b,
        "rules": rules.name,
        "target": rules.target,
        "seed": seed,
        "matches": len(matches),
        "a_wins": a_wins,
        "match_win_rate": round(a_wins / len(matches), 4) if matches else 0.0,
        "match_win_ci95": [round(lo, 4), round(hi, 4)],
        "hands": n_hands,
        "hands_won_a": won_a,
        "hands_won_b": won_b,
        "hand_win_rate": round(won_a / (won_a + won_b), 4) if won_a + won_b else 0.0,
        "hand_win_ci95": [round(hlo, 4), round(hhi, 4)],
        "points_per_hand_a": round(pts_a / n_hands, 3) if n_hands else 0.0,
        "points_per_hand_b": round(pts_b / n_hands, 3) if n_hands else 0.0,
        "net_points_per_hand": round((pts_a - pts_b) / n_hands, 3) if n_hands else 0.0,
        "turns": {
            "median": median, "q1": q1, "q3": q3,
            "min": turns[0] if turns else 0, "max": turns[-1] if turns else 0,
            "mean": round(statistics.fmean(turns), 3) if turns else 0.0,
        },
        "kinds": {k: round(sum(1 for h in hands if h.kind == k) / n_hands, 4) if n_hands else 0.0
                  for k in HAND_KINDS},
        "mean_knocker_deadwood": round(statistics.fmean(knocks), 3) if knocks else None,
        "mean_knocker_deadwood_no_gin": round(statistics.fmean(plain), 3) if plain else None,
    }


def _play_indexed(job: tuple[int, int, RuleSet, int, int]) -> MatchRecord:
    level_a, level_b, rules, seed, index = job
    # duplicate pairs: the twin matches 2k and 2k + 1 share their decks, first dealer swapped
    return play_match(level_a, level_b, rules, match_seed(seed, index // 2), a_deals_first=index % 2 == 0)


def run_matches(level_a: int, level_b: int, rules: RuleSet, matches: int, seed: int, *,
                workers: int = 1, progress: bool = False, desc: str | None = None) -> list[MatchRecord]:
    """Play ``matches`` matches (in match-index order whatever ``workers`` is).

    :raises ValueError: ``matches`` < 1, ``workers`` < 1, or a level not in 1..5.
    """
    if matches < 1:
        raise ValueError(f"matches must be >= 1, got {matches}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    for level in (level_a, level_b):
        if type(level) is not int or not 1 <= level <= 5:
            raise ValueError(f"bot level must be an integer 1..5, got {level!r}")
    jobs = [(level_a, level_b, rules, seed, i) for i in range(matches)]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=matches, desc=desc or f"{level_a} vs {level_b}", file=sys.stderr, unit="match")
    out: list[MatchRecord] = []
    try:
        if workers == 1:
            results: Iterable[MatchRecord] = map(_play_indexed, jobs)
            for record in results:
                out.append(record)
                if bar is not None:
                    bar.update(1)
        else:
            with get_context("fork").Pool(workers) as pool:
                for record in pool.imap(_play_indexed, jobs, chunksize=1):
                    out.append(record)
                    if bar is not None:
                        bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return out


def format_report(summary: dict[str, Any]) -> str:
    """The human-readable report of :func:`summarize`'s dict."""
    s = summary
    t = s["turns"]
    kinds = ", ".join(f"{k} {v:.1%}" for k, v in s["kinds"].items())
    lo, hi = s["match_win_ci95"]
    mkd = s["mean_knocker_deadwood"]
    mkn = s["mean_knocker_deadwood_no_gin"]
    return "\n".join([
        f"level {s['a']} (A) vs level {s['b']} (B), rules {s['rules']}, target {s['target']}, "
        f"seed {s['seed']}, {s['matches']} matches",
        f"match win rate A: {s['match_win_rate']:.1%} (95% CI {lo:.1%} - {hi:.1%}), "
        f"{s['a_wins']}/{s['matches']}",
        f"hand win rate A: {s['hand_win_rate']:.1%} ({s['hands_won_a']} vs {s['hands_won_b']} of "
        f"{s['hands']} hands)",
        f"points per hand: A {s['points_per_hand_a']}, B {s['points_per_hand_b']}, "
        f"net {s['net_points_per_hand']:+}",
        f"turns per hand: median {t['median']}, quartiles {t['q1']} / {t['q3']}, "
        f"min {t['min']}, max {t['max']}, mean {t['mean']}",
        f"hand ends: {kinds}",
        f"mean knocker deadwood at the knock: {mkd} (without gins: {mkn})",
    ])


def int_arg(low: int, high: int, what: str) -> Callable[[str], int]:
    """A command-line type: an integer in ``low..high``, else ``argparse.ArgumentTypeError`` saying
    ``"<what> is an integer low..high, got '<text>'"`` (argparse adds the option's name)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} is an integer {low}..{high}, got {text!r}")
        return value

    return parse


def writable_path(text: str) -> str:
    """A command-line type: a file path whose folder exists and may be written to, checked before a
    long run starts (the file itself is written only at the end: an interrupted run leaves it alone)."""
    folder = os.path.dirname(os.path.abspath(text))
    if not text or os.path.isdir(text) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write a file at {text!r}: no such writable folder")
    return text


level_arg = int_arg(1, 5, "a bot level")
MAX_MATCHES = 1_000_000
"""Upper bound of ``--matches`` (the job list is built up front)."""
MAX_WORKERS = 64
"""Upper bound of ``--workers`` (one process each)."""


def add_match_args(p: argparse.ArgumentParser, *, matches: int, matches_help: str, seed_help: str,
                   workers: bool = True, target: bool = True) -> None:
    """Add the options the arena, the round robin and the benchmark share: ``--matches``,
    ``--target`` (optional), ``--rules``, ``--seed`` and ``--workers`` (optional), validated."""
    default = " (default %(default)s)"
    p.add_argument("--matches", type=int_arg(1, MAX_MATCHES, "a match count"), default=matches,
                   help=matches_help + default)
    if target:
        p.add_argument("--target", type=int_arg(1, 10_000, "a match target"), default=None,
                       help="match target (default: the preset's)")
    p.add_argument("--rules", default="classic", choices=sorted(PRESETS), help="rule preset" + default)
    p.add_argument("--seed", type=int, default=1, help=seed_help + default)
    if workers:
        p.add_argument("--workers", type=int_arg(1, MAX_WORKERS, "a worker count"), default=1,
                       help="processes playing matches" + default)


def build_parser() -> argparse.ArgumentParser:
    """The arena's command-line parser."""
    p = argparse.ArgumentParser(prog="python -m engine.tools.arena", description=__doc__.split("\n")[0])
    p.add_argument("--a", type=level_arg, required=True, help="level of bot A (1..5), seat 0")
    p.add_argument("--b", type=level_arg, required=True, help="level of bot B (1..5), seat 1")
    add_match_args(p, matches=400, matches_help="matches to play (duplicate pairs)",
                   seed_help="seed of the decks and the bots")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def rules_for(name: str, target: int | None) -> RuleSet:
    """Preset ``name`` with ``target`` (``None`` keeps the preset's).

    :raises InvalidRuleSetError: unknown preset or bad target.
    """
    rules = preset(name)
    return rules if target is None else rules.replace(target=target)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the arena command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        rules = rules_for(args.rules, args.target)
        records = run_matches(args.a, args.b, rules, args.matches, args.seed, workers=args.workers,
                              progress=not args.no_progress)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    summary = summarize(args.a, args.b, rules, args.seed, records)
    print(json.dumps(summary) if args.json else format_report(summary))
    return 0


__all__ = ["HandRecord", "MatchRecord", "main", "play_match", "run_matches", "summarize", "wilson"]

if __name__ == "__main__":
    raise SystemExit(main())
