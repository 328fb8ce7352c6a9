"""Benchmark: server time to build a finished match's replay (issue 12: <= 50 ms for a 10-hand match).

    DATABASE_URL=... .venv/bin/python scripts/bench_replay.py [--match ID] [--repeat 20]

Without ``--match`` it uses the finished match with the most hands in the database (the embedded
SQLite profile when ``DATABASE_URL`` is unset). Prints, as medians (and p90) over ``--repeat`` runs in
milliseconds: the whole uncached build (``replays.selectors.replay_build(use_cache=False)``: read the
event rows, ``games.live.rebuild``, the replay file's verification with the viewer's frames, the
comparison with the stored results); its engine part alone (``engine.replay_format.verify`` with
frames); and a cached build (what every view after the first pays).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def timed(fn: object, repeat: int) -> tuple[float, float, float]:
    """Median and p90 wall time and median CPU time of this process (ms): on a loaded machine the
    CPU time is the truer cost (the database server's own CPU is not in it)."""
    samples, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()  # type: ignore[operator]
        samples.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    samples.sort()
    p90 = samples[min(len(samples) - 1, int(len(samples) * 0.9))]
    return statistics.median(samples), p90, statistics.median(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--match", type=int, help="finished match id (default: the one with the most hands)")
    parser.add_argument("--repeat", type=int, default=20, choices=range(1, 1001), metavar="1..1000")
    args = parser.parse_args()

    import django

    django.setup()
    from django.db.models import Count, Q

    from engine.replay_format import verify
    from games.models import Match, MatchStatus
    from replays import selectors

    qs = Match.objects.filter(status=MatchStatus.FINISHED).select_related("player0", "player1")
    if args.match is not None:
        match = qs.filter(pk=args.match).first()
    else:
        match = qs.annotate(hands=Count("events", filter=Q(events__type="deal"))).order_by("-hands").first()
    if match is None:
        print("no finished match: play one first (or pass --match)", file=sys.stderr)
        return 2
    data = selectors.replay_build(match=match, use_cache=False).data
    hands = len(data["hands"])
    actions = sum(len(h["frames"]) - 1 for h in data["hands"])
    record = selectors.match_record(match=match)
    full = timed(lambda: selectors.replay_build(match=match, use_cache=False), args.repeat)
    engine = timed(lambda: verify(record, frames=True), args.repeat)
    selectors.replay_build(match=match)
    cached = timed(lambda: selectors.replay_build(match=match), args.repeat)
    print(f"match {match.pk}: {hands} hands, {actions} actions, {match.last_seq} events "
          f"({'PostgreSQL' if 'postgres' in os.environ.get('DATABASE_URL', '') else 'SQLite'})")
    for label, (median, p90, cpu) in (
        ("uncached build (rows + rebuild + verify + frames)", full),
        ("  engine verification with frames alone", engine),
        ("cached build", cached),
    ):
        print(f"{label:<52} median {median:7.2f} ms, p90 {p90:7.2f} ms, CPU {cpu:7.2f} ms")
    per_hand, per_hand_cpu = full[0] / hands, full[2] / hands
    print(f"per hand (uncached): {per_hand:.1f} ms wall, {per_hand_cpu:.1f} ms CPU -> a 10-hand match "
          f"~ {per_hand * 10:.0f} ms wall, {per_hand_cpu * 10:.0f} ms CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
