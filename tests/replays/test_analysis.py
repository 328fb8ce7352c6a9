"""Computer analysis on the site (replays.analyses, the analyse views, ws/analysis/<id>/): a finished
match is analysed once per analysis version (the stored result is engine.analysis's judgement of its
replay file), whoever may watch its replay may ask, everyone else gets a clear refusal and nothing is
stored; a re-delivered, raced or taken-over run never computes or stores twice; progress reaches the
replay page's socket; pt-BR and English."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse
from django.utils import timezone

from engine import analysis as engine_analysis
from games.models import Match, MatchEvent
from replays import analyses, analysis_driver, analysis_runs, selectors
from replays.models import AnalysisStatus, MatchAnalysis, ReplayAccess
from tests.games.wsclient import ORIGIN, recv, session_cookie
from tests.replays.test_build import edit_event

WORLDS = 12


@pytest.fixture(autouse=True)
def few_worlds(settings: Any) -> Iterator[None]:
    """Short analyses (12 worlds a decision), every progress report pushed, no loop left behind."""
    settings.REPLAYS_ANALYSIS_WORLDS = WORLDS
    settings.REPLAYS_ANALYSIS_PUSH_EVERY = 0.0
    yield
    analysis_driver._loop = None


def short_finished(user: Any) -> Match:
    """A bot match of ``user`` (level 1, target 50, the seeded decks: a few hands) played to its end."""
    from games import services
    from tests.games.play import play_until

    match = services.match_create_vs_bot(user=user, level=1, rules_preset="classic", target=50)
    return play_until(match.pk, {0: user})


@pytest.fixture
def short_match(house_bots: Any, seeded_decks: Any, alice: Any) -> Match:
    return short_finished(alice)


def post(client: Any, match_id: int, **data: str) -> Any:
    return client.post(reverse("replays:analyse", args=[match_id]), data, HTTP_ACCEPT="application/json")


class Counting:
    """``engine.analysis.analyse`` wrapped to count its calls (and run ``during`` at its first progress
    report after 0: a second run starting while the first is busy)."""

    def __init__(self, during: Any = None) -> None:
        self.calls = 0
        self.during = during
        self.real = engine_analysis.analyse

    def __call__(self, record: Any, settings: Any = None, progress: Any = None) -> Any:
        self.calls += 1

        def report(done: int, total: int) -> None:
            if progress is not None:
                progress(done, total)
            if done == 1 and self.during is not None:
                during, self.during = self.during, None
                during()

        return self.real(record, settings, progress=report)


# --------------------------------------------------------------------------------------------- asking


@pytest.mark.django_db(transaction=True)
def test_the_analysis_is_the_engines_judgement_of_the_replay_stored_once(
    short_match: Any, client: Any, alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = Counting()
    monkeypatch.setattr(analysis_runs.engine_analysis, "analyse", counting)
    client.force_login(alice)
    before = client.get(reverse("replays:analysis_json", args=[short_match.pk]))
    assert before.status_code == 404 and before.json()["error"] == "not_analysed"
    answer = post(client, short_match.pk)
    # no page open (no known event loop): the in-process driver ran it after the commit, before answering
    assert answer.status_code == 200 and answer.json()["status"] == "done"
    assert answer.json()["result"] is None  # the result is read from analysis.json or the socket
    row = MatchAnalysis.objects.get(match=short_match)
    assert row.version == engine_analysis.ANALYSIS_VERSION and row.requested_by == alice
    expected = counting.real(selectors.match_record(match=short_match), analysis_runs.engine_settings())
    assert row.result == expected and expected["settings"]["worlds"] == WORLDS
    assert row.done == row.total == len(expected["decisions"]) > 0
    stored = client.get(reverse("replays:analysis_json", args=[short_match.pk])).json()
    assert stored["status"] == "done" and stored["result"] == expected
    # asking again (a second click, another visitor) reads it: nothing is computed again
    finished = row.finished_at
    for _ in range(3):
        again = post(client, short_match.pk)
        assert again.status_code == 200 and again.json()["status"] == "done"
    assert counting.calls == 1 and MatchAnalysis.objects.count() == 1
    assert MatchAnalysis.objects.get().finished_at == finished
    # the page carries it, with the socket to follow a run
    page = client.get(reverse("replays:replay", args=[short_match.pk]))
    assert page.context["analysis"]["result"] == expected
    assert page.context["analysis_ws"] == f"/ws/analysis/{short_match.pk}/"
    assert 'data-testid="analyse"' in page.content.decode()


@pytest.mark.django_db
def test_without_javascript_the_form_redirects_to_the_page(
    short_match: Any, client: Any, alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(reverse("replays:analyse", args=[short_match.pk]))
    assert answer.status_code == 302
    assert answer["Location"] == reverse("replays:replay", args=[short_match.pk]) + "#analysis"
    assert MatchAnalysis.objects.get().status == AnalysisStatus.DONE


@pytest.mark.django_db
def test_refusals_are_clear_and_store_nothing(
    short_match: Any, house_bots: Any, client: Any, alice: Any, bob: Any, guest: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from games import services

    client.force_login(alice)
    unknown = post(client, 999_999)
    assert unknown.status_code == 404 and unknown.json()["error"] == "no_such_match"
    live = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    refused = post(client, live.pk)
    assert refused.status_code == 409 and refused.json()["error"] == "not_finished"
    assert client.get(reverse("replays:analyse", args=[short_match.pk])).status_code == 405
    assert client.get(reverse("replays:analysis_json", args=[live.pk])).status_code == 409
    # a guest's bot match is private: another user needs its link's token
    private = short_finished(guest)
    client.force_login(bob)
    answer = post(client, private.pk)  # as if there were no such match (issue 20, finding 7)
    assert answer.status_code == 404 and answer.json()["error"] == "no_such_match"
    assert post(client, private.pk, token="not-the-token").status_code == 404
    assert client.get(reverse("replays:analysis_json", args=[private.pk])).status_code == 404
    page = client.post(reverse("replays:analyse", args=[private.pk]))  # without JavaScript: the page
    assert page.status_code == 404 and "There is no finished match" in page.content.decode()
    assert MatchAnalysis.objects.count() == 0
    token = ReplayAccess.objects.get_or_create(match=private)[0].token
    with django_capture_on_commit_callbacks(execute=True):
        allowed = post(client, private.pk, token=token)
    assert allowed.status_code == 202 and allowed.json()["status"] == "queued"  # runs after the commit
    assert MatchAnalysis.objects.get().status == AnalysisStatus.DONE
    stored = client.get(reverse("replays:analysis_json", args=[private.pk]) + f"?token={token}")
    assert stored.status_code == 200 and stored.json()["status"] == "done"
    # and the page sends the token along with its form and its socket
    page = client.get(reverse("replays:replay", args=[private.pk]) + f"?token={token}")
    assert page.context["token"] == token and page.context["analysis_ws"].endswith(f"?token={token}")


# --------------------------------------------------------------------------------------------- runs


@pytest.mark.django_db
def test_a_redelivered_or_raced_run_computes_once(short_match: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    row = MatchAnalysis.objects.create(match=short_match, version=analyses.VERSION)
    raced: list[bool] = []
    counting = Counting(during=lambda: raced.append(analysis_runs.analysis_run(analysis_id=row.pk)))
    monkeypatch.setattr(analysis_runs.engine_analysis, "analyse", counting)
    assert analysis_runs.analysis_run(analysis_id=row.pk) is True
    assert raced == [False]  # a second run while the first worked: it found the row held, did nothing
    assert analysis_runs.analysis_run(analysis_id=row.pk) is False  # re-delivered after it was done
    assert analysis_runs.analysis_run(analysis_id=999_999) is False  # no such row
    assert counting.calls == 1
    row.refresh_from_db()
    assert row.status == AnalysisStatus.DONE and row.done == row.total > 0


@pytest.mark.django_db
def test_a_lost_run_is_taken_over_and_the_old_one_stores_nothing(
    short_match: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = MatchAnalysis.objects.create(match=short_match, version=analyses.VERSION)
    old = timezone.now() - analysis_runs.STALE_AFTER - timedelta(seconds=1)
    taken: list[bool] = []

    def takeover() -> None:
        # the first run is presumed dead (no progress for too long): a new one claims the row
        MatchAnalysis.objects.filter(pk=row.pk).update(updated_at=old)
        monkeypatch.setattr(analysis_runs.engine_analysis, "analyse", engine_analysis.analyse)
        taken.append(analysis_runs.analysis_run(analysis_id=row.pk))

    monkeypatch.setattr(analysis_runs.engine_analysis, "analyse", Counting(during=takeover))
    assert analysis_runs.analysis_run(analysis_id=row.pk) is False  # superseded at its next report
    assert taken == [True]
    row.refresh_from_db()
    assert row.status == AnalysisStatus.DONE and row.result is not None


@pytest.mark.django_db
def test_a_record_that_fails_verification_is_not_analysed(
    short_match: Any, client: Any, alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    discard = MatchEvent.objects.filter(match=short_match, type="action",
                                        payload__action__startswith="discard").order_by("seq").first()
    assert discard is not None
    edit_event(discard, {**discard.payload, "action": "knock"})
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        post(client, short_match.pk)
    answer = client.get(reverse("replays:analysis_json", args=[short_match.pk]))
    assert answer.status_code == 200 and answer.json()["status"] == "failed"
    assert f"failed verification at event {discard.seq}" in answer.json()["error"]
    row = MatchAnalysis.objects.get()
    assert row.result is None and row.status == AnalysisStatus.FAILED
    # asking again tries again (and fails the same way): a failure is never final
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        post(client, short_match.pk)
    assert len(callbacks) == 1 and MatchAnalysis.objects.get().status == AnalysisStatus.FAILED


@pytest.mark.django_db
def test_a_stale_queued_analysis_is_started_again(
    short_match: Any, alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    row = MatchAnalysis.objects.create(match=short_match, version=analyses.VERSION)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        _, started = analyses.analysis_request(match=short_match, user=alice)
    assert not started and callbacks == []  # queued a moment ago: its run is on its way
    MatchAnalysis.objects.filter(pk=row.pk).update(
        updated_at=timezone.now() - analysis_runs.STALE_AFTER - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        _, started = analyses.analysis_request(match=short_match, user=alice)
    assert started and len(callbacks) == 1
    assert MatchAnalysis.objects.get().status == AnalysisStatus.DONE


# --------------------------------------------------------------------------------------------- the socket


async def analysis_socket(match_id: int, user: Any = None, query: str = "") -> WebsocketCommunicator:
    from config.asgi import application

    headers = [(b"origin", ORIGIN), (b"host", b"testserver")]
    if user is not None:
        headers.append((b"cookie", (await database_sync_to_async(session_cookie)(user)).encode()))
    comm = WebsocketCommunicator(application, f"/ws/analysis/{match_id}/{query}", headers=headers)
    connected, _ = await comm.connect()
    assert connected
    return comm


@pytest.mark.django_db(transaction=True)
async def test_the_page_socket_gets_the_progress_then_the_analysis(
    house_bots: Any, seeded_decks: Any, alice: Any
) -> None:
    match = await database_sync_to_async(short_finished)(alice)
    comm = await analysis_socket(match.pk, alice)
    first = await recv(comm)
    assert first == {"type": "analysis", "status": "none", "done": 0, "total": 0, "error": "", "result": None}
    await comm.send_to(text_data=json.dumps({"type": "ping", "id": "p"}))
    assert await recv(comm) == {"type": "pong", "id": "p"}
    await comm.send_to(text_data=json.dumps({"type": "analyse"}))
    assert (await recv(comm))["code"] == "unknown_type"  # asking goes through the POST (CSRF)
    # the click: the socket opened, so the in-process driver runs it on this loop and pushes here
    await database_sync_to_async(analyses.analysis_request)(match=match, user=alice)
    seen: list[dict[str, Any]] = []
    while not seen or seen[-1]["status"] != "done":
        seen.append(await recv(comm, timeout=60))
    running = [m for m in seen if m["status"] == "running"]
    total = running[0]["total"]
    assert total > 0 and [m["done"] for m in running] == list(range(total + 1))[: len(running)]
    assert seen[-1]["done"] == seen[-1]["total"] == total
    row = await database_sync_to_async(MatchAnalysis.objects.get)()
    assert seen[-1]["result"] == row.result and len(row.result["decisions"]) == total
    await comm.send_to(text_data=json.dumps({"type": "sync"}))
    assert (await recv(comm))["result"] == row.result
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_socket_refuses_like_the_replay(house_bots: Any, seeded_decks: Any, alice: Any, bob: Any,
                                                  guest: Any) -> None:
    def matches() -> tuple[Match, Match, str]:
        from games import services

        live = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
        private = short_finished(guest)
        return live, private, ReplayAccess.objects.get_or_create(match=private)[0].token

    live, private, token = await database_sync_to_async(matches)()
    for match_id, user, query, code, close in (
        (999_999, alice, "", "no_such_match", 4404),
        (live.pk, alice, "", "not_finished", 4409),
        (private.pk, bob, "", "no_such_match", 4404),  # a stranger: as if there were no such match
        (private.pk, bob, "?token=wrong", "no_such_match", 4404),
    ):
        comm = await analysis_socket(match_id, user, query)
        answer = await recv(comm)
        assert answer["type"] == "error" and answer["code"] == code, (match_id, answer)
        assert await comm.receive_output() == {"type": "websocket.close", "code": close}
        await comm.disconnect()
    comm = await analysis_socket(private.pk, bob, f"?token={token}")
    assert (await recv(comm))["status"] == "none"
    await comm.disconnect()


# --------------------------------------------------------------------------------------------- languages


@pytest.mark.django_db
def test_the_analysis_panel_speaks_pt_br(short_match: Any, client: Any, alice: Any) -> None:
    client.force_login(alice)
    url = reverse("replays:replay", args=[short_match.pk])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    for text in ("Análise do computador", "Analisar", "Imprecisão", "Erro grave",
                 "Analisando: {done} de {total}", "melhor {move}", "Custo médio", "descartar {card}",
                 "Pontos soltos:"):
        assert text in html, text
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for text in ("Computer analysis", "Analyse", "Inaccuracy", "Blunder", "Analysing: {done} of {total}",
                 "Average cost", "to discard {card}"):
        assert text in english, text
    refused = client.post(reverse("replays:analyse", args=[999_999]), HTTP_ACCEPT="application/json",
                          HTTP_ACCEPT_LANGUAGE="pt-br")
    assert refused.json()["message"] == "Não há partida terminada com este número."


def test_a_bug_in_the_analysis_marks_the_row_failed(
    short_match: Any, client: Any, alice: Any, django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """analysis_runs' broad ``except``: a bug in the engine's analysis is never lost in a log line; the
    row says ``failed`` with the exception's class."""
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(analysis_runs.engine_analysis, "analyse", broken)
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        post(client, short_match.pk)
    answer = client.get(reverse("replays:analysis_json", args=[short_match.pk])).json()
    assert answer["status"] == "failed" and answer["error"] == "internal error (RuntimeError)"
    row = MatchAnalysis.objects.get()
    assert row.result is None and row.status == AnalysisStatus.FAILED
    assert row.error == "internal error (RuntimeError)"
