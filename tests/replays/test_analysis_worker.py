"""The analysis through a real Celery worker process (not eager, not in-process): asking for it
enqueues ``replays.analyse_match`` after the commit, a ``celery -A config worker`` subprocess on the
test database computes it, and a re-delivered task computes nothing. The worker fixture is the ratings
one (its own queue), with this task routed there too."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from tests.ratings.test_real_worker import BOUND_S, worker_queue  # noqa: F401  (fixture)
from tests.replays.test_analysis import WORLDS, short_finished

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def few_worlds_env(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    """The worker (which copies this environment) and this process analyse with few worlds."""
    monkeypatch.setenv("REPLAYS_ANALYSIS_WORLDS", str(WORLDS))
    settings.REPLAYS_ANALYSIS_WORLDS = WORLDS


@pytest.fixture
def analysis_queue(few_worlds_env: None, worker_queue: str, settings: Any) -> Iterator[str]:  # noqa: F811
    from config.celery import app

    app.conf.task_routes = {**(app.conf.task_routes or {}), "replays.analyse_match": {"queue": worker_queue}}
    app.amqp.flush_routes()
    app.amqp.router = app.amqp.Router()
    settings.GAMES_SERVER_MOVES_IN_PROCESS = False  # the Celery driver
    yield worker_queue


def wait_for(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + BOUND_S
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_a_real_worker_analyses_once(
    house_bots: Any, seeded_decks: Any, alice: Any, client: Any, analysis_queue: str, tmp_path: Path
) -> None:
    from engine import analysis as engine_analysis
    from replays import analysis_runs, selectors
    from replays.models import AnalysisStatus, MatchAnalysis
    from replays.tasks import analyse_match

    match = short_finished(alice)
    client.force_login(alice)
    answer = client.post(reverse("replays:analyse", args=[match.pk]), HTTP_ACCEPT="application/json")
    assert answer.status_code == 202 and answer.json()["status"] in ("queued", "running")
    row = MatchAnalysis.objects.get(match=match)
    wait_for(lambda: MatchAnalysis.objects.get(pk=row.pk).status == AnalysisStatus.DONE, "not analysed")
    row.refresh_from_db()
    expected = engine_analysis.analyse(selectors.match_record(match=match), analysis_runs.engine_settings())
    assert row.result == expected and row.done == row.total == len(expected["decisions"])
    # the same message delivered again: the worker finds it done and computes nothing
    analyse_match.apply_async(kwargs={"analysis_id": row.pk})
    log = tmp_path / "worker.log"

    def runs() -> list[str]:
        """The return values the worker logged (plain lines, or JSON lines in production)."""
        return re.findall(r"Task replays\.analyse_match\[[^\]]+\] succeeded in [0-9.]+s: (\w+)",
                          log.read_text(errors="replace"))

    wait_for(lambda: len(runs()) >= 2, "the second task did not run")
    assert runs() == ["True", "False"]
    assert MatchAnalysis.objects.get(pk=row.pk).finished_at == row.finished_at


async def test_a_real_workers_progress_reaches_the_page_socket(
    house_bots: Any, seeded_decks: Any, alice: Any, analysis_queue: str, skip_or_fail: Any
) -> None:
    """The production path of docs/analysis.md "Where it runs": a worker process computes the analysis and
    its progress reaches the replay page's socket in this process through Redis. It failed while
    ``replays.analyses`` imported a ``group_send`` that ``ratings.push`` no longer had: every push raised
    an ImportError that a broad ``except`` logged as a warning, and the page waited forever."""
    from channels.db import database_sync_to_async
    from django.conf import settings

    from tests.games.wsclient import recv
    from tests.replays.test_analysis import analysis_socket

    if "Redis" not in settings.CHANNEL_LAYERS["default"]["BACKEND"]:
        skip_or_fail("needs the Redis channel layer (a worker's in-process layer never reaches this process)")
    from replays import analyses
    from replays.models import MatchAnalysis

    match = await database_sync_to_async(short_finished)(alice)
    comm = await analysis_socket(match.pk, alice)
    try:
        assert (await recv(comm))["status"] == "none"
        await database_sync_to_async(analyses.analysis_request)(match=match, user=alice)
        seen: list[dict[str, Any]] = []
        while not seen or seen[-1]["status"] != "done":  # one long wait: the worker starts, then pushes
            seen.append(await recv(comm, timeout=BOUND_S))
    finally:
        await comm.disconnect()
    row = await database_sync_to_async(MatchAnalysis.objects.get)(match=match)
    assert seen[-1]["result"] == row.result and seen[-1]["done"] == seen[-1]["total"] == row.total
    running = [m["done"] for m in seen if m["status"] == "running"]
    assert running and running == sorted(running) and max(running) <= row.total
