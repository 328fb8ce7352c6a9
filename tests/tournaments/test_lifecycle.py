"""The schedule (idempotent under duplicate and concurrent beats), registration and the lifecycle
steps fired twice and concurrently (tournaments/services.py)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from tests.factories import TournamentFactory
from tournaments import services
from tournaments.errors import TournamentError
from tournaments.models import Registration, Tournament, TournamentSchedule, TournamentStatus

pytestmark = pytest.mark.django_db(transaction=True)

NOW = dt.datetime(2026, 12, 1, 8, 20, 5, tzinfo=dt.UTC)  # a Tuesday


def race(n: int, call: Callable[[], Any]) -> list[Any]:
    """Run ``call`` in ``n`` threads released together; returns results (exceptions as values)."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except Exception as exc:
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def test_shipped_schedules() -> None:
    rows = {s.name_en: s for s in TournamentSchedule.objects.all()}
    assert set(rows) == {"Brazilian Evening Daily", "European Evening Daily", "Hourly Quick"}
    brazil, europe, hourly = (rows["Brazilian Evening Daily"], rows["European Evening Daily"],
                              rows["Hourly Quick"])
    assert (brazil.frequency, brazil.time_of_day) == ("daily", dt.time(23, 0))
    assert (europe.frequency, europe.time_of_day) == ("daily", dt.time(19, 0))
    assert (hourly.frequency, hourly.rounds, hourly.match_target) == ("hourly", 3, 50)
    assert all(s.turn_timer_seconds == 30 and s.min_players == 8 and s.days_of_week == "0123456"
               for s in rows.values())
    assert brazil.name_pt == "Diário da Noite (Brasil)"


def test_ensure_creates_the_next_7_days_once() -> None:
    assert services.tournaments_ensure(now=NOW) == 7 + 7 + 7 * 24
    assert services.tournaments_ensure(now=NOW) == 0
    hourly = Tournament.objects.filter(schedule__name_en="Hourly Quick").order_by("starts_at")
    assert hourly[0].starts_at == dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)
    assert hourly.last().starts_at == dt.datetime(2026, 12, 8, 8, 0, tzinfo=dt.UTC)
    brazil = Tournament.objects.filter(schedule__name_en="Brazilian Evening Daily").order_by("starts_at")
    assert [t.starts_at.day for t in brazil] == [1, 2, 3, 4, 5, 6, 7]
    assert all(t.starts_at.hour == 23 for t in brazil)
    assert (hourly[0].fixed_rounds, hourly[0].match_target, hourly[0].turn_timer_seconds) == (3, 50, 30)
    # A later beat only adds what entered the window.
    assert services.tournaments_ensure(now=NOW + dt.timedelta(hours=1)) == 1


def test_ensure_respects_days_of_the_week() -> None:
    TournamentSchedule.objects.exclude(name_en="European Evening Daily").update(enabled=False)
    TournamentSchedule.objects.filter(name_en="European Evening Daily").update(days_of_week="56")
    services.tournaments_ensure(now=NOW)
    assert [t.starts_at.weekday() for t in Tournament.objects.order_by("starts_at")] == [5, 6]


def test_concurrent_beats_create_nothing_extra() -> None:
    results = race(4, lambda: services.tournaments_ensure(now=NOW))
    assert all(isinstance(r, int) for r in results), results
    assert sum(results) == 7 + 7 + 7 * 24
    assert Tournament.objects.count() == 7 + 7 + 7 * 24


def upcoming(**fields: Any) -> Tournament:
    return TournamentFactory(**{"starts_at": NOW + dt.timedelta(hours=1), "min_players": 8, "max_players": 3,
                                **fields})


def test_open_scheduled_opens_all_at_once_with_one_batch_of_notices(monkeypatch: pytest.MonkeyPatch) -> None:
    """The beat sweep's open step: every scheduled tournament in one update and one batch of pushes
    (a fresh site has 182 of them), nothing else touched; concurrent and repeated sweeps open each once."""
    batches: list[list[tuple[str, dict[str, Any]]]] = []
    monkeypatch.setattr("tournaments.live.send_on_commit", lambda messages: batches.append(list(messages)))
    first, second = upcoming(status=TournamentStatus.SCHEDULED), upcoming(status=TournamentStatus.SCHEDULED)
    already = upcoming(status=TournamentStatus.OPEN)
    cancelled = upcoming(status=TournamentStatus.CANCELLED)
    assert services.tournaments_open_scheduled() == [first.pk, second.pk]
    assert batches == [[(f"tournament_{first.pk}", {"type": "tournament.changed", "tournament": first.pk}),
                        (f"tournament_{second.pk}", {"type": "tournament.changed", "tournament": second.pk})]]
    statuses = dict(Tournament.objects.values_list("pk", "status"))
    assert statuses == {first.pk: "open", second.pk: "open", already.pk: "open", cancelled.pk: "cancelled"}
    assert services.tournaments_open_scheduled() == []
    assert len(batches) == 1  # nothing opened, nothing told

    third, fourth = upcoming(status=TournamentStatus.SCHEDULED), upcoming(status=TournamentStatus.SCHEDULED)
    results = race(3, services.tournaments_open_scheduled)
    assert sorted(pk for opened in results for pk in opened) == [third.pk, fourth.pk], results
    # and the open step is no per-tournament task of the sweep any more
    assert [name for name, _ in services.tournaments_due(now=NOW)] == []


def test_open_fired_twice_and_concurrently() -> None:
    tournament = upcoming(status=TournamentStatus.SCHEDULED)
    assert race(3, lambda: services.tournament_open(tournament_id=tournament.pk)).count(True) == 1
    assert services.tournament_open(tournament_id=tournament.pk) is False
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.OPEN


def future(**fields: Any) -> Tournament:
    return upcoming(starts_at=dt.datetime.now(dt.UTC) + dt.timedelta(hours=1), **fields)


def test_join_and_leave_rules(members: list[User], guest: User) -> None:
    tournament = future()
    first = services.tournament_join(tournament_id=tournament.pk, user=members[0])
    assert services.tournament_join(tournament_id=tournament.pk, user=members[0]) == first  # double click
    services.tournament_join(tournament_id=tournament.pk, user=members[1])
    services.tournament_join(tournament_id=tournament.pk, user=members[2])
    with pytest.raises(TournamentError) as full:
        services.tournament_join(tournament_id=tournament.pk, user=members[3])
    assert (full.value.code, full.value.message) == ("full", "this tournament is full (3 players)")
    with pytest.raises(TournamentError) as as_guest:
        services.tournament_join(tournament_id=tournament.pk, user=guest)
    assert as_guest.value.code == "guest"
    assert services.tournament_leave(tournament_id=tournament.pk, user=members[2]) is True
    assert services.tournament_leave(tournament_id=tournament.pk, user=members[2]) is False
    assert Registration.objects.filter(tournament=tournament).count() == 2
    with pytest.raises(TournamentError) as missing:
        services.tournament_join(tournament_id=10**9, user=members[0])
    assert missing.value.code == "no_such_tournament"


def test_join_started_or_cancelled_and_leave_after_start(members: list[User]) -> None:
    running = future(status=TournamentStatus.RUNNING, max_players=64)
    Registration.objects.create(tournament=running, user=members[0])
    with pytest.raises(TournamentError) as started:
        services.tournament_join(tournament_id=running.pk, user=members[1])
    assert started.value.code == "started"
    with pytest.raises(TournamentError) as leave:
        services.tournament_leave(tournament_id=running.pk, user=members[0])
    assert leave.value.code == "started"
    cancelled = future(status=TournamentStatus.CANCELLED)
    with pytest.raises(TournamentError) as gone:
        services.tournament_join(tournament_id=cancelled.pk, user=members[1])
    assert gone.value.code == "cancelled"
    assert Registration.objects.filter(user=members[1]).count() == 0


def test_concurrent_joins_never_overfill(members: list[User]) -> None:
    tournament = future(max_players=2)
    results = race(5, lambda: None)  # warm the thread machinery
    users = iter(members[:5])
    lock = threading.Lock()

    def join() -> Any:
        with lock:
            user = next(users)
        return services.tournament_join(tournament_id=tournament.pk, user=user)

    results = race(5, join)
    assert sum(isinstance(r, Registration) for r in results) == 2
    assert sorted(r.code for r in results if isinstance(r, TournamentError)) == ["full"] * 3
    assert Registration.objects.filter(tournament=tournament).count() == 2


def test_start_without_people_cancels_once() -> None:
    tournament = upcoming(starts_at=NOW)
    assert services.tournament_start(tournament_id=tournament.pk, now=NOW - dt.timedelta(seconds=1)) is False
    assert race(3, lambda: services.tournament_start(tournament_id=tournament.pk, now=NOW)).count(True) == 1
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.CANCELLED


def test_bot_levels_around_the_field() -> None:
    # Calibrated Elo (data/bot_elo.json): 1 924.2, 2 1322.6, 3 1500, 4 1539.2, 5 1671.1.
    assert services.bot_levels_for([1500.0], 3) == [3, 3, 3]
    assert services.bot_levels_for([1700.0, 1000.0, 1340.0], 4) == [5, 2, 1, 5]
    assert services.bot_levels_for([], 2) == [3, 3]


def test_start_fills_the_field_with_house_bots(members: list[User], monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[str, tuple[int, ...]]] = []
    monkeypatch.setattr(services, "step_enqueue", lambda name, *args: sent.append((name, args)))
    tournament = upcoming(starts_at=NOW, max_players=64)
    Registration.objects.create(tournament=tournament, user=members[0])
    results = race(3, lambda: services.tournament_start(tournament_id=tournament.pk, now=NOW))
    assert results.count(True) == 1 and results.count(False) == 2
    tournament.refresh_from_db()
    assert (tournament.status, tournament.rounds) == (TournamentStatus.RUNNING, 4)
    assert tournament.current_round == 0
    field = list(Registration.objects.filter(tournament=tournament).select_related("user"))
    bots = [r.user for r in field if r.user.is_bot]
    assert len(field) == 8 and len(bots) == 7
    # A person at 1500 meets level-3 bots (Elo 1500): seven distinct accounts of that level.
    assert {b.bot_level for b in bots} == {3}
    assert sorted(b.username for b in bots) == ["bot-3", *(f"bot-3-{n}" for n in range(2, 8))]
    assert len({b.public_name for b in bots}) == 7
    assert all(r.rating == 1500.0 for r in field)
    assert sent == [("tournaments.tasks.pair_round", (tournament.pk, 1))]


def test_a_step_the_broker_refuses_is_logged_and_the_sweep_sends_it_again(
    members: list[User], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``tournaments.steps.step_enqueue``'s broad except: a broker that refuses the message loses
    nothing: the start commits, the failure is logged, and the beat's sweep lists the step again."""
    from celery import current_app

    from tournaments import steps

    sent: list[tuple[str, tuple[int, ...]]] = []

    def refuse(name: str, args: tuple[int, ...]) -> None:
        sent.append((name, args))
        raise ConnectionError("broker down")

    assert not current_app.conf.task_always_eager  # the steps go through the broker, as in production
    monkeypatch.setattr(current_app, "send_task", refuse)
    tournament = upcoming(starts_at=NOW)
    Registration.objects.create(tournament=tournament, user=members[0])
    with caplog.at_level("ERROR", logger="tournaments.services"):
        assert services.tournament_start(tournament_id=tournament.pk, now=NOW) is True
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING and tournament.current_round == 0
    assert sent == [("tournaments.tasks.pair_round", (tournament.pk, 1))]
    assert [r.getMessage() for r in caplog.records] == [
        f"could not run tournaments.tasks.pair_round({tournament.pk}, 1); the sweep will retry"]
    # the 5 s beat's sweep finds the step the broker lost
    assert ("tournaments.tasks.pair_round", tournament.pk) in services.tournaments_due(now=NOW)
    assert steps.step_enqueue is services.step_enqueue
