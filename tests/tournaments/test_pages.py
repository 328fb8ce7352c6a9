"""Tournament pages: the list, a tournament's page with standings, join/leave bad input, the banner."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from clubs.models import Club
from games.models import Match
from ratings.models import RatingChange
from tests.factories import TournamentFactory
from tournaments.models import Pairing, Registration, Round, RoundStatus, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


def soon(**fields: Any) -> Tournament:
    return TournamentFactory(**{"starts_at": dt.datetime.now(dt.UTC) + dt.timedelta(minutes=30),
                                "max_players": 2, **fields})


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_list_shows_upcoming_with_join_and_header_link(members: list[User]) -> None:
    tournament = soon()
    page = logged_in(members[0]).get("/tournaments/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "Test Cup" in html and f'data-countdown="{tournament.starts_at.isoformat()}' in html
    assert f'action="/tournaments/{tournament.pk}/join/"' in html
    assert 'href="/tournaments/"' in html  # the header link
    pt = Client(HTTP_ACCEPT_LANGUAGE="pt-br").get("/tournaments/")
    assert "Copa Teste" in pt.content.decode()


def test_join_leave_and_every_bad_input(members: list[User], guest: User) -> None:
    tournament = soon()
    client = logged_in(members[0])
    url = f"/tournaments/{tournament.pk}/"
    joined = client.post(url + "join/", {"next": "https://evil.example/"}, follow=True)
    assert joined.redirect_chain[-1][0] == url  # a tampered "next" stays on the site
    assert messages_of(joined) == ["You are registered. The tournament starts at the time shown."]
    again = client.post(url + "join/", follow=True)  # double click: nothing changes
    assert Registration.objects.filter(tournament=tournament).count() == 1
    assert messages_of(again) == ["You are registered. The tournament starts at the time shown."]
    as_guest = logged_in(guest).post(url + "join/", follow=True)
    assert messages_of(as_guest) == ["Guests cannot join tournaments: sign up (your matches stay yours)."]
    anonymous = Client().post(url + "join/", follow=True)
    assert messages_of(anonymous) == ["Log in or sign up to join a tournament."]
    logged_in(members[1]).post(url + "join/")
    full = logged_in(members[2]).post(url + "join/", follow=True)
    assert messages_of(full) == ["This tournament is full."]
    assert Registration.objects.filter(tournament=tournament).count() == 2
    left = client.post(url + "leave/", follow=True)
    assert messages_of(left) == ["You left the tournament."]
    twice = client.post(url + "leave/", follow=True)
    assert messages_of(twice) == ["You were not registered for this tournament."]
    assert client.get(url + "join/").status_code == 405
    assert client.post("/tournaments/999999/join/", follow=True).redirect_chain[-1][0] == "/tournaments/"
    assert client.post("/tournaments/abc/join/").status_code == 404


def test_started_and_cancelled(members: list[User]) -> None:
    running = soon(status=TournamentStatus.RUNNING, rounds=3, current_round=1)
    Registration.objects.create(tournament=running, user=members[0])
    client = logged_in(members[1])
    started = client.post(f"/tournaments/{running.pk}/join/", follow=True)
    assert messages_of(started) == ["This tournament has already started: registration is closed."]
    leave = logged_in(members[0]).post(f"/tournaments/{running.pk}/leave/", follow=True)
    assert messages_of(leave) == ["This tournament has started: you can no longer leave it."]
    cancelled = soon(status=TournamentStatus.CANCELLED)
    gone = client.post(f"/tournaments/{cancelled.pk}/join/", follow=True)
    assert messages_of(gone) == ["This tournament was cancelled."]
    assert Registration.objects.filter(user=members[1]).count() == 0


def test_tournament_page_standings_and_rounds(members: list[User]) -> None:
    a, b, c = members[:3]
    t = soon(status=TournamentStatus.FINISHED, rounds=1, current_round=1, winner=a, max_players=8)
    for user, before, after in ((a, 1500, 1512.5), (b, 1480, 1470), (c, 1400, 1400)):
        Registration.objects.create(tournament=t, user=user, rating=before, rating_after=after)
    r1 = Round.objects.create(tournament=t, number=1, status=RoundStatus.FINISHED)
    match = Match.objects.create(rules={}, player0=a, player1=b, status="finished", scores=[52, 31], winner=0,
                                 rated=True, turn_timer_seconds=30)
    Pairing.objects.create(round=r1, board=1, player0=a, player1=b, match=match, points=[1, 0],
                           hand_points=[52, 31])
    for player, opponent, before, delta in ((a, b, 1500, 12.5), (b, a, 1480, -10)):
        RatingChange.objects.create(match=match, player=player, opponent=opponent, before=before,
                                    after=before + delta, delta=delta, k=40, expected=0.5,
                                    opponent_rating=1500, won=delta > 0)
    Pairing.objects.create(round=r1, board=2, player0=c, points=[1, 0], hand_points=[0, 0])
    html = Client().get(f"/tournaments/{t.pk}/").content.decode()
    html = html.replace('<span class="player-name" title="member0">member0</span>', "member0")
    html = html.replace('<span class="player-name" title="member1">member1</span>', "member1")
    assert "Final standings" in html and "Winner: member0" in html
    # Whole points, as every other page (ratings.elo.shown_change): 1500 -> 1512.5 shows +13.
    assert 'data-testid="rating-change">+13<' in html and 'data-testid="rating-change">-10<' in html
    assert "+12.5" not in html and "-10.0" not in html
    assert "Buchholz" in html and "Sonneborn-Berger" in html
    assert "1: W vs member1" in html and f'/replay/{match.pk}/">52–31</a>' in html and "1: bye" in html
    live = Client().get(f"/tournaments/{t.pk}/live/")
    assert live.status_code == 200 and "Final standings" in live.content.decode()
    assert Client().get("/tournaments/424242/").status_code == 404


def test_banner_endpoint(members: list[User]) -> None:
    assert Client().get("/tournaments/banner.json").json() == {}
    assert logged_in(members[0]).get("/tournaments/banner.json").json() == {}


def test_schedule_admin_lists_and_edits_the_shipped_schedules(django_user_model: Any) -> None:
    admin = django_user_model.objects.create_superuser(username="boss", password="pw-123456!x")
    client = logged_in(admin)
    page = client.get("/admin/tournaments/tournamentschedule/")
    assert page.status_code == 200 and "Hourly Quick" in page.content.decode()
    from tournaments.models import TournamentSchedule

    hourly = TournamentSchedule.objects.get(name_en="Hourly Quick")
    form = client.get(f"/admin/tournaments/tournamentschedule/{hourly.pk}/change/")
    assert form.status_code == 200 and 'name="days_of_week"' in form.content.decode()


def finished_event(members: list[User]) -> tuple[Tournament, Match]:
    """A finished one-round event: member0 beat member1 (rated, +26.4 / -26.4), member2 had the bye."""
    a, b, c = members[:3]
    t = soon(status=TournamentStatus.FINISHED, rounds=1, current_round=1, winner=a, max_players=8)
    for user in (a, b, c):
        Registration.objects.create(tournament=t, user=user, rating=1500, rating_after=1500)
    r1 = Round.objects.create(tournament=t, number=1, status=RoundStatus.FINISHED)
    match = Match.objects.create(rules={}, player0=a, player1=b, status="finished", scores=[52, 31],
                                 winner=0, rated=True, turn_timer_seconds=30)
    Pairing.objects.create(round=r1, board=1, player0=a, player1=b, match=match, points=[1, 0],
                           hand_points=[52, 31])
    Pairing.objects.create(round=r1, board=2, player0=c, points=[1, 0], hand_points=[0, 0])
    for player, opponent, delta in ((a, b, 26.4), (b, a, -26.4)):
        RatingChange.objects.create(match=match, player=player, opponent=opponent, before=1500,
                                    after=1500 + delta, delta=delta, k=40, expected=0.5,
                                    opponent_rating=1500, won=delta > 0)
    return t, match


def test_finished_event_rating_change_in_whole_points(members: list[User]) -> None:
    t, _ = finished_event(members)
    for lang in ("en", "pt-br"):
        html = Client(HTTP_ACCEPT_LANGUAGE=lang).get(f"/tournaments/{t.pk}/").content.decode()
        assert 'data-testid="rating-change">+26<' in html and 'data-testid="rating-change">-26<' in html
        assert "26.4" not in html


def test_finished_board_shows_view_not_play(members: list[User]) -> None:
    t, match = finished_event(members)
    html = logged_in(members[0]).get(f"/tournaments/{t.pk}/live/").content.decode()
    assert f'href="/watch/{match.pk}/" data-testid="watch-link">View<' in html
    assert 'data-testid="play-link"' not in html and f'href="/match/{match.pk}/"' not in html
    pt = logged_in(members[0])
    pt.cookies.load({"django_language": "pt-br"})
    html = pt.get(f"/tournaments/{t.pk}/live/", HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert 'data-testid="play-link"' not in html and 'data-testid="watch-link"' in html


def test_board_in_play_still_offers_play_to_its_players(members: list[User]) -> None:
    a, b = members[:2]
    t = soon(status=TournamentStatus.RUNNING, rounds=2, current_round=1, max_players=8)
    for user in (a, b):
        Registration.objects.create(tournament=t, user=user, rating=1500)
    r1 = Round.objects.create(tournament=t, number=1)
    match = Match.objects.create(rules={}, player0=a, player1=b, status="active", scores=[0, 0],
                                 rated=True, turn_timer_seconds=30)
    Pairing.objects.create(round=r1, board=1, player0=a, player1=b, match=match)
    mine = logged_in(a).get(f"/tournaments/{t.pk}/live/").content.decode()
    assert mine.count('data-testid="play-link"') == 1 and 'data-testid="watch-link"' in mine
    other = logged_in(members[2]).get(f"/tournaments/{t.pk}/live/").content.decode()
    assert 'data-testid="play-link"' not in other
    # While running, the round's boards come first, then the standings.
    assert mine.index('data-testid="pairings"') < mine.index('data-testid="standings"')


def test_finished_event_puts_final_standings_before_the_last_boards(members: list[User]) -> None:
    t, _ = finished_event(members)
    for url in (f"/tournaments/{t.pk}/", f"/tournaments/{t.pk}/live/"):
        html = Client().get(url).content.decode()
        assert 0 < html.index('data-testid="standings"') < html.index('data-testid="pairings"')


def test_event_page_shows_description_club_and_organiser(members: list[User]) -> None:
    club = Club.objects.create(name="Chess Café", slug="chess-cafe", invite_code="z" * 22,
                               created_by=members[0])
    t = soon(club=club, created_by=members[1], description="Bring <b>tea</b>\nand biscuits & cake")
    html = Client().get(f"/tournaments/{t.pk}/").content.decode()
    # escaped, its line break kept
    assert ('data-testid="event-description">Bring &lt;b&gt;tea&lt;/b&gt;<br>and biscuits &amp; cake</p>'
            in html)
    assert 'Club: <a href="/clubs/chess-cafe/" data-testid="event-club">Chess Café</a> · ' in html
    assert ('Organiser: <span data-testid="event-organiser"><span class="player-name" title="member1">'
            'member1</span></span>') in html
    pt = Client(HTTP_ACCEPT_LANGUAGE="pt-br").get(f"/tournaments/{t.pk}/").content.decode()
    assert "Clube: <a" in pt and "Organizador: <span" in pt
    daily = Client().get(f"/tournaments/{soon().pk}/").content.decode()
    assert "Organised by the site (daily schedule)" in daily
    assert 'data-testid="event-description"' not in daily
