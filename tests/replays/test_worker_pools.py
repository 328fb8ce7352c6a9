"""Issue 20, finding 1 (worker starvation): a saturated background pool never delays a rating.

Real worker processes, one per queue of the project's routing table (``settings.CELERY_TASK_ROUTES``:
``realtime``, ``background``; each renamed to a queue of this test, so a running site's workers on the same
broker never take the messages), on the test database and the real broker (Redis in CI). The background
worker is saturated: three analyses are queued and the first one holds its solo pool, blocked on a row
lock this test keeps (an analysis that takes as long as the test wants, without a clock). Then a rated
match finishes: its rating must be stored while every analysis is still ``queued`` (state, not
durations). With one shared pool (main before issue 20: every task on one queue) the rating waits
behind the blocked analysis and this test fails. After the lock is released the analyses complete, each
``finished_at`` after the rating's ``created_at``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, database_url_of, skip_or_fail
from tests.ratings.conftest import first_moves
from tests.replays.test_analysis import WORLDS, short_finished

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
BOUND_S = 120  # against a hung worker only; nothing here measures speed


def wait_for(predicate: Any, what: str, bound: float = BOUND_S) -> None:
    deadline = time.monotonic() + bound
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


@pytest.fixture
def pools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[dict[str, Path]]:
    """One solo worker subprocess per queue of the routing table, every project task routed to its
    queue's test copy. Yields ``{queue: worker log path}``."""
    from django.db import connection

    from config.celery import app

    if connection.vendor != "postgresql" or not os.environ.get("REDIS_URL"):
        skip_or_fail("real workers need the PostgreSQL test database and the Redis broker")
    app.loader.import_default_modules()
    names = [name for name in app.tasks if not name.startswith("celery.")]
    routes = getattr(settings, "CELERY_TASK_ROUTES", None) or {}
    queue_of = {name: routes.get(name, {}).get("queue", app.conf.task_default_queue) for name in names}
    suffix = uuid.uuid4().hex[:8]
    renamed = {queue: f"{queue}-test-{suffix}" for queue in sorted(set(queue_of.values()))}
    monkeypatch.setenv("REPLAYS_ANALYSIS_WORLDS", str(WORLDS))
    settings.REPLAYS_ANALYSIS_WORLDS = WORLDS
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update({
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "platform")]),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url_of(connection.settings_dict),
        "CELERY_TASK_ALWAYS_EAGER": "0", "PYTHONUNBUFFERED": "1",
    })
    logs = {queue: tmp_path / f"worker-{queue}.log" for queue in renamed}
    workers = []
    for queue, test_queue in renamed.items():
        with logs[queue].open("wb") as log:
            workers.append(subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "-Q", test_queue,
                 "-n", f"{test_queue}@%h", "--without-gossip", "--without-mingle", "--loglevel", "INFO"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            ))
    before_routes, before_eager = app.conf.task_routes, app.conf.task_always_eager
    app.conf.task_routes = {name: {"queue": renamed[queue]} for name, queue in queue_of.items()}
    app.amqp.flush_routes()  # the routing table is cached (see tests/ratings/test_real_worker.py)
    app.amqp.router = app.amqp.Router()
    app.conf.task_always_eager = False
    try:
        for queue, path in logs.items():
            wait_for(lambda path=path: " ready." in path.read_text(errors="replace"), f"the {queue} worker")
        yield logs
    finally:
        app.conf.task_routes, app.conf.task_always_eager = before_routes, before_eager
        app.amqp.flush_routes()
        app.amqp.router = app.amqp.Router()
        for worker in workers:
            worker.terminate()
        for worker in workers:
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        for path in logs.values():
            print(path.name, path.read_text(errors="replace")[-2500:])


class RowLock:
    """``SELECT ... FOR UPDATE`` of some analysis rows in a connection of its own (a thread), held
    until :meth:`release`: an analysis run's claim (an ``UPDATE`` of its row) waits on it."""

    def __init__(self, table: str, ids: list[int]) -> None:
        self.table, self.ids = table, ids
        self.locked, self.done = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)
        self.thread.start()
        assert self.locked.wait(30), "the rows were not locked"

    def _hold(self) -> None:
        from django.db import connection, transaction

        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"SELECT id FROM {self.table} WHERE id = ANY(%s) FOR UPDATE", [self.ids])
                self.locked.set()
                self.done.wait(BOUND_S * 3)
        finally:
            connection.close()

    def release(self) -> None:
        self.done.set()
        self.thread.join(30)


def lock_waiters() -> int:
    """Database sessions waiting on a lock (the blocked analysis run)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                       "AND datname = current_database()")
        return int(cursor.fetchone()[0])


def test_a_rating_is_stored_while_the_background_pool_is_saturated(
    pools: dict[str, Path], house_bots: Any, seeded_decks: Any, alice: Any, bob: Any,
    django_user_model: Any,
) -> None:
    from games import services
    from games.models import Match
    from ratings.models import RatingChange
    from replays import analyses
    from replays.models import AnalysisStatus, MatchAnalysis
    from replays.tasks import analyse_match

    carol = django_user_model.objects.create_user(username="carol", password="pw-carol-123")
    bot_matches = [short_finished(player) for player in (alice, bob, carol)]
    rows = [MatchAnalysis.objects.create(match=m, version=analyses.VERSION) for m in bot_matches]
    lock = RowLock(MatchAnalysis._meta.db_table, [row.pk for row in rows])
    try:
        for row in rows:
            analyse_match.apply_async(kwargs={"analysis_id": row.pk})
        wait_for(lambda: lock_waiters() >= 1, "the background worker to be busy with the first analysis")

        table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None,
                                      rated=True)
        friends = services.table_join(user=bob, token=table.invite_token)
        first_moves(friends.pk, {0: alice, 1: bob})
        services.match_resign(match_id=friends.pk, user=bob)
        assert Match.objects.get(pk=friends.pk).status == "finished"
        wait_for(lambda: RatingChange.objects.filter(match_id=friends.pk).count() == 2,
                 "the rating, while the background pool is saturated")
        ids = [row.pk for row in rows]
        statuses = list(MatchAnalysis.objects.filter(pk__in=ids).values_list("status", flat=True))
        assert statuses == [AnalysisStatus.QUEUED] * 3  # none ran: the rating did not wait for them
        assert lock_waiters() >= 1  # and the background worker is still held by the first one
    finally:
        lock.release()
    wait_for(lambda: MatchAnalysis.objects.filter(pk__in=[r.pk for r in rows],
                                                  status=AnalysisStatus.DONE).count() == 3,
             "the analyses, once released")
    rated_at = max(RatingChange.objects.filter(match_id=friends.pk).values_list("created_at", flat=True))
    finished = MatchAnalysis.objects.filter(pk__in=[r.pk for r in rows]).values_list("finished_at", flat=True)
    assert all(at > rated_at for at in finished)
    assert "ratings.rate_pending" in pools["realtime"].read_text(errors="replace")
    assert "replays.analyse_match" in pools["background"].read_text(errors="replace")
