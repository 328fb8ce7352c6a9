"""The three statements of every match write, each an SQL text written once per database vendor: the
locked read of the match row with what its players' ``state`` needs of them
(:func:`match_locked_or_none`), the insert of the new events (:func:`events_insert`), and the
compare-and-set update of the match row (:func:`match_update_cas`).

Why not the ORM: Django compiles ``select_for_update().select_related("player0", "player1")``,
``bulk_create`` and ``filter(...).update(...)`` again on every call, and built both users with all
their columns: about 1.5 ms of the 6 ms of CPU a move cost on PostgreSQL (issue 9;
scripts/bench_action). The read selects every column of the match and only :data:`PLAYER_FIELDS` of
each player; the row is converted by the columns' own database converters (as the ORM converts), the
match built by ``Match.from_db``, each player by ``User.from_db`` with the other fields deferred
(reading one of them loads it: correct, one query more). Inserted and updated values go through each
field's ``pre_save`` (``auto_now_add``) and ``get_db_prep_save``, as in the ORM's own insert and
update; database errors come out as Django's (``IntegrityError`` for a taken seq or message id), the
statements run through Django's cursor (so they are counted by query-count tests and logged like any
other).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import psycopg
from django.db import connections, router
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models import (
    BooleanField,
    CharField,
    DateTimeField,
    Field,
    ForeignKey,
    IntegerField,
    JSONField,
    Model,
)
from django.utils import timezone

from accounts.models import User
from games.models import Match, MatchEvent

PLAYER_FIELDS = ("id", "username", "display_name", "is_bot", "is_guest", "bot_level", "bot_account")
"""The user fields a write and the ``state`` payload read of a player (``User.public_name`` and
``games.payloads.player``; ``games.services.server_moves._bot_level``; ``bot_account``: a match's end
tells its BOT accounts' event streams, ``games.services.finish``)."""

CAS_FIELDS = ("last_seq", "scores", "status", "winner", "result_reason", "finished_at", "turn_deadline",
              "timeout_strikes", "server_move_at", "updated_at")
"""The match columns a write changes (what :func:`match_update_cas` stores)."""

_sql: dict[str, str] = {}
_update_sql: dict[str, str] = {}
_insert_sql: dict[tuple[str, int], str] = {}


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    """``model``'s concrete field ``name`` (``Options.get_field`` also answers reverse relations, which
    these statements never name)."""
    field = model._meta.get_field(name)
    assert isinstance(field, Field), name
    return field


def _column(field: Field[Any, Any]) -> str:
    """The column of a concrete ``field`` (``Field.column`` is None only for a field without one)."""
    assert field.column is not None, field
    return field.column


def _player_fields() -> list[Any]:
    """The :data:`PLAYER_FIELDS` in the model's field order (``User.from_db`` takes values so)."""
    return [f for f in User._meta.concrete_fields if f.attname in PLAYER_FIELDS]


def locked_sql(alias: str) -> str:
    """The statement for database ``alias``: one ``%s`` parameter, the match id. ``FOR UPDATE OF`` the
    match row where the database has row locks (PostgreSQL), nothing on SQLite, whose writers the
    compare-and-set of ``services.play.save_cas`` serializes."""
    connection = connections[alias]
    if connection.vendor not in _sql:
        qn = connection.ops.quote_name
        user_table, user_pk = qn(User._meta.db_table), qn(_column(User._meta.pk))
        columns = [f"m.{qn(_column(f))}" for f in Match._meta.concrete_fields]
        columns += [f"p{seat}.{qn(_column(f))} AS {qn(f'p{seat}_{f.attname}')}"
                    for seat in (0, 1) for f in _player_fields()]
        if connection.vendor == "postgresql":  # the row versions (see ROW_TOKENS)
            columns += ["m.xmin::text", "p0.xmin::text", "p1.xmin::text"]
        features = connection.features
        lock = (" FOR UPDATE OF m" if features.has_select_for_update_of
                else " FOR UPDATE" if features.has_select_for_update else "")
        _sql[connection.vendor] = (
            f"SELECT {', '.join(columns)} FROM {qn(Match._meta.db_table)} m"
            f" LEFT JOIN {user_table} p0 ON p0.{user_pk} = m.{qn(_column(_field(Match, 'player0')))}"
            f" LEFT JOIN {user_table} p1 ON p1.{user_pk} = m.{qn(_column(_field(Match, 'player1')))}"
            f" WHERE m.{qn(_column(Match._meta.pk))} = %s{lock}"
        )
    return _sql[connection.vendor]


Converters = list[tuple[int, list[Any], Any]]
"""``[(column index, converters, expression), ...]`` for the columns that need any (as the ORM's
``SQLCompiler.get_converters``)."""

_converters: weakref.WeakKeyDictionary[Any, dict[str, Converters]] = weakref.WeakKeyDictionary()


def _converters_of(connection: Any, read: str, columns: Callable[[], list[Any]]) -> Converters:
    """The database converters of the columns (``columns()``: Col expressions, in the statement's
    order) of the read named ``read`` for ``connection``, computed once per connection (one per
    thread: a converter may be bound to its connection's ``ops``) as the ORM computes them on every
    query."""
    known = _converters.setdefault(connection, {})
    converters = known.get(read)
    if converters is None:
        converters = []
        for i, column in enumerate(columns()):
            functions = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            if functions:
                converters.append((i, functions, column))
        known[read] = converters
    return converters


def _converted(connection: Any, converters: Converters, row: Any) -> list[Any]:
    values = list(row)
    for i, functions, column in converters:
        for function in functions:
            values[i] = function(values[i], column, connection)
    return values


def _read_converters(connection: Any) -> Converters:
    """The converters of the locked read's columns: the match's and both players' (``QuerySet.raw``
    left the players' columns, as annotations, unconverted)."""
    def columns() -> list[Any]:
        return [f.get_col(Match._meta.db_table) for f in Match._meta.concrete_fields] + [
            f.get_col(User._meta.db_table) for _ in (0, 1) for f in _player_fields()
        ]

    return _converters_of(connection, "locked", columns)


def match_locked_or_none(match_id: int) -> Match | None:
    """Match ``match_id`` with ``player0``/``player1`` loaded (their :data:`PLAYER_FIELDS`), its row
    locked until the transaction ends (call inside one), or None when there is no such match. One
    query.

    The row is read by the cursor and converted by the columns' database converters here, the models
    built by ``from_db``: ``QuerySet.raw`` resolved the columns, their converters and the model's init
    order again on every call (0.25 of the 0.37 ms of CPU the read cost on PostgreSQL)."""
    alias = router.db_for_write(Match)
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute(locked_sql(alias), [match_id])
        row = cursor.fetchone()
    if row is None:
        return None
    values = _converted(connection, _read_converters(connection), row)
    count = len(Match._meta.concrete_fields)
    match = Match.from_db(alias, [f.attname for f in Match._meta.concrete_fields], values[:count])
    if connection.vendor == "postgresql":
        match._row_token = tuple(values[-3:])  # type: ignore[attr-defined]
    names = [f.attname for f in _player_fields()]
    id_at = names.index("id")
    for seat in (0, 1):
        start = count + seat * len(names)
        player = values[start:start + len(names)]
        if player[id_at] is None:
            continue  # an empty seat (a table waiting for its second player)
        setattr(match, f"player{seat}", User.from_db(alias, names, player))
    return match


DRIVE_FIELDS = ("status", "last_seq", "server_move_at", "turn_deadline", "bot_level", "bot_seats")
"""What the server-move driver reads of a match before each move (``services.match_play_server_moves``)."""

_drive_sql: dict[str, str] = {}


def match_drive_row(match_id: int) -> dict[str, Any] | None:
    """``{"status", "last_seq", "server_move_at", "turn_deadline", "bot_level", "bot_seats"}`` of match
    ``match_id`` (no lock), or
    None when there is no such match. One query, as ``Match.objects.filter(pk=...).values(...).first()``
    gives it (the same converted values) without compiling that query on every call: the driver reads
    it before and after each bot move, 0.20 ms (SQLite) to 0.27 ms (PostgreSQL) of CPU each by the ORM."""
    alias = router.db_for_read(Match)
    connection = connections[alias]
    fields = [_field(Match, name) for name in DRIVE_FIELDS]
    if connection.vendor not in _drive_sql:
        qn = connection.ops.quote_name
        _drive_sql[connection.vendor] = (
            f"SELECT {', '.join(qn(_column(f)) for f in fields)} FROM {qn(Match._meta.db_table)}"
            f" WHERE {qn(_column(Match._meta.pk))} = %s"
        )
    with connection.cursor() as cursor:
        cursor.execute(_drive_sql[connection.vendor], [match_id])
        row = cursor.fetchone()
    if row is None:
        return None
    table = Match._meta.db_table
    converters = _converters_of(connection, "drive", lambda: [f.get_col(table) for f in fields])
    return dict(zip(DRIVE_FIELDS, _converted(connection, converters, row), strict=True))


def update_sql(alias: str) -> str:
    """The compare-and-set update for database ``alias``: one ``%s`` per :data:`CAS_FIELDS` field, then
    the match id and the ``last_seq`` the write started from."""
    connection = connections[alias]
    if connection.vendor not in _update_sql:
        qn = connection.ops.quote_name
        sets = ", ".join(f"{qn(_column(_field(Match, name)))} = %s" for name in CAS_FIELDS)
        _update_sql[connection.vendor] = (
            f"UPDATE {qn(Match._meta.db_table)} SET {sets}"
            f" WHERE {qn(_column(Match._meta.pk))} = %s AND {qn(_column(_field(Match, 'last_seq')))} = %s"
            + (" RETURNING xmin::text" if connection.vendor == "postgresql" else "")
        )
    return _update_sql[connection.vendor]


def match_update_cas(match: Match, before: int) -> bool:
    """Store ``match``'s :data:`CAS_FIELDS` if its row is still at ``last_seq == before``; whether it
    was (False: another write advanced it first, and nothing was changed). One query. On PostgreSQL
    the match's row token (:data:`ROW_TOKENS`) becomes the stored version's."""
    alias = router.db_for_write(Match)
    connection = connections[alias]
    values = [_field(Match, name).get_db_prep_save(getattr(match, name), connection)
              for name in CAS_FIELDS]
    with connection.cursor() as cursor:
        cursor.execute(update_sql(alias), [*values, match.pk, before])
        if connection.vendor != "postgresql":
            return bool(cursor.rowcount == 1)
        row = cursor.fetchone()
    token = getattr(match, "_row_token", None)
    if row is None:
        return False
    if token is not None:
        match._row_token = (row[0], *token[1:])  # type: ignore[attr-defined]
    return True


def _event_fields() -> list[Any]:
    """The columns of an event row an insert writes: all but the generated id."""
    return [f for f in MatchEvent._meta.concrete_fields if not f.primary_key]


def insert_sql(alias: str, count: int) -> str:
    """The insert of ``count`` event rows for database ``alias``: one ``%s`` per column per row."""
    connection = connections[alias]
    key = (connection.vendor, count)
    if key not in _insert_sql:
        qn = connection.ops.quote_name
        fields = _event_fields()
        row = f"({', '.join(['%s'] * len(fields))})"
        _insert_sql[key] = (
            f"INSERT INTO {qn(MatchEvent._meta.db_table)} ({', '.join(qn(_column(f)) for f in fields)})"
            f" VALUES {', '.join([row] * count)}"
        )
    return _insert_sql[key]


def events_insert(rows: list[MatchEvent]) -> None:
    """Insert the new event ``rows`` (unsaved; their ``created_at`` is set here, their ``id`` is left
    None: nothing reads it). One query.

    :raises IntegrityError: a row's seq, or its seat's message id, is taken in its match.
    """
    if not rows:
        return
    alias = router.db_for_write(MatchEvent)
    connection = connections[alias]
    values = _event_values(rows, connection)
    with connection.cursor() as cursor:
        cursor.execute(insert_sql(alias, len(rows)), values)
    for row in rows:
        row._state.adding, row._state.db = False, alias


def _event_values(rows: list[MatchEvent], connection: Any) -> list[Any]:
    """The values of ``rows`` for :func:`_event_fields`, row by row (``created_at`` set here)."""
    fields = _event_fields()
    return [f.get_db_prep_save(f.pre_save(row, True), connection) for row in rows for f in fields]



# --------------------------------------------------------------------------------------------- one statement

ROW_TOKENS = "xmin"
"""On PostgreSQL a match read for a write carries ``_row_token``: the ``xmin`` (as text) of the row
version of the match and of each player it was read from. Every UPDATE of a row makes a new version
with the xmin of the transaction that wrote it, whoever wrote it (a service, the admin, a tournament,
a raw ``update()``), so an equal xmin means the very row that was read, not one that only has the same
``last_seq``. :func:`match_write_one` stores a write only when all three are still those versions."""

_one_sql: dict[int, str] = {}


def one_sql(connection: Any, count: int) -> str:
    """The single statement of :func:`match_write_one` for ``count`` event rows (PostgreSQL): the
    compare-and-set update of the match (:data:`CAS_FIELDS`; the match and both players still the row
    versions of the token), then the insert of the events only if that update stored the row; returns
    the new row's xmin (no row: nothing was stored). Every parameter carries its type (the event values
    stand in a VALUES list, whose column types come from nowhere else)."""
    if count not in _one_sql:
        qn = connection.ops.quote_name
        match_fields = [_field(Match, name) for name in CAS_FIELDS]
        sets = ", ".join(f"{qn(_column(f))} = %s::{f.cast_db_type(connection)}" for f in match_fields)
        user_table, user_pk = qn(User._meta.db_table), qn(_column(User._meta.pk))
        players = " AND ".join(
            [f"EXISTS (SELECT 1 FROM {user_table} WHERE {user_pk} = %s AND xmin = %s::text::xid)"] * 2)
        fields = _event_fields()
        row = f"({', '.join(f'%s::{f.cast_db_type(connection)}' for f in fields)})"
        columns = ", ".join(qn(_column(f)) for f in fields)
        _one_sql[count] = (
            f"WITH u AS (UPDATE {qn(Match._meta.db_table)} SET {sets}"
            f" WHERE {qn(_column(Match._meta.pk))} = %s AND xmin = %s::text::xid AND {players}"
            f" RETURNING xmin::text AS token),"
            f" e AS (INSERT INTO {qn(MatchEvent._meta.db_table)} ({columns})"
            f" SELECT * FROM (VALUES {', '.join([row] * count)}) AS v WHERE EXISTS (SELECT 1 FROM u))"
            f" SELECT token FROM u"
        )
    return _one_sql[count]


_PREPARED = 1 << 30
"""The connection's ``prepare_threshold`` while :func:`match_write_one` runs: a number (Django leaves it
None: nothing prepared) that no statement reaches, so only the one statement asked to be is."""


class _PreparedCursor(psycopg.Cursor[Any]):
    """A server-side binding cursor whose statements are prepared (parsed and planned once per
    connection: the statement is the same text on every move)."""

    def execute(self, query: Any, params: Any = None, *, prepare: bool | None = None,
                binary: bool | None = None) -> Any:
        return super().execute(query, params, prepare=True, binary=binary)


Prep = Callable[[Any], Any]
_prep_cache: weakref.WeakKeyDictionary[Any, dict[str, list[tuple[str, Prep]]]] = weakref.WeakKeyDictionary()


def _same(value: Any) -> Any:
    return value


def _preps(connection: Any, which: str) -> list[tuple[str, Prep]]:
    """``[(attname, prepare), ...]`` of the :data:`CAS_FIELDS` (``which`` "match") or the event columns
    ("event") of :func:`match_write_one`: the value as ``get_db_prep_save`` gives it for the values a
    write holds (ints, strings and their choices, booleans, aware datetimes: as they are; JSON: the
    driver's JSON adapter with the field's encoder; a JSON field's None: SQL NULL), without the
    field's generic calls on every value (about 60 us a move). Computed once per connection."""
    known = _prep_cache.setdefault(connection, {})
    if which not in known:
        fields = ([_field(Match, name) for name in CAS_FIELDS] if which == "match"
                  else _event_fields())
        preps: list[tuple[str, Prep]] = []
        for f in fields:
            prep: Prep
            if isinstance(f, JSONField):
                def json_prep(value: Any, encoder: Any = f.encoder) -> Any:
                    return None if value is None else connection.ops.adapt_json_value(value, encoder)
                prep = json_prep
            elif isinstance(f, (IntegerField, CharField, BooleanField, DateTimeField, ForeignKey)):
                prep = _same
            else:  # any other kind of column: the field's own preparation
                def field_prep(value: Any, f: Any = f) -> Any:
                    return f.get_db_prep_save(value, connection)
                prep = field_prep
            preps.append((f.attname, prep))
        known[which] = preps
    return known[which]


class _LoggedCursor(CursorDebugWrapper):
    """Django's logging cursor (``connection.queries``, query-count tests) for a server-side binding
    cursor: it logs the statement's text as written (Django's ``last_executed_query`` knows only its own
    client-side cursors' interpolated text)."""

    # The ignore: only ever given a statement's text, which debug_sql logs (never psycopg's composed SQL
    # objects, which the base class also takes).
    def execute(self, sql: str, params: Any = None) -> Any:  # type: ignore[override]
        with self.debug_sql(sql, params):
            return CursorWrapper.execute(self, sql, params)


def match_write_one(match: Match, token: tuple[str, str, str], rows: list[MatchEvent]) -> bool:
    """Store ``match``'s :data:`CAS_FIELDS` and insert the new event ``rows`` in ONE statement, run in
    autocommit (committed, hence durable, when it returns True), if the match and its players are still
    the row versions of ``token`` (:data:`ROW_TOKENS`); whether they were (False: nothing was stored:
    another write came first, or the players changed). On True ``match._row_token`` is the stored row's.

    PostgreSQL only, outside any transaction, on a connection already open (the caller falls back to
    the locked write otherwise: its first query opens the connection and checks its health).

    :raises IntegrityError: a row's seq, or its seat's message id, is taken (nothing was stored).
    :raises OperationalError: the connection failed (the statement may or may not have committed).
    """
    alias = router.db_for_write(Match)
    connection = connections[alias]
    get = match.__dict__.__getitem__
    params = [prep(get(name)) for name, prep in _preps(connection, "match")]
    params += [match.pk, token[0], match.player0_id, token[1], match.player1_id, token[2]]
    event_preps = _preps(connection, "event")
    now = timezone.now()
    for row in rows:
        row.created_at = now  # (auto_now_add: what pre_save sets)
        values = row.__dict__
        params += [prep(values[name]) for name, prep in event_preps]
    raw = connection.connection
    cursor = _PreparedCursor(raw)
    wrapper = (_LoggedCursor(cursor, connection) if connection.queries_logged
               else CursorWrapper(cursor, connection))
    raw.prepare_threshold = _PREPARED
    try:
        with wrapper:
            wrapper.execute(one_sql(connection, len(rows)), params)
            stored = wrapper.fetchone()
    finally:
        raw.prepare_threshold = None
    if stored is None:
        return False
    match._row_token = (stored[0], *token[1:])  # type: ignore[attr-defined]
    for row in rows:
        row._state.adding, row._state.db = False, alias
    return True
