"""The live-play hot path (issue 9): how many queries a write and a state build take, and what the
after-commit broadcast sends where (each seat its own state, built once; spectators no card)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import ANY

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.live import cache_clear, load
from games.models import Match
from push import send as push_send
from tests.games.wsclient import choose

# bot_waits: the server's own driver must not move the bot behind the tests' backs (they make the bot's
# turns themselves, count the queries of one write, and record only their own writes' broadcasts).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("bot_waits")]


class RecordingLayer:
    """A channel layer that records every ``group_send``: ``[(group, message), ...]``."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.sent.append((group, message))


@pytest.fixture
def layer(monkeypatch: pytest.MonkeyPatch) -> RecordingLayer:
    recording = RecordingLayer()
    monkeypatch.setattr(push_send, "get_channel_layer", lambda: recording)
    return recording


TRANSACTION = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def _sql(captured: Any) -> list[str]:
    """The verbs of the statements run, transaction control (which Django logs too) left out."""
    verbs = [q["sql"].split()[0].upper() for q in captured.captured_queries]
    return [v for v in verbs if v not in TRANSACTION]


@contextmanager
def statements(expected: list[str]) -> Iterator[CaptureQueriesContext]:
    """Assert the block runs exactly the ``expected`` statements (by verb, in order)."""
    with CaptureQueriesContext(connection) as captured:
        yield captured
    sqls = "\n".join(q["sql"][:200] for q in captured.captured_queries)
    assert _sql(captured) == expected, sqls


def _actor(match_id: int) -> tuple[Match, int, dict[str, Any]]:
    match = Match.objects.get(pk=match_id)
    seat = load(match).state.current_player
    assert seat is not None
    return match, seat, selectors.match_state_payload(match=match, seat=seat)["hand"]


def test_player_action_is_three_queries(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    """One locked read of the match with its players, one insert of the events, one conditional
    update; nothing is read again for the broadcast (the engine state is cached). On PostgreSQL that is
    the first move of this process only: every later one is ONE statement (``services.play._write_one``),
    which test_player_action_is_one_statement_on_postgresql counts."""
    from games.live import row_put

    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    users = {0: alice, 1: bob}
    for step in range(6):
        match, seat, hand = _actor(table.pk)
        with statements(["SELECT", "INSERT", "UPDATE"]) as captured:
            applied = services.match_apply_action(
                match_id=match.pk, user=users[seat], action_text=choose(hand), client_seq=match.last_seq,
                msg_id=f"m{step}",
            )
        assert applied.seq == match.last_seq + 1 and not applied.repeat
        if connection.vendor == "postgresql":
            assert any("FOR UPDATE OF" in q["sql"] for q in captured.captured_queries)
        with transaction.atomic():  # forget the stored row: the next write is the locked one
            row_put(Match.objects.select_related("player0", "player1").get(pk=table.pk))


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the one-statement write is PostgreSQL's")
def test_player_action_is_one_statement_on_postgresql(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    """After this process stored a match (the first move: the locked write), each move of it is ONE
    statement, in autocommit: the compare-and-set update guarded by the row versions it holds, and the
    insert of the events (games.write_sql.match_write_one); the match and the log then equal what the
    locked write stores, across a deal."""
    from games.models import MatchEvent

    table = services.table_create(user=alice, rules_preset="classic", target=50, turn_timer=30)
    services.table_join(user=bob, token=table.invite_token)
    users = {0: alice, 1: bob}
    hands = set()
    for step in range(200):
        if Match.objects.get(pk=table.pk).status != "active":
            break
        match, seat, hand = _actor(table.pk)
        with CaptureQueriesContext(connection) as captured:
            applied = services.match_apply_action(
                match_id=match.pk, user=users[seat], action_text=choose(hand), client_seq=match.last_seq,
                msg_id=f"m{step}",
            )
        stored = Match.objects.get(pk=table.pk)
        verbs = [q["sql"].split()[0] for q in captured.captured_queries]
        if step == 0:
            assert _sql(captured) == ["SELECT", "INSERT", "UPDATE"]
        elif stored.status == "active":
            assert verbs == ["WITH"]  # and no BEGIN/COMMIT
        else:  # the finishing write: then the match-finished receivers' own reads, after the commit
            assert verbs[0] == "WITH" and "INSERT" not in verbs[1:] and "UPDATE" not in verbs[1:]
        assert applied.seq == match.last_seq + 1 and applied.last_seq == stored.last_seq
        assert stored.timeout_strikes == [0, 0]
        assert (stored.turn_deadline is not None) == (stored.status == "active")
        rows = MatchEvent.objects.filter(match_id=table.pk, seq__gt=match.last_seq).order_by("seq")
        assert [r.seq for r in rows] == list(range(match.last_seq + 1, stored.last_seq + 1))
        assert (rows[0].seat, rows[0].msg_id, rows[0].auto) == (seat, f"m{step}", False)
        assert all(r.created_at is not None for r in rows)
        hands.add(load(stored).state.hand_number)
    cache_clear()  # a replay of the stored log gives the state the writes held
    fresh = Match.objects.select_related("player0", "player1").get(pk=table.pk)
    assert len(hands) >= 2 and load(fresh).state.hand_number == max(hands)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the one-statement write is PostgreSQL's")
def test_one_statement_write_stores_what_the_locked_write_stores(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same seeded match (simulation_seed: the same dealer, decks and so moves) played to its end
    with every move through the locked write, then with the one statement: the same event log (types,
    payloads, seats, message ids) and the same match row, but for the times of day."""
    from games.models import MatchEvent

    locked_write_one = services.play._write_one
    times = {"created_at", "updated_at", "started_at", "finished_at", "turn_deadline", "server_move_at"}

    def play(one_statement: bool) -> tuple[list[Any], dict[str, Any], int]:
        monkeypatch.setattr(services.play, "_write_one",
                            locked_write_one if one_statement else lambda **kwargs: None)
        match = services.match_create_seated(player0=alice, player1=bob, target=50, turn_timer=60,
                                             simulation_seed=7)
        users = {0: alice, 1: bob}
        step = 0
        while Match.objects.get(pk=match.pk).status == "active" and step < 400:
            current, seat, hand = _actor(match.pk)
            with CaptureQueriesContext(connection) as captured:
                services.match_apply_action(match_id=match.pk, user=users[seat], action_text=choose(hand),
                                            client_seq=current.last_seq, msg_id=f"s{step}")
            if one_statement and step:
                assert captured.captured_queries[0]["sql"].startswith("WITH")
            step += 1
        stored = Match.objects.get(pk=match.pk)
        log = list(MatchEvent.objects.filter(match_id=match.pk).order_by("seq")
                   .values_list("seq", "type", "payload", "seat", "msg_id", "auto"))
        for key in ("salt", "commitment"):  # a deal's secret salt is random (so is its commitment)
            for _, type_, payload, *_ in log:
                if type_ == "deal":
                    assert payload.pop(key)
        fields = {f.attname: getattr(stored, f.attname) for f in Match._meta.concrete_fields
                  if f.attname not in times | {"id"}}
        return log, fields, step

    locked_log, locked_match, steps = play(one_statement=False)
    one_log, one_match, _ = play(one_statement=True)
    assert locked_match["status"] == "finished" and steps > 20
    assert one_log == locked_log
    assert one_match == locked_match


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the one-statement write is PostgreSQL's")
def test_bot_moves_are_one_statement_and_store_what_the_locked_write_stores(
    house_bots: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A house bot's move, as a person's, is ONE statement once this process stored the match
    (``services.server_moves`` through ``services.play.write_one``): the same seeded bot-vs-bot match
    played out by the server's driver with every move through the locked write, then through the one
    statement, stores the same event log and the same match row; the second run locked the row for its
    first move only."""
    from games.models import MatchEvent
    from games.services import play, server_moves

    times = {"created_at", "updated_at", "started_at", "finished_at", "turn_deadline", "server_move_at"}
    one_statement_write = play.write_one

    def run(one_statement: bool) -> tuple[list[Any], dict[str, Any], list[str]]:
        monkeypatch.setattr(server_moves, "write_one",
                            one_statement_write if one_statement else lambda **kwargs: None)
        with CaptureQueriesContext(connection) as captured:
            match = services.match_create_bot_vs_bot(bot0=house_bots[1], bot1=house_bots[2], target=50,
                                                     simulation_seed=11)
        stored = Match.objects.get(pk=match.pk)
        assert stored.status == "finished"
        log = list(MatchEvent.objects.filter(match_id=match.pk).order_by("seq")
                   .values_list("seq", "type", "payload", "seat", "msg_id", "auto"))
        for _, type_, payload, *_ in log:
            if type_ == "deal":  # a deal's secret salt is random (so is its commitment)
                payload.pop("salt"), payload.pop("commitment")
        fields = {f.attname: getattr(stored, f.attname) for f in Match._meta.concrete_fields
                  if f.attname not in times | {"id"}}
        return log, fields, [q["sql"] for q in captured.captured_queries]

    locked_log, locked_row, locked_sql = run(one_statement=False)
    one_log, one_row, one_sql = run(one_statement=True)
    moves = sum(1 for _, type_, *_ in one_log if type_ == "action")
    assert moves > 20
    assert one_log == locked_log and one_row == locked_row
    assert sum("FOR UPDATE" in q for q in locked_sql) == moves
    assert not any(q.startswith("WITH") for q in locked_sql)
    assert sum("FOR UPDATE" in q for q in one_sql) == 1
    assert sum(q.startswith("WITH") for q in one_sql) == moves - 1
    # The driver reads the match once; after each of its own moves, it reads the row it stored.
    drive = 'SELECT "status", "last_seq", "server_move_at"'
    assert sum(q.startswith(drive) for q in locked_sql) == sum(q.startswith(drive) for q in one_sql) == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the one-statement write is PostgreSQL's")
def test_one_statement_write_refuses_a_changed_row(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    """The held row is only a copy: a change of the match by anyone else (even of a column the seq does
    not track, even without a seq change), or of a player, makes the one statement store nothing, and
    the locked write then does the move from the database's row (or refuses it as that row says)."""
    from django.utils import timezone

    from accounts.models import User

    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    users = {0: alice, 1: bob}

    def play(step: str, expected: list[str]) -> None:
        match, seat, hand = _actor(table.pk)
        with statements(expected):
            applied = services.match_apply_action(
                match_id=match.pk, user=users[seat], action_text=choose(hand), client_seq=match.last_seq,
                msg_id=step)
        assert applied.seq == match.last_seq + 1 and not applied.repeat

    locked = ["SELECT", "INSERT", "UPDATE"]
    play("a", locked)
    play("b", ["WITH"])
    soon = timezone.now().replace(microsecond=0)
    Match.objects.filter(pk=table.pk).update(first_clock_until=soon)  # no seq change
    play("c", ["WITH", *locked])
    assert Match.objects.get(pk=table.pk).first_clock_until == soon
    # Refused once, the match is written the locked way until a locked read finds this process's row
    # still current (here at once: nobody else writes it), then in one statement again.
    play("d", locked)
    play("e", ["WITH"])
    User.objects.filter(pk=bob.pk).update(display_name="Bobby")
    play("f", ["WITH", *locked])
    play("g", locked)
    play("h", ["WITH"])
    match, seat, hand = _actor(table.pk)
    Match.objects.filter(pk=table.pk).update(status="aborted")
    # the locked read says the match is over; then the check that "i" was not applied before
    with pytest.raises(services.GameError) as refused, statements(["WITH", "SELECT", "SELECT"]):
        services.match_apply_action(match_id=match.pk, user=users[seat], action_text=choose(hand),
                                    client_seq=match.last_seq, msg_id="i")
    assert refused.value.code == "match_over"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the one-statement write is PostgreSQL's")
def test_match_written_by_another_process_too_is_written_the_locked_way(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    """Where every other move is another process's (its bot moves in a worker, the opponent's socket on
    another Daphne), each of this process's moves is the locked write alone: the one statement is not
    tried (and refused) again and again."""
    from games.live import row_put
    from games.write_sql import CAS_FIELDS

    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    users = {0: alice, 1: bob}
    for step in range(8):
        match, seat, hand = _actor(table.pk)
        expected = ["SELECT", "INSERT", "UPDATE"] if step != 1 else ["WITH", "SELECT", "INSERT", "UPDATE"]
        with statements(expected):
            services.match_apply_action(match_id=match.pk, user=users[seat], action_text=choose(hand),
                                        client_seq=match.last_seq, msg_id=f"m{step}")
        # "another process" writes the row (no move: the same values, a new row version)
        stored = Match.objects.get(pk=table.pk)
        stored.save(update_fields=list(CAS_FIELDS))
    assert row_put is not None


def test_action_after_another_process_wrote_reads_the_log_once(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    """Without the cached state (the last write ran in another process) the write replays the log:
    one more query, and a repeat of the same message id is answered from the log (one more)."""
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    match, seat, hand = _actor(table.pk)
    user = alice if seat == 0 else bob
    cache_clear()
    with statements(["SELECT", "SELECT", "INSERT", "UPDATE"]):
        services.match_apply_action(match_id=match.pk, user=user, action_text=choose(hand),
                                    client_seq=match.last_seq, msg_id="x1")
    with statements(["SELECT", "SELECT"]):  # the locked read (then: stale seq), the repeat lookup
        again = services.match_apply_action(match_id=match.pk, user=user, action_text=choose(hand),
                                            client_seq=match.last_seq, msg_id="x1")
    assert again.repeat and again.seq == match.last_seq + 1


def test_bot_turn_is_one_statement_or_three_queries(alice: Any, house_bots: Any, seeded_decks: list[int]
                                                    ) -> None:
    """A bot's move: ONE statement on PostgreSQL once this process holds the match's row (it wrote the
    match last: here every move after the first write), else the locked read, the insert and the
    conditional update."""
    from games.live import row_get

    moved, one_statement = 0, 0
    match = services.match_create_vs_bot(user=alice, level=3, rules_preset="classic", target=100)
    for step in range(12):
        match, seat, hand = _actor(match.pk)
        if seat == 1:
            held = connection.vendor == "postgresql" and row_get(match.pk) is not None
            with statements(["WITH"] if held else ["SELECT", "INSERT", "UPDATE"]):
                last_seq = services.match_play_bot_turn(match_id=match.pk)
            assert last_seq == Match.objects.get(pk=match.pk).last_seq > match.last_seq
            moved += 1
            one_statement += held
        else:
            services.match_apply_action(match_id=match.pk, user=alice, action_text=choose(hand),
                                        client_seq=match.last_seq, msg_id=f"a{step}")
    assert moved >= 4
    assert one_statement >= (moved - 1 if connection.vendor == "postgresql" else 0)


def test_state_build_is_one_query(alice: Any, house_bots: Any, seeded_decks: list[int]) -> None:
    """A ``state`` for a connecting or syncing socket: the match with its players, nothing else."""
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    with statements(["SELECT"]):
        fresh = selectors.match_get(match_id=match.pk)
        assert selectors.match_state_payload(match=fresh, seat=0)["seq"] == 1


def test_broadcast_sends_each_seat_its_own_state_and_spectators_no_card(
    alice: Any, bob: Any, seeded_decks: list[int], layer: RecordingLayer
) -> None:
    """Over whole hands of a friend match: after every write seat k's group gets exactly the state a
    fresh read builds for seat k (a broadcast's: without the rules, and without the last hand but in
    the state right after it ended), and the spectators' group only ``{"type", "seq"}``."""
    table = services.table_create(user=alice, rules_preset="classic", target=50, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    users = {0: alice, 1: bob}
    hands = set()
    for step in range(120):
        if Match.objects.get(pk=table.pk).status != "active":
            break
        match, seat, hand = _actor(table.pk)
        layer.sent.clear()
        services.match_apply_action(match_id=match.pk, user=users[seat], action_text=choose(hand),
                                    client_seq=match.last_seq, msg_id=f"m{step}")
        fresh = selectors.match_get(match_id=match.pk)
        assert fresh is not None
        groups = [group for group, _ in layer.sent]
        assert groups == [f"match_{match.pk}_seat0", f"match_{match.pk}_seat1", f"watch_{match.pk}"]
        for k in (0, 1):
            message = layer.sent[k][1]
            assert message["state"] == selectors.match_state_payload(match=fresh, seat=k)
            assert message["state"]["match"]["you"] == k and message["seq"] == fresh.last_seq
            # protocol 2: no rules; the last hand only in the state that follows its end (a new hand)
            state = message["state"]
            assert state["v"] == selectors.PROTOCOL_VERSION and "rules" not in state["match"]
            new = state["last_hand_no"] is None or state["hand"] is None or not state["hand"]["moves"]
            assert ("last_hand" in state) == new
        assert layer.sent[2][1] == {"type": "match.update", "seq": fresh.last_seq}
        hands.add(layer.sent[0][1]["state"]["match"]["hand_number"])
    assert len(hands) >= 2  # a hand ended on the way: its reveal was compared too


def test_bot_seat_gets_no_broadcast(alice: Any, house_bots: Any, seeded_decks: list[int],
                                    layer: RecordingLayer) -> None:
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    match, seat, hand = _actor(match.pk)
    if seat == 1:
        services.match_play_bot_turn(match_id=match.pk)
    else:
        services.match_apply_action(match_id=match.pk, user=alice, action_text=choose(hand),
                                    client_seq=match.last_seq, msg_id="a")
    assert [group for group, _ in layer.sent] == [f"match_{match.pk}_seat0", f"watch_{match.pk}"]


def test_locked_read_equals_the_orm_read(
    alice: Any, bob: Any, house_bots: Any, seeded_decks: list[int]
) -> None:
    """games.write_sql gives the match the ORM gives, field by field, with the players' fields the
    payload reads (a waiting table: no second player); another user field is loaded on access."""
    from django.db import transaction

    from accounts.models import User
    from games.write_sql import PLAYER_FIELDS, match_locked_or_none

    waiting = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    friend = services.table_create(user=bob, rules_preset="brazilian", target=50, turn_timer=30)
    services.table_join(user=alice, token=friend.invite_token)
    vs_bot = services.match_create_vs_bot(user=alice, level=2, rules_preset="classic", target=100)
    User.objects.filter(pk=bob.pk).update(display_name="Bob B.")
    for match_id in (waiting.pk, friend.pk, vs_bot.pk):
        with transaction.atomic():
            with statements(["SELECT"]) as captured:
                got = match_locked_or_none(match_id)
            orm = Match.objects.select_related("player0", "player1").get(pk=match_id)
        assert got is not None
        if connection.vendor == "postgresql":
            assert captured.captured_queries[0]["sql"].endswith("FOR UPDATE OF m")
        for f in Match._meta.concrete_fields:
            assert getattr(got, f.attname) == getattr(orm, f.attname), f.name
        for seat in (0, 1):
            mine, theirs = getattr(got, f"player{seat}"), getattr(orm, f"player{seat}")
            if theirs is None:
                assert mine is None and got.pk == waiting.pk
                continue
            assert [getattr(mine, n) for n in PLAYER_FIELDS] == [getattr(theirs, n) for n in PLAYER_FIELDS]
            assert mine.public_name == theirs.public_name
            assert type(mine.is_bot) is bool and type(mine.is_guest) is bool
        payload = selectors.match_state_payload
        assert payload(match=got, seat=0) == payload(match=orm, seat=0)
    assert friend.pk != waiting.pk
    with transaction.atomic():
        got = match_locked_or_none(friend.pk)
        assert got is not None and got.player0.public_name == "Bob B."
        with statements(["SELECT"]):
            assert got.player0.email == bob.email  # deferred: loaded on access
    with transaction.atomic():
        assert match_locked_or_none(10**9) is None


def test_cas_update_stores_the_write_only_from_the_seq_it_started(alice: Any, bob: Any,
                                                                  seeded_decks: list[int]) -> None:
    """games.write_sql.match_update_cas: from a stale seq it changes nothing; from the row's seq it
    stores every field of CAS_FIELDS (JSON, choices, datetimes, nulls) and nothing else."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import MatchStatus, ResultReason
    from games.write_sql import CAS_FIELDS, match_update_cas

    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=60)
    services.table_join(user=bob, token=table.invite_token)
    before = Match.objects.get(pk=table.pk)
    now = timezone.now().replace(microsecond=123000)
    match = Match.objects.get(pk=table.pk)
    match.last_seq, match.scores, match.status = before.last_seq + 2, [31, 7], MatchStatus.FINISHED
    match.winner, match.result_reason, match.finished_at = 1, ResultReason.TIMEOUT, now
    match.turn_deadline, match.timeout_strikes = None, [0, 3]
    match.server_move_at, match.updated_at = now + timedelta(seconds=5), now
    match.rated = not before.rated  # not a CAS field: never stored by the update
    with statements(["UPDATE"]):
        assert not match_update_cas(match, before.last_seq - 1)
    assert Match.objects.get(pk=table.pk).__dict__ == before.__dict__ | {"_state": ANY}
    with statements(["UPDATE"]):
        assert match_update_cas(match, before.last_seq)
    stored = Match.objects.get(pk=table.pk)
    assert {n: getattr(stored, n) for n in CAS_FIELDS} == {n: getattr(match, n) for n in CAS_FIELDS}
    assert (stored.scores, stored.status, stored.finished_at, stored.rated) == ([31, 7], "finished", now,
                                                                                 before.rated)


def test_events_insert_stores_rows_as_the_orm_does(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    """games.write_sql.events_insert: one INSERT of every row (JSON payload, nulls, created_at set on
    the row and stored); a taken seq is an IntegrityError and stores nothing."""
    from django.db import IntegrityError, transaction

    from games.models import MatchEvent
    from games.write_sql import events_insert

    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    last = Match.objects.get(pk=table.pk).last_seq
    rows = [
        MatchEvent(match_id=table.pk, seq=last + 1, type="timeout", payload={"seat": 1, "x": [1, None]},
                   seat=1, msg_id="m1", auto=True),
        MatchEvent(match_id=table.pk, seq=last + 2, type="abandon", payload={"why": "idle"}, seat=None),
    ]
    with statements(["INSERT"]):
        events_insert(rows)
    stored = list(MatchEvent.objects.filter(match_id=table.pk, seq__gt=last).order_by("seq"))
    keys = ("seq", "type", "payload", "seat", "msg_id", "auto", "created_at")
    assert [[getattr(r, k) for k in keys] for r in stored] == [[getattr(r, k) for k in keys] for r in rows]
    assert rows[0].created_at is not None and not rows[0]._state.adding
    with pytest.raises(IntegrityError), transaction.atomic():
        events_insert([MatchEvent(match_id=table.pk, seq=last + 3, type="timeout", payload={}),
                       MatchEvent(match_id=table.pk, seq=last + 1, type="timeout", payload={})])
    assert MatchEvent.objects.filter(match_id=table.pk, seq__gt=last).count() == 2



def test_previous_hand_reveal_is_built_once_per_hand_and_seat(
    alice: Any, bob: Any, seeded_decks: list[int], settings: Any
) -> None:
    """The ``last_hand`` of the states of hand 2 is built once per seat into the state's memo, which
    the writes' clones share, and equals what a replay of the log builds (a new state, an empty memo);
    the next deal starts a new memo (filled by that write's own broadcast); another hand pause gets its
    own ``show_until``."""
    from datetime import timedelta

    from games.live import rebuild
    from games.models import MatchEvent

    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    users = {0: alice, 1: bob}

    def play(msg_id: str) -> None:
        match, seat, hand = _actor(table.pk)
        services.match_apply_action(match_id=match.pk, user=users[seat], action_text=choose(hand),
                                    client_seq=match.last_seq, msg_id=msg_id)

    def states(live: Any) -> tuple[Match, list[dict[str, Any]]]:
        match = Match.objects.select_related("player0", "player1").get(pk=table.pk)
        return match, [selectors.match_state_payload(match=match, seat=seat, live=live, full=True)
                       for seat in (0, 1)]

    step = 0
    while load(Match.objects.get(pk=table.pk)).state.hand_number < 2:
        play(f"p{step}")
        step += 1
    memo = load(Match.objects.get(pk=table.pk)).previous_memo  # filled by the deal's own broadcast
    for step in range(6):
        live = load(Match.objects.get(pk=table.pk))
        if live.state.hand_number > 2:
            break
        assert live.previous_memo is memo  # the dict the deal started, shared by every write since
        match, cached = states(live)
        assert sorted(seat for _, seat, _ in memo) == [0, 1]  # one entry per seat
        rows = MatchEvent.objects.filter(match_id=match.pk).order_by("seq")
        replay = rebuild(match, rows)
        assert replay.previous_memo == {}
        assert cached == states(replay)[1]
        assert cached[0]["last_hand"]["number"] == 1 and cached[0]["last_hand"]["deck"]
        play(f"q{step}")
    match = Match.objects.select_related("player0", "player1").get(pk=table.pk)
    deal_at = load(match).deals[0].created_at
    settings.GAMES_HAND_PAUSE = 30
    shown = selectors.match_state_payload(match=match, seat=0, full=True)["last_hand"]
    assert shown["show_until"] == selectors._iso(deal_at + timedelta(seconds=30))
    while (live := load(Match.objects.get(pk=table.pk))).state.hand_number < 3:
        play(f"r{step}")
        step += 1
    assert live.previous_memo is not memo  # the deal's broadcast filled the new one
    assert {key[1] for key in live.previous_memo} == {0, 1}
    assert states(live)[1][1]["last_hand"]["number"] == 2


def test_drive_row_equals_the_orm_read(
    alice: Any, bob: Any, house_bots: Any, seeded_decks: list[int]
) -> None:
    """games.write_sql.match_drive_row gives the driver what ``values(...).first()`` gave (statuses,
    seqs, due times and nulls), in one statement; None for no match."""
    from django.utils import timezone

    from games.write_sql import DRIVE_FIELDS, match_drive_row

    waiting = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    timed = services.table_create(user=bob, rules_preset="classic", target=100, turn_timer=30)
    services.table_join(user=alice, token=timed.invite_token)
    vs_bot = services.match_create_vs_bot(user=alice, level=2, rules_preset="classic", target=100)
    Match.objects.filter(pk=vs_bot.pk).update(server_move_at=timezone.now().replace(microsecond=654321))
    rows = []
    for match_id in (waiting.pk, timed.pk, vs_bot.pk):
        with statements(["SELECT"]):
            got = match_drive_row(match_id)
        orm = Match.objects.filter(pk=match_id).values(*DRIVE_FIELDS).first()
        assert got == orm
        rows.append(got)
    assert rows[0]["status"] == "waiting" and rows[0]["server_move_at"] is None
    assert rows[1]["turn_deadline"] is not None and rows[2]["server_move_at"].microsecond == 654321
    assert match_drive_row(10**9) is None


async def test_table_socket_runs_no_connection_sweep_per_message(
    alice: Any, bob: Any, seeded_decks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's consumer handles its frames and group messages (a ping, an action, the states it
    broadcasts) without channels' ``aclose_old_connections()`` before each one (a hop to asgiref's one
    thread); a plain channels consumer still runs it (the control)."""
    import channels.consumer
    from channels.consumer import AsyncConsumer
    from channels.db import database_sync_to_async

    from tests.games.wsclient import connect, recv_state, recv_until, send

    sweeps: list[str] = []
    library_sweep = channels.consumer.aclose_old_connections

    async def counted() -> None:
        sweeps.append("sweep")
        await library_sweep()

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    table = await database_sync_to_async(services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=None)
    await database_sync_to_async(services.table_join)(user=bob, token=table.invite_token)
    comms = {}
    states = {}
    for seat, user in ((0, alice), (1, bob)):
        comms[seat], states[seat] = await connect(user, table.pk)
    await send(comms[0], {"type": "ping", "id": "p1"})
    # (alice, first at the table, was told bob was not there yet: an ``opponent_gone`` may come first)
    assert (await recv_until(comms[0], "pong"))[0]["type"] == "pong"
    seat = states[0]["hand"]["to_act"]
    await send(comms[seat], {"type": "action", "id": "a1", "seq": states[seat]["seq"],
                             "action": choose(states[seat]["hand"])})
    for s in (0, 1):
        assert (await recv_state(comms[s], states[s]["seq"] + 1))["seq"] > states[s]["seq"]
    for comm in comms.values():
        await comm.disconnect()
    assert sweeps == []

    class Plain(AsyncConsumer):  # type: ignore[misc]
        async def x_y(self, message: dict[str, Any]) -> None:
            pass

    await Plain().dispatch({"type": "x.y"})
    assert sweeps == ["sweep"]


def test_state_behind_the_log_is_caught_up_from_the_new_events_only(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    """When this process holds the state of an earlier seq (the last writes were another process's),
    ``load`` reads only the events after it (one query) and applies them to a copy: the same state and
    the same payloads as a replay of the whole log, across a deal; the held state is left as it was."""
    from games.live import cache_put, rebuild
    from games.models import MatchEvent

    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    users = {0: alice, 1: bob}
    held = load(Match.objects.get(pk=table.pk))
    held_seq, held_events = Match.objects.get(pk=table.pk).last_seq, list(held.state.events)
    step = 0
    while load(Match.objects.get(pk=table.pk)).state.hand_number < 2 or step < 3:
        match, seat, hand = _actor(table.pk)
        services.match_apply_action(match_id=match.pk, user=users[seat], action_text=choose(hand),
                                    client_seq=match.last_seq, msg_id=f"c{step}")
        step += 1
    cache_clear()
    cache_put(table.pk, held_seq, held)  # all this process saw
    match = Match.objects.select_related("player0", "player1").get(pk=table.pk)
    with statements(["SELECT"]) as captured:
        caught_up = load(match)
    assert f'"seq" > {held_seq}' in captured.captured_queries[0]["sql"]
    replayed = rebuild(match, MatchEvent.objects.filter(match_id=match.pk).order_by("seq"))
    assert caught_up.state.events == replayed.state.events and caught_up.deals == replayed.deals
    assert caught_up.auto_seqs == replayed.auto_seqs
    assert caught_up.previous_hand is not None and caught_up.state.hand_number == 2
    for seat in (0, 1):
        got = selectors.match_state_payload(match=match, seat=seat, live=caught_up)
        assert got == selectors.match_state_payload(match=match, seat=seat, live=replayed)
    assert list(held.state.events) == held_events  # the held state was copied, not changed
