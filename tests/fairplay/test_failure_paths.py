"""The fair-play code's guarded calls (each ``except Exception``) on their failing path: a broker or cache
that fails is logged and answered as documented, and what was committed stands."""

from __future__ import annotations

from typing import Any

import pytest

from fairplay import receivers, services, sightings
from fairplay.models import Report, ReportPlace, ReportReason
from games.models import Match, MatchStatus
from tests.factories import UserFactory


@pytest.mark.django_db(transaction=True)
def test_the_sampling_hook_logs_a_refused_message_and_does_not_raise(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """``games.signals.match_finished`` is sent after the match's commit: a broker that refuses the
    analysis must not break the finish. A reported player's match is always due, so the send is tried."""
    ana, bob, carol = UserFactory(), UserFactory(), UserFactory()
    match = Match.objects.create(rules={}, player0=ana, player1=bob, status=MatchStatus.FINISHED, winner=0,
                                 rated=True)
    Report.objects.create(reporter=carol, reported=ana, reason=ReportReason.ASSISTANCE,
                          place=ReportPlace.PROFILE)
    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(receivers.assistance_match, "delay", lambda *args: sent.append(args))
    receivers.sample_finished(None, match_id=match.pk, rated=True)
    assert sent == [(match.pk, "reported")]  # the working path, for contrast

    def refused(*args: Any) -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(receivers.assistance_match, "delay", refused)
    receivers.sample_finished(None, match_id=match.pk, rated=True)  # does not raise
    assert f"match {match.pk}: could not enqueue its fair-play analysis" in caplog.text


@pytest.mark.django_db
def test_a_refund_the_broker_refuses_is_logged_and_sent_again_by_hand(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    sent: list[int] = []

    def refused(closed_id: int) -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(services.ratings_tasks.refund_closure, "delay", refused)
    services._enqueue_refund(41)  # does not raise: the closure is committed before this runs
    assert "could not enqueue ratings.tasks.refund_closure for closed account 41" in caplog.text
    monkeypatch.setattr(services.ratings_tasks.refund_closure, "delay", sent.append)
    services.refunds_retry(closed_id=41)
    assert sent == [41]


def test_a_failing_cache_lets_the_sighting_be_written(monkeypatch: pytest.MonkeyPatch,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    """The once-an-hour guard is a cache ``add``: when the cache fails the write goes through (a
    sighting too many is harmless; one missed could hide a shared network)."""
    class Broken:
        def add(self, *args: Any, **kwargs: Any) -> bool:
            raise ConnectionError("cache down")

    monkeypatch.setattr(sightings, "cache", Broken())
    assert sightings._due(7, "ip", "ab" * 32) is True
    assert "sighting guard skipped: cache error ConnectionError" in caplog.text
