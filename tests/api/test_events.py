"""The API's events people make (issue 26): a tournament's new fields, private events never shown (404
on every endpoint, never listed), the calendar window with its 400s, Arena standings, and the clubs."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from clubs.models import Club, ClubAccess, ClubMember, ClubRole
from ratings.models import PlayerRating
from tests.api.test_endpoints import get, logged_in
from tournaments.models import ArenaGame, Registration, Tournament, TournamentAccess, TournamentStatus

pytestmark = pytest.mark.django_db

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)


def event(name: str, hours: float, **fields: Any) -> Tournament:
    return Tournament.objects.create(**{"name_en": name, "name_pt": name, "status": TournamentStatus.OPEN,
                                        "starts_at": NOW + dt.timedelta(hours=hours), **fields})


@pytest.fixture
def club(make_member: Any) -> Club:
    owner, member, low = make_member("owner"), make_member("member"), make_member("low")
    club = Club.objects.create(name="Chess Hut", slug="chess-hut", invite_code="a" * 22, created_by=owner)
    for user, role, rating in ((owner, ClubRole.OWNER, 1612.4), (member, ClubRole.MEMBER, 1701.0),
                               (low, ClubRole.ORGANISER, None)):
        ClubMember.objects.create(club=club, user=user, role=role)
        if rating is not None:
            PlayerRating.objects.update_or_create(user=user, defaults={"rating": rating})
    return club


def test_a_club_event_shows_its_new_fields(club: Club, client: Client) -> None:
    owner = club.created_by
    t = event("Hut Swiss", 2, club=club, created_by=owner, rated=False, rating_min=1200, rating_max=1800,
              bots_allowed=False, description="Fridays.")
    data = get(client, f"/api/v1/tournaments/{t.pk}/")
    assert {k: data[k] for k in ("format", "club", "rated", "rating_min", "rating_max", "bots_allowed",
                                 "duration_minutes", "ends_at", "description")} == {
        "format": "swiss", "club": {"slug": "chess-hut", "name": "Chess Hut"}, "rated": False,
        "rating_min": 1200, "rating_max": 1800, "bots_allowed": False, "duration_minutes": None,
        "ends_at": None, "description": "Fridays."}
    assert data["organiser"] == {"username": "owner", "name": "owner", "is_bot": False, "bot_level": None,
                                 "bot_account": False}


def test_private_events_are_never_shown(club: Club, client: Client) -> None:
    coded = event("Secret", 1, access=TournamentAccess.CODE, entry_code="xyz", is_simulation=True)
    members_only = event("Members", 1, access=TournamentAccess.CLUB, club=club)
    open_one = event("Open", 1)
    for t in (coded, members_only):
        for path in ("", "standings/", "rounds/1/pairings/"):
            body = get(client, f"/api/v1/tournaments/{t.pk}/{path}", 404)
            assert body["error"] == "no_such_tournament"
    # As on the site (tournaments.access.may_view): the club's owner sees its members' event by id, not
    # the code event (not his); neither is listed, even for him.
    owner = logged_in(club.created_by)
    assert get(owner, f"/api/v1/tournaments/{members_only.pk}/")["name"] == "Members"
    get(owner, f"/api/v1/tournaments/{coded.pk}/", 404)
    assert "Members" not in [r["name"] for r in get(owner, "/api/v1/tournaments/")["results"]]
    for query in ("", "?simulations=true", "?club=chess-hut"):
        names = [r["name"] for r in get(client, f"/api/v1/tournaments/{query}")["results"]]
        assert "Secret" not in names and "Members" not in names
    assert [r["name"] for r in get(client, "/api/v1/tournaments/")["results"]] == ["Open"]
    assert open_one.pk


def test_calendar_window_and_its_refusals(client: Client) -> None:
    for name, hours in (("today", 3), ("tomorrow", 27), ("next week", 24 * 8)):
        event(name, hours)
    start = (NOW + dt.timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    end = (NOW + dt.timedelta(days=7)).isoformat().replace("+00:00", "Z")
    listed = get(client, f"/api/v1/tournaments/?from={start}&to={end}")
    assert [r["name"] for r in listed["results"]] == ["today", "tomorrow"]
    assert [r["name"] for r in get(client, f"/api/v1/tournaments/?from={end}")["results"]] == ["next week"]
    # An inverted window is empty, not an error: every value the schema allows gets its 200.
    assert get(client, f"/api/v1/tournaments/?from={end}&to={start}")["count"] == 0
    assert get(client, "/api/v1/tournaments/?to=2026-01-01T00:00:00")["count"] == 0  # naive: UTC
    bad = get(client, "/api/v1/tournaments/?from=tomorrow", 400)
    assert list(bad["fields"]) == ["from"]
    assert bad["fields"]["from"][0].startswith("Datetime has wrong format")
    assert get(client, "/api/v1/tournaments/?kind=chess", 400)["fields"] == {
        "kind": ['"chess" is not a valid choice.']}
    assert [r["name"] for r in get(client, "/api/v1/tournaments/?kind=arena")["results"]] == []
    assert len(get(client, "/api/v1/tournaments/?kind=swiss&format=xml")["results"]) == 3


def test_arena_standings(make_member: Any, client: Client) -> None:
    a, b, c = make_member("ann"), make_member("ben"), make_member("cid")
    t = event("Arena", -0.5, format="arena", status=TournamentStatus.RUNNING, duration_minutes=60,
              ends_at=NOW + dt.timedelta(minutes=30))
    for user, score, streak in ((a, 2, 1), (b, 7, 3), (c, 0, 0)):
        Registration.objects.create(tournament=t, user=user, arena_score=score, arena_streak=streak,
                                    rating=1500)
    ArenaGame.objects.create(tournament=t, player0=a, player1=b, winner=b, points=[0, 2], finished_at=NOW)
    ArenaGame.objects.create(tournament=t, player0=a, player1=c)  # in play: not counted
    rows = get(client, f"/api/v1/tournaments/{t.pk}/standings/")["results"]
    # Performance over the one finished match against a 1500: ben's win 2000, ann's loss 1000; cid none.
    assert [(r["rank"], r["player"]["username"], r["score"], r["arena_streak"], r["arena_games"],
             r["buchholz"], r["rating"], r["performance"]) for r in rows] == [
        (1, "ben", 7.0, 3, 1, None, 1500, 2000), (2, "ann", 2.0, 1, 1, None, 1500, 1000),
        (3, "cid", 0.0, 0, 0, None, 1500, None)]
    assert get(client, f"/api/v1/tournaments/{t.pk}/")["ends_at"].startswith(
        (NOW + dt.timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M"))


def test_clubs_list_and_detail(club: Club, make_member: Any, client: Client) -> None:
    hidden = Club.objects.create(name="Quiet", slug="quiet", invite_code="b" * 22,
                                 created_by=club.created_by, access=ClubAccess.INVITE)
    listed = get(client, "/api/v1/clubs/")
    assert listed["count"] == 1 and listed["results"][0]["slug"] == "chess-hut"
    assert listed["results"][0]["members"] == 3
    get(client, f"/api/v1/clubs/{hidden.slug}/", 404)
    assert get(client, "/api/v1/clubs/nope/", 404)["error"] == "no_such_club"
    event("Hut soon", 2, club=club)
    event("Hut secret", 3, club=club, access=TournamentAccess.CLUB)
    event("Hut past", -30, club=club, status=TournamentStatus.FINISHED)
    data = get(client, "/api/v1/clubs/chess-hut/")
    # Ranking by site rating; never rated: 1500.
    assert [(r["rank"], r["player"]["username"], r["rating"], r["role"]) for r in data["ranking"]] == [
        (1, "member", 1701, "member"), (2, "owner", 1612, "owner"), (3, "low", 1500, "organiser")]
    assert [t["name"] for t in data["upcoming"]] == ["Hut soon"]
    assert [r["player"]["username"] for r in get(client, "/api/v1/clubs/chess-hut/?top=1")["ranking"]] == [
        "member"]
    assert get(client, "/api/v1/clubs/chess-hut/?top=0", 400)["fields"] == {
        "top": ["Ensure this value is greater than or equal to 1."]}
