"""Reads of settled, read-mostly data on a PostgreSQL read replica; everything else on the primary.

Configured by ``DATABASE_REPLICA_URL`` (config.settings): it adds the database alias ``replica`` and sets
``settings.DATABASE_REPLICA = "replica"``. Without it ``DATABASE_REPLICA`` is ``None`` and every
decision here is ``default``: one alias, nothing changes. docs/scaling.md has the why and the numbers.

What may go to the replica: only a read (``db_for_read``) of a model in :data:`REPLICA_MODELS`, and only
inside :func:`replica_reads` (a view opts in; nothing else ever does), outside any transaction of the
primary, and outside :func:`primary`. That is

- rankings and profiles (``ratings.PlayerRating``, ``RatingChange``, ``RatingBucket``): the rankings
  board and other players' profiles (ratings.views); a viewer's own profile is pinned to the primary;
- replays and their analyses (``games.Match`` and ``games.MatchEvent`` of a finished match,
  ``replays.ReplayAccess``, ``replays.MatchAnalysis``): the replay page, its JSON and its analysis JSON
  (replays.views), once the match is :func:`settled`;
- the public API's reads (platform/api: ``api.base.ApiView`` opts in for every GET) of those models and
  of tournaments (``tournaments.*``).

What never goes to the replica, whatever the context:

- every write (``db_for_write`` is always the primary), and so ``select_for_update()``,
  ``get_or_create()`` and ``update_or_create()`` (Django routes those querysets as writes);
- every read inside a transaction of the primary (``atomic()``: the read must see the transaction's own
  writes and take part in its isolation);
- live-play state: the table's match row and events are read by the table's consumer, its database
  threads (games.db) and the Celery tasks, none of which opts in; seat presence, rematch offers, chat
  (``games.SeatPresence``, ``RematchOffer``, ``ChatMessage``) are not in :data:`REPLICA_MODELS`;
- sessions, auth (``accounts.User``, groups, permissions, content types), admin, django-axes, Celery
  beat's tables, the lobby (pools, seeks, challenges, playbans): not in :data:`REPLICA_MODELS`.

Read-your-writes, and the lag tolerated where:

- A player who just finished a match opens its replay: the replay views read the match row on the
  primary (one primary-key lookup) and read the rest (the event log, the analysis) on the replica only
  when the match finished at least ``DATABASE_REPLICA_MAX_LAG`` seconds ago (:func:`settled`; default 5).
  A finished match's row and events never change again, so a replica that lags less than that holds
  exactly the primary's rows. Before that, and for a match not finished, everything reads the primary.
- The rating page right after a rating commit: the rating task commits, then pushes the ``rating``
  message (ratings.push) and the table asks ``/ratings/match/<id>.json``: that view does not opt in (it
  reads the primary). The player's own profile (``/u/<self>/``) is pinned to the primary. The rankings
  board and other players' profiles tolerate the replica's lag (a rating at most that old).
- The public API tolerates the lag everywhere (docs/api.md: finished matches and ratings; a running
  match's listing may be that much behind).
- The replica's lag must be watched (PostgreSQL ``now() - pg_last_xact_replay_timestamp()`` on the
  replica) and stay well under ``DATABASE_REPLICA_MAX_LAG``; above it, unset ``DATABASE_REPLICA_URL``.

A view pins the primary with ``with primary(): ...`` (everything inside reads the primary, even inside
:func:`replica_reads`), or one query with ``.using("default")``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from datetime import datetime, timedelta
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from django.conf import settings
from django.db import connections
from django.db.models import Model
from django.utils import timezone

PRIMARY = "default"
"""The primary's alias: every write, every migration."""

REPLICA_MODELS = frozenset({
    "ratings.playerrating", "ratings.ratingchange", "ratings.ratingbucket",
    "replays.matchanalysis", "replays.replayaccess",
    "games.match", "games.matchevent",
    "tournaments.tournamentschedule", "tournaments.tournament", "tournaments.registration",
    "tournaments.round", "tournaments.pairing",
})
"""``app_label.model_name`` of the models a :func:`replica_reads` context may read on the replica."""

_mode: ContextVar[str | None] = ContextVar("db_router_mode", default=None)
"""``"replica"`` inside :func:`replica_reads`, ``"primary"`` inside :func:`primary`, else ``None``."""

P = ParamSpec("P")
R = TypeVar("R")


def replica_alias() -> str | None:
    """The replica's alias (``settings.DATABASE_REPLICA``) when one is configured, else ``None``."""
    alias = getattr(settings, "DATABASE_REPLICA", None)
    return alias if alias and alias in settings.DATABASES else None


@contextlib.contextmanager
def replica_reads(enabled: bool = True) -> Iterator[None]:
    """Inside: reads of :data:`REPLICA_MODELS` outside a transaction go to the replica (if configured).

    ``enabled=False`` is a no-op (``with replica_reads(settled(match.finished_at)):``). Inside
    :func:`primary` it changes nothing: a pin wins.
    """
    if not enabled or _mode.get() == "primary":
        yield
        return
    token = _mode.set("replica")
    try:
        yield
    finally:
        _mode.reset(token)


@contextlib.contextmanager
def primary() -> Iterator[None]:
    """Inside: every read goes to the primary (read-your-writes), even inside :func:`replica_reads`."""
    token = _mode.set("primary")
    try:
        yield
    finally:
        _mode.reset(token)


def replica_view(view: Callable[P, R]) -> Callable[P, R]:
    """Decorator: the view runs inside :func:`replica_reads`."""

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with replica_reads():
            return view(*args, **kwargs)

    return wrapper


def settled(finished_at: datetime | None, now: datetime | None = None) -> bool:
    """Whether a match that finished at ``finished_at`` (``None``: not finished) has surely reached the
    replica: finished at least ``settings.DATABASE_REPLICA_MAX_LAG`` seconds ago."""
    if finished_at is None:
        return False
    lag = timedelta(seconds=float(getattr(settings, "DATABASE_REPLICA_MAX_LAG", 5.0)))
    return (now or timezone.now()) - finished_at >= lag


def _in_transaction(alias: str) -> bool:
    """Whether code holds an ``atomic()`` block open on ``alias`` (a test case's own wrapping blocks,
    marked ``_from_testcase`` by Django, are not code's transactions and are left out)."""
    connection = connections[alias]
    if not connection.in_atomic_block:
        return False
    return any(not getattr(block, "_from_testcase", False) for block in connection.atomic_blocks)


def _label(model: type[Model]) -> str:
    return f"{model._meta.app_label}.{model._meta.model_name}"


class ReplicaRouter:
    """The router of ``settings.DATABASE_ROUTERS`` (see the module's docstring)."""

    def db_for_read(self, model: type[Model], **hints: Any) -> str:
        replica = replica_alias()
        if (
            replica is None
            or _mode.get() != "replica"
            or _label(model) not in REPLICA_MODELS
            or _in_transaction(PRIMARY)
        ):
            return PRIMARY
        return replica

    def db_for_write(self, model: type[Model], **hints: Any) -> str:
        return PRIMARY

    def allow_relation(self, obj1: Model, obj2: Model, **hints: Any) -> bool | None:
        """Rows of the primary and of the replica may be related: the replica holds the same data."""
        aliases = {PRIMARY, replica_alias() or PRIMARY}
        if obj1._state.db in aliases and obj2._state.db in aliases:
            return True
        return None

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool:
        """Only the primary is migrated (the replica follows it by streaming replication)."""
        return db == PRIMARY
