"""Arena events' writes and reads (docs/tournaments.md "Arena"): the start, the waves, late joins, pause.

One place pairs: :func:`arena_wave`, the task ``tournaments.tasks.arena_wave``, enqueued after the commit
when an Arena match ends (``receivers``), on a join or a resume, and by the 5 s sweep
(``services.tournaments_due``) for every running Arena. A wave locks the tournament row, then the
registrations' rows (id order), then the waiting people's user rows (FOR NO KEY UPDATE, id order: the
lock of ``games.services.match_create_vs_bot``), so two waves at once run one after the other and the
second sees the first's games: nobody is ever seated in two matches (``Registration.arena_game`` is the
seat; a player is paired only while it is null).

The wave counter is ``Tournament.current_round`` (0 before the first wave; each wave that pairs anybody
adds one): a simulated event's match is seeded by ``sub_seed(simulation_seed, "arena", wave, board)``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.services import house_bot_pool
from engine.deck import sub_seed
from games.models import Match, MatchStatus, ResultReason
from games.selectors import aborter_seat
from games.services import active_rated_match_id, match_create_seated
from tournaments import arena, closing, live, selectors, steps
from tournaments.errors import TournamentError
from tournaments.models import ArenaGame, Registration, Tournament, TournamentFormat, TournamentStatus

log = logging.getLogger(__name__)

WAVE_TASK = "tournaments.tasks.arena_wave"


def _enqueue_wave(tournament_id: int) -> None:
    transaction.on_commit(lambda: steps.step_enqueue(WAVE_TASK, tournament_id))


MIN_HOUSE_BOTS = 2
"""House bots an Arena with ``bots_allowed`` always has: a person whose only free opponent is the one
they just met (never twice in a row) then meets a bot, so two people never wait for each other forever."""

BotLevels = Callable[[list[float], int], list[int]]


def _house_bots_add(tournament: Tournament, registrations: list[Registration], *, count: int, now: datetime,
                    bot_levels: BotLevels) -> list[Registration]:
    """Up to ``count`` house bots not yet in ``registrations``, at levels near the people's ratings
    (``bot_levels``: ``services.bot_levels_for``), waiting from ``now``; appended to ``registrations``
    unsaved and returned (the caller saves them)."""
    people = [r for r in registrations if not r.user.is_bot]
    levels = bot_levels([r.rating for r in people if r.rating is not None], count)
    seated = {r.user_id for r in registrations}
    added: list[Registration] = []
    for level in sorted(set(levels)):
        need = levels.count(level)
        pool = house_bot_pool(level=level, count=need + sum(1 for r in registrations if r.user.is_bot))
        for bot in [b for b in pool if b.pk not in seated][:need]:
            added.append(Registration(tournament=tournament, user=bot, rating=selectors.bot_elo(level),
                                      waiting_since=now))
            seated.add(bot.pk)
    registrations.extend(added)
    return added


def house_bots_wanted(tournament: Tournament, *, people: int, bots: int) -> int:
    """How many house bots to add to an Arena with ``people`` people and ``bots`` bots registered: with
    ``bots_allowed``, enough to fill the field to ``max(min_players, people + MIN_HOUSE_BOTS)`` and never
    fewer than :data:`MIN_HOUSE_BOTS` in all (a 2-person Arena gets 2 bots; 1 person with
    ``min_players`` 4 gets 3); without, 0. Never past ``max_players``."""
    if not tournament.bots_allowed:
        return 0
    field = max(tournament.min_players, people + MIN_HOUSE_BOTS)
    wanted = max(field - people - bots, MIN_HOUSE_BOTS - bots, 0)
    return max(0, min(wanted, tournament.max_players - people - bots))


def arena_started(tournament: Tournament, registrations: list[Registration], *, now: datetime,
                  bot_levels: BotLevels, bots_only: bool = False) -> bool:
    """The Arena branch of ``services.tournament_start`` (the tournament row locked, a person registered):
    with ``bots_allowed``, house bots fill the field (:func:`house_bots_wanted`: to
    ``max(min_players, people + 2)``, at least 2 bots), at levels near the people's ratings; the
    simulation (``bots_only``) fills to ``min_players`` only. Ratings are fixed; everybody waits from
    ``now``; status ``running``; the first wave is enqueued after the commit. ``bot_levels``:
    ``services.bot_levels_for`` (the Swiss start's choice of levels; services calls this, so it hands it
    over). Returns True."""
    for registration in registrations:
        registration.rating = selectors.rating_of(registration.user)
        registration.waiting_since = now
    bots = sum(1 for r in registrations if r.user.is_bot)
    if bots_only:
        missing = tournament.min_players - len(registrations)
    else:
        missing = house_bots_wanted(tournament, people=len(registrations) - bots, bots=bots)
    if missing > 0:
        _house_bots_add(tournament, registrations, count=missing, now=now, bot_levels=bot_levels)
    Registration.objects.bulk_create([r for r in registrations if r.pk is None])
    Registration.objects.bulk_update([r for r in registrations if r.pk is not None],
                                     ["rating", "waiting_since"])
    tournament.status = TournamentStatus.RUNNING
    tournament.started_at = now
    tournament.save(update_fields=["status", "started_at"])
    _enqueue_wave(tournament.pk)
    live.tournament_changed(tournament.pk)
    return True


def arena_open_for_join(tournament: Tournament, now: datetime) -> bool:
    """A running Arena takes new players until ``ends_at`` (``services.tournament_join``)."""
    return (tournament.format == TournamentFormat.ARENA and tournament.status == TournamentStatus.RUNNING
            and tournament.ends_at is not None and now < tournament.ends_at)


def arena_joined(registration: Registration, *, now: datetime, bot_levels: BotLevels) -> None:
    """A late join of a running Arena (in ``tournament_join``'s transaction, the tournament row locked):
    the rating is fixed now, the player waits from now, house bots are added if the event allows them
    and now has fewer than :func:`house_bots_wanted` says (an event started before the rule, or a field
    grown past its bots: the newcomer's rating picks their levels), and a wave is enqueued after the
    commit."""
    registration.rating = selectors.rating_of(registration.user)
    registration.waiting_since = now
    registration.save(update_fields=["rating", "waiting_since"])
    tournament = registration.tournament
    if tournament.bots_allowed:
        field = list(Registration.objects.filter(tournament=tournament).select_related("user"))
        bots = sum(1 for r in field if r.user.is_bot)
        missing = max(0, MIN_HOUSE_BOTS - bots)
        missing = min(missing, house_bots_wanted(tournament, people=len(field) - bots, bots=bots))
        if missing:
            Registration.objects.bulk_create(_house_bots_add(
                tournament, [r for r in field if r.user.is_bot] + [registration], count=missing, now=now,
                bot_levels=bot_levels))
    _enqueue_wave(registration.tournament_id)


@transaction.atomic
def arena_pause(*, tournament_id: int, user: User, paused: bool = True,
                now: datetime | None = None) -> Registration:
    """Leave (``paused=True``) or re-enter (``paused=False``, :func:`arena_resume`) the pairing queue of
    a running Arena. A paused player's match in play goes on; when it ends the player is not paired
    again. Resuming waits from now and enqueues a wave. Doing it twice changes nothing more.

    :raises TournamentError: ``no_such_tournament``, ``not_arena``, ``not_running`` (not started or over),
        ``not_registered``, ``withdrawn``.
    """
    now = now or timezone.now()
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentError("no_such_tournament", "no such tournament")
    if tournament.format != TournamentFormat.ARENA:
        raise TournamentError("not_arena", "only an Arena event has a pause")
    if tournament.status != TournamentStatus.RUNNING or (tournament.ends_at and now >= tournament.ends_at):
        raise TournamentError("not_running", "this Arena is not running: nothing to pause or resume")
    registration = Registration.objects.select_for_update().filter(tournament=tournament,
                                                                    user_id=user.pk).first()
    if registration is None:
        raise TournamentError("not_registered", "you have not joined this Arena")
    if registration.withdrawn:
        raise TournamentError("withdrawn", "you were withdrawn from this Arena")
    if registration.paused == paused:
        return registration
    registration.paused = paused
    fields = ["paused"]
    if not paused and registration.arena_game_id is None:
        registration.waiting_since = now
        fields.append("waiting_since")
        _enqueue_wave(tournament.pk)
    registration.save(update_fields=fields)
    live.tournament_changed(tournament.pk)
    return registration


def arena_resume(*, tournament_id: int, user: User, now: datetime | None = None) -> Registration:
    """:func:`arena_pause` with ``paused=False``: back in the queue, waiting from now."""
    return arena_pause(tournament_id=tournament_id, user=user, paused=False, now=now)


@dataclass(frozen=True)
class WaveResult:
    """What one :func:`arena_wave` did: matches recorded, pairs made, the wave's number (0: no pair),
    the event finished."""

    recorded: int = 0
    paired: int = 0
    wave: int = 0
    finished: bool = False
    pairing_seconds: float = 0.0


def _result(game: ArenaGame, match: Match) -> int | None:
    """The winning seat of a finished Arena match, or None (no result). A match one player aborted
    (resigned before both moved) is the opponent's win, as in the Swiss boards."""
    if match.winner is not None:
        return int(match.winner)
    if match.result_reason == ResultReason.ABORTED:
        aborter = aborter_seat(match_id=match.pk)
        return None if aborter is None else 1 - aborter
    return None


@transaction.atomic
def arena_wave(*, tournament_id: int, now: datetime | None = None) -> WaveResult:
    """One wave of a running Arena, under the row locks (module docstring):

    1. record every finished match: each seat's points (:func:`tournaments.arena.score_match`), score,
       streak, ``last_opponent``, ``waiting_since = now``, the seat freed (``arena_game`` null). A match
       started before ``ends_at`` and finished after it counts (it is played to its end);
    2. before ``ends_at``: pair the waiting (free, not paused, not withdrawn, and for a person not seated
       in another rated match) with :func:`tournaments.arena.pair_wave` and start their matches (a person
       at seat 0 against a bot; rated when the event is and not both are bots). In a simulation
       (``simulation_seed`` set) house bots count as people, so they may meet each other;
    3. at or after ``ends_at`` with no match in play: finish (winner: first of :func:`arena_standings`;
       each person's rating at the end stored).

    Nothing (an empty result) for another status or format: a late or duplicated wave changes nothing.
    """
    import time

    now = now or timezone.now()
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if (tournament is None or tournament.format != TournamentFormat.ARENA
            or tournament.status != TournamentStatus.RUNNING or tournament.ends_at is None):
        return WaveResult()
    registrations = {r.user_id: r for r in Registration.objects.select_for_update(of=("self",))
                     .filter(tournament=tournament).select_related("user").order_by("pk")}
    recorded = 0
    open_games = list(ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=True)
                      .select_related("match").order_by("pk"))
    for game in open_games:
        match = game.match
        if match is None or match.status not in (MatchStatus.FINISHED, MatchStatus.ABORTED):
            continue
        winner = _result(game, match)
        seats = (registrations[game.player0_id], registrations[game.player1_id])
        points: list[int] = []
        streak: list[bool] = []
        for seat, registration in enumerate(seats):
            score = arena.score_match(won=None if winner is None else winner == seat,
                                      streak=registration.arena_streak)
            points.append(score.points)
            streak.append(score.on_streak)
            registration.arena_score += score.points
            registration.arena_streak = score.streak_after
            registration.arena_game = None
            registration.waiting_since = now
            registration.last_opponent_id = seats[1 - seat].user_id
            registration.save(update_fields=["arena_score", "arena_streak", "arena_game", "waiting_since",
                                             "last_opponent"])
        game.points, game.streak = points, streak
        game.winner_id = None if winner is None else seats[winner].user_id
        game.hand_points = list(match.scores or [0, 0])
        game.finished_at = now
        game.save(update_fields=["points", "streak", "winner", "hand_points", "finished_at"])
        recorded += 1
    in_play = len(open_games) - recorded
    if now >= tournament.ends_at:
        if in_play:
            if recorded:
                live.tournament_changed(tournament.pk)
            return WaveResult(recorded=recorded)
        _finish(tournament, now)
        return WaveResult(recorded=recorded, finished=True)
    waiting = [r for r in registrations.values()
               if r.arena_game_id is None and not r.paused and not r.withdrawn]
    people = sorted(r.user_id for r in waiting if not r.user.is_bot)
    list(User.objects.select_for_update(no_key=True).filter(pk__in=people).order_by("pk").values_list("pk"))
    busy = {pk for pk in people if active_rated_match_id(user_id=pk) is not None}
    simulated = tournament.simulation_seed is not None
    started = time.perf_counter()
    pairs = arena.pair_wave([
        arena.Waiting(id=r.user_id, score=r.arena_score, rating=r.rating or selectors.DEFAULT_RATING,
                      waiting_since=(r.waiting_since or now).timestamp(), last_opponent=r.last_opponent_id,
                      is_bot=r.user.is_bot and not simulated)
        for r in waiting if r.user_id not in busy
    ])
    pairing_seconds = time.perf_counter() - started
    if not pairs:
        if recorded:
            live.tournament_changed(tournament.pk)
        return WaveResult(recorded=recorded, pairing_seconds=pairing_seconds)
    wave = tournament.current_round + 1
    seated: list[int] = []
    games: list[ArenaGame] = []
    for board, (a, b) in enumerate(pairs, start=1):
        r0, r1 = registrations[a], registrations[b]
        if r0.user.is_bot and not r1.user.is_bot:
            r0, r1 = r1, r0  # the person at seat 0, the bot at seat 1, as at a bot table
        seed = tournament.simulation_seed
        match = match_create_seated(
            player0=r0.user, player1=r1.user, rules_preset=tournament.rules_preset,
            target=tournament.match_target, turn_timer=tournament.turn_timer_seconds,
            simulation_seed=None if seed is None else sub_seed(seed, "arena", wave, board),
        )
        rated = tournament.rated and not (r0.user.is_bot and r1.user.is_bot)
        if match.rated != rated:
            Match.objects.filter(pk=match.pk).update(rated=rated)
        games.append(ArenaGame(tournament=tournament, player0=r0.user, player1=r1.user, match=match,
                               wave=wave))
    # One insert of the games, one update of the seats (a wave of 1,000 waiting: 2 queries, not 1,500).
    ArenaGame.objects.bulk_create(games)
    seat_rows: list[Registration] = []
    for game in games:
        for user_id in (game.player0_id, game.player1_id):
            registration = registrations[user_id]
            registration.arena_game = game
            registration.waiting_since = None
            seat_rows.append(registration)
            seated.append(user_id)
    Registration.objects.bulk_update(seat_rows, ["arena_game", "waiting_since"])
    tournament.current_round = wave
    tournament.save(update_fields=["current_round"])
    live.round_started(tournament.pk, seated)
    return WaveResult(recorded=recorded, paired=len(pairs), wave=wave, pairing_seconds=pairing_seconds)


def _finish(tournament: Tournament, now: datetime) -> None:
    lines = arena_standings(tournament)
    closing.event_close(tournament, winner_id=lines[0].player if lines else None, now=now)


# ------------------------------------------------------------------------------------------------ reads


@dataclass(frozen=True)
class ArenaRow:
    """A standings row for the page: the pure line, the registration (user, streak, paused, in play),
    ``games`` (finished matches) and ``on_fire`` (two or more wins in a row: the next win scores double)."""

    line: arena.Line
    registration: Registration
    games: int
    on_fire: bool


def arena_standings(tournament: Tournament) -> list[arena.Line]:
    """The standings (:func:`tournaments.arena.standings`): score, then performance over the finished
    matches (opponents' ratings fixed at the start or their join), then rating, then username."""
    return [row.line for row in arena_rows(tournament)]


def arena_rows(tournament: Tournament) -> list[ArenaRow]:
    """:func:`arena_standings` with each player's registration, games and fire mark (two queries)."""
    registrations = {r.user_id: r for r in tournament.registrations.select_related("user")}
    played: dict[int, list[arena.Played]] = {pk: [] for pk in registrations}
    for p0, p1, winner in (ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=False)
                           .values_list("player0_id", "player1_id", "winner_id")):
        for me, other in ((p0, p1), (p1, p0)):
            if me in played and other in registrations:
                rating = registrations[other].rating or selectors.DEFAULT_RATING
                played[me].append(arena.Played(rating, None if winner is None else winner == me))
    lines = arena.standings(
        arena.Line(player=pk, score=r.arena_score, performance=arena.performance(played[pk]),
                   rating=r.rating or selectors.DEFAULT_RATING, name=r.user.username)
        for pk, r in registrations.items())
    return [ArenaRow(line, registrations[line.player], len(played[line.player]),
                     registrations[line.player].arena_streak >= arena.STREAK_AFTER) for line in lines]


def only_last_opponent_free(registrations: list[Registration], me: Registration) -> bool:
    """True when ``me`` waits (free, not paused, not withdrawn) and the only other free player of the
    event is the one ``me`` just met, whom a wave never pairs again at once: the page tells them why
    they wait (``_arena.html``). ``registrations``: the event's registrations, ``me`` among them."""
    if me.arena_game_id is not None or me.paused or me.withdrawn or me.last_opponent_id is None:
        return False
    free = {r.user_id for r in registrations
            if r.user_id != me.user_id and r.arena_game_id is None and not r.paused and not r.withdrawn}
    return free == {me.last_opponent_id}


def arena_games_in_play(tournament: Tournament) -> list[ArenaGame]:
    """The Arena's matches in play, newest first, with their players."""
    return list(ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=True)
                .select_related("player0", "player1", "match").order_by("-pk"))


def arena_due(now: datetime) -> list[int]:
    """Ids of the running Arenas (the sweep enqueues a wave of each: ``services.tournaments_due``)."""
    return list(Tournament.objects.filter(format=TournamentFormat.ARENA, status=TournamentStatus.RUNNING)
                .values_list("pk", flat=True))
