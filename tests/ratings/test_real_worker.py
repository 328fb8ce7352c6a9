"""The rating task through a real Celery worker process (not eager): a match finishing in this process
enqueues ``ratings.rate_match`` on commit, a ``celery -A config worker`` subprocess on the test
database runs it, and the rating change appears. Its own queue, so a running site's worker on the same
broker never takes the message."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, database_url_of
from tests.ratings.conftest import ratings_one_at_a_time

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
BOUND_S = 120  # against a hung worker only; nothing here measures speed
SUCCEEDED = re.compile(r"Task ratings\.rate_pending\[[-0-9a-f]+\] succeeded in [0-9.e-]+s: (\d+)")


def rate_pending_results(log_path: Path, changes: int) -> list[int]:
    """What each ``rate_pending`` run returned, as the worker logged them, once they add up to
    ``changes`` (the log line follows the commit)."""
    deadline = time.monotonic() + BOUND_S
    while sum(results := [int(n) for n in SUCCEEDED.findall(log_path.read_text(errors="replace"))]) < changes:
        assert time.monotonic() < deadline, results
        time.sleep(0.2)
    return results


@pytest.fixture
def worker_queue(tmp_path: Path) -> Iterator[str]:
    """A worker subprocess consuming a fresh queue; the rating tasks are routed there meanwhile."""
    from django.db import connection

    from config.celery import app

    queue = f"ratings-test-{uuid.uuid4().hex[:10]}"
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update({
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "platform")]),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url_of(connection.settings_dict),
        "CELERY_TASK_ALWAYS_EAGER": "0",
    })
    log_path = tmp_path / "worker.log"
    log = log_path.open("wb")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "-Q", queue,
         "-n", f"{queue}@%h", "--without-gossip", "--without-mingle", "--loglevel", "INFO"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    before_routes, before_eager = app.conf.task_routes, app.conf.task_always_eager
    app.conf.task_routes = {"ratings.rate_match": {"queue": queue}, "ratings.rate_pending": {"queue": queue}}
    # The routing table is prepared once and cached (AMQP._rtable): an earlier real send in this process
    # would keep the old table, and the message would go to the default queue that nobody here consumes.
    app.amqp.flush_routes()
    app.amqp.router = app.amqp.Router()
    app.conf.task_always_eager = False
    try:
        deadline = time.monotonic() + BOUND_S
        while " ready." not in log_path.read_text(errors="replace"):
            assert worker.poll() is None and time.monotonic() < deadline, log_path.read_text(errors="replace")
            time.sleep(0.2)
        yield queue
    finally:
        app.conf.task_routes, app.conf.task_always_eager = before_routes, before_eager
        app.amqp.flush_routes()
        app.amqp.router = app.amqp.Router()
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        log.close()
        print(log_path.read_text(errors="replace")[-3000:])


def test_a_finished_match_is_rated_by_a_real_worker(
    alice: Any, bob: Any, finish_friend: Callable[..., Any], worker_queue: str, tmp_path: Path
) -> None:
    from ratings.models import RatingChange
    from ratings.selectors import rating_get

    match = finish_friend(alice, bob, winner=bob)
    deadline = time.monotonic() + BOUND_S
    while RatingChange.objects.filter(match=match).count() < 2:
        assert time.monotonic() < deadline, "the worker did not rate the match"
        time.sleep(0.2)
    assert rating_get(user=bob).rating == 1520.0 and rating_get(user=alice).rating == 1480.0
    assert rate_pending_results(tmp_path / "worker.log", 2) == [2]


def test_a_burst_of_finishes_is_rated_in_one_batch_in_the_order_they_finished(
    alice: Any, bob: Any, carol: Any, finish_friend: Callable[..., Any], worker_queue: str, tmp_path: Path,
    settings: Any,
) -> None:
    """30 matches between three players finishing within a second (their signals sent at once): one or
    two ``rate_pending`` tasks rate all of them, and the ratings are exactly those of rating the matches
    one at a time in the order they finished (Elo is path-dependent: another order, or a stale rating
    read, gives other numbers)."""
    # 10 rated matches per pair in a moment: the pair's daily cap (3, docs/fairplay.md "Limits that make
    # farming slow", tested in tests/games/test_farming_limits.py) is raised to let this batch be made.
    settings.GAMES_PAIR_RATED_PER_DAY = 10
    from games.signals import match_finished
    from ratings import receivers
    from ratings.models import RatingChange
    from ratings.selectors import rating_get

    people = [alice, bob, carol]
    pairs = [(people[i % 3], people[(i + 1) % 3]) for i in range(30)]
    winners = [a if i % 4 != 1 else b for i, (a, b) in enumerate(pairs)]
    match_finished.disconnect(dispatch_uid="ratings.enqueue_rating")  # all 30 finish first, unrated
    try:
        matches = [finish_friend(a, b, winner=w) for (a, b), w in zip(pairs, winners, strict=True)]
    finally:
        match_finished.connect(receivers.enqueue_rating, dispatch_uid="ratings.enqueue_rating")
    assert [m.finished_at for m in matches] == sorted(m.finished_at for m in matches)

    expected = ratings_one_at_a_time([(a, b, w) for (a, b), w in zip(pairs, winners, strict=True)])

    for match in matches:  # what the 30 finishing commits would have sent
        receivers.enqueue_rating(sender=None, match_id=match.pk, rated=True)
    deadline = time.monotonic() + BOUND_S
    while RatingChange.objects.count() < 60:
        assert time.monotonic() < deadline, "the worker did not rate the 30 matches"
        time.sleep(0.2)
    for p in people:
        assert rating_get(user=p).rating == expected[p.pk], p.username
    results = rate_pending_results(tmp_path / "worker.log", 60)
    assert sum(results) == 60 and 1 <= len(results) <= 2, results  # 2 if the sends straddled the 1 s key


def test_the_rating_reaches_the_table_from_a_real_worker_once(
    alice: Any, bob: Any, daphne_server: Any, worker_queue: str
) -> None:
    """The match-end screen's ``rating`` message when a real worker rates the match, on a real Daphne:
    on Redis the worker's push arrives through the layer; on the embedded profile (the worker's
    in-process layer reaches no socket) the worker posts it to Daphne (``push.forward``; the server
    fixture gives both the run's token, as ``scripts/serve`` does). Either way exactly one ``rating``
    frame, and the table no longer reads the database for it (it once polled 13 times over 118 s)."""
    import json

    from websockets.sync.client import connect

    from games import services as games_services
    from tests.games.wsclient import session_cookie
    from tests.ratings.conftest import first_moves

    table = games_services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    match = games_services.table_join(user=bob, token=table.invite_token)
    first_moves(match.pk, {0: alice, 1: bob})
    seen: list[dict[str, Any]] = []
    with connect(f"{daphne_server.ws_url}/ws/match/{match.pk}/", origin=daphne_server.url,  # type: ignore[arg-type]
                 additional_headers={"Cookie": session_cookie(alice)}, open_timeout=BOUND_S) as ws:
        seen.append(json.loads(ws.recv(timeout=BOUND_S)))
        games_services.match_resign(match_id=match.pk, user=bob)
        while not any(m["type"] == "rating" for m in seen):
            seen.append(json.loads(ws.recv(timeout=BOUND_S)))
        with contextlib.suppress(TimeoutError):  # a second copy would come now
            while True:
                seen.append(json.loads(ws.recv(timeout=3)))
    assert seen[0]["type"] == "state" and seen[0]["match"]["status"] == "active"
    assert [m for m in seen if m["type"] == "rating"] == [
        {"type": "rating", "match_id": match.pk, "before": 1500, "after": 1520, "change": "+20",
         "delta": 20.0, "k": 40, "opponent_rating": 1500, "won": True}]
