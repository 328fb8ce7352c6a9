"""``python -m engine.tools.bench``: timings of the meld search, scoring and random playouts (issue 2).

Each least-deadwood call is timed alone with ``time.perf_counter_ns`` on a fresh, distinct hand (the
search keeps no cache between hands, so every call is cold), and the median and 90th percentile are
printed in microseconds; the timer's own cost (about 0.05-0.1 us, printed) is included. Classes:

- ``random10`` / ``random11``: uniformly random hands; ``discards11``: 11 random cards, the deadwood
  after every possible discard (:func:`deadwood_after_discards_of_mask`);
- adversarial 10-card hands: ``overlap`` (a rank in 3 suits whose cards also sit in runs),
  ``four_set_cross`` (a 4-card set with runs through it in two suits), ``long_run`` (5-10 in a suit),
  ``ends`` (A 2 3 and J Q K of several suits), ``block`` (3-4 ranks x 3-4 suits), ``three_sets``
  (three ranks with 3+ cards, each near runs: the most set combinations);
- ``score_knock``: a whole knock scored (knocker arrangement choice and the defender's layoffs), and
  ``knock_points``, its number on masks (the bots' rollouts), on the same knocks;
- playouts: whole matches of random legal play (:func:`engine.tools.playout.random_playout`), hands/second.

Options: ``--hands N`` (distinct hands per class, default 20000), ``--seconds S`` (playout time,
default 5), ``--seed``, ``--dump PATH``: also write the timed hands, one line each,
``"<class> <card> <card> ..."`` (cards ``suit * 13 + rank``, the engine's and OpenSpiel's numbering), with
the sum of each class's deadwoods printed as a ``checksum`` column, so that another implementation can be
timed on the very same hands and checked to compute the same numbers (``discards11``: the sum over every
discard; ``random11``: of the least deadwood after the best discard). docs/bots.md, "Meld search against
OpenSpiel", uses it. Its folder is checked before the timing starts (a bad path fails at once); the
file is written once the classes are timed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from engine.cards import CardMask
from engine.knock_points import knock_points
from engine.melds import deadwood_after_discards_of_mask, deadwood_of_mask
from engine.rules import PRESETS
from engine.scoring import score_knock
from engine.tools.arena import int_arg, writable_path
from engine.tools.playout import random_playout

Generator = Callable[[random.Random], list[int]]


def _card(rank: int, suit: int) -> int:
    return suit * 13 + rank


def _fill(rng: random.Random, core: list[int], n: int) -> list[int]:
    cards = list(dict.fromkeys(core))[:n]
    while len(cards) < n:
        c = rng.randrange(52)
        if c not in cards:
            cards.append(c)
    return cards


def _random(n: int) -> Generator:
    return lambda rng: rng.sample(range(52), n)


def _overlap(rng: random.Random) -> list[int]:
    r = rng.randrange(13)
    suits = rng.sample(range(4), 3)
    core = [_card(r, s) for s in suits]
    for s in suits[:2]:
        lo = rng.randint(max(0, r - 2), min(r, 10))
        core += [_card(x, s) for x in range(lo, lo + 3)]
    return _fill(rng, core, 10)


def _four_set_cross(rng: random.Random) -> list[int]:
    r = rng.randrange(13)
    core = [_card(r, s) for s in range(4)]
    for s in rng.sample(range(4), 2):
        lo = rng.randint(max(0, r - 2), min(r, 10))
        core += [_card(x, s) for x in range(lo, lo + 3)]
    return _fill(rng, core, 10)


def _long_run(rng: random.Random) -> list[int]:
    length = rng.randint(5, 10)
    lo = rng.randint(0, 13 - length)
    s = rng.randrange(4)
    return _fill(rng, [_card(x, s) for x in range(lo, lo + length)], 10)


def _ends(rng: random.Random) -> list[int]:
    pool = [_card(r, s) for r in (0, 1, 2, 10, 11, 12) for s in range(4)]
    return _fill(rng, rng.sample(pool, rng.randint(7, 10)), 10)


def _block(rng: random.Random) -> list[int]:
    width = rng.randint(3, 4)
    lo = rng.randint(0, 13 - width)
    suits = rng.sample(range(4), rng.randint(3, 4))
    core = [_card(x, s) for x in range(lo, lo + width) for s in suits]
    rng.shuffle(core)
    return _fill(rng, core, 10)


def _three_sets(rng: random.Random) -> list[int]:
    lo = rng.randint(0, 10)
    core = [_card(r, s) for r in (lo, lo + 1, lo + 2) for s in rng.sample(range(4), 3)]
    return _fill(rng, core, 10)


CLASSES: dict[str, tuple[Generator, Callable[[CardMask], object]]] = {
    "random10": (_random(10), deadwood_of_mask),
    "random11": (_random(11), deadwood_of_mask),
    "discards11": (_random(11), deadwood_after_discards_of_mask),
    "overlap": (_overlap, deadwood_of_mask),
    "four_set_cross": (_four_set_cross, deadwood_of_mask),
    "long_run": (_long_run, deadwood_of_mask),
    "ends": (_ends, deadwood_of_mask),
    "block": (_block, deadwood_of_mask),
    "three_sets": (_three_sets, deadwood_of_mask),
}


def distinct_masks(gen: Generator, rng: random.Random, count: int) -> list[CardMask]:
    """``count`` distinct hands from ``gen`` as masks (fewer if the class has fewer hands)."""
    seen: set[CardMask] = set()
    tries = 0
    while len(seen) < count and tries < count * 20:
        tries += 1
        mask = 0
        for c in gen(rng):
            mask |= 1 << c
        seen.add(mask)
    masks = list(seen)
    rng.shuffle(masks)
    return masks


def time_calls(fn: Callable[[CardMask], object], masks: list[CardMask]) -> list[float]:
    """Microseconds of ``fn(mask)`` for each mask, each timed alone."""
    clock = time.perf_counter_ns
    out: list[float] = []
    for mask in masks:
        t0 = clock()
        fn(mask)
        out.append((clock() - t0) / 1000)
    return out


def seconds_arg(text: str) -> float:
    """A command-line type: a finite number of seconds in 0..3600."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 3600.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"seconds are a number 0..3600, got {text!r}")
    return value


def checksum(name: str, masks: list[CardMask]) -> int:
    """Sum of the class's deadwoods (see ``--dump`` in the module docstring)."""
    if name == "discards11":
        return sum(sum(deadwood_after_discards_of_mask(m).values()) for m in masks)
    if name == "random11":
        return sum(min(deadwood_after_discards_of_mask(m).values()) for m in masks)
    return sum(deadwood_of_mask(m) for m in masks)


def dump_line(name: str, mask: CardMask) -> str:
    """One ``--dump`` line: the class, then the hand's cards in ascending order."""
    return " ".join([name, *(str(c) for c in range(52) if mask >> c & 1)])


def _p90(xs: list[float]) -> float:
    return sorted(xs)[int(len(xs) * 0.9)]


def bench_score(rng: random.Random, count: int) -> tuple[list[float], list[float]]:
    """Microseconds per ``score_knock`` and per ``knock_points`` (its number on masks, what the bots'
    rollouts call) on the same random deals where the knocker can knock without gin."""
    samples: list[float] = []
    fast: list[float] = []
    rules = PRESETS["classic"]
    while len(samples) < count:
        cards = rng.sample(range(52), 21)
        eleven, defender = cards[:11], cards[11:]
        after = deadwood_after_discards_of_mask(sum(1 << c for c in eleven))
        discard = min(after, key=after.__getitem__)
        if not 0 < after[discard] <= 10:
            continue
        knocker = [c for c in eleven if c != discard]
        t0 = time.perf_counter_ns()
        score_knock(knocker, defender, rules)
        samples.append((time.perf_counter_ns() - t0) / 1000)
        kmask, dmask = sum(1 << c for c in knocker), sum(1 << c for c in defender)
        t0 = time.perf_counter_ns()
        knock_points(kmask, dmask, rules, 10, 1)
        fast.append((time.perf_counter_ns() - t0) / 1000)
    return samples, fast


def bench_playouts(seconds: float, seed: int) -> str:
    """Random-legal playout hands per second over every preset (one core)."""
    hands = 0
    matches = 0
    start = time.perf_counter()
    presets = list(PRESETS.values())
    while time.perf_counter() - start < seconds:
        match = random_playout(presets[matches % len(presets)], seed + matches)
        hands += match.hand_number
        matches += 1
    elapsed = time.perf_counter() - start
    return (
        f"playouts: {hands / elapsed:.0f} hands/s ({hands} hands in {matches} whole matches, "
        f"{elapsed:.1f} s; random legal play with knock_bias 0.5, greedy 0.8, every preset)"
    )


def main(argv: list[str] | None = None) -> None:
    """Print the benchmark table (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m engine.tools.bench",
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--hands", type=int_arg(1, 1_000_000, "a hand count"), default=20000,
                        help="distinct hands per class")
    parser.add_argument("--seconds", type=seconds_arg, default=5.0, help="time spent on playouts (0..3600)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dump", type=writable_path,
                        help="also write the timed hands to this file (see the docstring)")
    args = parser.parse_args(argv)
    dumped: list[str] = []
    rng = random.Random(args.seed)
    overhead = statistics.median(time_calls(lambda m: None, list(range(10000))))
    print(f"least deadwood, microseconds per call (cold, distinct hands; timer+call overhead {overhead:.2f})")
    print(f"{'class':<16}{'hands':>7}{'median':>9}{'p90':>9}{'max':>9}" + ("  checksum" if args.dump else ""))
    for name, (gen, fn) in CLASSES.items():
        masks = distinct_masks(gen, rng, args.hands)
        times = time_calls(fn, masks)
        median, p90 = statistics.median(times), _p90(times)
        line = f"{name:<16}{len(masks):>7}{median:>9.2f}{p90:>9.2f}{max(times):>9.1f}"
        if args.dump:
            dumped += (dump_line(name, m) + "\n" for m in masks)
            line += f"  {checksum(name, masks)}"
        print(line)
    if args.dump:
        with open(args.dump, "w") as f:
            f.writelines(dumped)
    scores, points = bench_score(rng, max(200, args.hands // 20))  # at least 200 knocks: a stable median
    for name, times in (("score_knock", scores), ("knock_points", points)):
        print(f"{name:<16}{len(times):>7}{statistics.median(times):>9.1f}{_p90(times):>9.1f}{max(times):>9.0f}")
    print(bench_playouts(args.seconds, args.seed))


if __name__ == "__main__":
    main()
