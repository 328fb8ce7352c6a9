"""Events people make (tournaments/organise.py, issue 26): creation and its limits, edits with notices,
cancellation (idempotent, notices), forbidden pairings, an organiser's withdrawal, who may do each;
and the lifecycle honouring the new fields (access, code, rating range, bots, casual, forbidden)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from clubs.models import Club, ClubMember, ClubRole
from games.models import Match
from ratings.models import PlayerRating
from tests.factories import TournamentFactory
from tournaments import organise, services
from tournaments.errors import TournamentError
from tournaments.models import (
    ForbiddenPairing,
    Pairing,
    Registration,
    Tournament,
    TournamentNotice,
    TournamentStatus,
)
from tournaments.organise import EventFields

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
START = NOW + dt.timedelta(hours=2)


def swiss(**kw: Any) -> EventFields:
    return EventFields(**{"name": "Friday Cup", "format": "swiss", "starts_at": START, **kw})


def fails(expected: str, call: Any, **kw: Any) -> TournamentError:
    with pytest.raises(TournamentError) as info:
        call(**kw)
    assert info.value.code == expected, info.value.message
    return info.value


@pytest.fixture
def club(members: list[User]) -> Club:
    club = Club.objects.create(name="Chess Corner", slug="chess-corner", invite_code="x" * 22,
                               created_by=members[0])
    ClubMember.objects.create(club=club, user=members[0], role=ClubRole.OWNER)
    ClubMember.objects.create(club=club, user=members[1], role=ClubRole.ORGANISER)
    ClubMember.objects.create(club=club, user=members[2], role=ClubRole.MEMBER)
    return club


# --- create -------------------------------------------------------------------------------------------


def test_create_swiss_and_arena_store_what_was_chosen(members: list[User]) -> None:
    t = organise.event_create(user=members[0], now=NOW, event=swiss(
        name="  Friday Cup ", rounds=5, match_target=100, turn_timer_seconds=45, rated=False,
        rating_min=1200, rating_max=1800, bots_allowed=False, rules_preset="oklahoma", max_players=16))
    assert (t.name_en, t.name_pt, t.format, t.fixed_rounds, t.ends_at) == (
        "Friday Cup", "Friday Cup", "swiss", 5, None)
    assert (t.match_target, t.turn_timer_seconds, t.rated, t.rating_min, t.rating_max) == (
        100, 45, False, 1200, 1800)
    assert (t.bots_allowed, t.rules_preset, t.max_players, t.created_by, t.status) == (
        False, "oklahoma", 16, members[0], TournamentStatus.SCHEDULED)
    arena = organise.event_create(user=members[0], now=NOW, event=swiss(format="arena", duration_minutes=90,
                                                                         rounds=4))
    assert arena.ends_at == START + dt.timedelta(minutes=90)
    assert arena.fixed_rounds is None  # rounds mean nothing to an Arena


def test_code_event_gets_a_generated_code_or_keeps_the_given_one(members: list[User]) -> None:
    t = organise.event_create(user=members[0], now=NOW, event=swiss(access="code"))
    assert len(t.entry_code) == 8
    t2 = organise.event_create(user=members[0], now=NOW, event=swiss(access="code", entry_code=" family-7 "))
    assert t2.entry_code == "family-7"
    t3 = organise.event_create(user=members[0], now=NOW, event=swiss(entry_code="ignored"))
    assert t3.entry_code == ""  # public: no code kept


def test_a_generated_code_is_drawn_again_on_a_clash(members: list[User],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The draws are "abcd1234" (the code of an upcoming event), then "wxyz9876": the event gets the
    second; a chosen code that clashes is refused with entry_code_taken and creates nothing."""
    organise.event_create(user=members[0], now=NOW, event=swiss(access="code", entry_code="abcd1234"))
    draws = iter(["abcd1234", "wxyz9876"])
    monkeypatch.setattr(organise, "new_entry_code", lambda: next(draws))
    drawn = organise.event_create(user=members[1], now=NOW, event=swiss(access="code"))
    assert drawn.entry_code == "wxyz9876"
    fails("entry_code_taken", organise.event_create, user=members[2], now=NOW,
          event=swiss(access="code", entry_code="wxyz9876"))
    assert not Tournament.objects.filter(created_by=members[2]).exists()
    # An edit that turns a public event into a code event draws a free code too.
    public = organise.event_create(user=members[2], now=NOW, event=swiss())
    draws = iter(["abcd1234", "wxyz9876", "free-one"])
    organise.event_edit(user=members[2], tournament_id=public.pk, now=NOW,
                        event=replace(organise.event_fields_of(public), access="code"))
    public.refresh_from_db()
    assert public.entry_code == "free-one"


@pytest.mark.parametrize(("fields", "code"), [
    ({"starts_at": NOW - dt.timedelta(minutes=1)}, "start_past"),
    ({"starts_at": NOW + dt.timedelta(minutes=4)}, "start_past"),
    ({"starts_at": NOW + dt.timedelta(days=61)}, "start_far"),
    ({"rating_min": 1800, "rating_max": 1200}, "rating_order"),
    ({"rating_max": 4001}, "rating_bounds"),
    ({"rounds": 10_000}, "rounds"),
    ({"rounds": 0}, "rounds"),
    ({"name": "Cup\x00"}, "name"),
    ({"name": "  a "}, "name"),
    ({"description": "x\x00"}, "description"),
    ({"format": "knockout"}, "format"),
    ({"format": "arena", "duration_minutes": 9}, "duration"),
    ({"format": "arena"}, "duration"),
    ({"rules_preset": "nope"}, "preset"),
    ({"match_target": 75}, "target"),
    ({"turn_timer_seconds": 14}, "turn_timer"),
    ({"min_players": 10, "max_players": 8}, "field_size"),
    ({"access": "club"}, "club_needed"),
    ({"access": "code", "entry_code": "abc"}, "entry_code"),
    ({"access": "code", "entry_code": "ab cd"}, "entry_code"),
])
def test_bad_input_is_refused_and_creates_nothing(
    members: list[User], fields: dict[str, Any], code: str
) -> None:
    fails(code, organise.event_create, user=members[0], now=NOW, event=swiss(**fields))
    assert not Tournament.objects.filter(created_by=members[0]).exists()


def test_who_may_create(members: list[User], guest: User, club: Club) -> None:
    from django.contrib.auth.models import AnonymousUser
    fails("not_authenticated", organise.event_create, user=AnonymousUser(), now=NOW, event=swiss())
    fails("guest", organise.event_create, user=guest, now=NOW, event=swiss())
    fails("club_organiser", organise.event_create, user=members[2], now=NOW, event=swiss(club=club))
    fails("club_organiser", organise.event_create, user=members[3], now=NOW, event=swiss(club=club))
    t = organise.event_create(user=members[1], now=NOW, event=swiss(club=club, access="club"))
    assert (t.club, t.access) == (club, "club")
    assert Tournament.objects.filter(created_by__isnull=False).count() == 1


def test_daily_and_unfinished_limits(members: list[User]) -> None:
    for _ in range(organise.MAX_CREATED_PER_DAY):
        organise.event_create(user=members[0], now=NOW, event=swiss())
    fails("daily_limit", organise.event_create, user=members[0], now=NOW, event=swiss())
    # created_at is the real clock: 24 h later (the rolling day), the limit frees up.
    Tournament.objects.filter(created_by=members[0]).update(created_at=timezone.now() - dt.timedelta(days=1,
                                                                                                        minutes=1))
    later = timezone.now()
    organise.event_create(user=members[0], now=later, event=swiss(starts_at=later + dt.timedelta(hours=1)))
    Tournament.objects.filter(created_by=members[0]).update(created_at=timezone.now() - dt.timedelta(days=2))
    for _ in range(organise.MAX_UNFINISHED - 6):
        TournamentFactory(created_by=members[0], status=TournamentStatus.SCHEDULED)
    Tournament.objects.filter(created_by=members[0]).update(created_at=timezone.now() - dt.timedelta(days=2))
    assert Tournament.objects.filter(created_by=members[0]).count() == organise.MAX_UNFINISHED
    fails("too_many", organise.event_create, user=members[0], now=later,
          event=swiss(starts_at=later + dt.timedelta(hours=1)))


# --- edit ---------------------------------------------------------------------------------------------


def made(user: User, **kw: Any) -> Tournament:
    now = timezone.now()
    return organise.event_create(user=user, now=now, event=swiss(starts_at=now + dt.timedelta(hours=1), **kw))


def test_edit_changes_and_notifies_the_players(members: list[User]) -> None:
    t = made(members[0])
    services.tournament_join(tournament_id=t.pk, user=members[3])
    services.tournament_join(tournament_id=t.pk, user=members[4])
    event = organise.event_fields_of(t)
    changed = organise.event_edit(user=members[0], tournament_id=t.pk,
                                  event=replace(event, turn_timer_seconds=60, name="Friday Cup II"))
    assert changed == ["name_en", "name_pt", "turn_timer_seconds"]
    notices = TournamentNotice.objects.filter(tournament=t, kind="edited").order_by("user_id")
    assert [(n.user_id, n.round, n.text) for n in notices] == [
        (members[3].pk, 1, "turn_timer_seconds"), (members[4].pk, 1, "turn_timer_seconds")]
    organise.event_edit(user=members[0], tournament_id=t.pk, event=replace(event, turn_timer_seconds=90))
    rounds = TournamentNotice.objects.filter(tournament=t, kind="edited").values_list("round", flat=True)
    assert sorted(rounds) == [1, 1, 2, 2]
    # A change only of the name sends nothing new; no change at all changes nothing.
    t.refresh_from_db()
    assert organise.event_edit(user=members[0], tournament_id=t.pk,
                               event=replace(organise.event_fields_of(t), name="Friday Cup III")) == [
        "name_en", "name_pt"]
    assert TournamentNotice.objects.filter(tournament=t).count() == 4
    t.refresh_from_db()
    assert organise.event_edit(user=members[0], tournament_id=t.pk, event=organise.event_fields_of(t)) == []


def test_edit_refused_to_others_after_the_start_and_on_bad_input(members: list[User], club: Club) -> None:
    t = made(members[0])
    event = organise.event_fields_of(t)
    fails("not_organiser", organise.event_edit, user=members[3], tournament_id=t.pk, event=event)
    fails("rating_order", organise.event_edit, user=members[0], tournament_id=t.pk,
          event=replace(event, rating_min=2000, rating_max=1000))
    for u in members[2:5]:
        services.tournament_join(tournament_id=t.pk, user=u)
    fails("max_below_field", organise.event_edit, user=members[0], tournament_id=t.pk,
          event=replace(event, max_players=2))
    Tournament.objects.filter(pk=t.pk).update(status=TournamentStatus.RUNNING)
    fails("started", organise.event_edit, user=members[0], tournament_id=t.pk, event=replace(event, rounds=3))
    t.refresh_from_db()
    assert (t.fixed_rounds, t.rating_min, t.max_players, t.edited_at) == (None, None, 64, None)
    # A club's organiser edits the club's events; a plain member does not.
    c = made(members[1], club=club)
    organise.event_edit(user=members[0], tournament_id=c.pk,
                        event=replace(organise.event_fields_of(c), rounds=4))
    fails("not_organiser", organise.event_edit, user=members[2], tournament_id=c.pk,
          event=organise.event_fields_of(c))


# --- cancel -------------------------------------------------------------------------------------------


def test_cancel_notifies_once_and_is_idempotent(members: list[User]) -> None:
    t = made(members[0])
    services.tournament_join(tournament_id=t.pk, user=members[3])
    fails("not_organiser", organise.event_cancel, user=members[3], tournament_id=t.pk)
    fails("note", organise.event_cancel, user=members[0], tournament_id=t.pk, note="x\x00")
    assert organise.event_cancel(user=members[0], tournament_id=t.pk, note="Venue closed") is True
    assert organise.event_cancel(user=members[0], tournament_id=t.pk, note="again") is False
    t.refresh_from_db()
    assert (t.status, t.cancelled_note) == (TournamentStatus.CANCELLED, "Venue closed")
    assert list(TournamentNotice.objects.filter(tournament=t).values_list("user_id", "kind", "text")) == [
        (members[3].pk, "cancelled", "Venue closed")]
    fails("cancelled", services.tournament_join, tournament_id=t.pk, user=members[4])


# --- forbidden pairings and withdrawals ---------------------------------------------------------------


def test_forbidden_pairing_between_players_only(members: list[User]) -> None:
    t = made(members[0])
    for u in members[2:5]:
        services.tournament_join(tournament_id=t.pk, user=u)
    kw = {"user": members[0], "tournament_id": t.pk}
    assert organise.forbidden_pairing_add(**kw, first="MEMBER3", second="member2") is True
    assert organise.forbidden_pairing_add(**kw, first="member2", second="member3") is False
    row = ForbiddenPairing.objects.get(tournament=t)
    assert (row.player_a_id, row.player_b_id) == (members[2].pk, members[3].pk)
    fails("not_registered", organise.forbidden_pairing_add, **kw, first="member2", second="member5")
    fails("not_registered", organise.forbidden_pairing_add, **kw, first="member2", second="nobody")
    fails("same", organise.forbidden_pairing_add, **kw, first="member2", second="member2")
    fails("not_organiser", organise.forbidden_pairing_add, user=members[2], tournament_id=t.pk,
          first="member3", second="member4")
    assert ForbiddenPairing.objects.filter(tournament=t).count() == 1
    assert organise.forbidden_pairing_remove(**kw, pairing_id=row.pk) is True
    assert organise.forbidden_pairing_remove(**kw, pairing_id=row.pk) is False


def test_withdraw_before_start_removes_and_after_start_withdraws(members: list[User]) -> None:
    t = made(members[0])
    for u in members[2:5]:
        services.tournament_join(tournament_id=t.pk, user=u)
    organise.forbidden_pairing_add(user=members[0], tournament_id=t.pk, first="member2", second="member3")
    fails("not_organiser", organise.player_withdraw, user=members[4], tournament_id=t.pk, username="member2")
    assert organise.player_withdraw(user=members[0], tournament_id=t.pk, username="member2") == "removed"
    assert not Registration.objects.filter(tournament=t, user=members[2]).exists()
    assert not ForbiddenPairing.objects.filter(tournament=t).exists()
    Tournament.objects.filter(pk=t.pk).update(status=TournamentStatus.RUNNING)
    assert organise.player_withdraw(user=members[0], tournament_id=t.pk, username="member3") == "withdrawn"
    assert organise.player_withdraw(user=members[0], tournament_id=t.pk, username="member3") == "already"
    r = Registration.objects.get(tournament=t, user=members[3])
    assert (r.withdrawn, r.withdrawn_by_organiser) == (True, True)
    fails("not_registered", organise.player_withdraw, user=members[0], tournament_id=t.pk, username="member5")


# --- the lifecycle honours the new fields -------------------------------------------------------------


def test_join_checks_club_code_and_rating_range(members: list[User], club: Club) -> None:
    c = made(members[0], club=club, access="club")
    fails("club_only", services.tournament_join, tournament_id=c.pk, user=members[3])
    services.tournament_join(tournament_id=c.pk, user=members[2])  # a member of the club
    k = made(members[0], access="code", entry_code="open-sesame")
    fails("code", services.tournament_join, tournament_id=k.pk, user=members[3])
    fails("code", services.tournament_join, tournament_id=k.pk, user=members[3], code="open-sesamE")
    services.tournament_join(tournament_id=k.pk, user=members[3], code="open-sesame")
    services.tournament_join(tournament_id=k.pk, user=members[0])  # its organiser needs no code
    r = made(members[0], rating_min=1400, rating_max=1600)
    PlayerRating.objects.update_or_create(user=members[4], defaults={"rating": 1700.0})
    fails("rating_high", services.tournament_join, tournament_id=r.pk, user=members[4])
    PlayerRating.objects.filter(user=members[4]).update(rating=1300.0)
    fails("rating_low", services.tournament_join, tournament_id=r.pk, user=members[4])
    services.tournament_join(tournament_id=r.pk, user=members[5])  # unrated: 1500
    assert Registration.objects.filter(user=members[4]).count() == 0


def test_arena_is_joinable_while_running_until_its_end(members: list[User]) -> None:
    now = timezone.now()
    arena = TournamentFactory(format="arena", status=TournamentStatus.RUNNING,
                              starts_at=now - dt.timedelta(minutes=5), ends_at=now + dt.timedelta(minutes=30),
                              duration_minutes=35)
    services.tournament_join(tournament_id=arena.pk, user=members[0])
    Tournament.objects.filter(pk=arena.pk).update(ends_at=now - dt.timedelta(seconds=1))
    fails("started", services.tournament_join, tournament_id=arena.pk, user=members[1])
    swiss_running = TournamentFactory(status=TournamentStatus.RUNNING,
                                      starts_at=now - dt.timedelta(minutes=5))
    fails("started", services.tournament_join, tournament_id=swiss_running.pk, user=members[1])


@pytest.mark.django_db(transaction=True)
def test_no_bots_casual_event_with_a_forbidden_pair(
    members: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "step_enqueue", lambda *a: None)
    now = timezone.now()
    lone = TournamentFactory(bots_allowed=False, starts_at=now - dt.timedelta(seconds=1))
    Registration.objects.create(tournament=lone, user=members[0])
    assert services.tournament_start(tournament_id=lone.pk, now=now)
    lone.refresh_from_db()
    assert lone.status == TournamentStatus.CANCELLED and "house bots are not allowed" in lone.cancelled_note
    t = TournamentFactory(bots_allowed=False, rated=False, starts_at=now - dt.timedelta(seconds=1),
                          min_players=8)
    for i, u in enumerate(members[:4]):
        Registration.objects.create(tournament=t, user=u)
        PlayerRating.objects.update_or_create(user=u, defaults={"rating": 1800.0 - 10 * i})
    # By rating 0 v 1, 2 v 3; forbidding 0-1 gives 0 v 2, 1 v 3.
    ForbiddenPairing.objects.create(tournament=t, player_a=members[0], player_b=members[1])
    assert services.tournament_start(tournament_id=t.pk, now=now)
    assert t.registrations.count() == 4  # no house bot filled the field up to 8
    assert services.round_pair(tournament_id=t.pk, number=1)
    pairs = {frozenset((p.player0_id, p.player1_id)) for p in Pairing.objects.filter(round__tournament=t)}
    assert pairs == {frozenset((members[0].pk, members[2].pk)), frozenset((members[1].pk, members[3].pk))}
    assert not Match.objects.filter(tournament_pairing__round__tournament=t, rated=True).exists()
