"""``migrate`` creates the schedules' upcoming tournaments at once (``post_migrate`` ->
``tournaments.receivers.schedule_after_migrate`` -> ``services.tournaments_ensure``, the beat task's
service), idempotently. The suite's own test database is made with this off (tests/conftest.py);
here it is on."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from tournaments import receivers
from tournaments.models import Tournament, TournamentSchedule

pytestmark = pytest.mark.django_db

WEEK = 7 + 7 + 7 * 24  # two daily schedules and the hourly one, 7 days ahead


def frozen_now(monkeypatch: pytest.MonkeyPatch, now: dt.datetime) -> None:
    from django.utils import timezone

    monkeypatch.setattr(timezone, "now", lambda: now)


def test_the_suite_database_starts_without_tournaments() -> None:
    assert Tournament.objects.count() == 0


def test_migrate_creates_the_next_week_once(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.TOURNAMENTS_SCHEDULE_ON_MIGRATE = True
    frozen_now(monkeypatch, dt.datetime(2026, 12, 1, 8, 30, tzinfo=dt.UTC))
    call_command("migrate", verbosity=0, interactive=False)
    assert Tournament.objects.count() == WEEK
    hourly = Tournament.objects.filter(schedule__name_en="Hourly Quick").order_by("starts_at")
    assert hourly[0].starts_at == dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)  # the next hour's
    call_command("migrate", verbosity=0, interactive=False)  # again: nothing more
    assert Tournament.objects.count() == WEEK


def test_a_fresh_site_lists_the_next_hourly_event(settings: Any) -> None:
    """The issue: right after migrate the home and /tournaments/ show the next event, not "No
    tournament is scheduled yet"."""
    settings.TOURNAMENTS_SCHEDULE_ON_MIGRATE = True
    call_command("migrate", verbosity=0, interactive=False)
    nxt = Tournament.objects.order_by("starts_at").first()
    assert nxt is not None and nxt.starts_at <= dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
    for url in ("/", "/tournaments/"):
        html = Client().get(url).content.decode()
        assert "No tournament is scheduled yet" not in html and f'/tournaments/{nxt.pk}/"' in html


def test_receiver_off_by_setting_other_database_or_disabled_schedules(settings: Any) -> None:
    settings.TOURNAMENTS_SCHEDULE_ON_MIGRATE = False
    call_command("migrate", verbosity=0, interactive=False)
    assert Tournament.objects.count() == 0
    settings.TOURNAMENTS_SCHEDULE_ON_MIGRATE = True
    receivers.schedule_after_migrate(None, using="replica")
    assert Tournament.objects.count() == 0
    TournamentSchedule.objects.update(enabled=False)
    receivers.schedule_after_migrate(None, using="default")
    assert Tournament.objects.count() == 0


def test_receiver_waits_for_this_apps_migrations(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a tournaments migration is unapplied (``migrate tournaments 0003``) nothing is created."""
    from django.db.migrations.loader import MigrationLoader

    settings.TOURNAMENTS_SCHEDULE_ON_MIGRATE = True
    real = MigrationLoader.build_graph

    def without_last(self: MigrationLoader) -> None:
        real(self)
        self.applied_migrations.pop(("tournaments", "0004_tournament_is_simulation"), None)

    monkeypatch.setattr(MigrationLoader, "build_graph", without_last)
    receivers.schedule_after_migrate(None, using="default")
    assert Tournament.objects.count() == 0
