"""Events people make (issue 26, docs/tournaments.md "Events people make"): create, edit and cancel an
event, forbid pairings, withdraw a player. Services (HackSoft): keyword-only, atomic; every refusal is a
:class:`~tournaments.errors.TournamentError` whose ``code`` names it and nothing changes. Each write on an
existing event holds its row lock (``services._locked``), as the lifecycle steps do, so an edit, a
cancellation and the start never interleave.

Who may do what: any member in good standing (not a guest or bot) creates events, at most
:data:`MAX_CREATED_PER_DAY` in a rolling day and :data:`MAX_UNFINISHED` not yet finished at once; a club
event only its club's owner or organisers; an event's organisers (``access.organises``: its creator,
its club's owner and organisers, staff) edit, cancel and organise it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, fields, replace
from datetime import datetime, timedelta

from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from accounts.models import User
from clubs.models import Club, ClubMember, ClubRole
from engine.rules import PRESETS
from push.groups import tournament_banner_group
from push.send import send_on_commit
from tournaments import access, live, services
from tournaments.errors import TournamentError
from tournaments.models import (
    ForbiddenPairing,
    NoticeKind,
    Registration,
    Tournament,
    TournamentAccess,
    TournamentFormat,
    TournamentNotice,
    TournamentStatus,
)

MAX_CREATED_PER_DAY = 5
"""Events one member may create in any 24 hours."""
MAX_UNFINISHED = 20
"""Events one member may have created and not yet finished (scheduled, open or running) at once."""
MIN_LEAD = timedelta(minutes=5)
"""The earliest start: this long after now (time to share the link and join)."""
MAX_LEAD = timedelta(days=60)
"""The latest start: this long after now."""
ROUNDS = (1, 15)
"""Swiss rounds, inclusive (or none: automatic, ``ceil(log2(players)) + 1`` capped at 7)."""
DURATION = (10, 240)
"""Arena duration in minutes, inclusive."""
TURN_TIMER = (15, 600)
"""Seconds per action, inclusive (as the schedules')."""
RATING = (0, 4000)
"""Rating range bounds, inclusive."""
MIN_FIELD = (2, 256)
"""The minimum field (house bots fill up to it when allowed)."""
MAX_FIELD = (2, 1000)
"""The maximum field (registration closes there)."""
TARGETS = (50, 100)
"""Match targets, in points."""
CODE_LENGTH = (4, 40)
"""An organiser's own entry code, in characters (a generated one has 8)."""
NAME_LENGTH = (3, 80)
DESCRIPTION_LENGTH = 1000
NOTE_LENGTH = 300
ACTIVE = (TournamentStatus.SCHEDULED, TournamentStatus.OPEN)
"""Statuses in which an event is editable and cancellable (and only before ``starts_at``)."""


@dataclass(frozen=True)
class EventFields:
    """What an organiser chooses. Units: ``starts_at`` an aware datetime; ``rounds`` (Swiss; None:
    automatic), ``duration_minutes`` (Arena) minutes; ``turn_timer_seconds`` seconds; ``match_target``
    points; ``rating_min``/``rating_max`` inclusive Elo bounds or None; ``entry_code`` (access code):
    empty to have one generated; ``club``: a club event (None: the member's own)."""

    name: str
    format: str
    starts_at: datetime
    rounds: int | None = None
    duration_minutes: int | None = None
    rules_preset: str = "classic"
    match_target: int = 50
    turn_timer_seconds: int = 30
    rated: bool = True
    rating_min: int | None = None
    rating_max: int | None = None
    access: str = TournamentAccess.PUBLIC
    entry_code: str = ""
    bots_allowed: bool = True
    bot_accounts_allowed: bool = False
    min_players: int = 2
    max_players: int = 64
    description: str = ""
    club: Club | None = None


NOTICE_FIELDS = ("starts_at", "format", "fixed_rounds", "duration_minutes", "rules_preset", "match_target",
                 "turn_timer_seconds", "rated", "rating_min", "rating_max", "access", "bots_allowed",
                 "bot_accounts_allowed")
"""Tournament fields whose change matters to a registered player: an edit of any of them sends each a
notice (kind edited; its ``text`` lists the changed fields' names, comma-separated)."""


def _bad(code: str, message: str) -> TournamentError:
    return TournamentError(code, message)


def _within(value: int | None, bounds: tuple[int, int], code: str, what: str) -> None:
    if value is None or not bounds[0] <= value <= bounds[1]:
        raise _bad(code, f"{what} must be {bounds[0]} to {bounds[1]}, got {value!r}")


def _clean_text(value: str, what: str, code: str) -> str:
    if "\x00" in value:
        raise _bad(code, f"{what} must not contain a NUL character")
    return value.strip()


def validate(event: EventFields, *, now: datetime) -> EventFields:
    """``event`` checked and normalised (texts stripped, Arena without rounds, Swiss without duration,
    no entry code unless access code). Pure: reads nothing, writes nothing.

    :raises TournamentError: ``name`` (empty, NUL, not 3..80 characters), ``description`` (NUL, over
        1000), ``format``, ``start_past`` (before now + 5 min), ``start_far`` (after now + 60 days),
        ``rounds`` (not 1..15 nor automatic), ``duration`` (Arena: not 10..240 min), ``preset``,
        ``target`` (not 50/100), ``turn_timer`` (not 15..600 s), ``rating_bounds`` (not 0..4000),
        ``rating_order`` (lowest above highest), ``field_size`` (min not 2..256, max not 2..1000, or
        min above max), ``access``, ``club_needed`` (club access without a club), ``entry_code`` (a
        given code not 4..40 characters, with a NUL or a space).
    """
    name = _clean_text(event.name, "the name", "name")
    if not NAME_LENGTH[0] <= len(name) <= NAME_LENGTH[1]:
        raise _bad("name", f"the name must be {NAME_LENGTH[0]} to {NAME_LENGTH[1]} characters")
    description = _clean_text(event.description, "the description", "description")
    if len(description) > DESCRIPTION_LENGTH:
        raise _bad("description", f"the description must be at most {DESCRIPTION_LENGTH} characters")
    if event.format not in TournamentFormat.values:
        raise _bad("format", f"unknown format {event.format!r} (swiss or arena)")
    if event.starts_at < now + MIN_LEAD:
        raise _bad("start_past", "the start must be at least 5 minutes from now")
    if event.starts_at > now + MAX_LEAD:
        raise _bad("start_far", "the start must be within 60 days")
    rounds, duration = event.rounds, event.duration_minutes
    if event.format == TournamentFormat.SWISS:
        duration = None
        if rounds is not None:
            _within(rounds, ROUNDS, "rounds", "rounds")
    else:
        rounds = None
        _within(duration, DURATION, "duration", "the duration (minutes)")
    if event.rules_preset not in PRESETS:
        raise _bad("preset", f"unknown rule preset {event.rules_preset!r}")
    if event.match_target not in TARGETS:
        raise _bad("target", "the match target must be 50 or 100")
    _within(event.turn_timer_seconds, TURN_TIMER, "turn_timer", "the turn timer (s)")
    for bound in (event.rating_min, event.rating_max):
        if bound is not None:
            _within(bound, RATING, "rating_bounds", "a rating bound")
    if event.rating_min is not None and event.rating_max is not None and event.rating_min > event.rating_max:
        raise _bad("rating_order", "the lowest rating is above the highest")
    _within(event.min_players, MIN_FIELD, "field_size", "the minimum field")
    _within(event.max_players, MAX_FIELD, "field_size", "the maximum field")
    if event.min_players > event.max_players:
        raise _bad("field_size", "the minimum field is above the maximum")
    if event.access not in TournamentAccess.values:
        raise _bad("access", f"unknown access {event.access!r}")
    if event.access == TournamentAccess.CLUB and event.club is None:
        raise _bad("club_needed", "a club members' event needs a club")
    code = ""
    if event.access == TournamentAccess.CODE:
        code = _clean_text(event.entry_code, "the entry code", "entry_code")
        if code and (not CODE_LENGTH[0] <= len(code) <= CODE_LENGTH[1] or any(c.isspace() for c in code)):
            raise _bad("entry_code", "the entry code must be 4 to 40 characters without spaces")
    return replace(event, name=name, description=description, rounds=rounds, duration_minutes=duration,
                   entry_code=code)


def _columns(event: EventFields) -> dict[str, object]:
    """The :class:`Tournament` columns an (already validated) ``event`` sets."""
    return {
        "name_en": event.name, "name_pt": event.name, "format": event.format, "starts_at": event.starts_at,
        "fixed_rounds": event.rounds, "duration_minutes": event.duration_minutes,
        "ends_at": (event.starts_at + timedelta(minutes=event.duration_minutes)
                    if event.duration_minutes is not None else None),
        "rules_preset": event.rules_preset, "match_target": event.match_target,
        "turn_timer_seconds": event.turn_timer_seconds, "rated": event.rated,
        "rating_min": event.rating_min, "rating_max": event.rating_max, "access": event.access,
        "bots_allowed": event.bots_allowed, "bot_accounts_allowed": event.bot_accounts_allowed,
        "min_players": event.min_players,
        "max_players": event.max_players, "description": event.description,
    }


def organises_club(club: Club, user: User | AnonymousUser) -> bool:
    """True for the club's owner and organisers."""
    return user.is_authenticated and ClubMember.objects.filter(
        club=club, user_id=user.pk, role__in=(ClubRole.OWNER, ClubRole.ORGANISER)).exists()


def new_entry_code() -> str:
    """A fresh entry code: 8 URL-safe characters (48 random bits, ``secrets``)."""
    return secrets.token_urlsafe(6)


CODE_LOCK_KEY = 0x67696E26
"""PostgreSQL transaction advisory lock taken while an entry code is checked and stored (any number)."""
CODE_TRIES = 10
"""Generated codes tried before giving up (a clash of 48 random bits is already near impossible)."""


def _code_taken(code: str, *, other_than: int | None) -> bool:
    """True when another code event still to come or running (``access.CODE_SEARCH_STATUSES``, the ones
    ``/tournaments/code/`` searches) has exactly ``code`` (case counts, as ``access.code_matches``)."""
    taken = Tournament.objects.filter(access=TournamentAccess.CODE, status__in=access.CODE_SEARCH_STATUSES,
                                      entry_code=code)
    return taken.exclude(pk=other_than).exists() if other_than is not None else taken.exists()


def _entry_code(chosen: str, *, keep: str = "", other_than: int | None = None) -> str:
    """The code to store for a code event: ``chosen`` (the organiser's) when no other upcoming or running
    event has it, else ``keep`` (the event's current code, on an edit), else a generated one, drawn again
    on a clash. In the caller's transaction; on PostgreSQL an advisory lock makes two creations at once
    check one after the other (SQLite runs one write transaction at a time anyway).

    :raises TournamentError: ``entry_code_taken`` (``chosen`` is another event's code).
    """
    connection = transaction.get_connection()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CODE_LOCK_KEY])
    if chosen and chosen == keep:
        return keep  # an edit that leaves the code alone is never refused for it
    if chosen:
        if _code_taken(chosen, other_than=other_than):
            raise _bad("entry_code_taken", "another upcoming or running event has this entry code")
        return chosen
    if keep:
        return keep
    for _ in range(CODE_TRIES):
        code = new_entry_code()
        if not _code_taken(code, other_than=other_than):
            return code
    raise RuntimeError(f"{CODE_TRIES} generated entry codes were all taken")  # never: 48 random bits


@transaction.atomic
def event_create(
    *, user: User | AnonymousUser, event: EventFields, now: datetime | None = None
) -> Tournament:
    """Create ``event`` (status scheduled; the beat opens and starts it as any event) with ``user`` as
    its creator. The member's row is locked first (FOR NO KEY UPDATE), so two creations at once count
    each other against the limits.

    :raises TournamentError: the codes of :func:`validate`; ``not_authenticated``, ``guest``,
        ``standing`` (as a join); ``club_organiser`` (a club event by someone not its owner or
        organiser); ``daily_limit`` (:data:`MAX_CREATED_PER_DAY` in the last 24 h);
        ``too_many`` (:data:`MAX_UNFINISHED` not finished); ``entry_code_taken`` (the chosen entry code
        is another upcoming or running event's: ``/tournaments/code/`` must find one event per code).
    """
    now = now or timezone.now()
    member = services._check_member(user)
    event = validate(event, now=now)
    list(User.objects.select_for_update(no_key=True).filter(pk=member.pk).values_list("pk"))
    if event.club is not None and not organises_club(event.club, member):
        raise _bad("club_organiser", "only the club's owner and organisers create its events")
    mine = Tournament.objects.filter(created_by=member)
    if mine.filter(created_at__gt=now - timedelta(days=1)).count() >= MAX_CREATED_PER_DAY:
        raise _bad("daily_limit", f"at most {MAX_CREATED_PER_DAY} events a day: try again tomorrow")
    if mine.filter(status__in=(*ACTIVE, TournamentStatus.RUNNING)).count() >= MAX_UNFINISHED:
        raise _bad("too_many", f"at most {MAX_UNFINISHED} of your events may be waiting or running at once")
    code = _entry_code(event.entry_code) if event.access == TournamentAccess.CODE else ""
    return Tournament.objects.create(created_by=member, club=event.club, entry_code=code, **_columns(event))


def _organised(tournament_id: int, user: User | AnonymousUser) -> Tournament:
    """The event, row locked, when ``user`` organises it.

    :raises TournamentError: ``no_such_tournament``, ``not_organiser``.
    """
    tournament = services._locked(tournament_id)
    if tournament is None:
        raise _bad("no_such_tournament", "no such tournament")
    if not access.organises(tournament, user):
        raise _bad("not_organiser", "only the event's organisers may do this")
    return tournament


def _before_start(tournament: Tournament, now: datetime) -> None:
    if tournament.status == TournamentStatus.CANCELLED:
        raise _bad("cancelled", "this tournament was cancelled")
    if tournament.status not in ACTIVE or tournament.starts_at <= now:
        raise _bad("started", "this event has started: it can no longer be changed")


def _players(tournament: Tournament) -> list[int]:
    """The registered people's ids (house bots get no notices), ascending."""
    return sorted(tournament.registrations.filter(user__is_bot=False).values_list("user_id", flat=True))


def _tell(tournament_id: int, user_ids: list[int]) -> None:
    """After the commit: the event's page and each player's banner socket re-read their state."""
    message = {"type": "tournament.changed", "tournament": tournament_id}
    send_on_commit([(tournament_banner_group(u), message) for u in user_ids])
    live.tournament_changed(tournament_id)


@transaction.atomic
def event_edit(*, user: User | AnonymousUser, tournament_id: int, event: EventFields,
               now: datetime | None = None) -> list[str]:
    """Change an event before it starts (its club and creator stay). Each registered person gets a
    notice (kind edited, ``round`` = this edit's number, ``text`` the changed fields) when a field of
    :data:`NOTICE_FIELDS` changed; the page and their banners are told after the commit. An entry code
    left empty keeps the event's code (or gets a new one when the access just became code).

    :returns: the names of the changed columns (empty: nothing changed, nothing sent).
    :raises TournamentError: :func:`validate`'s codes; ``no_such_tournament``, ``not_organiser``,
        ``cancelled``, ``started``; ``max_below_field`` (a maximum field below the players
        registered); ``entry_code_taken`` (a newly chosen code is another upcoming or running event's).
    """
    now = now or timezone.now()
    tournament = _organised(tournament_id, user)
    _before_start(tournament, now)
    event = validate(replace(event, club=tournament.club), now=now)
    registered = tournament.registrations.count()
    if event.max_players < registered:
        raise _bad("max_below_field", f"{registered} players are registered: the maximum field is below it")
    columns = _columns(event)
    if event.access == TournamentAccess.CODE:
        columns["entry_code"] = _entry_code(event.entry_code, keep=tournament.entry_code,
                                            other_than=tournament.pk)
    else:
        columns["entry_code"] = ""
    changed = [name for name, value in columns.items() if getattr(tournament, name) != value]
    if not changed:
        return []
    for name in changed:
        setattr(tournament, name, columns[name])
    tournament.edited_at = now
    tournament.save(update_fields=[*changed, "edited_at"])
    notable = [name for name in changed if name in NOTICE_FIELDS]
    players = _players(tournament) if notable else []
    if players:
        last = TournamentNotice.objects.filter(tournament=tournament, kind=NoticeKind.EDITED).aggregate(
            n=Max("round"))["n"] or 0
        TournamentNotice.objects.bulk_create([
            TournamentNotice(user_id=u, tournament=tournament, kind=NoticeKind.EDITED, round=last + 1,
                             text=",".join(notable)) for u in players
        ], ignore_conflicts=True)
    _tell(tournament.pk, players)
    return changed


@transaction.atomic
def event_cancel(*, user: User | AnonymousUser, tournament_id: int, note: str = "",
                 now: datetime | None = None) -> bool:
    """Cancel an event before it starts: status cancelled, ``cancelled_note`` = ``note``, a notice (kind
    cancelled, its text the note) to each registered person, the page and their banners told after the
    commit. Idempotent: an event already cancelled returns False and changes nothing.

    :raises TournamentError: ``no_such_tournament``, ``not_organiser``, ``started``, ``note`` (a NUL, or
        over 300 characters).
    """
    now = now or timezone.now()
    tournament = _organised(tournament_id, user)
    if tournament.status == TournamentStatus.CANCELLED:
        return False
    note = _clean_text(note, "the note", "note")
    if len(note) > NOTE_LENGTH:
        raise _bad("note", f"the note must be at most {NOTE_LENGTH} characters")
    _before_start(tournament, now)
    tournament.status = TournamentStatus.CANCELLED
    tournament.cancelled_note = note
    tournament.finished_at = now
    tournament.save(update_fields=["status", "cancelled_note", "finished_at"])
    players = _players(tournament)
    TournamentNotice.objects.bulk_create([
        TournamentNotice(user_id=u, tournament=tournament, kind=NoticeKind.CANCELLED, round=0, text=note)
        for u in players
    ], ignore_conflicts=True)
    _tell(tournament.pk, players)
    return True


def _registered(tournament: Tournament, username: str) -> Registration:
    """The registration of ``username`` (case-insensitive) in ``tournament``.

    :raises TournamentError: ``not_registered`` (a stranger to the event, or no such member).
    """
    registration = Registration.objects.filter(
        tournament=tournament, user__username__iexact=(username or "").strip()).select_related("user").first()
    if registration is None:
        raise _bad("not_registered", f"{username!r} is not a player of this event")
    return registration


def _swiss_not_finished(tournament: Tournament) -> None:
    if tournament.format != TournamentFormat.SWISS:
        raise _bad("not_swiss", "forbidden pairings are for Swiss events")
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise _bad("finished", "this event is over")


@transaction.atomic
def forbidden_pairing_add(*, user: User | AnonymousUser, tournament_id: int, first: str, second: str) -> bool:
    """Never pair the players ``first`` and ``second`` (usernames) from the next round on (the Swiss
    pairing avoids them unless no pairing of the field can: ``tournaments.swiss`` rule 0).

    :returns: False when the pair was forbidden already (nothing changes).
    :raises TournamentError: ``no_such_tournament``, ``not_organiser``, ``not_swiss``, ``finished``
        (finished or cancelled), ``not_registered`` (either is not a player of the event), ``same``.
    """
    tournament = _organised(tournament_id, user)
    _swiss_not_finished(tournament)
    a, b = _registered(tournament, first).user_id, _registered(tournament, second).user_id
    if a == b:
        raise _bad("same", "a player cannot be forbidden to meet themselves")
    _, made = ForbiddenPairing.objects.get_or_create(tournament=tournament, player_a_id=min(a, b),
                                                     player_b_id=max(a, b))
    if made:
        live.tournament_changed(tournament.pk)
    return made


@transaction.atomic
def forbidden_pairing_remove(*, user: User | AnonymousUser, tournament_id: int, pairing_id: int) -> bool:
    """Allow a forbidden pair to meet again. False when no such forbidden pair (a double click).

    :raises TournamentError: ``no_such_tournament``, ``not_organiser``, ``not_swiss``, ``finished``.
    """
    tournament = _organised(tournament_id, user)
    _swiss_not_finished(tournament)
    deleted, _ = ForbiddenPairing.objects.filter(tournament=tournament, pk=pairing_id).delete()
    if deleted:
        live.tournament_changed(tournament.pk)
    return bool(deleted)


@transaction.atomic
def player_withdraw(*, user: User | AnonymousUser, tournament_id: int, username: str) -> str:
    """An organiser takes ``username`` out of the event: before the start the registration is removed
    (with its forbidden pairs); once it runs the player is withdrawn (``withdrawn`` and
    ``withdrawn_by_organiser``: never paired again, keeps its points).

    :returns: ``"removed"``, ``"withdrawn"``, or ``"already"`` (withdrawn before: nothing changes).
    :raises TournamentError: ``no_such_tournament``, ``not_organiser``, ``not_registered``,
        ``finished`` (finished or cancelled).
    """
    tournament = _organised(tournament_id, user)
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise _bad("finished", "this event is over")
    registration = _registered(tournament, username)
    if tournament.status in ACTIVE:
        ForbiddenPairing.objects.filter(tournament=tournament).filter(
            Q(player_a_id=registration.user_id) | Q(player_b_id=registration.user_id)).delete()
        registration.delete()
        _tell(tournament.pk, [registration.user_id])
        return "removed"
    if registration.withdrawn:
        return "already"
    registration.withdrawn = True
    registration.withdrawn_by_organiser = True
    registration.save(update_fields=["withdrawn", "withdrawn_by_organiser"])
    _tell(tournament.pk, [registration.user_id])
    return "withdrawn"


def event_fields_of(tournament: Tournament) -> EventFields:
    """An event's current choices (the edit form's initial values)."""
    values = {f.name: getattr(tournament, f.name) for f in fields(EventFields)
              if f.name not in ("name", "rounds") and hasattr(tournament, f.name)}
    return EventFields(name=tournament.name_en, rounds=tournament.fixed_rounds, **values)
