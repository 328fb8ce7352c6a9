"""Who may start a computer analysis and how many (issue 20: eight anonymous requests kept every worker
busy for minutes): members only, per account and per IP rates (429 + Retry-After), one in flight per
account (409), a site-wide cap (503 + Retry-After); asking again for an analysed, queued or running match
starts nothing and spends nothing. ``analysis_driver.start`` is recorded instead of run: each call would be
one task."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from replays.models import AnalysisStatus, MatchAnalysis

pytestmark = pytest.mark.django_db(transaction=True)  # the runs start after the commit


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The analysis ids whose run was started (a task each in production)."""
    from replays import analysis_driver

    calls: list[int] = []
    monkeypatch.setattr(analysis_driver, "start", calls.append)
    return calls


@pytest.fixture
def roomy(settings: Any) -> None:
    settings.REPLAYS_ANALYSIS_USER_RATE = "100/h"
    settings.REPLAYS_ANALYSIS_IP_RATE = "100/h"
    settings.REPLAYS_ANALYSIS_MAX_ACTIVE = 100


def ask(client: Client, match: Any, *, json: bool = True, ip: str = "10.0.0.1") -> Any:
    headers = {"HTTP_ACCEPT": "application/json"} if json else {}
    return client.post(reverse("replays:analyse", args=[match.pk]), REMOTE_ADDR=ip, **headers)


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def finish(row_match: Any) -> None:
    MatchAnalysis.objects.filter(match=row_match).update(status=AnalysisStatus.DONE, result={"decisions": []},
                                                         finished_at=timezone.now())


def test_anonymous_and_guests_are_refused_and_nothing_is_queued(
    finished_match: Any, guest: Any, started: list[int], roomy: None
) -> None:
    match = finished_match()
    anonymous = ask(Client(), match)
    assert anonymous.status_code == 403 and anonymous.json()["error"] == "login_required"
    page = ask(Client(), match, json=False)
    assert page.status_code == 302
    assert page["Location"] == f"{reverse('accounts:login')}?next=/replay/{match.pk}/"
    as_guest = ask(logged_in(guest), match)
    assert as_guest.status_code == 403 and as_guest.json() == {
        "error": "members_only", "retry_after": None,
        "message": "Computer analyses are for members: sign up (free) to ask for one."}
    guest_page = ask(logged_in(guest), match, json=False)
    assert guest_page.status_code == 403 and b"Computer analyses are for members" in guest_page.content
    assert not MatchAnalysis.objects.exists() and started == []


def test_asking_again_starts_nothing_and_spends_no_count(
    finished_match: Any, alice: Any, started: list[int], settings: Any, roomy: None
) -> None:
    settings.REPLAYS_ANALYSIS_USER_RATE = "2/h"
    first, second, third = finished_match(), finished_match(), finished_match()
    client = logged_in(alice)
    answers = [ask(client, first) for _ in range(4)]  # one queued, then the same row three times
    assert [a.status_code for a in answers] == [202] * 4
    assert {a.json()["status"] for a in answers} == {"queued"}
    row = MatchAnalysis.objects.get(match=first)
    assert started == [row.pk]
    finish(first)
    again = ask(client, first)
    assert (again.status_code, again.json()["status"], started) == (200, "done", [row.pk])
    assert ask(client, second).status_code == 202  # the second (and last) count of the window
    finish(second)
    refused = ask(client, third)
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert refused.json()["retry_after"] == int(refused["Retry-After"])
    assert refused.json()["message"].startswith("You asked for too many analyses. Try again in ")
    page = ask(client, third, json=False)  # the site's 429 page
    assert page.status_code == 429 and "Retry-After" in page
    assert b"You asked for too many analyses." in page.content
    assert not MatchAnalysis.objects.filter(match=third).exists() and len(started) == 2
    assert ask(client, first).status_code == 200  # reading one that exists is never limited


def test_per_ip_rate_counts_every_account_of_one_address(
    finished_match: Any, alice: Any, bob: Any, started: list[int], settings: Any, roomy: None
) -> None:
    settings.REPLAYS_ANALYSIS_IP_RATE = "1/h"
    one, two = finished_match(), finished_match(user=bob)
    assert ask(logged_in(alice), one, ip="10.1.1.1").status_code == 202
    refused = ask(logged_in(bob), two, ip="10.1.1.1")
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
    assert refused.json()["message"].startswith("Too many analyses were asked for from your network.")
    assert ask(logged_in(bob), two, ip="10.2.2.2").status_code == 202  # another address counts apart
    assert len(started) == 2


def test_one_analysis_in_flight_per_account(
    finished_match: Any, alice: Any, started: list[int], roomy: None
) -> None:
    first, second = finished_match(), finished_match()
    client = logged_in(alice)
    assert ask(client, first).status_code == 202
    refused = ask(client, second)
    assert refused.status_code == 409 and refused.json()["error"] == "analysis_in_flight"
    assert ask(client, first).status_code == 202  # the same match: its row, not a refusal
    assert not MatchAnalysis.objects.filter(match=second).exists() and len(started) == 1
    # a lost run (no progress for STALE_AFTER) no longer holds the account
    MatchAnalysis.objects.filter(match=first).update(updated_at=timezone.now() - timedelta(minutes=5))
    assert ask(client, second).status_code == 202 and len(started) == 2


def test_site_wide_cap_answers_busy_with_retry_after(
    finished_match: Any, alice: Any, bob: Any, started: list[int], settings: Any, roomy: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings.REPLAYS_ANALYSIS_MAX_ACTIVE = 1
    settings.REPLAYS_ANALYSIS_BUSY_RETRY_AFTER = 90
    one, two = finished_match(), finished_match(user=bob)
    assert ask(logged_in(alice), one).status_code == 202
    with caplog.at_level(logging.INFO):
        busy = ask(logged_in(bob), two)
        assert busy.status_code == 503 and busy["Retry-After"] == "90"
        assert busy.json() == {"error": "analysis_busy", "retry_after": 90,
                               "message": "The analysis service is busy. Try again in 2 minutes."}
        page = ask(logged_in(bob), two, json=False)
        assert page.status_code == 503 and page["Retry-After"] == "90"
    # a refusal by the cap is the cap working, not a fault: no ERROR line (django.request logged
    # "Service Unavailable" at ERROR for each one), one INFO line each
    assert [r.levelname for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert [r.getMessage() for r in caplog.records if r.name == "replays.views"] == [
        f"analysis of match {two.pk} refused: analysis_busy"] * 2
    finish(one)
    assert ask(logged_in(bob), two).status_code == 202 and len(started) == 2


def test_refusals_are_translated(finished_match: Any, alice: Any, started: list[int], settings: Any,
                                 roomy: None) -> None:
    settings.REPLAYS_ANALYSIS_MAX_ACTIVE = 0
    match = finished_match()
    anonymous = Client().post(reverse("replays:analyse", args=[match.pk]), HTTP_ACCEPT="application/json",
                              HTTP_ACCEPT_LANGUAGE="pt-br")
    assert anonymous.json()["message"] == "Entre na sua conta para pedir uma análise do computador."
    busy = logged_in(alice).post(reverse("replays:analyse", args=[match.pk]), HTTP_ACCEPT="application/json",
                                 HTTP_ACCEPT_LANGUAGE="pt-br")
    assert busy.json()["message"] == "O serviço de análise está ocupado. Tente de novo em 1 minuto."


def test_an_unreachable_cache_lets_analyses_through_and_a_bug_does_not(
    finished_match: Any, alice: Any, bob: Any, started: list[int], settings: Any, roomy: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rates fail open only when the cache is down (documented in the README); any other error of the
    limiter (here a malformed rate) is raised, never turned into "no limit" behind a warning."""
    import redis.exceptions

    from replays import analysis_limits

    def down(*args: Any, **kwargs: Any) -> Any:
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379")

    with monkeypatch.context() as patch:
        patch.setattr(analysis_limits, "get_usage", down)
        assert ask(logged_in(alice), finished_match()).status_code == 202
    settings.REPLAYS_ANALYSIS_USER_RATE = "ten an hour"
    # django-ratelimit 4 fails on the rate's parse (AttributeError); whatever it raises reaches the caller
    with pytest.raises(Exception):  # noqa: B017
        ask(logged_in(bob), finished_match(user=bob))
    assert len(started) == 1
