"""Benchmark: rankings and profile server time, and rating updates through the task path (issue 10).

    DATABASE_URL=... .venv/bin/python manage.py ratings_seed --players 100000 --matches 100000
    DATABASE_URL=... .venv/bin/python scripts/bench_ratings.py [--requests 300] [--updates 10000]

Pages: ``--requests`` GETs each of the leaderboard (all-time page 1, a random page, the 30-day tab,
provisional shown, a name search, "jump to my rank") and of random seeded players' profiles, through
Django's test client in this process (middleware, view, queries, template: the server's time, no
network), as a logged-in seeded member. Prints p50/p99 in ms of the wall time, of this process's CPU
time (the truer cost on a loaded machine: the database server's CPU is not in it) and of the SQL time
(as the driver waited for it), and the queries per request. Updates:
creates ``--updates`` finished rated matches between seeded players (not rated yet), then runs
``ratings.rate_match`` on each through Celery's task machinery (``Task.apply``: the code a worker runs,
in this process) and prints the total time. Targets: p99 <= 20 ms at 100,000 players (PostgreSQL);
10,000 updates <= 10 s of worker time.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300, choices=range(1, 100_001), metavar="1..100000")
    parser.add_argument("--updates", type=int, default=10_000, choices=range(0, 1_000_001), metavar="0..1e6")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--only", default="", help="measure only the pages whose label contains this")
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts.models import User
    from games.models import Match, MatchStatus, ResultReason
    from ratings.models import PlayerRating
    from ratings.tasks import rate_match

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    rng = random.Random(args.seed)
    players = PlayerRating.objects.count()
    established = PlayerRating.objects.filter(rated_matches__gte=10).count()
    print(f"database: {connection.vendor}; rated players: {players}; established: {established}; "
          f"members: {User.objects.filter(is_bot=False).count()}")
    ids = list(PlayerRating.objects.filter(rated_matches__gte=10).values_list("user_id", flat=True)[:50_000])
    names = dict(User.objects.filter(pk__in=ids[:5000]).values_list("pk", "username"))
    viewer = User.objects.get(pk=ids[len(ids) // 2])
    client = Client()
    client.force_login(viewer)
    pages = max(1, established // 50)
    urls = {
        "rankings page 1": lambda: "/rankings/",
        "rankings random page": lambda: f"/rankings/?page={rng.randint(1, pages)}",
        "rankings 30 days": lambda: "/rankings/?tab=30d",
        "rankings + provisional": lambda: f"/rankings/?provisional=1&page={rng.randint(1, 20)}",
        "rankings search": lambda: f"/rankings/?q=seed-00{rng.randint(100, 999)}",
        "jump to my rank": lambda: "/rankings/?me=1",
        "profile": lambda: f"/u/{names[rng.choice(list(names))]}/",
    }
    for label, make in urls.items():
        if args.only not in label:
            continue
        client.get(make())  # warm up
        samples, cpu_samples, queries, sql = [], [], [], []
        for _ in range(args.requests):
            url = make()
            with CaptureQueriesContext(connection) as captured:
                start, cpu = time.perf_counter(), time.process_time()
                response = client.get(url)
                samples.append((time.perf_counter() - start) * 1000)
                cpu_samples.append((time.process_time() - cpu) * 1000)
            assert response.status_code in (200, 302), (url, response.status_code)
            queries.append(len(captured))
            sql.append(1000 * sum(float(q["time"]) for q in captured.captured_queries))
        wall = f"wall p50 {statistics.median(samples):6.1f} p99 {percentile(samples, 0.99):6.1f} ms"
        print(f"{label:24s} {wall}"
              f" | CPU p50 {statistics.median(cpu_samples):5.1f} p99 {percentile(cpu_samples, 0.99):5.1f} ms"
              f" | SQL p99 {percentile(sql, 0.99):5.1f} ms | queries {min(queries)}-{max(queries)}")

    if args.updates:
        pairs = [rng.sample(ids, 2) for _ in range(args.updates)]
        rules = Match.objects.filter(rated=True).values_list("rules", flat=True).first() or {}
        matches = Match.objects.bulk_create([
            Match(rules=rules, preset="classic", player0_id=a, player1_id=b, status=MatchStatus.FINISHED,
                  scores=[100, 40], winner=rng.randrange(2), result_reason=ResultReason.TARGET, rated=True,
                  first_dealer=0) for a, b in pairs
        ], batch_size=5000)
        start, cpu = time.perf_counter(), time.process_time()
        written = sum(rate_match.apply(args=(m.pk,)).get() for m in matches)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"{args.updates} rating updates through ratings.rate_match: {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"of this process ({written} rating changes, {1000 * wall / args.updates:.2f} ms each)")


if __name__ == "__main__":
    main()
