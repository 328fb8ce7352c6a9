"""A player's moves and the write path every match write shares.

A player's write (:func:`match_apply_action`, :func:`match_resign`) locks the match row, rebuilds the
engine state from the event log (``games.live``), validates through the engine, appends the new events
with the next seqs AND updates the match in one transaction (on PostgreSQL, when it can, in ONE
statement: :func:`_write_one`), and only after commit tells the match's groups
(:func:`broadcast_on_commit`). The other writes (``create``, ``server_moves``, ``abandon``) use the same
pieces: :func:`locked_match`, :func:`store_events`, :func:`refresh_match`, :func:`save_cas`,
:func:`broadcast_on_commit`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.db.models.base import ModelState
from django.utils import timezone

from accounts.models import User
from engine.actions import Action
from engine.cards import Card
from engine.deck import deck_commitment, new_salt, seeded_deck, shuffled_deck, sub_seed
from engine.errors import EngineError, IllegalActionError
from engine.events import DealEvent, Event, to_json
from games import aborts, conf, scheduling
from games.live import LiveMatch, cache_get, cache_put, load, row_check, row_contest, row_get, row_put
from games.models import Match, MatchEvent, MatchStatus, ResultReason, UnratedWhy
from games.selectors import match_state_payload, own_moves, seats_moved
from games.services.errors import GameError
from games.services.finish import Left, announce_finished, match_finish, record_result
from games.write_sql import events_insert, match_locked_or_none, match_update_cas, match_write_one
from push.groups import seat_group, watch_group
from push.send import Outcome, send_on_commit


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
        return play_action(live, action, seat, match.simulation_seed)

    return _write(match_id=match_id, user=user, msg_id=msg_id, kind="action", body=play)


def match_resign(*, match_id: int, user: User, msg_id: str = "", forfeit: bool = False) -> Applied:
    """``user`` resigns match ``match_id``: the opponent wins (``result_reason`` resign). A waiting
    table is aborted instead, and so is a RATED match resigned before both players have made a move
    (lichess's rule): status ``aborted``, ``result_reason`` aborted, an ``abort`` marker event, no winner,
    never rated; but only while ``user`` has a free abort left (``games.aborts``: ``GAMES_FREE_ABORTS``
    per rolling 24 h): past them it is an ordinary resignation, the opponent wins. A rated match between
    two people resigned before EACH seat made ``conf.rated_min_moves()`` moves of its own (and not
    aborted so) is finished with the opponent's win but not rated: ``rated`` False, ``unrated_why``
    ``early_resign`` (docs/fairplay.md "Limits that make farming slow").
    The free aborts are counted under the user's row lock (FOR NO KEY UPDATE, taken after the match's),
    so two resignations at once in two matches cannot both take the last free abort.

    :param forfeit: the server resigns for an absent player (a tournament's no-show): always aborted
        when nobody has moved, never counted as the player's abort (marker payload ``"forfeit": true``).
    :raises GameError: ``no_such_match``, ``not_seated``, ``match_over``.
    """
    with transaction.atomic():
        match = locked_match(match_id)
        seat = match.seat_of(user.pk)
        if seat is None:
            raise GameError("not_seated", "you are not a player of this match")
        if match.status == MatchStatus.WAITING:
            match_finish(match, status=MatchStatus.ABORTED)
            match.save()
            sent = broadcast_on_commit(match, None)
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
            row = store_marker(match, "abort", payload, seat, msg_id=msg_id)
            match_finish(match, status=MatchStatus.ABORTED, reason=ResultReason.ABORTED)
            save_cas(match, before)
            sent = broadcast_on_commit(match, None)
            return Applied(seq=row.seq, last_seq=match.last_seq, broadcast=sent)
        if match.rated and match.status == MatchStatus.ACTIVE and too_early_to_rate(match):
            # Finished, its winner kept (a tournament still gets its result), but not rated: stored
            # before the resignation, in the same transaction, so the end's match_finished says
            # rated=False and the ratings app (which reads Match.rated) never rates it.
            unrate(match, UnratedWhy.EARLY_RESIGN)
            return _write(match_id=match_id, user=user, msg_id=msg_id, kind="resign", body=_resign)

    return _write(match_id=match_id, user=user, msg_id=msg_id, kind="resign", body=_resign)


def _resign(live: LiveMatch, match: Match, seat: int) -> list[tuple[Event, dict[str, Any]]]:
    return [(e, {}) for e in live.state.resign(seat)]


def unrate(match: Match, why: str) -> None:
    """Make the rated ``match`` (locked by the caller's transaction) unrated for ``why``
    (``UnratedWhy``): stored at once (the write's compare-and-set does not store ``rated``) and on the
    instance, before the end, so ``match_finished`` says ``rated=False``."""
    Match.objects.filter(pk=match.pk).update(rated=False, unrated_why=why)
    match.rated, match.unrated_why = False, why


def too_early_to_rate(match: Match) -> bool:
    """Whether ``match`` is between two people and a seat has made fewer than ``conf.rated_min_moves()``
    moves of its own (``games.selectors.own_moves``): a resignation now does not rate the match
    (docs/fairplay.md)."""
    if match.bot_seats:
        # Against a house bot nobody gains rating (its rating is fixed), and a resignation's only use is
        # fishing for a better deal: there the free aborts, then a rated loss, stay the rule.
        return False
    moves = own_moves(match_id=match.pk)
    return any(moves.get(seat, 0) < conf.rated_min_moves() for seat in (0, 1))


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
            match = locked_match(match_id)
            row_check(match)
            seat = match.seat_of(user.pk)
            if seat is None:
                raise GameError("not_seated", "you are not a player of this match")
            check_active(match)
            live = load(match).clone()
            events = body(live, match, seat)
            before = match.last_seq
            rows = store_events(match, live, events, seat=seat, msg_id=msg_id)
            strikes = list(match.timeout_strikes or [0, 0])
            strikes[seat] = 0
            match.timeout_strikes = strikes
            # The row is kept for _write_one only when this commit is the write's own: in an outer
            # transaction the row could change again under the same row version before it commits.
            cache_on_commit(match, live, row=outermost)
            refresh_match(match, live, dealt=any(isinstance(e, DealEvent) for e, _ in events))
            save_cas(match, before)
            sent = broadcast_on_commit(match, live)
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
    """:func:`_write` in ONE statement (:func:`write_one` for ``user``'s seat), or None when it cannot
    be done so (nothing was stored: the caller runs the locked write, which answers every refusal and
    repeat)."""
    return write_one(match_id=match_id, seat_of=lambda held, _live: held.seat_of(user.pk), msg_id=msg_id,
                     body=body)


def write_one(
    *, match_id: int, seat_of: Callable[[Match, LiveMatch], int | None],
    body: Callable[[LiveMatch, Match, int], list[tuple[Event, dict[str, Any]]]],
    msg_id: str = "", person: bool = True,
) -> Applied | None:
    """A write of the seat ``seat_of(held row, held engine state)`` names (None: not this way) in ONE
    statement, or None when it cannot be done so (nothing was stored: the caller runs its locked write,
    which answers every refusal and repeat). ``person``: the seat's own move, which clears its timeout
    strikes (a house bot's move, ``games.services.server_moves``, leaves them).

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
    state = cache_get(match_id, held.last_seq)
    if state is None:
        return None
    seat = seat_of(held, state)
    if seat is None:
        return None
    match, live = _copy(held), state.clone()
    try:
        events = body(live, match, seat)
    except GameError:
        return None
    rows = _rows(match, events, seat=seat, msg_id=msg_id)
    match.last_seq += len(rows)
    if person:
        strikes = list(match.timeout_strikes or [0, 0])
        strikes[seat] = 0
        match.timeout_strikes = strikes
    match.scores = list(live.state.final_scores or live.state.scores)
    result = _result(match, live)
    if result is not None:  # the end's first half; the statement is this write's transaction
        record_result(match, status=MatchStatus.FINISHED, winner=result[0], reason=result[1])
    _clocks(match, live, dealt=any(isinstance(e, DealEvent) for e, _ in events))
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
    if result is not None:
        announce_finished(match)
    _drive_on_commit(match)
    sent = broadcast_on_commit(match, live)
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
    """Whether both seats have made a move of their own (``games.selectors.seats_moved``): until then a
    rated match is aborted by a resignation."""
    return seats_moved(match_id=match.pk) == {0, 1}


def locked_match(match_id: int) -> Match:
    """The match row, locked until the transaction ends (PostgreSQL), with its players (not locked).

    :raises GameError: ``no_such_match``.
    """
    match = locked_match_or_none(match_id)
    if match is None:
        raise GameError("no_such_match", f"no match {match_id}")
    return match


def locked_match_or_none(match_id: int) -> Match | None:
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


def check_active(match: Match) -> None:
    if match.status == MatchStatus.WAITING:
        raise GameError("not_started", "the table is waiting for the second player")
    if match.status != MatchStatus.ACTIVE:
        raise GameError("match_over", "the match is over")


def play_action(
    live: LiveMatch, action: Action, seat: int, seed: int | None
) -> list[tuple[Event, dict[str, Any]]]:
    """Apply ``action`` for ``seat``, then deal the next hand if one ended and the match goes on
    (``seed``: the match's ``simulation_seed``, see :func:`deal_hand`)."""
    try:
        events: list[tuple[Event, dict[str, Any]]] = [(e, {}) for e in live.state.apply(action, seat)]
    except IllegalActionError as exc:
        raise GameError(exc.code, str(exc)) from None
    except EngineError as exc:
        raise GameError("illegal_action", str(exc)) from None
    if live.state.awaiting_deal:
        events.append(deal_hand(live, seed))
    return events


def deal_hand(live: LiveMatch, seed: int | None) -> tuple[Event, dict[str, Any]]:
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


def store_events(
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
    """The unsaved rows of ``events`` with seqs after ``match.last_seq`` (see :func:`store_events`)."""
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


def store_marker(
    match: Match, type_: str, payload: dict[str, Any], seat: int, *, msg_id: str = ""
) -> MatchEvent:
    row = MatchEvent.objects.create(match_id=match.pk, seq=match.last_seq + 1, type=type_,
                                    payload=payload, seat=seat, auto=not msg_id, msg_id=msg_id)
    match.last_seq += 1
    return row


def cache_on_commit(match: Match, live: LiveMatch, *, row: bool = False) -> None:
    """After commit, cache ``live`` as the state of ``match`` at its ``last_seq`` then (``games.live``).

    Register it before :func:`refresh_match`: hooks run in the order registered, and ``refresh_match``
    registers the driver of the next server move, which (in process, due now) loads the state at once:
    registered after it, the cache still held the previous seq and the bot's reply to every player's
    move replayed the whole log (167 replays beside 2,000 writes in a 50-match run, issue 9's cProfile
    of Daphne)."""
    def put() -> None:
        cache_put(match.pk, match.last_seq, live)
        if row and getattr(match, "_row_token", None) is not None:
            row_put(match)  # the stored row, for the next write's _write_one (``row``: see _write)

    transaction.on_commit(put)


def refresh_match(
    match: Match, live: LiveMatch, *, dealt: bool, reason: str | None = None, left: Left | None = None,
) -> None:
    """After a write stored engine events: copy the engine's scores into the match row; when the
    engine's state is over, end the match (``finish.match_finish``: ``finished``, the engine's winner,
    the reason the last event gives unless ``reason`` says why the engine's resignation came
    (``timeout``, ``left``), ``match_left`` for ``left``); reset the turn deadline and the server's next
    move, and drive that move after the commit. ``dealt``: the write dealt a new hand (its pause)."""
    match.scores = list(live.state.final_scores or live.state.scores)
    result = _result(match, live)
    if result is not None:
        match_finish(match, status=MatchStatus.FINISHED, winner=result[0], reason=reason or result[1],
                     left=left)
    _clocks(match, live, dealt=dealt)
    _drive_on_commit(match)


def _result(match: Match, live: LiveMatch) -> tuple[int | None, str] | None:
    """(winner seat, ``result_reason``) when this write ends the match: the engine's state is over and
    the row is still active; else None."""
    state = live.state
    if not state.is_over or match.status != MatchStatus.ACTIVE:
        return None
    return state.winner, getattr(state.events[-1], "reason", ResultReason.TARGET)


def _clocks(match: Match, live: LiveMatch, *, dealt: bool) -> None:
    """The turn deadline (a timed match still active: the player to act's clock, plus the hand pause
    after a deal that is not hand 1) and the server's next move (:func:`server_move_due`)."""
    state = live.state
    now = timezone.now()
    if match.turn_timer_seconds and match.status == MatchStatus.ACTIVE and state.current_player is not None:
        pause = conf.hand_pause_seconds() if dealt and state.hand_number > 1 else 0
        match.turn_deadline = _clock_start(match, state.current_player, now) + timedelta(
            seconds=match.turn_timer_seconds + pause)
    else:
        match.turn_deadline = None
    match.server_move_at = server_move_due(match, live, dealt=dealt, now=now)


def _drive_on_commit(match: Match) -> None:
    """After the commit (at once outside a transaction), drive the server's next move, if one is due."""
    if match.server_move_at is not None:
        scheduling.schedule_on_commit(match.pk, match.last_seq, match.server_move_at,
                                      is_heavy=scheduling.heavy(match.bot_level, match.bot_seats))


def _clock_start(match: Match, seat: int, now: Any) -> Any:
    """When ``seat``'s clock for the turn starting ``now`` starts: ``now``, or for a seat whose first
    clock still waits for it to connect (a tournament board, ``Match.first_clock_waiting``) the later of
    ``now`` and ``first_clock_until``."""
    if match.first_clock_until is not None and seat in (match.first_clock_waiting or []):
        return max(now, match.first_clock_until)
    return now




def save_cas(match: Match, before: int) -> None:
    """Save the match only if no other write advanced it meanwhile (the race guard on SQLite, where
    ``select_for_update`` does nothing; on PostgreSQL the row lock already serializes writers). Only
    the columns a write changes; ``match`` ends up equal to the stored row."""
    match.updated_at = timezone.now()
    if not match_update_cas(match, before):  # games.write_sql.CAS_FIELDS
        raise IntegrityError("match advanced concurrently")


def broadcast_on_commit(match: Match, live: LiveMatch | None) -> Outcome:
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
    new one (``infra.channel_layer``), so a single dead connection no longer fails the broadcast."""
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




def server_move_due(match: Match, live: LiveMatch, *, dealt: bool, now: Any) -> Any:
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
