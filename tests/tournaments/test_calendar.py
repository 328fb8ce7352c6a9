"""The calendar of /tournaments/ (tournaments/calendar.py): the next 7 days by UTC day, running and finished
today, filters (and every bad one), private events only to those who may see them, one query; and one
event's .ics file parsed back with icalendar."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation
from icalendar import Calendar

from accounts.models import User
from clubs.models import Club, ClubMember, ClubRole
from tests.factories import TournamentFactory
from tournaments import calendar, selectors
from tournaments.models import Registration, Reminder, Tournament, TournamentSchedule, TournamentStatus
from tournaments.templatetags.calendar_tags import day_heading

pytestmark = pytest.mark.django_db


def at(hours: float, **fields: Any) -> Tournament:
    return TournamentFactory(**{"starts_at": timezone.now() + dt.timedelta(hours=hours), **fields})


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def shown(response: Any) -> list[str]:
    """The names of the events on the calendar page, in page order (running, then the days)."""
    cal = response.context["calendar"]
    return [t.name_en for t in cal.running] + [t.name_en for _, events in cal.days for t in events]


@pytest.fixture
def club(members: list[User]) -> Club:
    club = Club.objects.create(name="Chess Café", slug="chess-cafe", invite_code="x" * 22,
                               created_by=members[0])
    ClubMember.objects.create(club=club, user=members[0], role=ClubRole.OWNER)
    ClubMember.objects.create(club=club, user=members[1])
    return club


def test_next_seven_days_by_day_with_running_and_recently_finished(members: list[User]) -> None:
    Tournament.objects.all().delete()
    daily = TournamentSchedule.objects.first()
    now = timezone.now()
    a = at(2, name_en="Soon", schedule=daily)
    b = at(30, name_en="Tomorrow-ish", rated=False)
    at(24 * 8, name_en="Too far")
    at(-1, name_en="Running", status=TournamentStatus.RUNNING, current_round=2, rounds=3)
    at(-3, name_en="Done", status=TournamentStatus.FINISHED, finished_at=now)
    at(-30, name_en="Done yesterday", status=TournamentStatus.FINISHED,
       finished_at=now - dt.timedelta(days=1, hours=1))
    at(5, name_en="Called off", status=TournamentStatus.CANCELLED)
    at(3, name_en="Simulated", is_simulation=True)
    Registration.objects.create(tournament=a, user=members[1])
    Reminder.objects.create(tournament=b, user=members[0])
    page = logged_in(members[0]).get("/tournaments/")
    assert page.status_code == 200
    cal = page.context["calendar"]
    assert [t.name_en for t in cal.running] == ["Running"]
    assert [t.name_en for t in cal.finished] == ["Done", "Done yesterday"]  # latest first
    days = {day: [t.name_en for t in events] for day, events in cal.days}
    expect: dict[dt.date, list[str]] = {}
    for t in sorted([a, b, Tournament.objects.get(name_en="Called off")], key=lambda t: t.starts_at):
        expect.setdefault(t.starts_at.astimezone(dt.UTC).date(), []).append(t.name_en)
    assert days == expect
    soon = next(t for _, events in cal.days for t in events if t.pk == a.pk)
    assert (soon.players, soon.registered, soon.reminded) == (1, False, False)
    later = next(t for _, events in cal.days for t in events if t.pk == b.pk)
    assert (later.players, later.reminded) == (0, True)
    html = page.content.decode()
    assert f'action="/tournaments/{b.pk}/remind/"' in html and "Reminder set" in html
    assert f'href="/tournaments/{a.pk}/event.ics"' in html
    assert "the site (daily)" in html and "casual" in html


def test_filters_and_mine(members: list[User], club: Club) -> None:
    Tournament.objects.all().delete()
    daily = TournamentSchedule.objects.first()
    at(1, name_en="Daily", schedule=daily)
    at(2, name_en="Arena", format="arena", ends_at=timezone.now() + dt.timedelta(hours=3),
       created_by=members[2], rated=False)
    at(3, name_en="Club night", club=club, created_by=members[0])
    joined = at(4, name_en="Joined", created_by=members[3])
    Registration.objects.create(tournament=joined, user=members[1])
    client = logged_in(members[1])
    assert shown(client.get("/tournaments/?format=arena")) == ["Arena"]
    assert shown(client.get("/tournaments/?format=swiss&rated=rated")) == ["Daily", "Club night", "Joined"]
    assert shown(client.get("/tournaments/?rated=casual")) == ["Arena"]
    assert shown(client.get("/tournaments/?kind=daily")) == ["Daily"]
    assert shown(client.get("/tournaments/?kind=people")) == ["Arena", "Club night", "Joined"]
    assert shown(client.get("/tournaments/?club=chess-cafe")) == ["Club night"]
    assert shown(client.get("/tournaments/?mine=1")) == ["Joined"]
    assert shown(logged_in(members[0]).get("/tournaments/?mine=1")) == ["Club night"]  # organised
    assert shown(client.get("/tournaments/?format=&rated=")) == ["Daily", "Arena", "Club night", "Joined"]


@pytest.mark.parametrize(("query", "error"), [
    ("format=knockout", "“knockout” is not a value of the filter “format” (swiss, arena)."),
    ("format=swiss&format=arena", "Give the filter “format” once."),
    ("rated=%01", "The filter “rated” has a character that is not allowed."),
    ("club=nowhere", "There is no club at the address “nowhere”."),
    ("colour=red", "Unknown filter “colour”: use format, rated, kind, club or mine."),
    ("mine=yes", "“yes” is not a value of the filter “mine” (1)."),
])
def test_bad_filters_are_named_never_a_500(members: list[User], query: str, error: str) -> None:
    at(1, name_en="Cup")
    page = logged_in(members[0]).get("/tournaments/?" + query)
    assert page.status_code == 400
    assert page.context["filters"].errors == [error]
    assert error.replace("“", "&ldquo;") in page.content.decode() or error in page.content.decode()
    assert "Cup" in shown(page)  # the bad filter is left out, the page still lists the events


def test_a_nul_is_refused_before_the_view(members: list[User]) -> None:
    page = logged_in(members[0]).get("/tournaments/?rated=%00")
    assert page.status_code == 400 and "NUL" in page.context["reason"]  # the site's middleware


def test_mine_needs_an_account_and_pt_br_messages() -> None:
    page = Client().get("/tournaments/?mine=1")
    assert page.status_code == 400 and page.context["filters"].errors == ["Log in to see your own events."]
    pt = Client(HTTP_ACCEPT_LANGUAGE="pt-br").get("/tournaments/?format=x")
    assert pt.context["filters"].errors == ["“x” não é um valor do filtro “format” (swiss, arena)."]


def test_private_events_only_to_those_who_may_see_them(members: list[User], club: Club) -> None:
    Tournament.objects.all().delete()
    at(1, name_en="Open")
    at(2, name_en="Club only", access="club", club=club, created_by=members[0])
    code = at(3, name_en="Secret", access="code", entry_code="sesame", created_by=members[3])
    assert shown(Client().get("/tournaments/")) == ["Open"]
    assert shown(logged_in(members[1]).get("/tournaments/")) == ["Open", "Club only"]  # club member
    assert shown(logged_in(members[2]).get("/tournaments/")) == ["Open"]
    assert shown(logged_in(members[3]).get("/tournaments/")) == ["Open", "Secret"]  # its organiser
    unlocked = logged_in(members[2])
    session = unlocked.session
    session["tournament_codes"] = [code.pk]
    session.save()
    assert shown(unlocked.get("/tournaments/")) == ["Open", "Secret"]
    # the .ics of a private event: 404 to outsiders
    assert Client().get(f"/tournaments/{code.pk}/event.ics").status_code == 404
    assert logged_in(members[3]).get(f"/tournaments/{code.pk}/event.ics").status_code == 200


def test_a_club_organiser_sees_every_private_event_of_the_club(members: list[User], club: Club) -> None:
    """The club's owner (members[0]) and a club organiser (members[4]) organise the club's events, even
    those another organiser created: they see its members' event and its code event; a plain member
    (members[1]) sees the members' event only; an outsider (members[2]) neither."""
    Tournament.objects.all().delete()
    ClubMember.objects.create(club=club, user=members[4], role=ClubRole.ORGANISER)
    at(1, name_en="Open")
    at(2, name_en="Members", access="club", club=club, created_by=members[4])
    at(3, name_en="Club code", access="code", entry_code="sesame", club=club, created_by=members[4])
    at(4, name_en="Someone's code", access="code", entry_code="other", created_by=members[3])
    for user, expected in ((members[0], ["Open", "Members", "Club code"]),
                           (members[4], ["Open", "Members", "Club code"]),
                           (members[1], ["Open", "Members"]), (members[2], ["Open"])):
        assert shown(logged_in(user).get("/tournaments/")) == expected, user.username
    # the club filter keeps the same rule
    assert shown(logged_in(members[1]).get("/tournaments/?club=chess-cafe")) == ["Members"]
    assert shown(Client().get("/tournaments/?club=chess-cafe")) == []


def test_one_query_whatever_the_number_of_events(members: list[User], club: Club) -> None:
    for i in range(12):
        at(1 + i * 10, club=club if i % 2 else None, created_by=members[i % 3])
    with CaptureQueriesContext(connection) as queries:
        cal = calendar.calendar(now=timezone.now(), user=members[1], filters=calendar.Filters(format="swiss"))
        seen = [(t.club and t.club.name, t.created_by and t.created_by.public_name, t.players, t.reminded)
                for _, events in cal.days for t in events]
    assert len(queries) == 1
    assert len(seen) == 12 and {row[2:] for row in seen} == {(0, False)}


def test_ics_of_an_event(members: list[User], settings: Any) -> None:
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "gin.example.com"]
    swiss = at(2, name_en="Evening Swiss", name_pt="Suíço da Noite", description="Bring snacks.",
               match_target=100, max_rounds=4, turn_timer_seconds=30)
    response = Client().get(f"/tournaments/{swiss.pk}/event.ics", HTTP_HOST="gin.example.com")
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="tournament-{swiss.pk}.ics"'
    event = Calendar.from_ical(response.content).walk("VEVENT")[0]
    start, end = selectors.expected_window(swiss)
    assert str(event["UID"]) == f"tournament-{swiss.pk}@gin.example.com"
    assert event.decoded("DTSTART") == swiss.starts_at.replace(microsecond=0)
    assert event.decoded("DTSTART").utcoffset() == dt.timedelta(0)
    assert event.decoded("DTEND") == end.replace(microsecond=0)
    assert end - start == dt.timedelta(minutes=4 * 2 * selectors.ROUND_MINUTES_PER_50_POINTS)
    assert str(event["SUMMARY"]) == "Evening Swiss"
    assert str(event["DESCRIPTION"]) == f"Bring snacks.\n\nhttp://gin.example.com/tournaments/{swiss.pk}/"
    assert str(event["URL"]) == f"http://gin.example.com/tournaments/{swiss.pk}/"
    assert (event["SEQUENCE"], str(event["STATUS"])) == (0, "CONFIRMED")
    pt = Client(HTTP_ACCEPT_LANGUAGE="pt-br").get(f"/tournaments/{swiss.pk}/event.ics")
    assert str(Calendar.from_ical(pt.content).walk("VEVENT")[0]["SUMMARY"]) == "Suíço da Noite"


def test_ics_arena_end_edits_and_cancellation() -> None:
    ends = timezone.now() + dt.timedelta(hours=3)
    arena = at(2, format="arena", ends_at=ends)
    event = Calendar.from_ical(Client().get(f"/tournaments/{arena.pk}/event.ics").content).walk("VEVENT")[0]
    assert event.decoded("DTEND") == ends.replace(microsecond=0)
    Tournament.objects.filter(pk=arena.pk).update(edited_at=arena.created_at + dt.timedelta(minutes=2))
    event = Calendar.from_ical(Client().get(f"/tournaments/{arena.pk}/event.ics").content).walk("VEVENT")[0]
    assert event["SEQUENCE"] == 120
    Tournament.objects.filter(pk=arena.pk).update(status=TournamentStatus.CANCELLED)
    event = Calendar.from_ical(Client().get(f"/tournaments/{arena.pk}/event.ics").content).walk("VEVENT")[0]
    assert (event["SEQUENCE"], str(event["STATUS"])) == (121, "CANCELLED")
    assert Client().get("/tournaments/999999/event.ics").status_code == 404


def test_event_page_offers_remind_me_and_the_ics(members: list[User], guest: User) -> None:
    cup = at(2)
    Reminder.objects.create(tournament=cup, user=members[0])
    html = logged_in(members[0]).get(f"/tournaments/{cup.pk}/").content.decode()
    assert f'action="/tournaments/{cup.pk}/remind/"' in html and 'aria-pressed="true"' in html
    assert f'href="/tournaments/{cup.pk}/event.ics"' in html
    other = logged_in(members[1]).get(f"/tournaments/{cup.pk}/").content.decode()
    assert 'aria-pressed="false"' in other and "Remind me" in other
    for client in (Client(), logged_in(guest)):
        html = client.get(f"/tournaments/{cup.pk}/").content.decode()
        assert "/remind/" not in html and f'href="/tournaments/{cup.pk}/event.ics"' in html
    pt = logged_in(members[1]).get(f"/tournaments/{cup.pk}/", HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert "Lembrar-me" in pt and "Adicionar à minha agenda (.ics)" in pt


def test_day_heading_in_both_languages() -> None:
    monday = dt.date(2026, 12, 7)
    with translation.override("en"):
        assert day_heading(monday) == "Monday, December 7"
    with translation.override("pt-br"):
        assert day_heading(monday) == "segunda-feira, 7 de dezembro"
        assert day_heading(dt.date(2026, 3, 14)) == "sábado, 14 de março"


def test_page_day_headings_in_portuguese_and_the_row_names_club_and_organiser(
        members: list[User], club: Club) -> None:
    at(2, club=club, created_by=members[1], name_en="Café Night")
    page = Client(HTTP_ACCEPT_LANGUAGE="pt-br").get("/tournaments/").content.decode()
    headings = re.findall(r'<h2 data-day="[\d-]+">([^<]+) <span', page)
    assert headings  # the days with an event: the one made here at least
    assert all(re.fullmatch(r"(segunda|terça|quarta|quinta|sexta)-feira, \d{1,2} de [a-zç]+"
                            r"|(sábado|domingo), \d{1,2} de [a-zç]+", h) for h in headings), headings
    row = logged_in(members[0]).get("/tournaments/").content.decode()
    assert '<a href="/clubs/chess-cafe/" data-testid="row-club">Chess Café</a> · ' in row
    assert ('data-testid="row-club">Chess Café</a> · <span class="player-name" title="member1">member1</span>'
            in row)
