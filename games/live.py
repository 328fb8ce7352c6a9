"""The engine state of a stored match: rebuilt from its event rows, with a small in-process cache.

Only ``games.services`` and ``games.selectors`` use this module (and the bot API's streams,
``botapi.states``, which read a seat's engine view from it). The cache is keyed by
(match id, ``last_seq``) and its states are never mutated: a writer takes :meth:`LiveMatch.clone`
and the cache only ever learns a new state after the transaction that stored it has committed, so
a cached entry always equals what replaying the database up to its seq gives. The log is
append-only, so an entry at an earlier seq than the match's is a prefix of it: :func:`load` applies
only the events after it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction

from engine.errors import InvalidEventError
from engine.events import DealEvent, Event, from_json
from engine.hand import HandState
from engine.match import MatchState, apply_event
from engine.rules import RuleSet
from games.models import Match, MatchEvent

ENGINE_TYPES = frozenset(("cut", "deal", "action", "hand_end", "resign", "match_end"))
"""MatchEvent types that are engine events (others, e.g. ``timeout``, are platform markers)."""

DEAL_SECRETS = ("salt", "commitment")
"""Keys a ``deal`` row's payload holds beside the engine's JSON."""

CACHE_SIZE = 256


@dataclass(frozen=True, slots=True)
class DealRow:
    """What a player's ``state`` needs of a stored ``deal`` row: its ``seq``, ``hand`` number, the
    shuffle's ``salt`` and ``commitment`` and when it was stored (``created_at``). The salt is shown
    only once its hand has ended (``games.selectors``)."""

    seq: int
    hand: int | None
    salt: str | None
    commitment: str | None
    created_at: datetime | None

    @classmethod
    def of(cls, row: MatchEvent) -> DealRow:
        """From a row, or any object with its ``seq`` and ``payload`` (``created_at`` if it has one:
        ``replays`` rebuilds from rows read as values without it)."""
        p = row.payload
        created_at = getattr(row, "created_at", None)
        return cls(row.seq, p.get("hand"), p.get("salt"), p.get("commitment"), created_at)


@dataclass(slots=True)
class LiveMatch:
    """A match's engine ``state`` plus ``previous_hand``: the last hand that ended before the
    current one was dealt (kept because :class:`MatchState` only holds the current hand), or None.

    It also carries what the state payload needs from the log besides the engine events, so that a
    player's view is built without reading the log again: ``deals``, the last two ``deal`` rows (newest
    first), and ``auto_seqs``, the seqs of the actions played by the turn timer."""

    state: MatchState
    previous_hand: HandState | None
    deals: list[DealRow] = field(default_factory=list)
    auto_seqs: set[int] = field(default_factory=set)
    previous_memo: dict[Any, Any] = field(default_factory=dict)
    """What ``games.selectors`` derived from ``previous_hand`` (its reveal per seat), built on first use
    and shared by every clone until the next deal starts a new one. The only thing a cached state
    gains after it is stored: values that depend on the ended hand alone, so they never go stale."""

    def clone(self) -> LiveMatch:
        """A copy safe to mutate (ended hands are never mutated, so ``previous_hand`` and what was
        derived from it are shared)."""
        return LiveMatch(self.state.clone(), self.previous_hand, list(self.deals), set(self.auto_seqs),
                         self.previous_memo)

    def record(self, rows: Iterable[MatchEvent]) -> None:
        """Note the stored ``rows`` (in seq order) that a payload reads: deals and automatic actions."""
        for row in rows:
            if row.type == "deal":
                self.deals = [DealRow.of(row), *self.deals[:1]]
            elif row.type == "action" and row.auto:
                self.auto_seqs.add(row.seq)

    def deal(self, deck: list[int], limit_card: int | None = None) -> DealEvent:
        """Deal the next hand from ``deck`` (``limit_card``: the second deck's card, two_deck rules),
        remembering the hand that just ended."""
        self._keep_ended_hand()
        return self.state.deal(deck, limit_card=limit_card)

    def _keep_ended_hand(self) -> None:
        """Before the next deal: the current hand (ended) becomes ``previous_hand``."""
        if self.state.hand is not None:
            self.previous_hand = self.state.hand
            self.previous_memo = {}


def engine_event(row_payload: dict[str, Any]) -> Event:
    """The engine event stored in a row's payload (deal secrets stripped).

    :raises InvalidEventError: the payload is not a valid engine event.
    """
    payload = {k: v for k, v in row_payload.items() if k not in DEAL_SECRETS}
    return from_json(payload)


def rebuild(match: Match, rows: Iterable[MatchEvent]) -> LiveMatch:
    """Replay ``rows`` (the match's events in seq order) from the start.

    Each engine event is applied by ``engine.match.apply_event``, as ``engine.match.replay`` does:
    input events (cuts, deals, actions, resignations) are played; derived ones (hand and match ends) are
    checked against what the engine produced.

    :raises InvalidEventError: the log disagrees with the rules.
    :raises ValueError: the match has not started (no first dealer).
    """
    if match.first_dealer is None:
        raise ValueError(f"match {match.pk} has not started")
    live = LiveMatch(MatchState(RuleSet.from_dict(match.rules), match.first_dealer), None)
    return _replay(match, live, rows)


def _replay(match: Match, live: LiveMatch, rows: Iterable[MatchEvent]) -> LiveMatch:
    """Apply ``rows`` (the events after ``live``'s, in seq order) to ``live`` (mutated; returned).

    :raises InvalidEventError: the rows disagree with the rules (the message names the match and seq).
    """
    state = live.state
    # The log up to ``live``'s seq is whole (each write stores every event of its step: an action and
    # the hand and match ends it caused), so the next engine row is event number len(state.events).
    index = len(state.events)
    for row in rows:
        live.record((row,))
        if row.type not in ENGINE_TYPES:
            continue
        event = engine_event(row.payload)
        if isinstance(event, DealEvent):
            live._keep_ended_hand()
        try:
            apply_event(state, event, index)
        except InvalidEventError as exc:
            raise InvalidEventError(f"match {match.pk} seq {row.seq}: {exc}") from None
        index += 1
    return live


_cache: dict[int, tuple[int, LiveMatch]] = {}
_rows: dict[int, Match] = {}
_contested: set[int] = set()
_lock = threading.Lock()


def cache_get(match_id: int, seq: int) -> LiveMatch | None:
    """The cached state of ``match_id`` at ``seq`` (do not mutate it), or None."""
    with _lock:
        hit = _cache.get(match_id)
    return hit[1] if hit is not None and hit[0] == seq else None


def cache_put(match_id: int, seq: int, live: LiveMatch) -> None:
    """Remember ``live`` as the state at ``seq`` (call only after it is committed; never mutate it
    afterwards)."""
    with _lock:
        current = _cache.pop(match_id, None)
        if current is not None and current[0] > seq:
            live, seq = current[1], current[0]
        _cache[match_id] = (seq, live)
        while len(_cache) > CACHE_SIZE:
            _cache.pop(next(iter(_cache)))


def cache_clear() -> None:
    """Forget every cached state and row (tests; after a data repair)."""
    with _lock:
        _cache.clear()
        _rows.clear()
        _contested.clear()


def row_get(match_id: int) -> Match | None:
    """The match row this process stored last for ``match_id`` with its players (do not mutate it:
    ``services`` writes a copy), or None (also while the match is contested: :func:`row_contest`). It
    carries the row versions it was stored as
    (``_row_token``, ``games.write_sql.ROW_TOKENS``): a write from it is stored only if the database
    still holds those versions, so a stale row is never written over, only refused."""
    with _lock:
        return None if match_id in _contested else _rows.get(match_id)


def row_contest(match_id: int) -> None:
    """A write from the held row of ``match_id`` found the match changed (another process writes it too:
    a worker's bot moves, the other player's socket on another Daphne): :func:`row_get` gives nothing
    for it until :func:`row_check` sees the database still hold this process's last row."""
    with _lock:
        _contested.add(match_id)


def row_check(match: Match) -> None:
    """``match`` was just read locked: when it and its players are still the rows this process stored
    last (the same row versions), the match is no longer contested (:func:`row_contest`)."""
    token = getattr(match, "_row_token", None)
    with _lock:
        held = _rows.get(match.pk)
        if (match.pk in _contested and held is not None and token is not None
                and getattr(held, "_row_token", None) == token):
            _contested.discard(match.pk)


def row_put(match: Match) -> None:
    """Remember ``match`` (committed as it is, with its ``_row_token``; never mutated afterwards)
    unless a later seq of it is held."""
    with _lock:
        current = _rows.pop(match.pk, None)
        if current is not None and current.last_seq > match.last_seq:
            match = current
        _rows[match.pk] = match
        while len(_rows) > CACHE_SIZE:
            _rows.pop(next(iter(_rows)))


def load(match: Match) -> LiveMatch:
    """The state of ``match`` at ``match.last_seq`` (shared: do not mutate; ``clone()`` to write).

    Not cached at that seq: when an earlier seq of the match is cached (the last write was another
    process's: the Celery worker's bot move after a player's move in Daphne, a player on another Daphne
    process), only the events after it are read and applied to a clone of it, instead of the whole log
    (its reading and replay grew with the match: O(moves) per move). Else the log is replayed. One
    query either way."""
    live = cache_get(match.pk, match.last_seq)
    if live is None:
        with _lock:
            hit = _cache.get(match.pk)
        events = MatchEvent.objects.filter(match_id=match.pk, seq__lte=match.last_seq).order_by("seq")
        if hit is not None and hit[0] < match.last_seq:
            live = _replay(match, hit[1].clone(), events.filter(seq__gt=hit[0]))
        else:
            live = rebuild(match, events)
        _remember(match.pk, match.last_seq, live)
    return live


def _remember(match_id: int, seq: int, live: LiveMatch) -> None:
    """Cache what :func:`load` read, once it is known to be committed: at once outside a transaction,
    else when the outermost one commits. Read inside a transaction, the rows may be its own writes or a
    match it created, and a rollback forgets them: SQLite then gives the next match the same id, and a
    state cached at once was a stranger's at the same seq (seen in tests, whose transactions roll back:
    a fresh tournament board answered ``match_over``)."""
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        transaction.on_commit(lambda: cache_put(match_id, seq, live))
    else:
        cache_put(match_id, seq, live)
