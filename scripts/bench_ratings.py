"""Benchmark: rankings and profile server time, and rating updates through the task path (issue 10).

    DATABASE_URL=... .venv/bin/python manage.py ratings_seed --players 100000 --matches 100000
    DATABASE_URL=... .venv/bin/python scripts/bench_ratings.py [--requests 300] [--updates 10000]

Pages: ``--requests`` GETs each of the leaderboard (all-time page 1, a random page, the 30-day tab,
provisional shown, a name search, "jump to my rank") and of random seeded players' profiles, through
Django's test client in this process (middleware, view, queries, template: the server's time, no
network), as a logged-in seeded member. Prints p50/p95/p99 in ms of the wall time, of this process's CPU
time (the truer cost on a loaded machine: the database server's CPU is not in it) and of the SQL time
(as the driver waited for it), and the queries per request; also p95, a deep page (the last tenth of the
board) and the profile of the player with the most rated matches, and the load average around the run.
Updates:
creates ``--updates`` finished rated matches between seeded players (not rated yet), then has them
rated the way finished matches are: each match's ``match_finished`` receiver runs (it enqueues
``ratings.rate_pending`` once per second of finishes), and a real ``celery worker`` subprocess (solo
pool, a queue of its own on the configured broker) runs the tasks; prints the wall time until every
match is rated and the worker's CPU time (user + system, from /proc). ``--in-process`` instead runs
``ratings.rate_pending`` through ``Task.apply`` in this process (the same code, no broker).
Targets: p99 <= 20 ms at 100,000 players (PostgreSQL);
10,000 updates <= 10 s of worker time.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import timedelta
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
    parser.add_argument("--in-process", action="store_true", help="rate in this process, not by a worker")
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from accounts.models import User
    from games.models import Match, MatchStatus, ResultReason
    from ratings.models import PlayerRating, RatingChange
    from ratings.tasks import rate_pending

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    rng = random.Random(args.seed)
    players = PlayerRating.objects.count()
    established = PlayerRating.objects.filter(rated_matches__gte=10).count()
    print(f"database: {connection.vendor}; rated players: {players}; established: {established}; "
          f"members: {User.objects.filter(is_bot=False).count()}")
    ids = list(PlayerRating.objects.filter(rated_matches__gte=10).values_list("user_id", flat=True)[:50_000])
    names = dict(User.objects.filter(pk__in=ids[:5000]).values_list("pk", "username"))
    heavy = PlayerRating.objects.order_by("-rated_matches").select_related("user").first()
    viewer = User.objects.get(pk=ids[len(ids) // 2])
    client = Client()
    client.force_login(viewer)
    pages = max(1, established // 50)
    urls = {
        "rankings page 1": lambda: "/rankings/",
        "rankings random page": lambda: f"/rankings/?page={rng.randint(1, pages)}",
        "rankings deep page": lambda: f"/rankings/?page={rng.randint(max(1, pages * 9 // 10), pages)}",
        "rankings 30 days": lambda: "/rankings/?tab=30d",
        "rankings + provisional": lambda: f"/rankings/?provisional=1&page={rng.randint(1, 20)}",
        "rankings search": lambda: f"/rankings/?q=seed-00{rng.randint(100, 999)}",
        "jump to my rank": lambda: "/rankings/?me=1",
        "profile": lambda: f"/u/{names[rng.choice(list(names))]}/",
        f"profile heavy ({heavy.rated_matches if heavy else 0})":
            lambda: f"/u/{heavy.user.username if heavy else viewer.username}/",
    }
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
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
        def spread(values: list[float]) -> str:
            return " / ".join(f"{percentile(values, q):5.1f}" for q in (0.5, 0.95, 0.99))

        print(f"{label:24s} p50/p95/p99 ms: wall {spread(samples)} | CPU {spread(cpu_samples)}"
              f" | SQL {spread(sql)} | queries {min(queries)}-{max(queries)}")
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))

    if args.updates:
        pairs = [rng.sample(ids, 2) for _ in range(args.updates)]
        rules = Match.objects.filter(rated=True).values_list("rules", flat=True).first() or {}
        now = timezone.now()
        matches = Match.objects.bulk_create([
            Match(rules=rules, preset="classic", player0_id=a, player1_id=b, status=MatchStatus.FINISHED,
                  scores=[100, 40], winner=rng.randrange(2), result_reason=ResultReason.TARGET, rated=True,
                  first_dealer=0, finished_at=now + timedelta(microseconds=i))
            for i, (a, b) in enumerate(pairs)
        ], batch_size=5000)
        changes = RatingChange.objects.count()
        if args.in_process:
            start, cpu = time.perf_counter(), time.process_time()
            written = rate_pending.apply().get()
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            where = "in this process (rate_pending through Task.apply)"
        else:
            written, wall, cpu = rate_through_worker([m.pk for m in matches], changes)
            where = "by a real worker (receiver -> broker -> celery worker)"
        print(f"{args.updates} rating updates {where}: {wall:.2f} s wall, {cpu:.2f} s CPU of the worker "
              f"({written} rating changes, {1000 * cpu / args.updates:.3f} ms CPU each)")


def rate_through_worker(match_ids: list[int], changes_before: int) -> tuple[int, float, float]:
    """Enqueue as the finishes do and let a worker subprocess rate ``match_ids``; returns (rating changes
    written, wall seconds from the first enqueue to the last change, the worker's CPU seconds)."""
    import subprocess
    import uuid

    from config.celery import app
    from ratings import receivers
    from ratings.models import RatingChange

    queue = f"bench-ratings-{uuid.uuid4().hex[:8]}"
    app.conf.task_routes = {"ratings.rate_match": {"queue": queue}, "ratings.rate_pending": {"queue": queue}}
    app.amqp.flush_routes()
    app.amqp.router = app.amqp.Router()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "platform")])}
    log_path = Path(f"/tmp/{queue}.log")
    with log_path.open("wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "-Q", queue,
             "-n", f"{queue}@%h", "--without-gossip", "--without-mingle", "--loglevel", "WARNING"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            time.sleep(1)
            deadline = time.monotonic() + 60
            while not app.control.ping([f"{queue}@{os.uname().nodename}"], timeout=0.5):
                assert worker.poll() is None and time.monotonic() < deadline, log_path.read_text()
            cpu_before = process_cpu(worker.pid)
            start = time.perf_counter()
            for match_id in match_ids:
                receivers.enqueue_rating(sender=None, match_id=match_id, rated=True)
            target = changes_before + 2 * len(match_ids)
            while (count := RatingChange.objects.count()) < target:
                assert worker.poll() is None, log_path.read_text()
                time.sleep(0.05)
            wall = time.perf_counter() - start
            cpu = process_cpu(worker.pid) - cpu_before
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    return count - changes_before, wall, cpu


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
