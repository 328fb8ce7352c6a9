"""Club services: creation limits, every refusal, joins and leaves, roles, one owner, invitation codes."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from accounts.models import Standing, User
from clubs import services
from clubs.errors import ClubError
from clubs.models import Club, ClubAccess, ClubMember, ClubRole
from tests.racing import concurrently

pytestmark = pytest.mark.django_db


def code_of(call: Any) -> str:
    with pytest.raises(ClubError) as info:
        call()
    return info.value.code


def make(user: User, name: str = "Gin Friends", **kw: Any) -> Club:
    return services.club_create(user=user, name=name, **kw)


def test_create_makes_owner_slug_and_code(members: list[User]) -> None:
    club = make(members[0], "  Clube  São   Paulo ", description="Toda quarta.\nVenha!")
    assert (club.name, club.slug) == ("Clube São Paulo", "clube-sao-paulo")
    assert club.description == "Toda quarta.\nVenha!"
    assert len(club.invite_code) == 22 and club.access == ClubAccess.PUBLIC
    assert list(ClubMember.objects.values_list("user_id", "role")) == [(members[0].pk, ClubRole.OWNER)]


def test_slug_suffix_on_clash_and_reserved_words(members: list[User]) -> None:
    assert make(members[0], "Gin-Friends").slug == "gin-friends"
    assert make(members[1], "Gin Friends!").slug == "gin-friends-2"
    assert make(members[2], "Gin  friends?").slug == "gin-friends-3"
    assert make(members[3], "New").slug == "new-1"  # /clubs/new/ is the creation page
    assert make(members[4], "渡辺クラブ").slug == "club"  # nothing ASCII left


def test_every_name_and_field_refusal_changes_nothing(members: list[User], guest: User) -> None:
    user = members[0]
    make(user, "Taken Name")
    cases = {
        "ab": "name_length", "x" * 61: "name_length", "   ab   ": "name_length",
        "Gin\x00Club": "name_controls", "Gin\u202eClub": "name_controls", "Gin\tClub": "name_controls",
        "Fuck Club": "name_abusive", "Clube do Caralho": "name_abusive",
        "Gin \u0430dmin club": "name_confusable",  # a Cyrillic а among Latin letters
        "TAKEN name": "name_taken",
    }
    for name, code in cases.items():
        assert code_of(lambda name=name: make(user, name)) == code, name
    assert code_of(lambda: make(user, "Fine", description="x" * 1001)) == "description_length"
    assert code_of(lambda: make(user, "Fine", description="a\x1bb")) == "description_controls"
    assert code_of(lambda: make(user, "Fine", access="secret")) == "bad_access"
    assert code_of(lambda: make(guest, "Fine")) == "not_member_account"
    user.standing = Standing.MARKED
    user.save()
    assert code_of(lambda: make(user, "Fine")) == "standing"
    assert Club.objects.count() == 1 and ClubMember.objects.count() == 1


def test_error_messages_in_both_languages() -> None:
    from django.utils import translation

    error = ClubError("daily_limit", n=3)
    assert error.message == "You have created 3 clubs in the last 24 hours: try again tomorrow."
    with translation.override("pt-br"):
        assert error.text() == "Você criou 3 clubes nas últimas 24 horas: tente de novo amanhã."


def test_daily_and_owned_limits(members: list[User]) -> None:
    user = members[0]
    now = dt.datetime.now(dt.UTC)
    for i in range(3):
        make(user, f"Club {i}", now=now)
    assert code_of(lambda: make(user, "Club 3", now=now)) == "daily_limit"
    # A day later the window is free again; the owned limit (10) still counts every owned club.
    Club.objects.update(created_at=now - dt.timedelta(days=2))
    for i in range(3, 10):
        Club.objects.update(created_at=now - dt.timedelta(days=2))
        make(user, f"Club {i}", now=now)
    Club.objects.update(created_at=now - dt.timedelta(days=2))
    assert code_of(lambda: make(user, "Club 10", now=now)) == "owned_limit"
    assert ClubMember.objects.filter(user=user, role=ClubRole.OWNER).count() == 10


@pytest.mark.django_db(transaction=True)
def test_racing_creations_respect_the_daily_limit(members: list[User]) -> None:
    user = members[0]
    results = concurrently([lambda i=i: make(user, f"Race {i}") for i in range(5)])
    made = [r for r in results if isinstance(r, Club)]
    refused = [r.code for r in results if isinstance(r, ClubError)]
    assert len(made) == 3 and refused == ["daily_limit", "daily_limit"]


@pytest.mark.django_db(transaction=True)
def test_racing_same_name_makes_one_club(members: list[User]) -> None:
    results = concurrently([lambda u=u: make(u, "Same Name") for u in members[:4]])
    assert sum(isinstance(r, Club) for r in results) == 1
    assert sorted(r.code for r in results if isinstance(r, ClubError)) == ["name_taken"] * 3
    assert Club.objects.count() == 1 and ClubMember.objects.count() == 1


def test_join_public_and_invitation(members: list[User], guest: User) -> None:
    public = make(members[0], "Public One")
    assert services.club_join(club_id=public.pk, user=members[1]) is True
    assert services.club_join(club_id=public.pk, user=members[1]) is False  # a double click
    assert code_of(lambda: services.club_join(club_id=public.pk, user=guest)) == "not_member_account"
    invite = make(members[0], "Invite One", access=ClubAccess.INVITE)
    assert code_of(lambda: services.club_join(club_id=invite.pk, user=members[2])) == "invite_only"
    wrong = "x" * 22
    assert code_of(lambda: services.club_join(club_id=invite.pk, user=members[2], code=wrong)) == "bad_code"
    old = invite.invite_code
    new = services.invite_renew(club_id=invite.pk, user=members[0])
    assert new != old and len(new) == 22
    assert code_of(lambda: services.club_join(club_id=invite.pk, user=members[2], code=old)) == "bad_code"
    assert services.club_join(club_id=invite.pk, user=members[2], code=new) is True
    assert code_of(lambda: services.invite_renew(club_id=invite.pk, user=members[2])) == "not_organiser"
    assert code_of(lambda: services.club_join(club_id=10**9, user=members[2])) == "no_such_club"
    assert ClubMember.objects.filter(club=invite).count() == 2


@pytest.mark.django_db(transaction=True)
def test_racing_double_join_makes_one_membership(members: list[User]) -> None:
    club = make(members[0], "Race Club")
    results = concurrently([lambda: services.club_join(club_id=club.pk, user=members[1])] * 4)
    assert sorted(results) == [False, False, False, True]
    assert ClubMember.objects.filter(club=club, user=members[1]).count() == 1


def test_leave_and_owner_rules(members: list[User]) -> None:
    owner, a, b = members[:3]
    club = make(owner, "Leavers")
    services.club_join(club_id=club.pk, user=a)
    assert services.club_leave(club_id=club.pk, user=a) is True
    assert services.club_leave(club_id=club.pk, user=a) is False
    services.club_join(club_id=club.pk, user=b)
    assert code_of(lambda: services.club_leave(club_id=club.pk, user=owner)) == "owner_leaves"
    assert code_of(lambda: services.club_delete(club_id=club.pk, user=owner)) == "not_alone"
    assert code_of(lambda: services.club_delete(club_id=club.pk, user=b)) == "not_owner"
    services.member_remove(club_id=club.pk, user=owner, member_id=b.pk)
    services.club_delete(club_id=club.pk, user=owner)
    assert not Club.objects.exists() and not ClubMember.objects.exists()


def test_club_with_events_cannot_be_deleted(members: list[User]) -> None:
    from tests.factories import TournamentFactory

    club = make(members[0], "Eventful")
    TournamentFactory(club=club)
    assert code_of(lambda: services.club_delete(club_id=club.pk, user=members[0])) == "has_events"
    assert Club.objects.filter(pk=club.pk).exists()


def test_roles_transfer_and_removal(members: list[User]) -> None:
    owner, org, plain, other = members[:4]
    club = make(owner, "Roles")
    for m in (org, plain, other):
        services.club_join(club_id=club.pk, user=m)
    assert services.member_set_role(club_id=club.pk, user=owner, member_id=org.pk, role="organiser") is True
    assert services.member_set_role(club_id=club.pk, user=owner, member_id=org.pk, role="organiser") is False
    assert code_of(lambda: services.member_set_role(club_id=club.pk, user=org, member_id=plain.pk,
                                                    role="organiser")) == "not_owner"
    assert code_of(lambda: services.member_set_role(club_id=club.pk, user=owner, member_id=plain.pk,
                                                    role="owner")) == "bad_role"
    assert code_of(lambda: services.member_set_role(club_id=club.pk, user=owner, member_id=owner.pk,
                                                    role="member")) == "self"
    # An organiser removes a plain member, never the owner or another organiser; a member removes nobody.
    remove = services.member_remove
    assert code_of(lambda: remove(club_id=club.pk, user=plain, member_id=other.pk)) == "not_organiser"
    assert code_of(lambda: remove(club_id=club.pk, user=org, member_id=owner.pk)) == "cannot_remove"
    assert services.member_remove(club_id=club.pk, user=org, member_id=other.pk) is True
    # The ownership moves: the old owner becomes an organiser, exactly one owner remains.
    services.club_transfer(club_id=club.pk, user=owner, member_id=plain.pk)
    roles = dict(ClubMember.objects.filter(club=club).values_list("user_id", "role"))
    assert roles == {owner.pk: "organiser", org.pk: "organiser", plain.pk: "owner"}
    transfer = services.club_transfer
    assert code_of(lambda: transfer(club_id=club.pk, user=owner, member_id=org.pk)) == "not_owner"
    assert code_of(lambda: services.club_transfer(club_id=club.pk, user=plain, member_id=other.pk)) \
        == "target_not_member"
    assert services.club_leave(club_id=club.pk, user=owner) is True


@pytest.mark.django_db(transaction=True)
def test_racing_transfers_keep_one_owner(members: list[User]) -> None:
    owner = members[0]
    club = make(owner, "One Owner")
    for m in members[1:4]:
        services.club_join(club_id=club.pk, user=m)
    results = concurrently([lambda m=m: services.club_transfer(club_id=club.pk, user=owner, member_id=m.pk)
                            for m in members[1:4]])
    assert sum(r is None for r in results) == 1
    assert [r.code for r in results if isinstance(r, ClubError)] == ["not_owner", "not_owner"]
    assert ClubMember.objects.filter(club=club, role=ClubRole.OWNER).count() == 1


def test_edit_keeps_slug_and_refuses_bad_input(members: list[User]) -> None:
    owner, plain = members[:2]
    club = make(owner, "Before")
    make(members[2], "Other Club")
    services.club_join(club_id=club.pk, user=plain)
    services.club_edit(club_id=club.pk, user=owner, name="After", description="New text", access="invite")
    club.refresh_from_db()
    assert (club.name, club.slug, club.description, club.access) == ("After", "before", "New text", "invite")
    assert code_of(lambda: services.club_edit(club_id=club.pk, user=owner, name="other club", description="",
                                              access="public")) == "name_taken"
    assert code_of(lambda: services.club_edit(club_id=club.pk, user=plain, name="Mine now", description="",
                                              access="public")) == "not_organiser"
    services.club_edit(club_id=club.pk, user=owner, name="AFTER", description="", access="invite")  # own name
    club.refresh_from_db()
    assert club.name == "AFTER"
