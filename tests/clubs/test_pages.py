"""Club pages: the list and search, creation with form errors, the club page's parts by viewer, the
ranking by real ratings, member tools, invitation links, the events tag, pt-BR."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from clubs import services
from clubs.models import Club, ClubAccess, ClubMember
from ratings.models import PlayerRating
from tests.factories import TournamentFactory
from tournaments.models import TournamentAccess, TournamentStatus

pytestmark = pytest.mark.django_db


def logged_in(user: User, **headers: Any) -> Client:
    client = Client(**headers)
    client.force_login(user)
    return client


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def rate(user: User, rating: float, matches: int, *, hidden: bool = False) -> None:
    PlayerRating.objects.create(user=user, rating=rating, rated_matches=matches, wins=matches, losses=0,
                                hidden=hidden)


def test_create_page_and_its_errors(members: list[User], guest: User) -> None:
    client = logged_in(members[0])
    assert client.get("/clubs/new/").status_code == 200
    nul = client.post("/clubs/new/", {"name": "Gin\x00Club", "description": "", "access": "public"})
    assert nul.status_code == 400 and "Null characters are not allowed." in nul.content.decode()
    bidi = client.post("/clubs/new/", {"name": "Gin\u202eClub", "description": "", "access": "public"})
    assert "The name contains control characters (such as U+202E): write plain text." in bidi.content.decode()
    short = client.post("/clubs/new/", {"name": "ab", "description": "", "access": "public"})
    assert "A club&#x27;s name has 3 to 60 characters." in short.content.decode()
    bad_access = client.post("/clubs/new/", {"name": "Good Name", "description": "", "access": "secret"})
    assert bad_access.status_code == 400
    assert not Club.objects.exists()
    made = client.post("/clubs/new/", {"name": "Good Name", "description": "Hi", "access": "invite"},
                       follow=True)
    assert made.redirect_chain[-1][0] == "/clubs/good-name/"
    assert messages_of(made) == ["Your club is ready. Invite members with its link."]
    assert Club.objects.get().access == ClubAccess.INVITE
    assert Client().get("/clubs/new/").status_code == 302  # to the log-in page
    refused = logged_in(guest).get("/clubs/new/")
    assert "Guests and house bots cannot create or join clubs: sign up first." in refused.content.decode()
    assert logged_in(guest).post("/clubs/new/", {"name": "Guest Club", "access": "public"}).status_code == 400
    assert Club.objects.count() == 1


def test_list_search_mine_and_header_link(members: list[User]) -> None:
    services.club_create(user=members[0], name="Alpha Club")
    services.club_create(user=members[1], name="Beta Club")
    services.club_create(user=members[2], name="Hidden Circle", access=ClubAccess.INVITE)
    services.club_join(club_id=Club.objects.get(name="Beta Club").pk, user=members[0])
    page = logged_in(members[0]).get("/clubs/")
    html = page.content.decode()
    # every page's footer and the tournaments' calendar lead here (the desktop header has no room left
    # for an eleventh link in Portuguese: tests/platform/test_browser_narrow.py)
    assert '<a href="/clubs/" data-testid="footer-clubs">' in html
    assert '<a href="/clubs/" data-testid="clubs-link">' in Client().get("/tournaments/").content.decode()
    assert [m.club.name for m in page.context["mine"]] == ["Alpha Club", "Beta Club"]
    assert [c.name for c in page.context["clubs"]] == ["Beta Club", "Alpha Club"]  # most members first
    assert "Hidden Circle" not in html
    found = Client().get("/clubs/", {"q": "alp"})
    assert [c.name for c in found.context["clubs"]] == ["Alpha Club"]


def test_ranking_order_with_real_ratings(members: list[User]) -> None:
    owner = members[0]
    club = services.club_create(user=owner, name="Ranked")
    for m in members[1:5]:
        services.club_join(club_id=club.pk, user=m)
    rate(members[0], 1612.4, 25)
    rate(members[1], 1700.6, 4)  # provisional
    rate(members[2], 1550.0, 12)
    rate(members[3], 1800.0, 30, hidden=True)  # marked: on no board
    # members[4] never rated
    page = Client().get(f"/clubs/{club.slug}/")
    rows = [(r.rank, r.user.username, r.shown, r.provisional) for r in page.context["ranking"]]
    assert rows == [(1, "member1", 1701, True), (2, "member0", 1612, False), (3, "member2", 1550, False)]
    assert page.context["unrated"] == 1
    html = page.content.decode()
    assert "1 member has no rated match yet." in html and 'data-username="member3"' in html  # still a member


def test_invitation_club_hides_members_from_outsiders(members: list[User]) -> None:
    owner, insider, outsider = members[:3]
    club = services.club_create(user=owner, name="Secret Society", description="We meet on Fridays",
                                access=ClubAccess.INVITE)
    services.club_join(club_id=club.pk, user=insider, code=club.invite_code)
    outside = logged_in(outsider).get("/clubs/secret-society/")
    html = outside.content.decode()
    assert outside.status_code == 200 and "We meet on Fridays" in html
    assert 'data-testid="members-private"' in html and "member0" not in html and club.invite_code not in html
    assert 'data-testid="club-join"' not in html
    inside = logged_in(insider).get("/clubs/secret-society/").content.decode()
    assert 'data-testid="club-members"' in inside and club.invite_code not in inside  # link: organisers only
    own = logged_in(owner).get("/clubs/secret-society/").content.decode()
    assert f"/clubs/join/{club.invite_code}/" in own
    assert Client().get("/clubs/no-such-club/").status_code == 404


def test_invitation_link_join_wrong_and_renewed(members: list[User]) -> None:
    owner, friend, late = members[:3]
    club = services.club_create(user=owner, name="Invited", access=ClubAccess.INVITE)
    link = f"/clubs/join/{club.invite_code}/"
    page = logged_in(friend).get(link)
    assert page.status_code == 200 and 'data-testid="invite-join"' in page.content.decode()
    joined = logged_in(friend).post(link, follow=True)
    assert joined.redirect_chain[-1][0] == "/clubs/invited/"
    assert ClubMember.objects.filter(club=club, user=friend).exists()
    wrong = logged_in(late).get("/clubs/join/not-the-code-at-all-xx/")
    assert wrong.status_code == 404
    text = "This invitation link is not valid (any more): ask the club for a new one."
    assert text in wrong.content.decode()
    renewed = logged_in(owner).post("/clubs/invited/invite/renew/", follow=True)
    assert messages_of(renewed) == ["A new invitation link is ready: the old one no longer works."]
    assert logged_in(late).post(link).status_code == 404  # the old link stops working
    assert not ClubMember.objects.filter(club=club, user=late).exists()
    public_join = logged_in(late).post("/clubs/invited/join/", follow=True)
    assert messages_of(public_join) == ["This club takes new members only through its invitation link."]


def test_member_tools_and_leave(members: list[User]) -> None:
    owner, a, b = members[:3]
    club = services.club_create(user=owner, name="Tools")
    for m in (a, b):
        services.club_join(club_id=club.pk, user=m)
    client = logged_in(owner)
    url = f"/clubs/tools/members/{a.pk}/"
    promoted = client.post(url, {"action": "organiser"}, follow=True)
    assert messages_of(promoted) == ["The member's role was changed."]
    by_member = logged_in(b).post(f"/clubs/tools/members/{a.pk}/", {"action": "remove"}, follow=True)
    assert messages_of(by_member) == ["Only the club's owner and organisers may do this."]
    assert messages_of(client.post(url, {"action": "boss"}, follow=True)) == [
        "A member can be made an organiser or a plain member."]
    removed = logged_in(a).post(f"/clubs/tools/members/{b.pk}/", {"action": "remove"}, follow=True)
    assert messages_of(removed) == ["The member was removed."]
    leave = client.post("/clubs/tools/leave/", follow=True)
    assert messages_of(leave)[0].startswith("You own this club: hand the ownership")
    assert messages_of(logged_in(a).post("/clubs/tools/leave/", follow=True)) == ["You left the club."]
    assert list(ClubMember.objects.filter(club=club).values_list("user_id", flat=True)) == [owner.pk]
    assert client.get("/clubs/tools/edit/").status_code == 200
    assert logged_in(b).get("/clubs/tools/edit/").status_code == 404
    edited = client.post("/clubs/tools/edit/", {"name": "Tools\x1b", "description": "", "access": "public"})
    assert edited.status_code == 400 and "control characters (such as U+001B)" in edited.content.decode()


def test_events_of_the_club_by_viewer(members: list[User]) -> None:
    owner, insider, outsider = members[:3]
    club = services.club_create(user=owner, name="Eventful")
    services.club_join(club_id=club.pk, user=insider)
    now = dt.datetime.now(dt.UTC)
    TournamentFactory(club=club, name_en="Open Night", name_pt="Noite Aberta")
    TournamentFactory(club=club, name_en="Members Night", name_pt="Noite dos Sócios",
                      access=TournamentAccess.CLUB)
    TournamentFactory(club=club, name_en="Old Cup", name_pt="Copa Velha", status=TournamentStatus.FINISHED,
                      starts_at=now - dt.timedelta(days=2))
    TournamentFactory(name_en="Elsewhere", name_pt="Outro Lugar")
    TournamentFactory(club=club, name_en="Code Night", name_pt="Noite do Código",
                      access=TournamentAccess.CODE, entry_code="sesame-1")
    own = logged_in(owner).get("/clubs/eventful/").content.decode()
    assert all(name in own for name in ("Open Night", "Members Night", "Code Night", "Old Cup"))
    assert "Elsewhere" not in own
    # the normal button, not the red one of destructive actions (.button.primary is --accent red)
    assert ('class="button small" href="/tournaments/new/?club=eventful" data-testid="club-event-create"'
            in own)
    # outsiders (a member of the site, a visitor) see the public events only, and no create link
    for outside in (logged_in(outsider).get("/clubs/eventful/").content.decode(),
                    Client().get("/clubs/eventful/").content.decode()):
        assert "Open Night" in outside and "Old Cup" in outside
        assert "Members Night" not in outside and "Code Night" not in outside
        assert "?club=eventful" not in outside
    # a plain member: the members' event too, but not the code event (not theirs, code not given)
    inside = logged_in(insider).get("/clubs/eventful/").content.decode()
    assert "Members Night" in inside and "Code Night" not in inside and "?club=eventful" not in inside


def test_club_page_in_portuguese(members: list[User]) -> None:
    club = services.club_create(user=members[0], name="Clube Lisboa")
    page = logged_in(members[1], HTTP_ACCEPT_LANGUAGE="pt-br").get(f"/clubs/{club.slug}/")
    html = page.content.decode()
    assert "Entrar no clube" in html and "Clubes" in html and "Ranking" in html
    refused = logged_in(members[1], HTTP_ACCEPT_LANGUAGE="pt-br").post("/clubs/new/", {
        "name": "ab", "description": "", "access": "public"})
    assert "O nome de um clube tem de 3 a 60 caracteres." in refused.content.decode()


def test_search_with_control_characters_finds_nothing(members: list[User]) -> None:
    services.club_create(user=members[0], name="Alpha Club")
    for q in ("\u202eAlpha", "Al\x1bpha", "x" * 500):
        page = Client().get("/clubs/", {"q": q})
        assert page.status_code == 200 and list(page.context["clubs"]) == [], q
    assert Client().get("/clubs/", {"q": "Al\x00pha"}).status_code == 400  # the site refuses a NUL anywhere


def test_club_page_queries_do_not_grow_with_members(members: list[User], django_user_model: Any,
                                                   django_assert_num_queries: Any) -> None:
    owner = members[0]
    club = services.club_create(user=owner, name="Crowded")
    TournamentFactory(club=club)
    client = logged_in(owner)

    def add(n: int) -> None:
        for i in range(n):
            user = django_user_model.objects.create_user(username=f"extra{ClubMember.objects.count()}")
            services.club_join(club_id=club.pk, user=user)
            rate(user, 1500 + i, 12)

    add(3)
    client.get(f"/clubs/{club.slug}/")  # warm the session and the caches
    with django_assert_num_queries(QUERIES) as small:
        client.get(f"/clubs/{club.slug}/")
    add(30)
    with django_assert_num_queries(QUERIES):
        page = client.get(f"/clubs/{club.slug}/")
    assert len(page.context["ranking"]) == 33 and len(small.captured_queries) == QUERIES


QUERIES = 12
"""The club page's queries for its owner (session, user, club, membership, members, count, ranking,
unrated count, the site-wide bar of event notices, the events tag's three lists), whatever the number of
members."""
