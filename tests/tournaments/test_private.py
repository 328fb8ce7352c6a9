"""Private events stay private (issue 26): the access matrix of a club event and a code event.

Each event is running with two boards of round 1, both private matches: ``player`` beat a house bot in a
finished match (played through the services, so its replay re-runs), and ``entrant`` is still playing a
house bot. Viewers: anonymous, an outsider member, a member of the event's club, a code holder (an
anonymous browser that opened the organiser's ``?code=`` link), the registered players, the organiser
and staff. Every surface answers those who may see the event (``tournaments.access.may_view``) and
answers everyone else exactly as an event or match that does not exist.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client, override_settings

from accounts.models import User
from clubs.models import Club, ClubMember, ClubRole
from games.models import Match
from games.services import match_create_seated
from ratings.models import RatingChange
from tests.factories import TournamentFactory, UserFactory
from tests.fixtures import house_bots
from tests.games.conftest import seeded_decks
from tests.games.play import play_until
from tournaments import services
from tournaments.models import (
    Pairing,
    Registration,
    Round,
    RoundStatus,
    Tournament,
    TournamentAccess,
    TournamentStatus,
)

__all__ = ["house_bots", "seeded_decks"]  # fixtures

pytestmark = pytest.mark.django_db

CODE = "Secret-42"
VIEWERS = ("anonymous", "outsider", "clubmate", "holder", "player", "entrant", "organiser", "staff")
ALLOWED = {
    TournamentAccess.CLUB: {"clubmate", "player", "entrant", "organiser", "staff"},
    TournamentAccess.CODE: {"holder", "player", "entrant", "organiser", "staff"},
}


@dataclass
class Event:
    tournament: Tournament
    finished: Match  # player vs a house bot, over
    active: Match  # entrant vs a house bot, in play
    users: dict[str, User]


def make_event(kind: str, bots: list[User]) -> Event:
    users = {name: UserFactory(username=f"{kind}-{name}") for name in VIEWERS if name not in ("anonymous",
                                                                                               "holder")}
    users["staff"].is_staff = True
    users["staff"].save(update_fields=["is_staff"])
    club = Club.objects.create(name="Chess Club", slug=f"club-{kind}", invite_code=f"inv-{kind}",
                               created_by=users["organiser"])
    ClubMember.objects.create(club=club, user=users["organiser"], role=ClubRole.OWNER)
    ClubMember.objects.create(club=club, user=users["clubmate"], role=ClubRole.MEMBER)
    is_club = kind == TournamentAccess.CLUB
    tournament = TournamentFactory(
        name_en=f"Hidden {kind} event", name_pt=f"Evento {kind} oculto", access=kind,
        club=club if is_club else None, entry_code="" if is_club else CODE, created_by=users["organiser"],
        status=TournamentStatus.RUNNING, rounds=1, current_round=1, max_players=8,
        starts_at=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5),
    )
    bot1, bot2 = bots[0], bots[1]
    for user in (users["player"], users["entrant"], bot1, bot2):
        Registration.objects.create(tournament=tournament, user=user, rating=1500)
    round_ = Round.objects.create(tournament=tournament, number=1, status=RoundStatus.PLAYING)
    finished = match_create_seated(player0=users["player"], player1=bot1, target=50, private_event=True)
    finished = play_until(finished.pk, {0: users["player"]})
    active = match_create_seated(player0=users["entrant"], player1=bot2, target=50, private_event=True)
    Pairing.objects.create(round=round_, board=1, player0=users["player"], player1=bot1, match=finished)
    RatingChange.objects.create(match=finished, player=users["player"], opponent=bot1, before=1500,
                                after=1510, delta=10, k=40, expected=0.5, opponent_rating=1500, won=True)
    Pairing.objects.create(round=round_, board=2, player0=users["entrant"], player1=bot2, match=active)
    assert finished.status == "finished" and active.status == "active"
    return Event(tournament, finished, active, users)


def client_of(event: Event, viewer: str) -> Client:
    client = Client()
    if viewer == "holder":  # the organiser's link: unlocks a code event for this browser's session
        opened = client.get(f"/tournaments/{event.tournament.pk}/?code={CODE}")
        expected = 302 if event.tournament.access == TournamentAccess.CODE else 404
        assert opened.status_code == expected
    elif viewer != "anonymous":
        client.force_login(event.users[viewer])
    return client


_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


def page_text(response: Any, path: str) -> str:
    """The body without the per-response CSRF mask and the requested path (the language form's)."""
    return _CSRF.sub("", response.content.decode()).replace(path, "<PATH>")


@pytest.fixture
def bots(house_bots: list[User]) -> list[User]:
    return [bot for bot in house_bots if bot.bot_level in (1, 2)]


@pytest.mark.parametrize("kind", [TournamentAccess.CLUB, TournamentAccess.CODE])
def test_access_matrix(kind: str, bots: list[User], seeded_decks: Any) -> None:
    event = make_event(kind, bots)
    t, fm, am = event.tournament.pk, event.finished.pk, event.active.pk
    missing = t + 1000
    surfaces = {  # path: (status when allowed, status when refused)
        f"/tournaments/{t}/": (200, 404),
        f"/tournaments/{t}/live/": (200, 404),
        f"/replay/{fm}/": (200, 404),
        f"/replay/{fm}.json": (200, 404),
        f"/replay/{fm}.json?download=1": (200, 404),
        f"/api/v1/matches/{fm}/replay/": (200, 404),
        f"/watch/{am}/": (200, 404),  # spectating the board in play
        f"/watch/{fm}/": (302, 404),  # a finished board: its replay
        f"/api/v1/tournaments/{t}/": (200, 404),
        f"/api/v1/tournaments/{t}/standings/": (200, 404),
        f"/api/v1/tournaments/{t}/rounds/1/pairings/": (200, 404),
    }
    player = event.users["player"].username
    for viewer in VIEWERS:
        client = client_of(event, viewer)
        allowed = viewer in ALLOWED[kind]
        for path, (yes, no) in surfaces.items():
            cache.clear()  # the request limits counted in the cache must not decide an answer
            got = client.get(path)
            assert got.status_code == (yes if allowed else no), (kind, viewer, path, got.status_code)
        analysis = client.get(f"/replay/{fm}/analysis.json")  # 404 both ways: never analysed, or unseen
        assert analysis.json()["error"] == ("not_analysed" if allowed else "no_such_match"), (viewer, kind)
        # a refused page is the page of an event that does not exist, byte for byte (CSRF mask aside)
        if not allowed:
            for path, other in ((f"/tournaments/{t}/", f"/tournaments/{missing}/"),
                                (f"/api/v1/tournaments/{t}/", f"/api/v1/tournaments/{missing}/")):
                assert page_text(client.get(path), path) == page_text(client.get(other), other)
        # lists: the calendar lists the event to exactly those who may see it (access.visible_q); the
        # API's list to nobody; no live list shows its board; another's profile never lists its matches
        listed = f"Hidden {kind} event" in client.get("/tournaments/").content.decode()
        assert listed == allowed, (viewer, "list")
        for query in ("", "?simulations=1"):
            ids = [row["id"] for row in client.get(f"/api/v1/tournaments/{query}").json()["results"]]
            assert t not in ids
        assert f"/watch/{am}/" not in client.get("/watch/").content.decode()
        rows = client.get(f"/api/v1/players/{player}/matches/").json()["results"]
        assert (fm in [row["id"] for row in rows]) == (viewer == "player"), (viewer, "player's matches")
        history = client.get(f"/api/v1/players/{player}/ratings/").json()["results"]
        assert (fm in [row["match_id"] for row in history]) == (viewer == "player"), (viewer, "history")
        profile = client.get(f"/u/{player}/").content.decode()
        assert (f'data-match="{fm}"' in profile) == (viewer == "player"), (viewer, "profile")  # list, chart
        # the chart keeps the rating point (ratings are public) without the match or the opponent
        assert ("A private event&#x27;s match: 1500 → 1510 (+10)" in profile) == (viewer != "player")


def test_a_finished_public_events_replays_stay_public(bots: list[User], seeded_decks: Any) -> None:
    """No regression: a public event's matches are public (replay, file, API, the player's lists)."""
    alice = UserFactory(username="alice")
    tournament = TournamentFactory(status=TournamentStatus.FINISHED, rounds=1, current_round=1)
    match = play_until(match_create_seated(player0=alice, player1=bots[0], target=50).pk, {0: alice})
    round_ = Round.objects.create(tournament=tournament, number=1, status=RoundStatus.FINISHED)
    Pairing.objects.create(round=round_, board=1, player0=alice, player1=bots[0], match=match)
    anonymous = Client()
    assert match.private_event is False
    for path in (f"/replay/{match.pk}/", f"/replay/{match.pk}.json", f"/api/v1/matches/{match.pk}/replay/",
                 f"/tournaments/{tournament.pk}/", f"/api/v1/tournaments/{tournament.pk}/standings/"):
        assert anonymous.get(path).status_code == 200, path
    rows = anonymous.get("/api/v1/players/alice/matches/").json()["results"]
    assert [row["id"] for row in rows] == [match.pk]


def test_tournament_boards_are_private_matches_of_private_events_only(bots: list[User]) -> None:
    """``services._create_match`` (Swiss, and Arena through it) marks a private event's boards."""
    organiser = UserFactory()
    public = TournamentFactory()
    code = TournamentFactory(access=TournamentAccess.CODE, entry_code=CODE, created_by=organiser)
    a, b = UserFactory(), UserFactory()
    assert services._create_match(public, 1, 1, a, bots[0]).private_event is False
    assert services._create_match(code, 1, 2, b, bots[1]).private_event is True


def test_the_code_form(bots: list[User]) -> None:
    organiser = UserFactory()
    event = TournamentFactory(access=TournamentAccess.CODE, entry_code=CODE, created_by=organiser)
    TournamentFactory(access=TournamentAccess.CODE, entry_code=CODE, status=TournamentStatus.FINISHED)
    client = Client()
    assert client.get("/tournaments/code/").status_code == 200
    # empty, NUL, too long, wrong case, unknown: clear errors, nothing unlocked
    for given, error in (("", "Type the event&#x27;s code."),
                         ("Secret\x0042", "Null characters are not allowed."),
                         ("x" * 41, "No event has a code that long."),
                         ("secret-42", "No upcoming or running event has that code."),
                         ("nope", "No upcoming or running event has that code.")):
        got = client.post("/tournaments/code/", {"code": given})
        assert got.status_code == 400 and error in got.content.decode(), (given, got.content.decode()[:200])
        assert client.get(f"/tournaments/{event.pk}/").status_code == 404
    # the code (spaces around it are dropped) opens the event for this session only
    got = client.post("/tournaments/code/", {"code": f"  {CODE} "})
    assert got.status_code == 302 and got["Location"] == f"/tournaments/{event.pk}/"
    assert client.get(f"/tournaments/{event.pk}/").status_code == 200
    assert Client().get(f"/tournaments/{event.pk}/").status_code == 404
    # a second upcoming event with the same code: the form asks for the link instead
    TournamentFactory(access=TournamentAccess.CODE, entry_code=CODE, created_by=organiser)
    got = Client().post("/tournaments/code/", {"code": CODE})
    assert got.status_code == 400 and "open the link the organiser sent you" in got.content.decode()


def test_the_code_form_in_portuguese() -> None:
    got = Client(HTTP_ACCEPT_LANGUAGE="pt-br").post("/tournaments/code/", {"code": "nope"},
                                                    HTTP_ACCEPT_LANGUAGE="pt-br")
    assert got.status_code == 400
    assert "Nenhum evento futuro ou em andamento tem esse código." in got.content.decode()


@override_settings(TOURNAMENTS_CODE_RATE="3/h")
def test_codes_are_rate_limited_per_ip() -> None:
    """The form and the ``?code=`` links share one count per IP: the 4th try in the hour is a 429, even
    with the right code (a guesser learns nothing from it)."""
    cache.clear()
    event = TournamentFactory(access=TournamentAccess.CODE, entry_code=CODE, created_by=UserFactory())
    client = Client()
    assert client.post("/tournaments/code/", {"code": "a"}).status_code == 400
    assert client.get(f"/tournaments/{event.pk}/?code=b").status_code == 404
    assert Client().post("/tournaments/code/", {"code": "c"}).status_code == 400  # same IP, new session
    refused = client.get(f"/tournaments/{event.pk}/?code={CODE}")
    assert refused.status_code == 429 and "Too many event codes were tried" in refused.content.decode()
    assert int(refused["Retry-After"]) > 0
    assert client.get(f"/tournaments/{event.pk}/").status_code == 404  # not unlocked
    cache.clear()


def test_join_of_a_private_event_unseen_is_no_such_tournament(bots: list[User]) -> None:
    event = TournamentFactory(access=TournamentAccess.CODE, entry_code=CODE, created_by=UserFactory())
    client = Client()
    client.force_login(UserFactory())
    got = client.post(f"/tournaments/{event.pk}/join/")
    assert got.status_code == 302 and got["Location"] == "/tournaments/"
    assert not Registration.objects.filter(tournament=event).exists()


@pytest.mark.django_db(transaction=True)
async def test_the_event_socket_refuses_whoever_may_not_see_it() -> None:
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from tests.games.wsclient import ORIGIN
    from tests.tournaments.test_live import open_socket

    def setup() -> tuple[Tournament, User, User, User]:
        organiser, member, outsider = UserFactory(), UserFactory(), UserFactory()
        club = Club.objects.create(name="C", slug="c-sock", invite_code="inv-sock", created_by=organiser)
        ClubMember.objects.create(club=club, user=member, role=ClubRole.MEMBER)
        event = TournamentFactory(access=TournamentAccess.CLUB, club=club, created_by=organiser)
        return event, organiser, member, outsider

    event, organiser, member, outsider = await database_sync_to_async(setup)()
    path = f"/ws/tournaments/{event.pk}/"
    for user, expected in ((None, False), (outsider, False), (member, True), (organiser, True)):
        comm, connected, code = await open_socket(path, user)
        assert connected is expected, user
        if connected:
            await comm.disconnect()
        else:
            assert code == 4404
    _, connected, code = await open_socket(f"/ws/tournaments/{event.pk + 1000}/", None)
    assert not connected and code == 4404  # the same answer as for an event that does not exist

    # a code event: the socket reads the codes its browser's session unlocked
    def holder_cookie() -> tuple[int, str]:
        coded = TournamentFactory(access=TournamentAccess.CODE, entry_code=CODE, created_by=UserFactory())
        browser = Client()
        assert browser.get(f"/tournaments/{coded.pk}/?code={CODE}").status_code == 302
        name = settings.SESSION_COOKIE_NAME
        return coded.pk, f"{name}={browser.cookies[name].value}"

    coded_id, cookie = await database_sync_to_async(holder_cookie)()
    for headers, expected in (([], False), ([(b"cookie", cookie.encode())], True)):
        comm = WebsocketCommunicator(application, f"/ws/tournaments/{coded_id}/",
                                     headers=[(b"origin", ORIGIN), (b"host", b"testserver"), *headers])
        connected, code = await comm.connect()
        assert connected is expected and (connected or code == 4404)
        if connected:
            await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_spectator_socket_of_a_private_events_board(house_bots: list[User]) -> None:
    """``/ws/watch/<id>/`` of a club event's board in play: a club member watches it; an outsider is
    refused as for a match that does not exist (``no_such_match``, close 4404)."""
    from channels.db import database_sync_to_async

    from tests.games.wsclient import session_cookie
    from tests.replays.test_private_unseen import socket_answer

    def setup() -> tuple[int, str, str]:
        organiser, member, outsider, entrant = UserFactory(), UserFactory(), UserFactory(), UserFactory()
        club = Club.objects.create(name="C", slug="c-watch", invite_code="inv-watch", created_by=organiser)
        ClubMember.objects.create(club=club, user=member, role=ClubRole.MEMBER)
        event = TournamentFactory(access=TournamentAccess.CLUB, club=club, created_by=organiser,
                                  status=TournamentStatus.RUNNING, rounds=1, current_round=1)
        bot = next(b for b in house_bots if b.bot_level == 1)
        round_ = Round.objects.create(tournament=event, number=1, status=RoundStatus.PLAYING)
        match = match_create_seated(player0=entrant, player1=bot, target=50, private_event=True)
        Pairing.objects.create(round=round_, board=1, player0=entrant, player1=bot, match=match)
        return match.pk, session_cookie(member), session_cookie(outsider)

    match_id, member, outsider = await database_sync_to_async(setup)()
    first, closed = await socket_answer(f"/ws/watch/{match_id}/", outsider)
    assert first["code"] == "no_such_match" and closed == {"type": "websocket.close", "code": 4404}
    first, closed = await socket_answer(f"/ws/watch/{match_id}/", None)
    assert first["code"] == "no_such_match" and closed == {"type": "websocket.close", "code": 4404}
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from tests.games.wsclient import ORIGIN, recv

    headers = [(b"origin", ORIGIN), (b"host", b"testserver"), (b"cookie", member.encode())]
    comm = WebsocketCommunicator(application, f"/ws/watch/{match_id}/", headers=headers)
    connected, _ = await comm.connect()
    try:
        assert connected
        first = await recv(comm)
        assert first.get("type") != "error" and first.get("match_id", match_id) == match_id, first
    finally:
        await comm.disconnect()
