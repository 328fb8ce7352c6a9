"""Match writes (HackSoft services): create, join, play, resign, bot moves, turn-timer expiry.

Every write locks the match row, rebuilds the engine state from the event log (``games.live``),
validates through the engine, appends the new events with the next seqs AND updates the match in one
transaction, and only after commit tells the ``match_<id>`` group (Zulip's events-after-commit). A write
that fails raises :class:`GameError` and changes nothing. Protocol: docs/protocol.md.

Seeded matches: every real match draws its first dealer, its cut and its decks from ``secrets``. A
simulation (``manage.py tournament_simulate``) passes ``simulation_seed`` to
:func:`match_create_seated` instead; it is stored on the match (``Match.simulation_seed``), and that
match's first dealer, cut, every deal (hand ``n`` from ``engine.deck.sub_seed(seed, "deal", n)``) and
its bots' choices (``sub_seed(seed, "bot", seq)``) are then functions of the seed alone, never of row
ids or the order matches are played in. The deal's commitment salt stays secret-random either way.
"""

from __future__ import annotations

import logging
import random
import secrets
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.db.models import Q
from django.db.models.base import ModelState
from django.utils import timezone

from accounts.models import User
from accounts.selectors import house_bot_get
from engine.actions import Action, ActionKind
from engine.cards import Card, card_value
from engine.deck import deck_commitment, new_salt, seeded_deck, shuffled_deck, sub_seed
from engine.errors import EngineError, IllegalActionError
from engine.events import DealEvent, Event, to_json
from engine.match import cut_for_deal
from engine.melds import deadwood
from engine.rules import PRESETS, RuleSet
from games import aborts, conf, presence, scheduling
from games.conf import (  # noqa: F401  (re-exported: callers read them here)
    ABANDON_AFTER,
    MAX_SERVER_MOVES,
    MAX_SIMULATION_SEED,
    RATED_TURN_TIMER,
    TARGETS,
    TIMEOUT_STRIKES_TO_LOSE,
    TURN_TIMER_RANGE,
)
from games.live import LiveMatch, cache_get, cache_put, load, row_check, row_contest, row_get, row_put
from games.models import Match, MatchEvent, MatchStatus, ResultReason
from games.selectors import match_state_payload
from games.signals import match_finished, match_left
from games.write_sql import (
    events_insert,
    match_drive_row,
    match_locked_or_none,
    match_update_cas,
    match_write_one,
)
from push.groups import seat_group, watch_group
from push.send import Outcome, send_on_commit

log = logging.getLogger(__name__)

class GameError(Exception):
    """A refused request; ``code`` is the WebSocket error code of docs/protocol.md. Nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class MatchInProgress(GameError):
    """``match_in_progress``: the player is already seated in an active rated match (``match_id``), so
    the site will not start them a new rated match against a bot (the abandoned one's turn timer would
    lose it on time). Nothing changed."""

    def __init__(self, match_id: int) -> None:
        super().__init__("match_in_progress",
                         f"you have a rated match in progress (match {match_id}): finish it first")
        self.match_id = match_id


@dataclass(frozen=True, slots=True)
class Applied:
    """Outcome of an accepted client message: ``seq`` of the event that recorded it, ``last_seq`` of
    the match after the write, ``repeat`` when the message id had already been applied; ``broadcast``:
    what became of the write's after-commit ``state`` broadcast (None: there was none, e.g. a repeat)."""

    seq: int
    last_seq: int
    repeat: bool = False
    broadcast: Outcome | None = field(default=None, compare=False)


def new_deck() -> list[Card]:
    """The deck for the next hand: a secure shuffle (tests replace this function with seeded decks)."""
    return shuffled_deck()


def _random_seat(seed: int | None) -> int:
    """Seat 0 or 1 at random: a secure draw for a real match (``seed`` None), else one drawn from the
    simulation seed (module docstring, "Seeded matches")."""
    if seed is None:
        return secrets.randbelow(2)
    return random.Random(sub_seed(seed, "first-dealer")).randrange(2)


# --------------------------------------------------------------------------------------------- create


def _rules(rules_preset: str, target: int) -> RuleSet:
    if rules_preset not in PRESETS:
        raise GameError("bad_field", f"unknown rule preset {rules_preset!r}; presets: {', '.join(PRESETS)}")
    if target not in conf.TARGETS:
        raise GameError("bad_field", f"target must be 50 or 100, got {target!r}")
    return PRESETS[rules_preset].replace(target=target)


def _start(match: Match, *, first_dealer: int) -> LiveMatch:
    """Seat the first dealer, deal hand 1 and store it (match row saved by the caller); returns the
    engine state after the deal. Under rules whose ``first_dealer`` is ``cut`` the players cut for the
    deal instead (``engine.match.cut_for_deal``, a secure shuffle per round) and the cut is stored
    first, so the log shows why that seat deals."""
    cut = None
    seed = match.simulation_seed
    if RuleSet.from_dict(match.rules).first_dealer == "cut":
        cut, first_dealer = cut_for_deal(None if seed is None else random.Random(sub_seed(seed, "cut")))
    match.first_dealer = first_dealer
    match.status = MatchStatus.ACTIVE
    match.started_at = timezone.now()
    match.scores = [0, 0]
    match.timeout_strikes = [0, 0]
    live = load(match).clone()
    first: list[tuple[Event, dict[str, Any]]] = [] if cut is None else [(live.state.cut(cut), {})]
    _store(match, live, [*first, _deal(live, seed)])
    _cache_on_commit(match, live)
    _refresh(match, live, dealt=True)
    return live


def _create_once(*, user: User, submission: uuid.UUID | None, create: Callable[[], Match]) -> Match:
    """``create()`` (which stores ``submission`` on the new match), unless ``user`` already created a
    match from that form submission: then that match, unchanged.

    Two racing POSTs of one form (a double click): the second's INSERT waits for the first's row, fails
    on the ``(player0, submission)`` unique constraint inside a savepoint, and returns the first's match.
    ``submission`` None (a client without the form's token) creates every time.
    """
    if submission is None:
        return create()
    existing = Match.objects.filter(player0=user, submission=submission).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            return create()
    except IntegrityError:
        existing = Match.objects.filter(player0=user, submission=submission).first()
        if existing is None:
            raise
        return existing


def active_rated_match_id(*, user_id: int) -> int | None:
    """The id of an active rated match ``user_id`` is seated in (either seat; the oldest), or None."""
    return (Match.objects.filter(Q(player0_id=user_id) | Q(player1_id=user_id), status=MatchStatus.ACTIVE,
                                 rated=True).order_by("pk").values_list("pk", flat=True).first())


@transaction.atomic
def match_create_vs_bot(
    *, user: User, level: int, rules_preset: str, target: int, rated: bool = True,
    submission: uuid.UUID | None = None, one_active: bool = False,
) -> Match:
    """Create and start a match of ``user`` (seat 0) against the house bot of ``level`` (seat 1).

    The first dealer is random, or the bot for a preset whose ``first_dealer`` is ``computer``. A
    member's match is rated (with a :data:`games.conf.RATED_TURN_TIMER` turn timer) unless ``rated`` is
    False; a guest's never is.

    :param submission: the create form's one-time token: a repeat returns the match it created
        (see ``_create_once``).
    :param one_active: refuse a rated match while ``user`` is seated in another active rated match
        (lichess's rule; the site's forms pass True): the user's row is locked first, so two racing
        requests (two tabs, Back then Start again) are serialized and the second sees the first's match.
    :raises GameError: ``bad_field`` (level not 1..5, unknown preset, target not 50/100),
        ``not_authenticated`` (anonymous or bot user), ``no_bot`` (house bots not created).
    :raises MatchInProgress: ``one_active`` and a rated match of ``user`` is active (not a repeat of
        the submission that created it: that returns it).
    """
    _check_person(user)
    if type(level) is not int or not 1 <= level <= 5:
        raise GameError("bad_field", f"bot level must be 1..5, got {level!r}")
    rules = _rules(rules_preset, target)
    try:
        bot = house_bot_get(level=level)
    except User.DoesNotExist:
        raise GameError("no_bot", f"house bot {level} is missing: run manage.py ensure_house_bots") from None
    rated = bool(rated) and not user.is_guest
    if rated and one_active:
        # FOR NO KEY UPDATE: serializes this player's creates without blocking inserts that merely
        # reference the user (their foreign keys take KEY SHARE). On SQLite the IMMEDIATE transaction
        # already serializes writers.
        User.objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk").first()

    def create() -> Match:
        if rated and one_active and (active := active_rated_match_id(user_id=user.pk)) is not None:
            raise MatchInProgress(active)
        match = Match.objects.create(
            rules=rules.to_dict(), preset=rules_preset, player0=user, player1=bot, bot_level=level,
            bot_seats=[1], status=MatchStatus.ACTIVE, scores=[0, 0], timeout_strikes=[0, 0], rated=rated,
            turn_timer_seconds=conf.RATED_TURN_TIMER if rated else None, submission=submission,
        )
        first = 1 if rules.first_dealer == "computer" else secrets.randbelow(2)
        _start(match, first_dealer=first)
        match.save()
        return match

    return _create_once(user=user, submission=submission, create=create)


@transaction.atomic
def table_create(
    *, user: User, rules_preset: str, target: int, turn_timer: int | None, rated: bool = True,
    submission: uuid.UUID | None = None,
) -> Match:
    """Create a private table of ``user`` (seat 0) waiting for a friend; share ``/t/<invite_token>/``.

    :param turn_timer: seconds per action (15..600) or None for no timer (a rated table gets
        :data:`games.conf.RATED_TURN_TIMER`).
    :param rated: the creator's "rated" switch; a guest's table is never rated, and a table stops being
        rated when a guest joins it (docs/ratings.md).
    :param submission: the create form's one-time token: a repeat returns the table it created.
    :raises GameError: ``bad_field`` (preset, target, timer), ``not_authenticated``.
    """
    _check_person(user)
    rules = _rules(rules_preset, target)
    _check_turn_timer(turn_timer)
    rated = bool(rated) and not user.is_guest
    if rated and turn_timer is None:
        turn_timer = conf.RATED_TURN_TIMER
    return _create_once(user=user, submission=submission, create=lambda: Match.objects.create(
        rules=rules.to_dict(), preset=rules_preset, player0=user, status=MatchStatus.WAITING,
        invite_token=secrets.token_urlsafe(24), turn_timer_seconds=turn_timer, scores=[0, 0],
        timeout_strikes=[0, 0], rated=rated, submission=submission,
    ))


def _check_turn_timer(turn_timer: int | None) -> None:
    if turn_timer is not None and (
        type(turn_timer) is not int or not conf.TURN_TIMER_RANGE[0] <= turn_timer <= conf.TURN_TIMER_RANGE[1]
    ):
        raise GameError("bad_field", f"turn timer must be empty or 15..600 seconds, got {turn_timer!r}")


@transaction.atomic
def match_create_seated(
    *, player0: User, player1: User, rules_preset: str = "classic", target: int = 100,
    turn_timer: int | None = None, rated: bool = False, simulation_seed: int | None = None,
    first_clock_grace: int | None = None,
) -> Match:
    """Create and start a match between any two different users: two people, a person and a house bot
    (either seat), or two house bots (tournaments seat their pairings with this).

    A house bot seat is moved by the server (its human-like pause when a person plays it; at engine
    speed between two bots), and a late person's automatic move is played at the turn deadline, with or
    without an open table (``games.scheduling``). The first dealer is random, or the bot for a preset
    whose ``first_dealer`` is ``computer`` (seat 0 when both are bots).

    :param turn_timer: seconds per action (15..600) or None for no timer (a rated match gets
        :data:`games.conf.RATED_TURN_TIMER`).
    :param rated: the result moves Elo (docs/ratings.md); ignored (not rated) when a seat is a guest or
        both are bots.
    :param simulation_seed: only for simulations (``manage.py tournament_simulate``), never for a
        match people play: an int ``0 .. 2**63 - 1`` from which the first dealer, the cut, every deal
        and the bots' choices are drawn (module docstring, "Seeded matches"); None (the default): secure
        randomness.
    :param first_clock_grace: seconds (0..600) or None (the default: clocks start with each turn). Given
        (tournament boards), each person's FIRST clock starts when that person opens the table
        (:func:`match_seat_arrived`) or this many seconds after now, whichever comes first: a turn of a
        seat that has not connected yet gets ``turn_deadline = max(turn start, now + grace) + timer``
        (``Match.first_clock_until`` / ``first_clock_waiting``). Server-driven: the automatic move
        still comes at that deadline when nobody connects.
    :raises GameError: ``bad_field`` (same user twice, preset, target, timer, seed, grace),
        ``not_authenticated`` (an anonymous or inactive user).
    """
    players = (player0, player1)
    for user in players:
        if not getattr(user, "is_bot", False):
            _check_person(user)
            if not user.is_active:
                raise GameError("not_authenticated", f"user {user.pk} is not active")
    if player0.pk == player1.pk:
        raise GameError("bad_field", "a match needs two different players")
    rules = _rules(rules_preset, target)
    _check_turn_timer(turn_timer)
    if simulation_seed is not None and (
        type(simulation_seed) is not int or not 0 <= simulation_seed <= conf.MAX_SIMULATION_SEED
    ):
        raise GameError("bad_field", f"simulation seed must be an int 0..2**63-1, got {simulation_seed!r}")
    if first_clock_grace is not None and (
        type(first_clock_grace) is not int or not 0 <= first_clock_grace <= conf.TURN_TIMER_RANGE[1]
    ):
        raise GameError("bad_field",
                        f"first clock grace must be empty or 0..600 seconds, got {first_clock_grace!r}")
    bot_seats = [seat for seat, user in enumerate(players) if user.is_bot]
    rated = bool(rated) and len(bot_seats) < 2 and not any(user.is_guest for user in players)
    if rated and turn_timer is None:
        turn_timer = conf.RATED_TURN_TIMER
    held = first_clock_grace is not None and turn_timer is not None
    match = Match.objects.create(
        rules=rules.to_dict(), preset=rules_preset, player0=player0, player1=player1,
        bot_level=players[bot_seats[0]].bot_level if len(bot_seats) == 1 else None, bot_seats=bot_seats,
        status=MatchStatus.ACTIVE, turn_timer_seconds=turn_timer, scores=[0, 0], timeout_strikes=[0, 0],
        rated=rated, simulation_seed=simulation_seed,
        first_clock_until=timezone.now() + timedelta(seconds=first_clock_grace or 0) if held else None,
        first_clock_waiting=[seat for seat in (0, 1) if seat not in bot_seats] if held else [],
    )
    first = bot_seats[0] if rules.first_dealer == "computer" and bot_seats else _random_seat(simulation_seed)
    _start(match, first_dealer=first)
    match.save()
    return match


def match_create_bot_vs_bot(
    *, bot0: User, bot1: User, rules_preset: str = "classic", target: int = 100,
    turn_timer: int | None = None, simulation_seed: int | None = None,
) -> Match:
    """Create and start a match between two house-bot accounts (``bot0`` at seat 0): the server plays
    it out right after the commit at ``conf.bot_vs_bot_delay()`` s a move (0: engine speed), without any
    socket, every action stored in the event log like any other match (``games.tasks.play_server_moves``
    with a worker; in-process otherwise).
    The returned match is active; it is ``finished`` once played out (wait for ``status``, or listen to
    the ``match_<id>`` group). Being both bots, it is never meant to be rated.

    :param simulation_seed: see :func:`match_create_seated` (simulations only).
    :raises GameError: ``bad_field`` (not two different house bots, preset, target, timer, seed).
    """
    if not (getattr(bot0, "is_bot", False) and getattr(bot1, "is_bot", False)):
        raise GameError("bad_field", "both players of a bot-vs-bot match must be house bots")
    return match_create_seated(player0=bot0, player1=bot1, rules_preset=rules_preset, target=target,
                               turn_timer=turn_timer, simulation_seed=simulation_seed)


def table_join(*, user: User, token: str) -> Match:
    """Seat ``user`` at the waiting table with ``token`` and deal hand 1 (random first dealer).

    Idempotent for a player already seated there (returns the match unchanged).

    :raises GameError: ``no_such_match`` (unknown token), ``table_full`` (someone else joined),
        ``match_over`` (finished/aborted), ``not_authenticated``.
    """
    _check_person(user)
    with transaction.atomic():
        match = (Match.objects.select_for_update(of=("self",)).select_related("player0")
                 .filter(invite_token=token).first())
        if match is None:
            raise GameError("no_such_match", "no table with that link")
        if match.seat_of(user.pk) is not None:
            return match
        if match.status in (MatchStatus.FINISHED, MatchStatus.ABORTED):
            raise GameError("match_over", "this table is closed")
        if match.player1_id is not None:
            raise GameError("table_full", "both seats at this table are taken")
        match.player1 = user
        if user.is_guest:
            match.rated = False  # a match with a guest is never rated
        live = _start(match, first_dealer=secrets.randbelow(2))
        match.save()
        _broadcast_on_commit(match, live)
    return match


def _check_person(user: User) -> None:
    if not getattr(user, "is_authenticated", False) or getattr(user, "is_bot", False):
        raise GameError("not_authenticated", "log in or play as a guest first")


# --------------------------------------------------------------------------------------------- play


def match_apply_action(
    *, match_id: int, user: User, action_text: str, client_seq: int, msg_id: str
) -> Applied:
    """Play ``action_text`` (canonical action text) for ``user``'s seat in match ``match_id``.

    Checks, in order: the match exists and ``user`` is seated (``not_seated``); a repeated
    ``msg_id`` is answered with the original outcome (``repeat=True``) and not applied again; the match
    is active (``not_started``, ``match_over``); the action parses (``malformed_action``); ``client_seq``
    equals ``last_seq`` (``stale_seq``); the engine accepts it (``wrong_phase``, ``out_of_turn``,
    ``card_not_held``, ``taken_card``, ``knock_over_limit``, ``stock_only``, ``not_big_gin``, ...).
    A hand that ends is followed by the next deal in the same transaction.

    :raises GameError: with one of the codes above; nothing was changed.
    """

    def play(live: LiveMatch, match: Match, seat: int) -> list[tuple[Event, dict[str, Any]]]:
        try:
            action = Action.parse(action_text)
        except IllegalActionError as exc:
            raise GameError(exc.code, str(exc)) from None
        if client_seq != match.last_seq:
            when = "stale" if client_seq < match.last_seq else "ahead of the match"
            raise GameError("stale_seq", f"seq {client_seq} is {when}: the match is at seq {match.last_seq}")
        return _play(live, action, seat, match.simulation_seed)

    return _write(match_id=match_id, user=user, msg_id=msg_id, kind="action", body=play)


def match_resign(*, match_id: int, user: User, msg_id: str = "", forfeit: bool = False) -> Applied:
    """``user`` resigns match ``match_id``: the opponent wins (``result_reason`` resign). A waiting
    table is aborted instead, and so is a RATED match resigned before both players have made a move
    (lichess's rule): status ``aborted``, ``result_reason`` aborted, an ``abort`` marker event, no winner,
    never rated; but only while ``user`` has a free abort left (``games.aborts``: ``GAMES_FREE_ABORTS``
    per rolling 24 h): past them it is an ordinary resignation, the opponent wins and the match is rated.
    The free aborts are counted under the user's row lock (FOR NO KEY UPDATE, taken after the match's),
    so two resignations at once in two matches cannot both take the last free abort.

    :param forfeit: the server resigns for an absent player (a tournament's no-show): always aborted
        when nobody has moved, never counted as the player's abort (marker payload ``"forfeit": true``).
    :raises GameError: ``no_such_match``, ``not_seated``, ``match_over``.
    """
    with transaction.atomic():
        match = _locked(match_id)
        seat = match.seat_of(user.pk)
        if seat is None:
            raise GameError("not_seated", "you are not a player of this match")
        if match.status == MatchStatus.WAITING:
            match.status = MatchStatus.ABORTED
            match.finished_at = timezone.now()
            match.save()
            sent = _broadcast_on_commit(match, None)
            return Applied(seq=match.last_seq, last_seq=match.last_seq, broadcast=sent)
        if match.rated and msg_id:
            abort = (MatchEvent.objects.filter(match_id=match.pk, seat=seat, msg_id=msg_id, type="abort")
                     .first())
            if abort is not None:  # a resent resign that aborted the match
                return Applied(seq=abort.seq, last_seq=match.last_seq, repeat=True)
        if match.rated and match.status == MatchStatus.ACTIVE and not _both_moved(match) and (
            forfeit or user.is_bot or _abort_is_free(user)
        ):
            before = match.last_seq
            payload: dict[str, Any] = {"seat": seat, "forfeit": True} if forfeit else {"seat": seat}
            row = _store_marker(match, "abort", payload, seat, msg_id=msg_id)
            match.status = MatchStatus.ABORTED
            match.result_reason = ResultReason.ABORTED
            match.finished_at = timezone.now()
            match.turn_deadline = None
            _save_cas(match, before)
            sent = _broadcast_on_commit(match, None)
            return Applied(seq=row.seq, last_seq=match.last_seq, broadcast=sent)

    def resign(live: LiveMatch, match: Match, seat: int) -> list[tuple[Event, dict[str, Any]]]:
        return [(e, {}) for e in live.state.resign(seat)]

    return _write(match_id=match_id, user=user, msg_id=msg_id, kind="resign", body=resign)


def _abort_is_free(user: User) -> bool:
    """Whether ``user`` has a free abort left (``games.aborts``). Locks the user's row first (FOR NO KEY
    UPDATE, the lock ``match_create_vs_bot`` takes), so the count and the abort it allows are one step
    for that player; on SQLite the IMMEDIATE transaction already serializes writers."""
    User.objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk").first()
    return aborts.aborts_recent(user_id=user.pk) < aborts.free_aborts_per_window()


def _write(
    *, match_id: int, user: User, msg_id: str, kind: str,
    body: Callable[[LiveMatch, Match, int], list[tuple[Event, dict[str, Any]]]],
) -> Applied:
    """The shared frame of a player's write (lock, seat, status, body, store, notify);
    ``kind`` is the event type the message stores first (``action`` or ``resign``).

    Queries on the way to an accepted write: the locked read of the match with its players, one bulk
    insert of the events, one conditional update of the match (the engine state comes from the cache
    of ``games.live`` when it holds this seq). A repeated ``msg_id`` is not looked up first: its row
    makes the insert fail (unique per match, seat and id), or the body refuses the now stale message;
    either way the refusal is answered with the original outcome when the id was applied before.

    First, on PostgreSQL, :func:`_write_one`: the same write validated against the match row and engine
    state this process stored last, in ONE statement; this locked write runs when it cannot (nothing
    held, another writer came first, a refusal to answer) and leaves its row for the next one."""
    applied = _write_one(match_id=match_id, user=user, msg_id=msg_id, body=body)
    if applied is not None:
        return applied
    outermost = not transaction.get_connection().in_atomic_block
    seat: int | None = None
    try:
        with transaction.atomic():
            match = _locked(match_id)
            row_check(match)
            seat = match.seat_of(user.pk)
            if seat is None:
                raise GameError("not_seated", "you are not a player of this match")
            _check_active(match)
            live = load(match).clone()
            events = body(live, match, seat)
            before = match.last_seq
            rows = _store(match, live, events, seat=seat, msg_id=msg_id)
            strikes = list(match.timeout_strikes or [0, 0])
            strikes[seat] = 0
            match.timeout_strikes = strikes
            # The row is kept for _write_one only when this commit is the write's own: in an outer
            # transaction the row could change again under the same row version before it commits.
            _cache_on_commit(match, live, row=outermost)
            _refresh(match, live, dealt=any(isinstance(e, DealEvent) for e, _ in events))
            _save_cas(match, before)
            sent = _broadcast_on_commit(match, live)
            return Applied(seq=rows[0].seq, last_seq=match.last_seq, broadcast=sent)
    except (GameError, IntegrityError) as exc:
        # A resend of an applied message is refused above (stale seq, match over, or the insert of its
        # id: a lost race looks the same): answer it with the original outcome.
        repeat = _repeat(match_id, seat, msg_id, kind) if seat is not None else None
        if repeat is not None:
            return repeat
        if isinstance(exc, GameError):
            raise
        raise GameError("stale_seq", "another move was made first") from None


def _write_one(
    *, match_id: int, user: User, msg_id: str,
    body: Callable[[LiveMatch, Match, int], list[tuple[Event, dict[str, Any]]]],
) -> Applied | None:
    """:func:`_write` in ONE statement, or None when it cannot be done so (nothing was stored: the
    caller runs the locked write, which answers every refusal and repeat).

    It needs what this process itself stored last of the match (``games.live.row_get``: the match row
    with its players, as of its row versions; the engine state at its seq), a connection open and no
    transaction (PostgreSQL): a socket's move. The write is validated against that copy (seat, status,
    seq, the engine's rules) exactly as the locked write validates it against the row it reads, and
    stored by ``games.write_sql.match_write_one``: the update of the match only if the match and both
    players are still the row versions of the copy (the race guard: any other write since, of any
    column, by any process, and nothing is stored), then the insert of the events, one autocommit
    statement (committed before this returns, so before the ack). What the locked write does after
    its commit follows: the cache, the match-finished signal, the server's next move, the broadcast.
    A match this statement found changed is written the locked way until a locked read finds the row
    this process stored last still current (``games.live.row_contest``): where another process writes
    it too (a worker's bot moves, the other player's socket on another Daphne) every move would
    otherwise cost a refused statement more.

    Cost (issue 10, scripts/bench_action on PostgreSQL): one round trip instead of six (health check,
    BEGIN, locked read, insert, update, COMMIT), no transaction bookkeeping, the statement prepared
    once per connection."""
    connection = transaction.get_connection()
    if (connection.vendor != "postgresql" or connection.in_atomic_block or connection.connection is None
            or not connection.autocommit):
        return None
    held = row_get(match_id)
    token = getattr(held, "_row_token", None)
    if held is None or token is None or None in token or held.status != MatchStatus.ACTIVE:
        return None
    seat = held.seat_of(user.pk)
    state = cache_get(match_id, held.last_seq)
    if seat is None or state is None:
        return None
    match, live = _copy(held), state.clone()
    try:
        events = body(live, match, seat)
    except GameError:
        return None
    rows = _rows(match, events, seat=seat, msg_id=msg_id)
    match.last_seq += len(rows)
    strikes = list(match.timeout_strikes or [0, 0])
    strikes[seat] = 0
    match.timeout_strikes = strikes
    finished = _refresh_fields(match, live, dealt=any(isinstance(e, DealEvent) for e, _ in events))
    match.updated_at = timezone.now()
    try:
        if not match_write_one(match, token, rows):
            row_contest(match_id)
            return None
    except IntegrityError:  # a taken seq or message id: the locked write tells which
        row_contest(match_id)
        return None
    except (OperationalError, InterfaceError):  # the locked write checks and reopens the connection
        connection.close_if_unusable_or_obsolete()
        return None
    live.record(rows)  # (after the insert, which set their created_at: a deal's is shown)
    # Committed: the locked write's after-commit work, in its order (each runs at once, no transaction).
    cache_put(match.pk, match.last_seq, live)
    row_put(match)
    _after_refresh(match, finished)
    sent = _broadcast_on_commit(match, live)
    return Applied(seq=rows[0].seq, last_seq=match.last_seq, broadcast=sent)


def _copy(match: Match) -> Match:
    """A copy of ``match`` to change (its fields, its ``_row_token``; the players it holds are shared),
    as ``copy.copy`` makes it (a new ``_state`` with its own related-objects cache) in a fifth of the
    time."""
    new = Match.__new__(Match)
    values = new.__dict__
    values.update(match.__dict__)
    state = ModelState()
    state.db, state.adding = match._state.db, False
    state.fields_cache = dict(match._state.fields_cache)
    values["_state"] = state
    return new


def _both_moved(match: Match) -> bool:
    """Whether both seats have made a move of their own (an action event that is not an automatic move
    of the turn timer): until then a rated match is aborted by a resignation."""
    seats = set(
        MatchEvent.objects.filter(match_id=match.pk, type="action", auto=False, seat__isnull=False)
        .values_list("seat", flat=True).distinct()
    )
    return seats >= {0, 1}


def _locked(match_id: int) -> Match:
    """The match row, locked until the transaction ends (PostgreSQL), with its players (not locked).

    :raises GameError: ``no_such_match``.
    """
    match = _locked_or_none(match_id)
    if match is None:
        raise GameError("no_such_match", f"no match {match_id}")
    return match


def _locked_or_none(match_id: int) -> Match | None:
    # One statement written once (games.write_sql): the ORM's select_for_update().select_related()
    # was compiled again on every write.
    return match_locked_or_none(match_id)


def _repeat(match_id: int, seat: int, msg_id: str, kind: str) -> Applied | None:
    """The original outcome when ``msg_id`` was already applied for ``seat`` by a message of the same
    ``kind`` (event type), else None (one query). Ids are scoped by kind: the same id on another kind
    of message is a client bug, refused rather than mistaken for a resend.

    :raises GameError: ``id_reused`` (the id was used by a different kind of message).
    """
    if not msg_id:
        return None
    row = (MatchEvent.objects.filter(match_id=match_id, seat=seat, msg_id=msg_id)
           .values_list("seq", "type", "match__last_seq").first())
    if row is None:
        return None
    seq, type_, last_seq = row
    if type_ != kind:
        raise GameError("id_reused", f"id {msg_id!r} was already used by an earlier {type_}; use a new id")
    return Applied(seq=seq, last_seq=last_seq, repeat=True)


def _check_active(match: Match) -> None:
    if match.status == MatchStatus.WAITING:
        raise GameError("not_started", "the table is waiting for the second player")
    if match.status != MatchStatus.ACTIVE:
        raise GameError("match_over", "the match is over")


def _play(live: LiveMatch, action: Action, seat: int, seed: int | None) -> list[tuple[Event, dict[str, Any]]]:
    """Apply ``action`` for ``seat``, then deal the next hand if one ended and the match goes on
    (``seed``: the match's ``simulation_seed``, see :func:`_deal`)."""
    try:
        events: list[tuple[Event, dict[str, Any]]] = [(e, {}) for e in live.state.apply(action, seat)]
    except IllegalActionError as exc:
        raise GameError(exc.code, str(exc)) from None
    except EngineError as exc:
        raise GameError("illegal_action", str(exc)) from None
    if live.state.awaiting_deal:
        events.append(_deal(live, seed))
    return events


def _deal(live: LiveMatch, seed: int | None) -> tuple[Event, dict[str, Any]]:
    """Deal the next hand from a fresh secure shuffle, with its salt and commitment; under rules that
    take the knock limit from a second deck, also turn that deck's card (recorded in the deal event,
    public at once, so it needs no commitment). A simulated match (``seed``, its ``simulation_seed``)
    deals hand ``n`` from ``sub_seed(seed, "deal", n)`` (and its limit card from ``"limit"``)."""
    second = live.state.rules.knock_limit_from_second_deck
    if seed is None:
        deck = new_deck()
        limit_card = new_deck()[0] if second else None
    else:
        hand = live.state.hand_number + 1
        deck = seeded_deck(sub_seed(seed, "deal", hand))
        limit_card = seeded_deck(sub_seed(seed, "limit", hand))[0] if second else None
    salt = new_salt()
    event = live.deal(deck, limit_card)
    return event, {"salt": salt, "commitment": deck_commitment(deck, salt)}


def _store(
    match: Match, live: LiveMatch, events: Sequence[tuple[Event, dict[str, Any]]], *,
    seat: int | None = None, msg_id: str = "", auto: bool = False,
) -> list[MatchEvent]:
    """Insert ``events`` with seqs after ``match.last_seq`` (the first one carries ``seat``/``msg_id``,
    being the client's own move; the derived ones that follow carry neither) and advance
    ``match.last_seq``."""
    rows = _rows(match, events, seat=seat, msg_id=msg_id, auto=auto)
    events_insert(rows)  # games.write_sql: one INSERT of every row
    match.last_seq += len(rows)
    live.record(rows)
    return rows


def _rows(
    match: Match, events: Sequence[tuple[Event, dict[str, Any]]], *,
    seat: int | None = None, msg_id: str = "", auto: bool = False,
) -> list[MatchEvent]:
    """The unsaved rows of ``events`` with seqs after ``match.last_seq`` (see :func:`_store`)."""
    rows = []
    for i, (event, extra) in enumerate(events):
        first = i == 0
        payload = to_json(event)
        rows.append(MatchEvent(
            match_id=match.pk, seq=match.last_seq + 1 + i, type=payload["type"],
            payload={**payload, **extra}, seat=seat if first else None,
            msg_id=msg_id if first else "", auto=auto and first,
        ))
    return rows


def _store_marker(
    match: Match, type_: str, payload: dict[str, Any], seat: int, *, msg_id: str = ""
) -> MatchEvent:
    row = MatchEvent.objects.create(match_id=match.pk, seq=match.last_seq + 1, type=type_,
                                    payload=payload, seat=seat, auto=not msg_id, msg_id=msg_id)
    match.last_seq += 1
    return row


def _cache_on_commit(match: Match, live: LiveMatch, *, row: bool = False) -> None:
    """After commit, cache ``live`` as the state of ``match`` at its ``last_seq`` then (``games.live``).

    Register it before :func:`_refresh`: hooks run in the order registered, and ``_refresh`` registers
    the driver of the next server move, which (in process, due now) loads the state at once: registered
    after it, the cache still held the previous seq and the bot's reply to every player's move replayed
    the whole log (167 replays beside 2,000 writes in a 50-match run, issue 9's cProfile of Daphne)."""
    def put() -> None:
        cache_put(match.pk, match.last_seq, live)
        if row and getattr(match, "_row_token", None) is not None:
            row_put(match)  # the stored row, for the next write's _write_one (``row``: see _write)

    transaction.on_commit(put)


def _refresh(match: Match, live: LiveMatch, *, dealt: bool) -> None:
    """Copy the engine's scores/result into the match row and reset the turn deadline; after the
    commit, tell that the match finished (if it did now) and drive the server's next move."""
    _after_refresh(match, _refresh_fields(match, live, dealt=dealt))


def _after_refresh(match: Match, finished: bool) -> None:
    """What :func:`_refresh` registers to run after the commit (at once outside a transaction)."""
    if finished:
        _finished_on_commit(match)
    if match.server_move_at is not None:
        scheduling.schedule_on_commit(match.pk, match.last_seq, match.server_move_at,
                                      is_heavy=scheduling.heavy(match.bot_level, match.bot_seats))


def _refresh_fields(match: Match, live: LiveMatch, *, dealt: bool) -> bool:
    """The fields of :func:`_refresh`; whether this write finished the match."""
    finished = False
    state = live.state
    now = timezone.now()
    match.scores = list(state.final_scores or state.scores)
    if state.is_over and match.status == MatchStatus.ACTIVE:
        match.status = MatchStatus.FINISHED
        match.winner = state.winner
        last = state.events[-1]
        reason = getattr(last, "reason", ResultReason.TARGET)
        if match.result_reason not in (ResultReason.TIMEOUT, ResultReason.LEFT):
            match.result_reason = reason
        match.finished_at = now
        finished = True
    if match.turn_timer_seconds and match.status == MatchStatus.ACTIVE and state.current_player is not None:
        pause = conf.hand_pause_seconds() if dealt and state.hand_number > 1 else 0
        match.turn_deadline = _clock_start(match, state.current_player, now) + timedelta(
            seconds=match.turn_timer_seconds + pause)
    else:
        match.turn_deadline = None
    match.server_move_at = _server_move_due(match, live, dealt=dealt, now=now)
    return finished


def _clock_start(match: Match, seat: int, now: Any) -> Any:
    """When ``seat``'s clock for the turn starting ``now`` starts: ``now``, or for a seat whose first
    clock still waits for it to connect (a tournament board, ``Match.first_clock_waiting``) the later of
    ``now`` and ``first_clock_until``."""
    if match.first_clock_until is not None and seat in (match.first_clock_waiting or []):
        return max(now, match.first_clock_until)
    return now


def match_seat_arrived(*, match_id: int, seat: int, now: Any = None) -> bool:
    """``seat``'s player opened the table of match ``match_id`` (the consumer, on connect): start that
    seat's first clock now if it was still waiting (``Match.first_clock_waiting``, tournament boards).
    When it is that seat's turn, its deadline becomes ``now + timer`` if that is sooner than the held one
    (``first_clock_until + timer``), the server's move is rescheduled to it and both tables are sent the
    new state after the commit. Returns whether anything changed (False: not waiting, a double connect,
    no such match, or the seat not a person's). ``now``: an aware datetime (default the clock).

    Example: paired at 12:00:00 with a 30 s timer and a 60 s grace, the first player to act has until
    12:01:30 while away; connecting at 12:00:09 sets the deadline to 12:00:39 (30 s left, not 21)."""
    with transaction.atomic():
        match = _locked_or_none(match_id)
        if match is None or seat not in (match.first_clock_waiting or []):
            return False
        now = now or timezone.now()
        match.first_clock_waiting = [s for s in match.first_clock_waiting if s != seat]
        fields = ["first_clock_waiting"]
        live = None
        timer = match.turn_timer_seconds
        if match.status == MatchStatus.ACTIVE and match.turn_deadline is not None and timer:
            live = load(match)
            started = now + timedelta(seconds=timer)
            if live.state.current_player == seat and started < match.turn_deadline:
                match.turn_deadline = started
                match.server_move_at = started  # a person's turn: the automatic move is the server's
                fields += ["turn_deadline", "server_move_at"]
                scheduling.schedule_on_commit(match.pk, match.last_seq, started,
                                              is_heavy=scheduling.heavy(match.bot_level, match.bot_seats))
        Match.objects.filter(pk=match.pk).update(**{name: getattr(match, name) for name in fields})
        if "turn_deadline" in fields and live is not None:
            _broadcast_on_commit(match, live)
        return True


def _save_cas(match: Match, before: int) -> None:
    """Save the match only if no other write advanced it meanwhile (the race guard on SQLite, where
    ``select_for_update`` does nothing; on PostgreSQL the row lock already serializes writers). Only
    the columns a write changes; ``match`` ends up equal to the stored row."""
    match.updated_at = timezone.now()
    if not match_update_cas(match, before):  # games.write_sql.CAS_FIELDS
        raise IntegrityError("match advanced concurrently")


def _broadcast_on_commit(match: Match, live: LiveMatch | None) -> Outcome:
    """After commit, send each seated person their own ``state`` (built once here, from the ``match``
    row and engine state ``live`` the write holds: no read) on their seat's group, and spectators a
    card-free ``{"type": "match.update", "seq"}`` on ``watch_<id>``, through the one after-commit path
    (``push.send``: batched, bounded, its failures recorded). A seat's state carries that seat's cards,
    so it goes to ``seat_group`` only, never to a group another seat or a spectator is in. A bot's seat
    has no socket and gets nothing. ``match`` must not change after this call.

    The write is already committed and will be acknowledged: a failing or stalled channel layer never
    turns it into an error; the returned :class:`push.send.Outcome` says ``failed`` (the table's
    consumer then sends the acting socket its state; the other sockets get it on their next ``sync``,
    reconnect or broadcast). A pooled Redis connection that died under the layer is retried once on a
    new one (``config.channel_layer``), so a single dead connection no longer fails the broadcast."""
    match_id, seq = match.pk, match.last_seq
    humans = [seat for seat in (0, 1) if match.player_id(seat) is not None
              and seat not in (match.bot_seats or [])]

    def messages() -> list[tuple[str, dict[str, Any]]]:
        built: list[tuple[str, dict[str, Any]]] = [
            (seat_group(match_id, seat), {
                "type": "match.update", "seq": seq,
                "state": match_state_payload(match=match, seat=seat, live=live),
            })
            for seat in humans
        ]
        built.append((watch_group(match_id), {"type": "match.update", "seq": seq}))
        return built

    return send_on_commit(messages)


def _finished_on_commit(match: Match) -> None:
    """After the commit that finishes ``match``, send ``games.signals.match_finished`` (the rating task
    is enqueued from there)."""
    match_id, rated = match.pk, match.rated

    def send() -> None:
        match_finished.send(sender=Match, match_id=match_id, rated=rated)

    transaction.on_commit(send)


# --------------------------------------------------------------------------------------------- server moves


def _server_move_due(match: Match, live: LiveMatch, *, dealt: bool, now: Any) -> Any:
    """When the server's next move in ``match`` is due (an aware datetime), or None.

    The player to act is a house bot (a seat in ``match.bot_seats``): between two bots after
    ``conf.bot_vs_bot_delay()`` (a watchable pace; 0: now, engine speed), else after the bot's human-like
    pause (``conf.bot_delay_range()``, drawn once here so every scheduler agrees), and at least the hand
    pause after a hand ended (the finished hand stays face up; not at engine speed).
    A turn timer's ``turn_deadline`` (the automatic move) is the other candidate; the earlier one wins.
    """
    seat = live.state.current_player
    if match.status != MatchStatus.ACTIVE or seat is None:
        return None
    due = match.turn_deadline
    bots = match.bot_seats or []
    if seat in bots:
        if len(bots) < 2:
            low, high = conf.bot_delay_range()
            pause = random.uniform(low, high)
        else:
            pause = conf.bot_vs_bot_delay()  # a watchable pace (0: engine speed, no hand pause either)
        if (len(bots) < 2 or pause > 0) and dealt and live.state.hand_number > 1:
            pause = max(pause, conf.hand_pause_seconds())
        bot_due = now + timedelta(seconds=pause)
        due = bot_due if due is None else min(due, bot_due)
    return due


def match_play_bot_turn(*, match_id: int, expected_seq: int | None = None) -> int | None:
    """Make one move for the house bot to act in match ``match_id`` (chosen from its PlayerView only),
    whatever its pause (the driver, :func:`match_play_server_moves`, waits for ``server_move_at``).

    Idempotent: returns None and changes nothing when the match is not active, the player to act is
    not a bot, ``expected_seq`` is given and the match has moved past it, or another write won a race.
    Returns the new ``last_seq``.
    """
    try:
        return _play_bot_turn(match_id, expected_seq)
    except IntegrityError:
        return None  # another write took this seq first


def _play_bot_turn(match_id: int, expected_seq: int | None) -> int | None:
    outermost = not transaction.get_connection().in_atomic_block
    with transaction.atomic():
        match = _locked_or_none(match_id)
        if match is None or match.status != MatchStatus.ACTIVE or not match.bot_seats:
            return None
        if expected_seq is not None and expected_seq != match.last_seq:
            return None
        live = load(match).clone()
        seat = live.state.current_player
        if seat is None or seat not in match.bot_seats:
            return None
        level = _bot_level(match, seat)
        view = live.state.view(seat)
        seed = match.simulation_seed
        bot_seed = (match.pk * 100_003 + match.last_seq if seed is None
                    else sub_seed(seed, "bot", match.last_seq))
        action = choose_bot_action(level, view, seed=bot_seed)
        events = _play(live, action, seat, seed)
        before = match.last_seq
        _store(match, live, events, seat=seat)
        _cache_on_commit(match, live, row=outermost)  # (the person's next move: see _write_one)
        _refresh(match, live, dealt=any(isinstance(e, DealEvent) for e, _ in events))
        _save_cas(match, before)
        _broadcast_on_commit(match, live)
        return match.last_seq


def _bot_level(match: Match, seat: int) -> int:
    """The level of the house bot at ``seat`` (``match.bot_level`` for seat 1 of a bot match)."""
    if seat == 1 and match.bot_level is not None:
        return match.bot_level
    user = match.player0 if seat == 0 else match.player1  # loaded with the locked row
    level = user.bot_level if user is not None and user.is_bot else None
    if level is None:
        raise GameError("no_bot", f"match {match.pk}: seat {seat} is not a house bot")
    return int(level)


def choose_bot_action(level: int, view: Any, *, seed: int) -> Action:
    """The house bot's choice for ``view`` (``engine.bots.make_bot``)."""
    from engine.bots import make_bot

    return make_bot(level, seed=seed).choose(view)


def safe_moves(live: LiveMatch, seat: int) -> list[Action]:
    """The automatic move(s) for a player out of time: ``pass`` on an offer; ``draw stock`` then the
    discard leaving the least deadwood (ties: the higher card) in the draw phase; that discard in
    the discard phase. Never a knock."""
    state = live.state.clone()
    moves: list[Action] = []
    legal = state.legal_actions(seat)
    kinds = {a.kind for a in legal}
    if ActionKind.PASS in kinds:
        return [Action.pass_()]
    if ActionKind.DRAW_STOCK in kinds:
        moves.append(Action.draw_stock())
        state.apply(moves[0], seat)
        legal = state.legal_actions(seat)
    discards = [a for a in legal if a.kind is ActionKind.DISCARD]
    hand = state.view(seat).hand
    best = min(discards, key=lambda a: (deadwood([c for c in hand if c != a.card]), -card_value(a.card or 0),
                                         a.card))
    moves.append(best)
    return moves


def match_expire_turn(*, match_id: int, expected_seq: int | None = None) -> int | None:
    """If the turn deadline of match ``match_id`` has passed, play the late player's safe automatic
    move(s) (:func:`safe_moves`), or, at the 3rd consecutive time, end the match: that player loses
    on time (stored as an engine resignation preceded by a ``timeout`` marker; ``result_reason``
    timeout). Idempotent: returns None and changes nothing if the deadline is not past, the match is
    not active, ``expected_seq`` is stale, or another write won a race. Returns the new ``last_seq``.
    """
    match = Match.objects.filter(pk=match_id).only("bot_seats", "status").first()
    if match is not None and match.bot_seats and match.status == MatchStatus.ACTIVE:
        # A timer runs for every seat: when a house bot's own turn is due, it makes its move instead
        # of taking a strike.
        moved = match_play_bot_turn(match_id=match_id, expected_seq=expected_seq)
        if moved is not None:
            return moved
    try:
        return _expire_turn(match_id, expected_seq)
    except IntegrityError:
        return None  # another write took this seq first


def _expire_turn(match_id: int, expected_seq: int | None) -> int | None:
    with transaction.atomic():
        match = _locked_or_none(match_id)
        if match is None or match.status != MatchStatus.ACTIVE or match.turn_deadline is None:
            return None
        if match.turn_deadline > timezone.now():
            return None
        if expected_seq is not None and expected_seq != match.last_seq:
            return None
        live = load(match).clone()
        seat = live.state.current_player
        if seat is None:
            return None
        start = match.last_seq
        strikes = list(match.timeout_strikes or [0, 0])
        strikes[seat] += 1
        match.timeout_strikes = strikes
        dealt = False
        leavers: list[int] = []
        lose = conf.TIMEOUT_STRIKES_TO_LOSE
        if strikes[seat] >= lose and strikes[1 - seat] >= lose - 1:
            # Both away: the opponent's own last turns were timer moves too, so nobody "wins on time".
            _end_abandoned(match, "both_away", seat=None)
            leavers = [0, 1]
        elif strikes[seat] >= lose:
            _store_marker(match, "timeout", {"seat": seat}, seat)
            match.result_reason = ResultReason.TIMEOUT
            _store(match, live, [(e, {}) for e in live.state.resign(seat)], seat=seat, auto=True)
            leavers = [seat]
        else:
            for action in safe_moves(live, seat):
                events = _play(live, action, seat, match.simulation_seed)
                dealt = dealt or any(isinstance(e, DealEvent) for e, _ in events)
                _store(match, live, events, seat=seat, auto=True)
                if live.state.current_player != seat:
                    break
        _cache_on_commit(match, live)
        _refresh(match, live, dealt=dealt)
        if leavers:
            _left(match, leavers, "timeouts")
        _save_cas(match, start)
        _broadcast_on_commit(match, live)
        return match.last_seq


# --------------------------------------------------------------------------------------------- abandoned


def _end_abandoned(
    match: Match, why: str, *, seat: int | None, msg_id: str = "", extra: dict[str, Any] | None = None,
) -> MatchEvent:
    """Mark ``match`` (locked, active) abandoned: status ``aborted``, ``result_reason`` ``abandoned``, no
    winner; an ``abandon`` marker ``{"why": why, **extra}`` records it in the log (not an engine event, so
    the engine log replays to the hand as it was left); ``msg_id``: the client message that asked for it
    (a claim), so a resend is recognised. The caller saves the row."""
    row = MatchEvent.objects.create(match_id=match.pk, seq=match.last_seq + 1, type="abandon",
                                    payload={"why": why, **(extra or {})}, seat=seat,
                                    auto=seat is None, msg_id=msg_id)
    match.last_seq += 1
    match.status = MatchStatus.ABORTED
    match.result_reason = ResultReason.ABANDONED
    match.winner = None
    match.finished_at = timezone.now()
    match.turn_deadline = None
    match.server_move_at = None
    return row


def _left(match: Match, seats: list[int], why: str, *, now: Any = None) -> None:
    """Inside the transaction ending ``match``: when it is between people, tell ``match_left``'s
    receivers (playbans) that ``seats`` left it (``why``: ``abandoned`` or ``timeouts``) at ``now``
    (default ``timezone.now()``)."""
    if presence.between_people(match):
        match_left.send(sender=Match, match=match, seats=seats, why=why, now=now or timezone.now())


def match_abandon(*, match_id: int, user: User | None = None) -> bool:
    """End the casual bot match ``match_id`` as abandoned (no winner, never rated).

    With ``user`` (a player ending it from "My matches"): at once. Without (the beat sweep): only when
    its last event is older than :data:`games.conf.ABANDON_AFTER`. Idempotent: returns False and changes
    nothing
    when the sweep finds a recent move, the match is no longer active, or a race was lost.

    :raises GameError: (``user`` given) ``no_such_match``, ``not_seated``, ``match_over`` (not active),
        ``not_casual`` (a friend table or a timed/rated match: resign instead).
    """
    try:
        with transaction.atomic():
            match = Match.objects.select_for_update().filter(pk=match_id).first()
            if match is None:
                if user is None:
                    return False
                raise GameError("no_such_match", f"no match {match_id}")
            if user is not None:
                if match.seat_of(user.pk) is None:
                    raise GameError("not_seated", "you are not a player of this match")
                if match.status != MatchStatus.ACTIVE:
                    raise GameError("match_over", "the match is over")
                if not match.is_casual:
                    raise GameError("not_casual", "only a casual match against a bot can be ended: resign")
            elif match.status != MatchStatus.ACTIVE or not match.is_casual:
                return False
            else:
                last = MatchEvent.objects.filter(match_id=match.pk).order_by("-seq").values_list(
                    "created_at", flat=True).first()
                if last is not None and last > timezone.now() - conf.ABANDON_AFTER:
                    return False
            before = match.last_seq
            _end_abandoned(match, "player" if user is not None else "idle", seat=match.seat_of(
                user.pk) if user is not None else None)
            _save_cas(match, before)
            _broadcast_on_commit(match, None)
            return True
    except IntegrityError:
        return False  # another write took this seq first


# --------------------------------------------------------------------------------------------- leaving


@dataclass(frozen=True, slots=True)
class Claimed:
    """Outcome of a claim (:func:`match_claim`): ``outcome`` ``"win"`` (rated: the claimer won) or
    ``"end"`` (casual: ended without a result); ``seq`` of the marker event that recorded it,
    ``last_seq`` of the match after it, ``repeat`` when this message id had already claimed."""

    outcome: str
    seq: int
    last_seq: int
    repeat: bool = False
    broadcast: Outcome | None = field(default=None, compare=False)


def match_claim(*, match_id: int, user: User, msg_id: str = "", now: Any = None) -> Claimed:
    """``user`` claims match ``match_id`` because the opponent has left the table (docs/lobby.md
    "Leaving a match between people"). Checked under the match's row lock, in this order:

    - ``no_such_match``; ``not_seated`` (``user`` holds no seat); a repeated ``msg_id`` of a claim that
      already ended the match is answered with its outcome (``repeat=True``), not applied again;
    - ``not_started`` (a waiting table), ``match_over`` (finished or aborted);
    - ``not_between_people`` (a house bot holds a seat: bots never leave);
    - ``opponent_present``: the opponent's table is open (``games.presence``);
    - ``claim_too_early``: the opponent has been gone less than ``presence.claim_after()`` (the message
      says how many seconds are left).

    Then a rated match ends with the claimer's win (``result_reason`` ``left``: a ``left`` marker
    ``{"seat": leaver, "gone_seconds": n}`` then the engine's resignation of the leaver, so the log
    replays; rated by the ratings app's exactly-once path after the commit, ``match_finished``); a casual
    match ends without a result (status ``aborted``, ``result_reason`` ``abandoned``, an ``abandon``
    marker ``{"why": "left", "seat": leaver, ...}``: not rated). Either way ``match_left`` is sent for
    the leaver inside the transaction (``lobby`` records its playban when the match is rated).

    :param now: the clock (an aware datetime; tests inject it), default ``timezone.now()``.
    :raises GameError: one of the codes above; nothing changed.
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            match = _locked(match_id)
            seat = match.seat_of(user.pk)
            if seat is None:
                raise GameError("not_seated", "you are not a player of this match")
            if msg_id:
                done = (MatchEvent.objects.filter(match_id=match.pk, seat=seat, msg_id=msg_id,
                                                  type__in=("left", "abandon")).first())
                if done is not None:
                    outcome = "win" if done.type == "left" else "end"
                    return Claimed(outcome=outcome, seq=done.seq, last_seq=match.last_seq, repeat=True)
            _check_active(match)
            if not presence.between_people(match):
                raise GameError("not_between_people", "only a match between two people can be claimed")
            leaver = 1 - seat
            gone = presence.seats(match, now=now).gone_for(leaver)
            if gone is None:
                raise GameError("opponent_present", "your opponent has the table open")
            wait = presence.claim_after()
            if gone < wait:
                left = int((wait - gone).total_seconds() + 0.999)
                away = int(gone.total_seconds())
                raise GameError("claim_too_early",
                                f"your opponent left {away} s ago: you can claim in {left} s")
            before = match.last_seq
            extra = {"seat": leaver, "gone_seconds": int(gone.total_seconds())}
            if match.rated:
                live = load(match).clone()
                row = _store_marker(match, "left", extra, seat, msg_id=msg_id)
                match.result_reason = ResultReason.LEFT
                _store(match, live, [(e, {}) for e in live.state.resign(leaver)], seat=leaver, auto=True)
                _cache_on_commit(match, live)
                _refresh(match, live, dealt=False)
                outcome = "win"
            else:
                live = None
                row = _end_abandoned(match, "left", seat=seat, msg_id=msg_id, extra=extra)
                outcome = "end"
            _left(match, [leaver], "abandoned", now=now)
            _save_cas(match, before)
            sent = _broadcast_on_commit(match, live)
            return Claimed(outcome=outcome, seq=row.seq, last_seq=match.last_seq, broadcast=sent)
    except IntegrityError:
        raise GameError("stale_seq", "another move was made first: try again") from None


def match_end_absent(*, match_id: int, now: Any = None) -> bool:
    """End match ``match_id`` between people without a result when its players are gone (docs/lobby.md
    "Leaving a match between people"): both seats gone for ``presence.gone_end_after()``, or one seat
    gone for ``presence.one_gone_end_after()``. Status ``aborted``, ``result_reason`` ``abandoned``, an
    ``abandon`` marker ``{"why": "gone", "seats": [...]}``, never rated; ``match_left`` is sent for the
    gone seats (a rated match's playbans). Driven by the sweeps (:func:`match_sweep_absent`).

    Idempotent: returns False and changes nothing when the match is not active, not between people,
    its players are not gone long enough at ``now`` (default ``timezone.now()``), or a race was lost.
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            match = _locked_or_none(match_id)
            if match is None or match.status != MatchStatus.ACTIVE or not presence.between_people(match):
                return False
            where = presence.seats(match, now=now)
            gone = [where.gone_for(seat) for seat in (0, 1)]
            if all(g is not None and g >= presence.gone_end_after() for g in gone):
                leavers = [0, 1]
            else:
                leavers = [seat for seat in (0, 1)
                           if (g := gone[seat]) is not None and g >= presence.one_gone_end_after()]
            if not leavers:
                return False
            before = match.last_seq
            _end_abandoned(match, "gone", seat=None, extra={"seats": leavers})
            _left(match, leavers, "abandoned", now=now)
            _save_cas(match, before)
            _broadcast_on_commit(match, None)
            return True
    except IntegrityError:
        return False  # another write took this seq first


def match_absent_ids(*, now: Any = None, grace: timedelta = timedelta(0), limit: int = 1000) -> list[int]:
    """Ids of active matches between people that :func:`match_end_absent` may end at ``now`` (a cheap
    superset: it re-checks each under the lock): started long enough ago, and no seat seen within
    ``presence.gone_end_after()`` (both gone), or fewer than two seats seen within
    ``presence.one_gone_end_after()`` (one gone). ``grace``: how much longer they must have been gone
    (the embedded worker's sweep leaves them to Daphne's first)."""
    from django.db.models import Count

    now = (now or timezone.now()) - grace
    both, one = now - presence.gone_end_after(), now - presence.one_gone_end_after()
    people = (Match.objects.filter(status=MatchStatus.ACTIVE, player1__isnull=False, bot_level__isnull=True,
                                   bot_seats=[])
              .annotate(seen_both=Count("presence", filter=Q(presence__seen_at__gt=both)),
                        seen_one=Count("presence", filter=Q(presence__seen_at__gt=one))))
    due = people.filter(Q(started_at__lte=both, seen_both=0) | Q(started_at__lte=one, seen_one__lt=2))
    return list(due.order_by("pk").values_list("pk", flat=True)[:limit])


def match_sweep_absent(*, now: Any = None, grace: timedelta = timedelta(0)) -> int:
    """End every match of :func:`match_absent_ids` whose players are gone (:func:`match_end_absent`);
    returns how many were ended."""
    return sum(1 for pk in match_absent_ids(now=now, grace=grace) if match_end_absent(match_id=pk, now=now))


def match_play_server_moves(
    *, match_id: int, expected_seq: int | None = None, max_moves: int = conf.MAX_SERVER_MOVES
) -> int:
    """Play every server move of match ``match_id`` that is due now (the driver's entry point: the
    task of ``games.tasks``, the in-process timers of ``games.scheduling``, the sweeps).

    Loops while ``server_move_at`` has passed: the bot to act moves (:func:`match_play_bot_turn`), or
    else the late player's automatic move is played (:func:`match_expire_turn`). A match between two
    bots is thus played out at engine speed in one call, every move stored like any other. When a move
    is pending for later, it is scheduled for its due time; after ``max_moves`` moves the rest is
    scheduled as a new run. Each move is its own transaction guarded by the seq compare-and-set, so any
    number of concurrent or repeated calls apply each move exactly once.

    :param expected_seq: the seq the caller was scheduled for; when the match has moved on, the write
        that moved it scheduled its own follow-up and this call does nothing.
    :returns: how many moves this call applied (0 when nothing was due or another driver won).
    """
    moved = 0
    repaired = False
    with scheduling.driving():
        while True:
            row = match_drive_row(match_id)  # games.write_sql: the ORM compiled it on every move
            if row is None or row["status"] != MatchStatus.ACTIVE:
                return moved
            due = min((t for t in (row["server_move_at"], row["turn_deadline"]) if t), default=None)
            seq = row["last_seq"]
            if due is None or (moved == 0 and expected_seq is not None and seq != expected_seq):
                return moved
            is_heavy = scheduling.heavy(row["bot_level"], row["bot_seats"])
            if due > timezone.now():
                scheduling.schedule(match_id, seq, due, is_heavy=is_heavy)
                return moved
            if moved >= max_moves:
                scheduling.schedule(match_id, seq, timezone.now(), is_heavy=is_heavy)
                return moved
            if match_play_bot_turn(match_id=match_id, expected_seq=seq) is None and (
                match_expire_turn(match_id=match_id, expected_seq=seq) is None
            ):
                current = Match.objects.filter(pk=match_id).values_list("last_seq", flat=True).first()
                if current != seq or repaired:
                    return moved  # another writer moved it (and scheduled the follow-up)
                _repair_server_move_at(match_id, seq)
                repaired = True
                continue
            moved += 1


def _repair_server_move_at(match_id: int, seq: int) -> None:
    """``server_move_at`` said a move was due but none was (a row from before the column existed, or
    a clock change): store the real due time, if the match is still at ``seq``."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.last_seq != seq or match.status != MatchStatus.ACTIVE:
        return
    due = _server_move_due(match, load(match), dealt=False, now=timezone.now())
    Match.objects.filter(pk=match_id, last_seq=seq).update(server_move_at=due)


def match_overdue_ids(*, grace_seconds: float, limit: int = 1000, heavy: bool | None = None) -> list[int]:
    """Ids of active matches whose server move or turn deadline was due more than ``grace_seconds``
    ago (oldest first, at most ``limit``); ``heavy`` True or False: only the matches whose moves
    ``scheduling.heavy`` calls costly, or only the others (None: all)."""
    cutoff = timezone.now() - timedelta(seconds=grace_seconds)
    due = Match.objects.filter(status=MatchStatus.ACTIVE).filter(
        Q(server_move_at__lte=cutoff) | Q(turn_deadline__lte=cutoff)
    ).order_by("server_move_at")
    if heavy is None:
        return list(due.values_list("pk", flat=True)[:limit])
    rows = due.values_list("pk", "bot_level", "bot_seats")
    return [pk for pk, level, seats in rows if scheduling.heavy(level, seats) == heavy][:limit]


def match_sweep_server_moves(*, grace_seconds: float, heavy: bool | None = None) -> int:
    """Drive every match of :func:`match_overdue_ids` (``heavy``: which ones, as there): the safety net
    for a lost task or timer. Returns how many moves were made."""
    due = match_overdue_ids(grace_seconds=grace_seconds, heavy=heavy)
    return sum(match_play_server_moves(match_id=pk) for pk in due)
