"""The server's own moves: a house bot's turn, the automatic move of a late player at the turn deadline
(and the loss on time at the third in a row), and the driver that plays every move due
(:func:`match_play_server_moves`: ``games.scheduling``'s timers, ``games.tasks``, the sweeps).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from engine.actions import Action, ActionKind
from engine.bots import make_bot
from engine.cards import card_value
from engine.deck import sub_seed
from engine.events import DealEvent, Event
from engine.melds import deadwood
from games import conf, scheduling
from games.live import LiveMatch, load, row_get
from games.models import Match, MatchStatus, ResultReason
from games.services.abandon import end_abandoned
from games.services.errors import GameError
from games.services.finish import Left
from games.services.play import (
    broadcast_on_commit,
    cache_on_commit,
    locked_match_or_none,
    play_action,
    refresh_match,
    save_cas,
    server_move_due,
    store_events,
    store_marker,
    write_one,
)
from games.signals import turn_expired
from games.write_sql import DRIVE_FIELDS, match_drive_row


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
        match = locked_match_or_none(match_id)
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
            broadcast_on_commit(match, live)
        return True


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


def _bot_seat(expected_seq: int | None) -> Callable[[Match, LiveMatch], int | None]:
    """``seat_of`` for :func:`games.services.play.write_one`: the house bot's seat when it is to act in
    the held row at ``expected_seq`` (if given), else None."""
    def seat_of(held: Match, live: LiveMatch) -> int | None:
        if held.status != MatchStatus.ACTIVE or not held.bot_seats:
            return None
        if expected_seq is not None and expected_seq != held.last_seq:
            return None
        seat = live.state.current_player
        return seat if seat is not None and seat in held.bot_seats else None

    return seat_of


def _bot_move(live: LiveMatch, match: Match, seat: int) -> list[tuple[Event, dict[str, Any]]]:
    """The events of the house bot's move at ``seat`` (its choice from its own PlayerView)."""
    level = _bot_level(match, seat)
    view = live.state.view(seat)
    seed = match.simulation_seed
    bot_seed = (match.pk * 100_003 + match.last_seq if seed is None
                else sub_seed(seed, "bot", match.last_seq))
    action = choose_bot_action(level, view, seed=bot_seed)
    return play_action(live, action, seat, seed)


def _play_bot_turn(match_id: int, expected_seq: int | None) -> int | None:
    # First in one statement against the row and state this process stored last (the person's move
    # before it, as a rule): a bot move took six round trips and a third of a Daphne's write CPU.
    applied = write_one(match_id=match_id, seat_of=_bot_seat(expected_seq), body=_bot_move, person=False)
    if applied is not None:
        return applied.last_seq
    outermost = not transaction.get_connection().in_atomic_block
    with transaction.atomic():
        match = locked_match_or_none(match_id)
        if match is None or match.status != MatchStatus.ACTIVE or not match.bot_seats:
            return None
        if expected_seq is not None and expected_seq != match.last_seq:
            return None
        live = load(match).clone()
        seat = live.state.current_player
        if seat is None or seat not in match.bot_seats:
            return None
        events = _bot_move(live, match, seat)
        before = match.last_seq
        store_events(match, live, events, seat=seat)
        cache_on_commit(match, live, row=outermost)  # (the person's next move: see _write_one)
        refresh_match(match, live, dealt=any(isinstance(e, DealEvent) for e, _ in events))
        save_cas(match, before)
        broadcast_on_commit(match, live)
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
        match = locked_match_or_none(match_id)
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
        reason = None
        left = None
        lose = conf.TIMEOUT_STRIKES_TO_LOSE
        if strikes[seat] >= lose and strikes[1 - seat] >= lose - 1:
            # Both away: the opponent's own last turns were timer moves too, so nobody "wins on time".
            end_abandoned(match, "both_away", seat=None, left=Left([0, 1], "timeouts"))
            outcome = "both_away"
        elif strikes[seat] >= lose:
            store_marker(match, "timeout", {"seat": seat}, seat)
            store_events(match, live, [(e, {}) for e in live.state.resign(seat)], seat=seat, auto=True)
            reason, left = ResultReason.TIMEOUT, Left([seat], "timeouts")  # the engine's end is on time
            outcome = "lost_on_time"
        else:
            outcome = "auto_move"
            for action in safe_moves(live, seat):
                events = play_action(live, action, seat, match.simulation_seed)
                dealt = dealt or any(isinstance(e, DealEvent) for e, _ in events)
                store_events(match, live, events, seat=seat, auto=True)
                if live.state.current_player != seat:
                    break
        cache_on_commit(match, live)
        refresh_match(match, live, dealt=dealt, reason=reason, left=left)
        save_cas(match, start)
        broadcast_on_commit(match, live)
        turn_expired.send(sender=Match, match=match, seat=seat, user_id=match.player_id(seat),
                          outcome=outcome, now=timezone.now())
        return match.last_seq


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
    after: int | None = None
    with scheduling.driving():
        while True:
            # After this call's own move, the row it stored (one read less per move); else the database's
            # (games.write_sql: the ORM compiled that query on every move).
            row = (after is not None and _held_drive_row(match_id, after)) or match_drive_row(match_id)
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
            after = match_play_bot_turn(match_id=match_id, expected_seq=seq)
            if after is None:
                after = match_expire_turn(match_id=match_id, expected_seq=seq)
            if after is None:
                current = Match.objects.filter(pk=match_id).values_list("last_seq", flat=True).first()
                if current != seq or repaired:
                    return moved  # another writer moved it (and scheduled the follow-up)
                _repair_server_move_at(match_id, seq)
                repaired = True
                continue
            moved += 1


def _held_drive_row(match_id: int, seq: int) -> dict[str, Any] | None:
    """The driver's fields (``games.write_sql.DRIVE_FIELDS``) of the row this process stored for
    ``match_id`` when it is at ``seq`` (the move just made here), else None. Another process may have
    written the match since: a decision on this row is then made on a stale one, which is safe (a move
    is stored only if the row is unchanged, a timer acts only at its seq) and rare (the driver runs right
    after this process's own write)."""
    held = row_get(match_id)
    if held is None or held.last_seq != seq:
        return None
    return {name: getattr(held, name) for name in DRIVE_FIELDS}


def _repair_server_move_at(match_id: int, seq: int) -> None:
    """``server_move_at`` said a move was due but none was (a row from before the column existed, or
    a clock change): store the real due time, if the match is still at ``seq``."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.last_seq != seq or match.status != MatchStatus.ACTIVE:
        return
    due = server_move_due(match, load(match), dealt=False, now=timezone.now())
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
