"""The calendar of ``/tournaments/`` (issue 26, docs/tournaments.md "Calendar and reminders"): the events
a viewer may see from the start of today (UTC) to :data:`DAYS` days ahead, filtered, in one query, and
one event's ``.ics`` file.

Filters (query string, each at most once; anything else is refused with a sentence, never a 500):

=========  =====================  ==============================================================
name       values                 keeps
=========  =====================  ==============================================================
``format`` ``swiss`` / ``arena``  that format
``rated``  ``rated`` / ``casual`` rated or casual events
``kind``   ``daily`` / ``people`` the site's scheduled events, or events members and clubs made
``club``   a club's address       that club's events
``mine``   ``1``                  events the viewer is registered for or organises (members only)
=========  =====================  ==============================================================
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext as _
from icalendar import Calendar, Event

from accounts.models import User
from clubs.models import Club
from tournaments import access, selectors
from tournaments.models import (
    Registration,
    Reminder,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)

DAYS = 7
"""How many days ahead the calendar shows (today included, UTC)."""

FILTERS = ("format", "rated", "kind", "club", "mine")
CHOICES: dict[str, tuple[str, ...]] = {
    "format": (TournamentFormat.SWISS, TournamentFormat.ARENA), "rated": ("rated", "casual"),
    "kind": ("daily", "people"), "mine": ("1",),
}


@dataclass
class Filters:
    """The filters read from a query string (None: not given) and the sentences of what was refused."""

    format: str | None = None
    rated: str | None = None
    kind: str | None = None
    club: Club | None = None
    mine: bool = False
    errors: list[str] = field(default_factory=list)

    def active(self) -> bool:
        return any((self.format, self.rated, self.kind, self.club, self.mine))


def read_filters(params: Mapping[str, Sequence[str]], *, user: User | None) -> Filters:
    """Read ``params`` (a ``QueryDict``'s lists: name -> values). A bad filter is left out and named in
    ``errors`` (an unknown name, a repeated one, an unknown value, a NUL or control character, an unknown
    club, ``mine`` without an account); the good ones still apply."""
    out = Filters()
    for name in sorted(params):
        values = list(params[name])
        if name not in FILTERS:
            out.errors.append(_("Unknown filter “%(name)s”: use format, rated, kind, club or mine.")
                              % {"name": name[:40].translate(_CONTROLS)})
            continue
        if len(values) != 1:
            out.errors.append(_("Give the filter “%(name)s” once.") % {"name": name})
            continue
        value = values[0]
        if value == "":
            continue  # an empty select of the filter form: no filter
        if any(ord(c) < 32 or ord(c) == 127 for c in value):
            out.errors.append(_("The filter “%(name)s” has a character that is not allowed.")
                              % {"name": name})
            continue
        if name == "club":
            club = Club.objects.filter(slug=value[:60]).first() if len(value) <= 60 else None
            if club is None:
                out.errors.append(_("There is no club at the address “%(value)s”.") % {"value": value[:60]})
            else:
                out.club = club
            continue
        if value not in CHOICES[name]:
            out.errors.append(_("“%(value)s” is not a value of the filter “%(name)s” (%(choices)s).") % {
                "value": value[:40], "name": name, "choices": ", ".join(CHOICES[name])})
            continue
        if name == "mine":
            if user is None:
                out.errors.append(_("Log in to see your own events."))
            else:
                out.mine = True
        else:
            setattr(out, name, value)
    return out


_CONTROLS = {i: None for i in [*range(32), 127]}


RECENT_DAYS = 7
"""The finished events listed are those that ended in the last 7 days ..."""
RECENT_FINISHED = 10
"""... at most 10 of them, latest first."""


@dataclass
class Calendar7:
    """``running``: events in play; ``finished``: the :data:`RECENT_FINISHED` latest that ended in the
    last :data:`RECENT_DAYS` days (latest first: last night's results stay one click away); ``days``:
    ``[(date, [event, ...]), ...]`` the upcoming (and cancelled) events by UTC day of their start,
    soonest first."""

    running: list[Tournament]
    finished: list[Tournament]
    days: list[tuple[dt.date, list[Tournament]]]


def events(*, now: dt.datetime, user: User | None, codes: Sequence[int] = (),
           filters: Filters | None = None) -> QuerySet[Tournament]:
    """The events of the calendar's window that ``user`` (None: a visitor) may see, with ``players``
    (registrations), ``registered`` and ``reminded`` (the viewer's, False for a visitor) annotated, club
    and organiser loaded: one query (the visibility test is a subquery, so it never multiplies the count).
    """
    filters = filters or Filters()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    viewer = user
    visible = Tournament.objects.filter(access.visible_q(viewer or AnonymousUser(), codes))
    qs = Tournament.objects.filter(pk__in=visible.values("pk"), is_simulation=False).filter(
        Q(status=TournamentStatus.RUNNING)
        | Q(status=TournamentStatus.FINISHED, finished_at__gte=now - dt.timedelta(days=RECENT_DAYS))
        | Q(status=TournamentStatus.FINISHED, finished_at__isnull=True,
            starts_at__gte=now - dt.timedelta(days=RECENT_DAYS))
        | Q(status__in=(TournamentStatus.SCHEDULED, TournamentStatus.OPEN, TournamentStatus.CANCELLED),
            starts_at__gte=today, starts_at__lt=today + dt.timedelta(days=DAYS)))
    if filters.format:
        qs = qs.filter(format=filters.format)
    if filters.rated:
        qs = qs.filter(rated=filters.rated == "rated")
    if filters.kind:
        qs = qs.filter(schedule__isnull=filters.kind == "people")
    if filters.club is not None:
        qs = qs.filter(club=filters.club)
    if viewer is not None:
        registered = Exists(Registration.objects.filter(tournament=OuterRef("pk"), user_id=viewer.pk))
        reminded = Exists(Reminder.objects.filter(tournament=OuterRef("pk"), user_id=viewer.pk))
        qs = qs.annotate(registered=registered, reminded=reminded)
        if filters.mine:
            qs = qs.filter(Q(registered=True) | Q(created_by_id=viewer.pk))
    return (qs.select_related("club", "created_by", "winner")
            .annotate(players=Count("registrations", distinct=True)).order_by("starts_at", "id"))


def calendar(*, now: dt.datetime, user: User | None, codes: Sequence[int] = (),
             filters: Filters | None = None) -> Calendar7:
    """:func:`events` split into running, finished today and the upcoming days (one query)."""
    rows = list(events(now=now, user=user, codes=codes, filters=filters))
    running = [t for t in rows if t.status == TournamentStatus.RUNNING]
    finished = sorted((t for t in rows if t.status == TournamentStatus.FINISHED),
                      key=lambda t: (t.finished_at or t.starts_at, t.pk), reverse=True)
    coming = [t for t in rows if t.status not in (TournamentStatus.RUNNING, TournamentStatus.FINISHED)]
    days = [(day, list(group)) for day, group in
            groupby(coming, key=lambda t: t.starts_at.astimezone(dt.UTC).date())]
    return Calendar7(running=running, finished=finished[:RECENT_FINISHED], days=days)


def ics_sequence(tournament: Tournament) -> int:
    """The event's iCalendar SEQUENCE: 0 as created, then the seconds from its creation to its last
    edit (``edited_at``: it only grows with each edit), plus one when it is cancelled."""
    sequence = 0
    if tournament.edited_at is not None:
        sequence = max(1, int((tournament.edited_at - tournament.created_at).total_seconds()))
    if tournament.status == TournamentStatus.CANCELLED:
        sequence += 1
    return sequence


def ics_of(tournament: Tournament, *, host: str, url: str, now: dt.datetime) -> bytes:
    """One VCALENDAR with one VEVENT for ``tournament``: UID ``tournament-<id>@<host>``, DTSTART/DTEND in
    UTC (Swiss: ``selectors.expected_window``'s end; Arena: ``ends_at``), SUMMARY (the name in the active
    language), DESCRIPTION (description and ``url``), URL, SEQUENCE (:func:`ics_sequence`), STATUS
    CANCELLED or CONFIRMED. ``now``: DTSTAMP."""
    start, end = selectors.expected_window(tournament)
    if tournament.format == TournamentFormat.ARENA and tournament.ends_at is not None:
        end = tournament.ends_at
    cal = Calendar()
    cal.add("prodid", "-//Gin Rummy//tournaments//EN")
    cal.add("version", "2.0")
    cal.add("method", "PUBLISH")
    event = Event()
    event.add("uid", f"tournament-{tournament.pk}@{host.split(':')[0]}")
    event.add("dtstamp", now.astimezone(dt.UTC))
    event.add("dtstart", start.astimezone(dt.UTC))
    event.add("dtend", end.astimezone(dt.UTC))
    event.add("summary", tournament.name)
    description = "\n\n".join(part for part in (tournament.description.strip(), url) if part)
    event.add("description", description)
    event.add("url", url)
    event.add("sequence", ics_sequence(tournament))
    event.add("status", "CANCELLED" if tournament.status == TournamentStatus.CANCELLED else "CONFIRMED")
    cal.add_component(event)
    return bytes(cal.to_ical())
