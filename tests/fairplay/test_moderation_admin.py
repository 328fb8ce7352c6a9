"""The moderation queue in the admin (``fairplay.admin``): moderators (the group) and superusers see
it, other staff are refused; the queue is ordered by strength; a case shows the evidence (never a
hash); its form acts through ``fairplay.services`` and refuses an action without a reason."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Standing, User
from fairplay.models import ModerationAction, PairSignal, PlayerSignal, Report, SeatSignal, Sighting
from games.models import Match

pytestmark = pytest.mark.django_db

PAGES = ["/admin/fairplay/playersignal/", "/admin/fairplay/report/", "/admin/fairplay/pairsignal/",
         "/admin/fairplay/moderationaction/"]


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def planted(member: Callable[..., Any]) -> dict[str, Any]:
    """farmer and puppet (same network, 6 matches), an honest player, one open report, a seat signal."""
    farmer, puppet, honest, reporter = (member(n) for n in ("farmer", "puppet", "honest", "reporter"))
    PlayerSignal.objects.create(user=honest, strength=0.1, reasons=[])
    PlayerSignal.objects.create(user=farmer, strength=0.93, reasons=[
        {"signal": "pair_transfer", "value": 91.45, "strength": 0.9, "note": "from puppet"}])
    PlayerSignal.objects.create(user=puppet, strength=0.5, reasons=[
        {"signal": "early_resigns", "value": 6, "strength": 0.5, "note": ""}])
    match = Match.objects.create(rules={}, player0=farmer, player1=puppet, status="finished", winner=0,
                                 rated=True)
    low, high = sorted((farmer, puppet), key=lambda u: u.pk)
    # transferred: what the higher id gained from the lower (the farmer gained 91.45)
    pair = PairSignal.objects.create(low=low, high=high, matches=6,
                                     transferred=91.45 if high == farmer else -91.45, strength=0.95,
                                     same_network=True)
    report = Report.objects.create(reporter=reporter, reported=farmer, reason="collusion", place="replay",
                                   match=match, comment="always the same opponent")
    SeatSignal.objects.create(match=match, seat=0, player=farmer, decisions=10, agreed=9, loss=1.5,
                              flagged=[[1, 4], [2, 9], [2, 15], [3, 2]])
    digest = "ab" * 32
    for user in (farmer, puppet):
        Sighting.objects.create(user=user, kind="ip", digest=digest, last_seen=timezone.now())
    return {"farmer": farmer, "puppet": puppet, "honest": honest, "pair": pair, "report": report,
            "match": match, "digest": digest}


def test_pages_for_a_moderator_and_a_superuser(planted: dict[str, Any], moderator: Any) -> None:
    boss = User.objects.create_superuser(username="boss", password="pw-123456!x")
    for user in (moderator, boss):
        client = _client(user)
        for url in PAGES:
            assert client.get(url).status_code == 200, (user.username, url)
        assert client.get(f"/admin/fairplay/playersignal/case/{planted['farmer'].pk}/").status_code == 200
        assert client.get(f"/admin/fairplay/pairsignal/{planted['pair'].pk}/change/").status_code == 200


def test_refused_to_other_staff(planted: dict[str, Any], staff: Any) -> None:
    client = _client(staff)
    for url in [*PAGES, f"/admin/fairplay/playersignal/case/{planted['farmer'].pk}/"]:
        assert client.get(url).status_code == 403, url
    response = client.post(f"/admin/fairplay/playersignal/case/{planted['farmer'].pk}/",
                           {"kind": "close", "reason": "x"})
    assert response.status_code == 403 and not ModerationAction.objects.exists()
    assert "fairplay" not in client.get("/admin/").content.decode().lower()


def test_queue_by_strength_with_reasons_and_reports(planted: dict[str, Any], moderator: Any) -> None:
    page = _client(moderator).get("/admin/fairplay/playersignal/").content.decode()
    positions = [page.index(f">{name}</a>") for name in ("farmer", "puppet", "honest")]
    assert positions == sorted(positions)
    assert "pair_transfer = 91.5" in page
    filtered = _client(moderator).get("/admin/fairplay/playersignal/?reported=yes").content.decode()
    assert ">farmer</a>" in filtered and ">puppet</a>" not in filtered
    by_signal = _client(moderator).get("/admin/fairplay/playersignal/?signal=early_resigns").content.decode()
    assert ">puppet</a>" in by_signal and ">farmer</a>" not in by_signal


def test_case_shows_the_evidence_never_the_hash(planted: dict[str, Any], moderator: Any) -> None:
    farmer, match = planted["farmer"], planted["match"]
    page = _client(moderator).get(f"/admin/fairplay/playersignal/case/{farmer.pk}/").content.decode()
    assert f'href="/replay/{match.pk}/"' in page  # the report's match and the analysed seat
    assert "always the same opponent" in page
    assert "same network as puppet" in page
    # the first three decisions played as level 5, each opening the replay where the player faced it
    assert (f'<a href="/replay/{match.pk}/?hand=1&amp;step=3">hand 1, move 4</a> · '
            f'<a href="/replay/{match.pk}/?hand=2&amp;step=8">hand 2, move 9</a> · '
            f'<a href="/replay/{match.pk}/?hand=2&amp;step=14">hand 2, move 15</a></td>') in page
    assert planted["digest"] not in page and planted["digest"][:8] not in page
    assert f'/admin/fairplay/pairsignal/{planted["pair"].pk}/change/' in page
    assert "<td>+91.5</td>" in page  # read from the case's side: the farmer gained (whatever the ids)
    puppet_case = _client(moderator).get(f"/admin/fairplay/playersignal/case/{planted['puppet'].pk}/")
    assert "<td>-91.5</td>" in puppet_case.content.decode()
    pairs = _client(moderator).get("/admin/fairplay/pairsignal/").content.decode()
    assert "farmer +91.5 from puppet" in pairs
    pair_page = _client(moderator).get(f"/admin/fairplay/pairsignal/{planted['pair'].pk}/change/")
    assert "farmer +91.5 from puppet" in pair_page.content.decode()
    assert 'data-testid="pair-matches"' in pair_page.content.decode()
    # A match the farming limits unrated says why in the pair's list (it was "casual": trial).
    Match.objects.filter(pk=match.pk).update(rated=False, unrated_why="early_resign")
    pair_page = _client(moderator).get(f"/admin/fairplay/pairsignal/{planted['pair'].pk}/change/")
    assert "<td>not rated: resigned before enough moves to be rated</td>" in pair_page.content.decode()
    assert f'/replay/{match.pk}/' in pair_page.content.decode()


def test_case_form_acts_and_requires_a_reason(planted: dict[str, Any], moderator: Any) -> None:
    farmer = planted["farmer"]
    client = _client(moderator)
    url = f"/admin/fairplay/playersignal/case/{farmer.pk}/"
    refused = client.post(url, {"kind": "mark", "reason": ""})
    assert refused.status_code == 200 and "This field is required." in refused.content.decode()
    assert not ModerationAction.objects.exists()
    done = client.post(url, {"kind": "mark", "reason": "pair signal 0.95, same network"})
    assert done.status_code == 302 and done["Location"] == url
    farmer.refresh_from_db()
    assert farmer.standing == Standing.MARKED
    action = ModerationAction.objects.get()
    assert (action.kind, action.moderator_id, action.reason) == ("mark", moderator.pk,
                                                                 "pair signal 0.95, same network")
    assert action.details == {"unregistered": [], "reports": [planted["report"].pk]}
    again = client.post(url, {"kind": "mark", "reason": "twice"})
    assert again.content.decode().count("this account is marked already") == 1  # once (trial: twice)
    assert ModerationAction.objects.count() == 1
    rename = client.post(url, {"kind": "rename", "reason": "name", "new_username": "calm-player"})
    assert rename.status_code == 302
    farmer.refresh_from_db()
    assert farmer.username == "calm-player"


def test_the_reports_list_is_open_first_then_oldest_first(member: Callable[..., Any], moderator: Any) -> None:
    """First come, first handled: open reports before handled ones, the oldest open one on top."""
    reporter, a, b, c = (member(n) for n in ("reporter", "aaa", "bbb", "ccc"))
    now = timezone.now()
    reports = {}
    for name, target, minutes, status in (("old", a, 30, "open"), ("new", b, 1, "open"),
                                          ("done", c, 60, "dismissed"), ("mid", c, 10, "open")):
        report = Report.objects.create(reporter=reporter, reported=target, reason="other", place="profile",
                                       status=status)
        Report.objects.filter(pk=report.pk).update(created_at=now - dt.timedelta(minutes=minutes))
        reports[name] = report
    page = _client(moderator).get("/admin/fairplay/report/").content.decode()
    # open oldest first: aaa (30 min ago), ccc (10), bbb (1); then ccc's dismissed one (60)
    order = [page.index(f">{name}<") for name in ("aaa", "ccc", "bbb")]
    assert order == sorted(order)
    assert page.rindex(">ccc<") > page.index(">bbb<")


def test_the_queue_says_when_it_was_computed_and_recomputes_on_demand(
        planted: dict[str, Any], moderator: Any, staff: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from fairplay import tasks

    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.signals_refresh, "delay", lambda *args: sent.append(args))
    client = _client(moderator)
    page = client.get("/admin/fairplay/playersignal/").content.decode()
    assert 'data-testid="queue-refresh"' in page and "Signals computed at " in page
    assert "they are recomputed every 10 minutes" in page
    assert client.get("/admin/fairplay/playersignal/refresh/").status_code == 405  # POST only
    response = client.post("/admin/fairplay/playersignal/refresh/")
    assert response.status_code == 302 and sent == [()]
    assert "being recomputed" in client.get(response["Location"]).content.decode()
    assert _client(staff).post("/admin/fairplay/playersignal/refresh/").status_code == 403
    assert sent == [()]

    def refused() -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(tasks.signals_refresh, "delay", refused)
    response = client.post("/admin/fairplay/playersignal/refresh/", follow=True)
    assert "The refresh could not be queued (ConnectionError): try again." in response.content.decode()
    PlayerSignal.objects.all().delete()
    empty = client.get("/admin/fairplay/playersignal/").content.decode()
    assert "The signals have not been computed yet" in empty
