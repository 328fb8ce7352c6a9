"""Tournament writes (HackSoft services): the schedule, registration and every lifecycle step.

Each lifecycle step (:func:`tournament_open`, :func:`tournament_start`, :func:`round_pair`,
:func:`round_record`, :func:`tournament_finish`) locks the tournament row (``select_for_update``) and
checks its status first, so a duplicate, concurrent or late call changes nothing and returns False.
:func:`tournaments_ensure` relies on the unique ``(schedule, starts_at)``. Live pages are told after the
commit (``tournaments.live``).
"""

from __future__ import annotations

import dataclasses
import hmac
import logging
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Standing, User
from accounts.services import house_bot_pool
from clubs.models import ClubMember
from engine.deck import sub_seed
from games.models import Match, MatchStatus, ResultReason
from games.selectors import aborter_seat, seats_acted
from games.services import GameError, active_rated_match_id, match_create_seated, match_resign
from infra import fault_points
from tournaments import access, arena_play, closing, live, selectors, swiss
from tournaments.errors import TournamentError
from tournaments.models import (
    ForbiddenPairing,
    Frequency,
    Pairing,
    Registration,
    Round,
    RoundStatus,
    Tournament,
    TournamentAccess,
    TournamentFormat,
    TournamentSchedule,
    TournamentStatus,
    default_rounds,
)
from tournaments.steps import step_enqueue

log = logging.getLogger(__name__)

HORIZON = timedelta(days=7)
"""How far ahead :func:`tournaments_ensure` creates tournaments."""
NO_SHOW_SECONDS = 60
"""A person who has made no move this long after their match started loses it by forfeit (at least:
see :func:`no_show_seconds`)."""
FIRST_CLOCK_GRACE_SECONDS = 60
"""A board's player's first turn clock starts when they open the table, or this long after the
pairing, whichever comes first (``games.services.match_create_seated(first_clock_grace=...)``)."""
NO_SHOWS_TO_WITHDRAW = 2
"""Consecutive no-shows after which a player is withdrawn."""
BOT_LEVELS_BY_ELO = (1, 2, 3, 4, 5)


# --------------------------------------------------------------------------------------------- schedule


def schedule_starts(schedule: TournamentSchedule, *, start: datetime, end: datetime) -> list[datetime]:
    """The schedule's start times in ``[start, end)`` (UTC), in order."""
    out = []
    step = timedelta(hours=1) if schedule.frequency == Frequency.HOURLY else timedelta(days=1)
    first = start.astimezone(UTC).replace(minute=schedule.time_of_day.minute, second=0, microsecond=0)
    if schedule.frequency == Frequency.DAILY:
        first = first.replace(hour=schedule.time_of_day.hour)
    first -= step
    moment = first
    while moment < end:
        if moment >= start and str(moment.weekday()) in schedule.days_of_week:
            out.append(moment)
        moment += step
    return out


def tournaments_ensure(*, now: datetime | None = None) -> int:
    """Create the tournaments of every enabled schedule starting in the next 7 days (lichess's
    "ensure schedule"); idempotent: the unique ``(schedule, starts_at)`` makes a repeated, duplicated or
    concurrent run create nothing extra. Returns how many rows were created."""
    now = now or timezone.now()
    created = 0
    for schedule in TournamentSchedule.objects.filter(enabled=True):
        have = set(Tournament.objects.filter(schedule=schedule, starts_at__gte=now)
                   .values_list("starts_at", flat=True))
        for starts_at in schedule_starts(schedule, start=now, end=now + HORIZON):
            if starts_at in have:
                continue
            try:
                with transaction.atomic():
                    Tournament.objects.create(
                        schedule=schedule, starts_at=starts_at, name_en=schedule.name_en,
                        name_pt=schedule.name_pt, rules_preset=schedule.rules_preset,
                        match_target=schedule.match_target, turn_timer_seconds=schedule.turn_timer_seconds,
                        fixed_rounds=schedule.rounds, max_rounds=schedule.max_rounds,
                        min_players=schedule.min_players, max_players=schedule.max_players,
                    )
                created += 1
            except IntegrityError:  # another beat made it first
                continue
    return created


def _locked(tournament_id: int) -> Tournament | None:
    return Tournament.objects.select_for_update().filter(pk=tournament_id).first()


@transaction.atomic
def tournament_open(*, tournament_id: int) -> bool:
    """Open registration (``scheduled`` -> ``open``). False (no change) in any other status."""
    tournament = _locked(tournament_id)
    if tournament is None or tournament.status != TournamentStatus.SCHEDULED:
        return False
    tournament.status = TournamentStatus.OPEN
    tournament.save(update_fields=["status"])
    live.tournament_changed(tournament.pk)
    return True


@transaction.atomic
def tournaments_open_scheduled() -> list[int]:
    """Open registration of every ``scheduled`` tournament at once (``scheduled`` -> ``open``): one
    UPDATE and one batch of live notices after the commit, where one ``open`` task each would be a week
    of them on a fresh site (182 tasks and 182 pushes). The beat sweep (``tournaments.tasks.advance``)
    runs it. Idempotent: the rows are locked and their status checked again, so a concurrent sweep or
    :func:`tournament_open` opens each tournament once. Returns the ids opened, ascending ([] if none)."""
    ids = list(Tournament.objects.select_for_update().filter(status=TournamentStatus.SCHEDULED)
               .order_by("pk").values_list("pk", flat=True))
    if ids:
        Tournament.objects.filter(pk__in=ids, status=TournamentStatus.SCHEDULED).update(
            status=TournamentStatus.OPEN)
        live.tournaments_changed(ids)
    return ids


# --------------------------------------------------------------------------------------------- players


def _check_member(user: User | AnonymousUser) -> User:
    """``user``, a member who may join tournaments.

    :raises TournamentError: ``not_authenticated``, ``guest`` (guests and bots), ``standing`` (an
        account marked or closed for a fair-play violation: docs/fairplay.md).
    """
    if not user.is_authenticated:
        raise TournamentError("not_authenticated", "log in to join a tournament")
    if user.is_bot or user.is_guest:
        raise TournamentError("guest", "sign up to join tournaments: guests cannot join")
    if user.standing != Standing.GOOD:
        raise TournamentError("standing", "this account may not join tournaments (fair play)")
    return user


@transaction.atomic
def tournament_join(
    *, tournament_id: int, user: User | AnonymousUser, code: str | None = None, unlocked: bool = False
) -> Registration:
    """Register ``user`` for an upcoming tournament (or a running Arena event before its ``ends_at``: an
    Arena is joined late, its next pairing wave picks the player up). Joining twice is answered with
    the existing registration (a double click changes nothing).

    Who may join (docs/tournaments.md "Events people make"): a club event (``access`` club) its club's
    members and organisers; a code event (``access`` code) whoever gives ``code`` equal to its
    ``entry_code`` (compared in constant time) and its organisers without one; a rating range
    (``rating_min``/``rating_max``, inclusive) is checked against ``selectors.rating_of(user)`` now.

    One rated match at a time: a tournament whose expected time (``selectors.expected_window``) overlaps
    one ``user`` is registered for is refused. The user's row is locked after the tournament's (FOR NO
    KEY UPDATE, as ``games.services.match_create_vs_bot`` does), so two joins of two overlapping events
    at once are serialized and the second sees the first. Joining while seated in a rated match is
    allowed: the tournament has not started yet (its pairing step deals with a player still busy then).

    :raises TournamentError: ``no_such_tournament``, ``not_authenticated``, ``guest`` (guests and bots),
        ``standing`` (marked or closed for fair play), ``bot_accounts_not_allowed`` (a BOT account, and
        the organiser did not allow them: ``Tournament.bot_accounts_allowed``), ``started`` (running or
        finished), ``cancelled``,
        ``full`` (``max_players`` reached), ``club_only`` (not a member of the event's club),
        ``code`` (a code event and a missing or wrong ``code``), ``rating_low`` / ``rating_high``
        (outside the event's rating range),
        ``overlap`` (``other``: the registered tournament whose time overlaps this one's).
    """
    user = _check_member(user)
    tournament = _locked(tournament_id)
    # The tournament row first, then the user's, as round_pair does (one lock order: no deadlock).
    # The standing read under the lock: a moderator's mark committed meanwhile is seen.
    standing = User.objects.select_for_update(no_key=True).filter(pk=user.pk).values_list(
        "standing", flat=True).first()
    if tournament is None:
        raise TournamentError("no_such_tournament", "no such tournament")
    if standing != Standing.GOOD:
        raise TournamentError("standing", "this account may not join tournaments (fair play)")
    existing = Registration.objects.filter(tournament=tournament, user=user).first()
    if existing is not None:
        return existing
    if user.bot_account and not tournament.bot_accounts_allowed:
        # a program enters only where the organiser said so (docs/tournaments.md, docs/bot-api.md)
        raise TournamentError("bot_accounts_not_allowed", "this tournament does not accept BOT accounts")
    if tournament.status == TournamentStatus.CANCELLED:
        raise TournamentError("cancelled", "this tournament was cancelled")
    late = arena_play.arena_open_for_join(tournament, timezone.now())
    if not late and (tournament.status not in (TournamentStatus.SCHEDULED, TournamentStatus.OPEN) or (
        tournament.starts_at <= timezone.now()
    )):
        raise TournamentError("started", "this tournament has already started: registration is closed")
    if tournament.registrations.count() >= tournament.max_players:
        raise TournamentError("full", f"this tournament is full ({tournament.max_players} players)")
    _check_entry(tournament, user, code, unlocked=unlocked)
    other = selectors.overlapping_tournament(user=user, tournament=tournament)
    if other is not None:
        raise TournamentError(
            "overlap", f"this tournament's time overlaps tournament {other.pk} ({other.name_en}, starting "
            f"{other.starts_at:%Y-%m-%d %H:%M} UTC), which you have joined: one rated match at a time",
            other=other,
        )
    registration = Registration.objects.create(tournament=tournament, user=user)
    if late:
        arena_play.arena_joined(registration, now=timezone.now(), bot_levels=bot_levels_for)
    live.tournament_changed(tournament.pk)
    return registration


def _check_entry(tournament: Tournament, user: User, code: str | None, *, unlocked: bool = False) -> None:
    """May ``user`` enter ``tournament`` (its access and rating range)? Organisers enter their own
    event whatever its access; the rating range holds for everyone. ``unlocked``: this session gave the
    event's code already (``tournaments.access.unlock``, the page's ``?code=`` link or the code form).

    :raises TournamentError: ``club_only``, ``code``, ``rating_low``, ``rating_high``.
    """
    organiser = access.organises(tournament, user)
    if tournament.access == TournamentAccess.CLUB and not organiser and not ClubMember.objects.filter(
            club_id=tournament.club_id or 0, user_id=user.pk).exists():
        raise TournamentError("club_only", "this event is for its club's members only")
    if tournament.access == TournamentAccess.CODE and not organiser and not unlocked:
        given = (code or "").strip().encode()
        if not given or not hmac.compare_digest(given, tournament.entry_code.encode()):
            raise TournamentError("code", "this event needs its entry code: the code is missing or wrong")
    if tournament.rating_min is not None or tournament.rating_max is not None:
        rating = selectors.rating_of(user)
        if tournament.rating_min is not None and rating < tournament.rating_min:
            raise TournamentError("rating_low", f"your rating {rating:.0f} is below this event's lowest, "
                                  f"{tournament.rating_min}")
        if tournament.rating_max is not None and rating > tournament.rating_max:
            raise TournamentError("rating_high", f"your rating {rating:.0f} is above this event's highest, "
                                  f"{tournament.rating_max}")


@transaction.atomic
def tournament_leave(*, tournament_id: int, user: User) -> bool:
    """Withdraw ``user``'s registration before the start. False when not registered (a double click).

    :raises TournamentError: ``no_such_tournament``, ``started`` (running, finished or cancelled:
        after the start a player keeps its place and its points).
    """
    tournament = _locked(tournament_id)
    if tournament is None:
        raise TournamentError("no_such_tournament", "no such tournament")
    registration = Registration.objects.filter(tournament=tournament, user_id=user.pk).first()
    if registration is None:
        return False
    if tournament.status not in (TournamentStatus.SCHEDULED, TournamentStatus.OPEN) or (
        tournament.starts_at <= timezone.now()
    ):
        raise TournamentError("started", "this tournament has started: you can no longer leave it")
    registration.delete()
    live.tournament_changed(tournament.pk)
    return True


def fairplay_lock(*, user_id: int) -> None:
    """Lock the tournaments ``user_id`` is registered for, in id order: a moderator's action calls this
    before it locks the user's row, keeping the one lock order (tournament, then user) of
    :func:`tournament_join` and ``round_pair``, so an action and a join at once never deadlock."""
    list(Tournament.objects.select_for_update(of=("self",)).filter(registrations__user_id=user_id).order_by("pk")
         .values_list("pk", flat=True))


def fairplay_remove(*, user_id: int, closed: bool, now: datetime | None = None) -> dict[str, list[int]]:
    """What a moderator's action on ``user_id`` does to its tournaments (docs/fairplay.md), in the
    caller's transaction, each tournament row locked as the other steps lock it:

    - tournaments not started (scheduled, open): the registration is removed (marked or closed);
    - when ``closed``: a running tournament withdraws the player (never paired again); every running or
      finished tournament it played a round of gets ``recomputed_at`` = ``now`` (its page says the
      standings were recomputed: ``selectors.standings_of`` leaves closed accounts out), and a finished
      one whose winner it was gets the new first of the standings as its winner.

    :returns: ``{"unregistered": [tournament ids], "withdrawn": [...], "recomputed": [...]}``.
    """
    now = now or timezone.now()
    out: dict[str, list[int]] = {"unregistered": [], "withdrawn": [], "recomputed": []}
    tournament_ids = list(Registration.objects.filter(user_id=user_id).order_by("tournament_id")
                          .values_list("tournament_id", flat=True))
    for tournament_id in tournament_ids:
        tournament = _locked(tournament_id)
        if tournament is None:
            continue
        registration = Registration.objects.filter(tournament=tournament, user_id=user_id).first()
        if registration is None:
            continue
        if tournament.status in (TournamentStatus.SCHEDULED, TournamentStatus.OPEN):
            registration.delete()
            out["unregistered"].append(tournament.pk)
        elif closed and tournament.status in (TournamentStatus.RUNNING, TournamentStatus.FINISHED):
            if tournament.status == TournamentStatus.RUNNING and not registration.withdrawn:
                registration.withdrawn = True
                registration.save(update_fields=["withdrawn"])
                out["withdrawn"].append(tournament.pk)
            if not tournament.current_round:
                continue
            tournament.recomputed_at = now
            fields = ["recomputed_at"]
            if tournament.status == TournamentStatus.FINISHED and tournament.winner_id == user_id:
                standings = selectors.standings_of(tournament)
                tournament.winner_id = int(standings[0].line.player) if standings else None
                fields.append("winner")
            tournament.save(update_fields=fields)
            out["recomputed"].append(tournament.pk)
        else:
            continue
        live.tournament_changed(tournament.pk)
    return out


def bot_levels_for(ratings: list[float], count: int) -> list[int]:
    """Levels of ``count`` house bots "around the field's ratings": the k-th bot takes the level whose
    fixed Elo is nearest to the k-th of the people's ratings (cycled, strongest first), so a field of
    beginners meets weak bots and a strong field strong ones."""
    if count <= 0:
        return []
    targets = sorted(ratings or [selectors.DEFAULT_RATING], reverse=True)
    levels = []
    for k in range(count):
        target = targets[k % len(targets)]
        levels.append(min(BOT_LEVELS_BY_ELO, key=lambda lv: (abs(selectors.bot_elo(lv) - target), lv)))
    return levels


@transaction.atomic
def tournament_start(*, tournament_id: int, now: datetime | None = None, bots_only: bool = False) -> bool:
    """Start a tournament whose start time has come: cancelled when no person joined (or, an event
    without house bots, ``bots_allowed`` off, when a Swiss field has fewer than 2 players:
    ``cancelled_note`` says so); otherwise house bots (when allowed) fill the field up to
    ``min_players`` (levels from :func:`bot_levels_for`, several accounts per level), ratings are
    fixed, the number of rounds is set and round 1 is paired (after the commit, by its own step).
    False (no change) when not open/scheduled or not yet due.

    :param bots_only: run a field of house bots only (``manage.py tournament_simulate``)."""
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament is None or tournament.status not in (TournamentStatus.SCHEDULED, TournamentStatus.OPEN):
        return False
    if tournament.starts_at > now + start_early():
        return False
    registrations = list(tournament.registrations.select_related("user"))
    people = [r for r in registrations if not r.user.is_bot]
    if not people and not (bots_only and registrations):
        tournament.status = TournamentStatus.CANCELLED
        tournament.finished_at = now
        tournament.save(update_fields=["status", "finished_at"])
        live.tournament_changed(tournament.pk)
        return True
    if (not tournament.bots_allowed and tournament.format == TournamentFormat.SWISS
            and len(registrations) < 2):
        tournament.status = TournamentStatus.CANCELLED
        tournament.finished_at = now
        tournament.cancelled_note = "Fewer than two players joined, and house bots are not allowed."
        tournament.save(update_fields=["status", "finished_at", "cancelled_note"])
        live.tournament_changed(tournament.pk)
        return True
    if tournament.format == TournamentFormat.ARENA:  # waves, not rounds (tournaments.arena_play)
        return arena_play.arena_started(tournament, registrations, now=now, bots_only=bots_only,
                                        bot_levels=bot_levels_for)
    for registration in registrations:
        registration.rating = selectors.rating_of(registration.user)
    missing = tournament.min_players - len(registrations) if tournament.bots_allowed else 0
    levels = bot_levels_for([r.rating for r in people if r.rating is not None], missing)
    seated = {r.user_id for r in registrations}
    for level in sorted(set(levels)):
        need = levels.count(level)
        pool = house_bot_pool(level=level, count=need + sum(1 for r in registrations if r.user.is_bot))
        free = [bot for bot in pool if bot.pk not in seated][:need]
        for bot in free:
            registrations.append(
                Registration(tournament=tournament, user=bot, rating=selectors.bot_elo(level))
            )
            seated.add(bot.pk)
    Registration.objects.bulk_create([r for r in registrations if r.pk is None])
    Registration.objects.bulk_update([r for r in registrations if r.pk is not None], ["rating"])
    size = len(registrations)
    rounds = tournament.fixed_rounds or default_rounds(size, tournament.max_rounds)
    tournament.rounds = max(1, min(rounds, size - 1 if size % 2 == 0 else size))
    tournament.status = TournamentStatus.RUNNING
    tournament.started_at = now
    tournament.save(update_fields=["status", "started_at", "rounds"])
    tid = tournament.pk
    transaction.on_commit(lambda: step_enqueue("tournaments.tasks.pair_round", tid, 1))
    live.tournament_changed(tid)
    return True


# --------------------------------------------------------------------------------------------- rounds


def no_show_seconds(tournament: Tournament) -> int:
    """Seconds after a board's match started at which a person with no move of their own is a no-show:
    :data:`NO_SHOW_SECONDS`, but never before their first clock could have run out (the grace plus one
    turn timer: 60 + 30 = 90 s for the shipped schedules), so a player who arrives within the grace is
    never forfeited while their first turn's clock still runs."""
    return max(NO_SHOW_SECONDS, FIRST_CLOCK_GRACE_SECONDS + tournament.turn_timer_seconds)


def _create_match(tournament: Tournament, number: int, board: int, player0: User, player1: User) -> Match:
    """A tournament match through the games app, with the schedule's turn timer; rated when the event
    is (``tournament.rated``; a casual event's matches never are) and not both seats are house bots
    (the ratings path rates it when it finishes). A simulated tournament's match
    (``tournament.simulation_seed``) is seeded by ``sub_seed(simulation_seed, "match", number, board)``
    (round ``number``, ``board``): never by ids, so every database plays the same tournament."""
    seed = tournament.simulation_seed
    match = match_create_seated(
        player0=player0, player1=player1, rules_preset=tournament.rules_preset,
        target=tournament.match_target, turn_timer=tournament.turn_timer_seconds,
        simulation_seed=None if seed is None else sub_seed(seed, "match", number, board),
        first_clock_grace=FIRST_CLOCK_GRACE_SECONDS,
        private_event=access.is_private(tournament),  # its replay is never public: tournaments.access
    )
    rated = tournament.rated and not (player0.is_bot and player1.is_bot)
    if match.rated != rated:
        Match.objects.filter(pk=match.pk).update(rated=rated)
        match.rated = rated
    return match


@transaction.atomic
def round_pair(*, tournament_id: int, number: int) -> bool:
    """Pair round ``number`` (Swiss, ``tournaments.swiss``) and start its matches at once; a bye scores
    1 at once. A player already seated in another rated match (:func:`_busy_players`) loses the board by
    forfeit at once and no match is started for it (one rated match at a time). Only when the
    tournament runs, ``number`` is the next round and the previous one has ended (every match
    recorded); otherwise False and nothing changes. The organisers' forbidden pairings
    (:class:`ForbiddenPairing`) reach the pairing as each player's ``forbidden`` ids."""
    tournament = _locked(tournament_id)
    if tournament is None or tournament.status != TournamentStatus.RUNNING:
        return False
    if number != tournament.current_round + 1 or tournament.rounds is None or number > tournament.rounds:
        return False
    if number > 1 and not Round.objects.filter(tournament=tournament, number=number - 1,
                                               status=RoundStatus.FINISHED).exists():
        return False
    barred: dict[str, set[str]] = {}
    forbidden = ForbiddenPairing.objects.filter(tournament=tournament)
    for low, high in forbidden.values_list("player_a_id", "player_b_id"):
        barred.setdefault(str(low), set()).add(str(high))
        barred.setdefault(str(high), set()).add(str(low))
    pairing = swiss.pair_round([
        dataclasses.replace(player, forbidden=frozenset(barred.get(player.id, ())))
        for player in selectors.swiss_field(tournament)
    ])
    users = {u.pk: u for u in User.objects.filter(tournament_registrations__tournament=tournament)}
    busy = _busy_players(tournament, [int(pk) for pair in pairing.pairs for pk in pair])
    round_ = Round.objects.create(tournament=tournament, number=number)
    boards = []
    for board, (a, b) in enumerate(pairing.pairs, start=1):
        p0, p1 = users[int(a)], users[int(b)]
        if p0.is_bot and not p1.is_bot:
            p0, p1 = p1, p0  # the person at seat 0, the bot at seat 1, as at a bot table
        if p0.pk in busy or p1.pk in busy:
            # One rated match at a time: a player seated in another rated match loses this board by
            # forfeit, no match is started (both busy: both lose), as a no-show would.
            points = [int(p0.pk not in busy), int(p1.pk not in busy)]
            boards.append(Pairing(round=round_, board=board, player0=p0, player1=p1, forfeit=True,
                                  points=points, hand_points=[0, 0]))
            continue
        boards.append(Pairing(round=round_, board=board, player0=p0, player1=p1,
                              match=_create_match(tournament, number, board, p0, p1)))
    if pairing.bye is not None:
        boards.append(Pairing(round=round_, board=len(pairing.pairs) + 1, player0=users[int(pairing.bye)],
                              points=[1, 0], hand_points=[0, 0]))
    Pairing.objects.bulk_create(boards)
    fault_points.reached("tournaments.pair_round")  # the fault runs' SIGKILL lands here (docs/faults.md)
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])
    live.round_started(tournament.pk, [p.player0_id for p in boards] + [p.player1_id for p in boards
                                                                          if p.player1_id is not None])
    if all(board.done for board in boards):  # a lone player, or every board forfeited: over at once
        transaction.on_commit(lambda: step_enqueue("tournaments.tasks.record_round", tournament_id))
    return True


def _busy_players(tournament: Tournament, user_ids: list[int]) -> set[int]:
    """The people among ``user_ids`` seated in an active rated match (a bot match, a friend table, another
    tournament's board) as this round is paired; each counts a no-show (``NO_SHOWS_TO_WITHDRAW`` in a
    row withdraw them). Their rows are locked first (FOR NO KEY UPDATE, ascending ids: the lock
    ``games.services.match_create_vs_bot`` takes), so a bot match being created now either committed
    before this check or sees this round's match when this commits and is refused."""
    people = sorted(set(User.objects.filter(pk__in=user_ids, is_bot=False).values_list("pk", flat=True)))
    list(User.objects.select_for_update(no_key=True).filter(pk__in=people).order_by("pk").values_list("pk"))
    busy = {pk for pk in people if active_rated_match_id(user_id=pk) is not None}
    for registration in Registration.objects.filter(tournament=tournament, user_id__in=busy):
        registration.no_shows += 1
        registration.withdrawn = registration.withdrawn or registration.no_shows >= NO_SHOWS_TO_WITHDRAW
        registration.save(update_fields=["no_shows", "withdrawn"])
    if busy:
        log.info("tournament %s: players %s are in another rated match: their boards are forfeited",
                 tournament.pk, sorted(busy))
    return busy


def _moved(match: Match, seat: int) -> bool:
    """True when ``seat`` has made a move of its own or resigned (``games.selectors.seats_acted``: not
    an automatic move at its deadline)."""
    return seat in seats_acted(match_id=match.pk)


@transaction.atomic
def round_record(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Record the current round's finished matches (points, hand points), forfeit no-shows (a person
    with no move of their own :func:`no_show_seconds` after the match started loses it; two no-shows in a
    row withdraw them), and when every board is recorded close the round and enqueue the next step
    (pair the next round, or finish). Returns True when anything changed."""
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament is None or tournament.status != TournamentStatus.RUNNING or not tournament.current_round:
        return False
    round_ = Round.objects.filter(tournament=tournament, number=tournament.current_round).first()
    if round_ is None or round_.status != RoundStatus.PLAYING:
        return False
    changed = False
    absent: list[int] = []
    registrations = {r.user_id: r for r in tournament.registrations.select_related("user")}
    for pairing in round_.pairings.select_related("match", "player0", "player1"):
        if pairing.done or pairing.match is None:
            continue
        match = pairing.match
        absent = []
        if match.status == MatchStatus.ACTIVE and match.started_at is not None and (
            now - match.started_at >= timedelta(seconds=no_show_seconds(tournament))
        ):
            absent = [seat for seat, user in enumerate((pairing.player0, pairing.player1))
                      if user is not None and not user.is_bot and not _moved(match, seat)]
            if absent:
                loser = pairing.player0 if absent[0] == 0 else pairing.player1
                assert loser is not None
                try:
                    match_resign(match_id=match.pk, user=loser, forfeit=True)  # never the player's abort
                except GameError:  # it ended meanwhile: recorded below as played
                    absent = []
                match.refresh_from_db()
                pairing.forfeit = bool(absent)
                for seat in absent:
                    player_id = match.player_id(seat)
                    assert player_id is not None  # a tournament board has both seats filled
                    registration = registrations[player_id]
                    registration.no_shows += 1
                    if registration.no_shows >= NO_SHOWS_TO_WITHDRAW:
                        registration.withdrawn = True
                    registration.save(update_fields=["no_shows", "withdrawn"])
        if match.status not in (MatchStatus.FINISHED, MatchStatus.ABORTED):
            continue
        if pairing.forfeit:
            # The no-show loses whatever the match recorded (a rated match resigned before both
            # players moved is aborted, not won); both absent: both lose.
            present = [seat for seat in (0, 1) if seat not in absent]
            pairing.points = [1 if seat in present else 0 for seat in (0, 1)]
        else:
            winner = match.winner
            if winner is None and match.result_reason == ResultReason.ABORTED:
                # A player aborted (resigned before both moved: a free abort, not rated): the board is
                # still theirs to lose, the opponent scores it.
                aborter = aborter_seat(match_id=match.pk)
                winner = None if aborter is None else 1 - aborter
            pairing.points = [1 if winner == 0 else 0, 1 if winner == 1 else 0]
        pairing.hand_points = list(match.scores or [0, 0])
        pairing.save(update_fields=["points", "hand_points", "forfeit"])
        if not pairing.forfeit:
            for seat in (0, 1):
                player_id = match.player_id(seat)
                assert player_id is not None  # a tournament board has both seats filled
                registration = registrations[player_id]
                if not registration.user.is_bot and registration.no_shows and _moved(match, seat):
                    registration.no_shows = 0
                    registration.save(update_fields=["no_shows"])
        changed = True
    if round_.pairings.filter(points__isnull=True).exists():
        if changed:
            live.tournament_changed(tournament.pk)
        return changed
    round_.status = RoundStatus.FINISHED
    round_.finished_at = now
    round_.save(update_fields=["status", "finished_at"])
    tid, number = tournament.pk, round_.number
    if number < (tournament.rounds or 0) and _active_count(tournament) >= 2:
        transaction.on_commit(lambda: step_enqueue("tournaments.tasks.pair_round", tid, number + 1))
    else:
        transaction.on_commit(lambda: step_enqueue("tournaments.tasks.finish", tid))
    live.tournament_changed(tid)
    return True


def _active_count(tournament: Tournament) -> int:
    return tournament.registrations.filter(withdrawn=False).count()


@transaction.atomic
def tournament_finish(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Close a tournament whose last round ended (or whose field withdrew): the winner is first in the
    standings; each person's rating at the end is stored (the page shows the change over the event).
    False (no change) unless running with no round in play."""
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament is None or tournament.status != TournamentStatus.RUNNING:
        return False
    if Round.objects.filter(tournament=tournament, status=RoundStatus.PLAYING).exists():
        return False
    standings = selectors.standings_of(tournament)
    closing.event_close(tournament, winner_id=int(standings[0].line.player) if standings else None, now=now)
    return True


# --------------------------------------------------------------------------------------------- sweep


def start_early() -> timedelta:
    """``TOURNAMENTS_START_EARLY_SECONDS`` (default 0; a test setting): tournaments start this long
    before their start time, so a browser test need not wait for the hour."""
    return timedelta(seconds=float(getattr(settings, "TOURNAMENTS_START_EARLY_SECONDS", 0) or 0))


def tournaments_due(*, now: datetime | None = None) -> list[tuple[str, int]]:
    """The lifecycle steps due now, as (task name, tournament id): start the scheduled and open ones
    whose time has come, record the running ones' rounds (and pair/finish them when a message was
    lost). Opening the scheduled ones is no step of its own here: :func:`tournaments_open_scheduled`
    opens them all at once."""
    now = now or timezone.now()
    steps: list[tuple[str, int]] = []
    for tid in Tournament.objects.filter(status__in=(TournamentStatus.SCHEDULED, TournamentStatus.OPEN),
                                         starts_at__lte=now + start_early()).values_list("pk", flat=True):
        steps.append(("tournaments.tasks.start", tid))
    for tournament in Tournament.objects.filter(status=TournamentStatus.RUNNING):
        if tournament.format == TournamentFormat.ARENA:  # record, pair or finish: one wave
            steps.append(("tournaments.tasks.arena_wave", tournament.pk))
            continue
        playing = Round.objects.filter(tournament=tournament, status=RoundStatus.PLAYING).exists()
        if playing:
            steps.append(("tournaments.tasks.record_round", tournament.pk))
        elif tournament.current_round < (tournament.rounds or 0) and _active_count(tournament) >= 2:
            steps.append(("tournaments.tasks.pair_round", tournament.pk))
        else:
            steps.append(("tournaments.tasks.finish", tournament.pk))
    return steps
