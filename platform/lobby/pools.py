"""Quick pairing's writes (docs/lobby.md "Pools", "Pairing"): join a pool, cancel, leave when the socket
is gone, and one wave of one pool (who plays whom, written in one transaction).

Locks, always taken in this order, so nothing deadlocks:

- :func:`pool_join`: the user's row (``FOR NO KEY UPDATE``), then (a reconnect) their waiting entry.
- :func:`pool_cancel`, :func:`pool_disconnected`, :func:`pool_seen`: the entry's row only.
- :func:`run_wave`: the pool's row with ``SKIP LOCKED`` (a wave already running elsewhere: this one is
  skipped, so two runners never run one pool at once), the pool's waiting entries (waiting for a cancel
  or a reconnect that holds one: milliseconds), then their users' rows with ``SKIP LOCKED`` (a user
  whose row a join, a bot match or an open challenge holds sits this wave out rather than waiting on
  it: no lock cycle with :func:`pool_join`, and no match made beside another that is being created).

A cancel racing a wave: whichever locks the entry first wins. The cancel first: the wave's
``SELECT ... FOR UPDATE`` waits, then re-reads the row, which is no longer waiting (no match). The wave
first: the cancel waits, then finds the entry paired and returns its match (the player is sent to it).

Live updates go out after commit on the channel layer (``pool_entry_<id>``: ``pool.paired``,
``pool.left``, ``pool.probe``; ``pool_<id>``: ``pool.count``); a send that fails raises to the caller
(the write is committed; the wave loop logs it, a test fails).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from accounts.models import BOT_LEVELS, Standing, User
from games.models import Match, MatchStatus
from games.services import (
    GameError,
    active_rated_match_id,
    match_create_seated,
    match_create_vs_bot,
    pairs_at_rated_cap,
)
from lobby import busy
from lobby.errors import refuse
from lobby.matching import Waiter, pair_wave
from lobby.models import EntryStatus, Pool, PoolEntry
from push.groups import entry_group, pool_group
from push.send import send_on_commit
from ratings.selectors import bot_rating, rating_get

log = logging.getLogger(__name__)

LEAVE_AFTER = 5.0
"""Default of the setting ``LOBBY_LEAVE_AFTER``: seconds a waiting player's socket may be gone before the
next wave takes them out of the pool (a reconnect within it keeps the entry and its waiting time)."""
HEARTBEAT_SECONDS = 10.0
"""Seconds between a waiting socket's signs of life (``PoolEntry.seen_at``)."""
STALE_AFTER = 30.0
"""An entry not seen for this long leaves at the next wave: its socket's Daphne process died, so no
disconnect was ever recorded (three heartbeats missed)."""
MAX_MATCHES_PER_WAVE = 100
"""Most matches one wave creates (its pairs with the longest waiters first); the others stay waiting for
the next wave. Creating a match (dealing, storing the deal) is most of a wave's cost: 200 waiting players,
100 matches, took 1.1 s of wall time in one transaction on a busy 2-core machine, holding the pool's lock
meanwhile and delaying the next pools' waves; a burst of arrivals is paired over a few waves instead."""
PAIRED_RESEND_SECONDS = 120.0
"""A socket that (re)connects to a pool within this long after its entry was paired into a match still
in play is sent ``paired`` again instead of joining anew (a cancel or a reload that lost the race)."""


BOT_WAIT_SECONDS = 120.0
"""Default of the setting ``BOTAPI_POOL_WAIT_SECONDS``: seconds a BOT account's entry (joined over the bot
API, docs/bot-api.md, which has no socket to watch) stays waiting after its latest ``join``; each join
while waiting starts the period again."""


def bot_wait_seconds() -> float:
    """``BOTAPI_POOL_WAIT_SECONDS`` (seconds), else :data:`BOT_WAIT_SECONDS`."""
    return float(getattr(settings, "BOTAPI_POOL_WAIT_SECONDS", BOT_WAIT_SECONDS))


def expires_at(entry: PoolEntry) -> datetime | None:
    """When a BOT account's waiting ``entry`` ends unless joined again (its latest join plus
    :func:`bot_wait_seconds`); None for a person's entry (it lives with its socket)."""
    if not entry.user.bot_account or entry.seen_at is None:
        return None
    return entry.seen_at + timedelta(seconds=bot_wait_seconds())


def check_door(*, pool: Pool, user: User, via_api: bool) -> None:
    """Who may enter ``pool`` and how (docs/lobby.md "Who may join"): a BOT pool (``Pool.bots_only``)
    only BOT accounts, through the bot API (``via_api``); a people's pool only people.

    :raises GameError: ``bots_pool_only`` (a person, or a house bot, at a BOT pool), ``people_only`` (a BOT
        account at a people's pool), ``bot_api_only`` (a BOT account on the pool socket: it joins over
        the bot API).
    """
    bot_account = bool(getattr(user, "bot_account", False))
    if pool.bots_only and not bot_account:
        raise refuse("bots_pool_only")
    if bot_account and not pool.bots_only:
        raise refuse("people_only")
    if bot_account and not via_api:
        raise refuse("bot_api_only")


def leave_after() -> float:
    """``LOBBY_LEAVE_AFTER`` (seconds), else :data:`LEAVE_AFTER`."""
    return float(getattr(settings, "LOBBY_LEAVE_AFTER", LEAVE_AFTER))


def waiting_count(pool_id: int) -> int:
    """Players waiting in pool ``pool_id`` now."""
    return PoolEntry.objects.filter(pool_id=pool_id, status=EntryStatus.WAITING).count()


def _count_message(pool_id: int) -> tuple[str, dict[str, Any]]:
    return pool_group(pool_id), {"type": "pool.count", "waiting": waiting_count(pool_id)}


def pool_get(*, slug: str) -> Pool:
    """The active pool ``slug``.

    :raises GameError: ``no_such_pool``.
    """
    pool = Pool.objects.filter(slug=slug, active=True).first()
    if pool is None:
        raise refuse("no_such_pool", slug=slug[:40])
    return pool


@dataclass(frozen=True)
class Joined:
    """What :func:`pool_join` did: ``entry`` waiting (``resumed``: the player's own entry, reconnected),
    or ``entry`` paired or playing a bot (``paired`` True: send the player to ``entry.match_id``)."""

    entry: PoolEntry
    resumed: bool = False
    paired: bool = False


@transaction.atomic
def pool_join(*, user: User, slug: str, bot_fallback: bool = False, now: datetime | None = None,
              via_api: bool = False) -> Joined:
    """Join pool ``slug`` (a socket connecting, docs/protocol.md "Pool socket"; ``via_api``: a BOT
    account's ``POST pool/<slug>/join/``, docs/bot-api.md), or resume a wait.

    Door first (:func:`check_door`): a BOT pool takes BOT accounts only, over the bot API; a people's pool
    people only. A BOT account never gets the house-bot fallback (``bot_fallback`` is ignored).
    Resume: ``user`` already waits in this very pool (a reload, a dropped socket back within
    ``LOBBY_LEAVE_AFTER``; a BOT account's join again, which starts its :func:`bot_wait_seconds` anew):
    that entry is kept, with its waiting time and its ``bot_fallback`` set anew.
    Paired: their latest entry of this pool was paired (or given a bot) less than
    :data:`PAIRED_RESEND_SECONDS` ago and that match is still in play: returned with ``paired``.
    Otherwise :func:`lobby.busy.check_free` decides, and a new waiting entry records the rating shown to
    the player (``ratings.selectors.rating_get(...).shown``, provisional or not).

    :raises GameError: ``no_such_pool``; ``not_authenticated``; ``bots_pool_only``, ``people_only``,
        ``bot_api_only`` (:func:`check_door`); ``guest_rated``, ``playban``, ``match_in_progress``,
        ``already_waiting`` (in another pool), ``already_seeking`` (lobby.busy).
    """
    now = now or timezone.now()
    pool = pool_get(slug=slug)
    if not getattr(user, "is_authenticated", False):
        raise refuse("not_authenticated")
    check_door(pool=pool, user=user, via_api=via_api)
    if user.bot_account:
        bot_fallback = False  # a BOT meets BOTs: no house bot fills its wait
    User.objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk").first()
    own = PoolEntry.objects.select_for_update().filter(user=user, status=EntryStatus.WAITING).first()
    if own is not None:
        own.user = user
    if own is not None and own.pool_id == pool.pk:
        own.bot_fallback = bool(bot_fallback)
        own.disconnected_at = None
        own.seen_at = now
        own.save(update_fields=["bot_fallback", "disconnected_at", "seen_at"])
        return Joined(own, resumed=True)
    if own is not None and _gone(own, now):
        # a wait its socket left (or whose server died) that no wave has ended yet: end it now, so the
        # player is not refused "already waiting" by their own ghost
        _end(own, EntryStatus.LEFT, now)
        send_on_commit([(entry_group(own.pk), {"type": "pool.left", "reason": "disconnected"}),
                           _count_message(own.pool_id)])
    recent = (PoolEntry.objects.filter(user=user, pool=pool, status__in=(EntryStatus.PAIRED, EntryStatus.BOT),
                                       ended_at__gte=now - timedelta(seconds=PAIRED_RESEND_SECONDS),
                                       match__status=MatchStatus.ACTIVE)
              .order_by("-ended_at").first())
    if recent is not None:
        return Joined(recent, paired=True)
    busy.check_free(user=user, rated=pool.rated)
    entry = PoolEntry.objects.create(pool=pool, user=user, rating=float(rating_get(user=user).shown),
                                     bot_fallback=bool(bot_fallback), seen_at=now)
    send_on_commit([_count_message(pool.pk)])
    return Joined(entry)


def _gone(entry: PoolEntry, now: datetime) -> bool:
    """Whether ``entry``'s socket is gone for good: disconnected more than ``LOBBY_LEAVE_AFTER`` s ago,
    or not seen for :data:`STALE_AFTER` s. A BOT account's entry has no socket: it is gone
    :func:`bot_wait_seconds` after its latest join (:func:`expires_at`)."""
    if entry.user.bot_account:
        until = expires_at(entry)
        return until is None or now >= until
    if entry.disconnected_at is not None and (now - entry.disconnected_at).total_seconds() >= leave_after():
        return True
    return entry.seen_at is not None and (now - entry.seen_at).total_seconds() >= STALE_AFTER


def _end(entry: PoolEntry, status: str, now: datetime, match: Match | None = None) -> None:
    entry.status = status
    entry.ended_at = now
    entry.match = match
    entry.save(update_fields=["status", "ended_at", "match"])


@dataclass(frozen=True)
class Cancelled:
    """The outcome of :func:`pool_cancel`: ``cancelled`` True (the entry left the pool), else the entry
    had already ended: ``match_id`` (paired or a bot: go there) or None (it had left)."""

    cancelled: bool
    match_id: int | None = None


@transaction.atomic
def pool_cancel(*, entry_id: int, user: User, now: datetime | None = None) -> Cancelled:
    """The player cancels their wait (the socket's ``cancel``). Racing a wave: see the module docstring.

    :raises GameError: ``not_your_entry`` (no entry ``entry_id`` of ``user``).
    """
    now = now or timezone.now()
    entry = PoolEntry.objects.select_for_update().filter(pk=entry_id, user_id=user.pk).first()
    if entry is None:
        raise refuse("not_your_entry")
    if entry.status != EntryStatus.WAITING:
        match_id = entry.match_id if entry.status in (EntryStatus.PAIRED, EntryStatus.BOT) else None
        return Cancelled(False, match_id)
    _end(entry, EntryStatus.CANCELLED, now)
    send_on_commit([(entry_group(entry.pk), {"type": "pool.left", "reason": "cancelled"}),
                       _count_message(entry.pool_id)])
    return Cancelled(True)


@transaction.atomic
def pool_leave(*, user: User, slug: str, now: datetime | None = None) -> Cancelled:
    """``user`` stops waiting in pool ``slug`` (a BOT account's ``POST pool/<slug>/leave/``): their
    waiting entry there is cancelled (:func:`pool_cancel`); none waiting, their latest entry of the pool
    says what became of it (``match_id`` when it was paired, else None).

    :raises GameError: ``no_such_pool``.
    """
    pool = pool_get(slug=slug)
    # the waiting entry if any (at most one per user), else the latest
    entry = (PoolEntry.objects.filter(user_id=user.pk, pool=pool, status=EntryStatus.WAITING).first()
             or PoolEntry.objects.filter(user_id=user.pk, pool=pool).order_by("-pk").first())
    if entry is None:
        return Cancelled(False)
    return pool_cancel(entry_id=entry.pk, user=user, now=now)


@transaction.atomic
def pool_disconnected(*, entry_id: int, now: datetime | None = None) -> bool:
    """A socket of waiting entry ``entry_id`` closed: record when (the wave ends the entry
    ``LOBBY_LEAVE_AFTER`` s later unless a socket of it is seen meanwhile) and ask the entry's other
    sockets, if any (another tab), to answer with :func:`pool_seen`. True when the entry was waiting."""
    now = now or timezone.now()
    done = PoolEntry.objects.filter(pk=entry_id, status=EntryStatus.WAITING).update(disconnected_at=now) == 1
    if done:
        send_on_commit([(entry_group(entry_id), {"type": "pool.probe"})])
    return done


def pool_seen(*, entry_id: int, now: datetime | None = None) -> bool:
    """A socket of entry ``entry_id`` is alive (heartbeat, reconnect, answer to a probe): it stays in the
    pool. True when the entry is still waiting."""
    now = now or timezone.now()
    return PoolEntry.objects.filter(pk=entry_id, status=EntryStatus.WAITING).update(
        seen_at=now, disconnected_at=None) == 1


@dataclass
class Wave:
    """What one :func:`run_wave` did (entry ids): ``pairs`` ``(entry, entry, match)``, ``bots``
    ``(entry, match)``, ``left`` ``(entry, reason)``; ``waiting`` after the wave; ``ran`` False when
    another runner held the pool (nothing done)."""

    ran: bool = True
    pairs: list[tuple[int, int, int]] = field(default_factory=list)
    bots: list[tuple[int, int]] = field(default_factory=list)
    left: list[tuple[int, str]] = field(default_factory=list)
    waiting: int = 0


def nearest_bot_level(rating: float) -> int:
    """The house bot level whose fixed rating (``ratings.selectors.bot_rating``) is nearest ``rating``
    (the weaker on a tie)."""
    return min(BOT_LEVELS, key=lambda level: (abs(bot_rating(level) - rating), level))


def run_wave(*, pool_id: int, now: datetime | None = None, min_gap: float | None = None) -> Wave:
    """One pairing wave of pool ``pool_id`` at ``now`` (default: the clock), in one transaction.

    ``min_gap`` (seconds; the wave loop passes ``lobby.waves.MIN_GAP_SECONDS``): skip the wave (``ran``
    False) when the pool's previous wave, run by any process, is more recent than that, so N Daphne
    processes do not make N waves a period of one pool. None (tests): always run.

    Steps: lock the pool (skipped: another runner has it); lock its waiting entries; end those whose
    socket is gone (``left``, reason ``disconnected``) and the BOT accounts' not joined again within
    :func:`bot_wait_seconds` (reason ``expired``); lock their users (skip locked: they sit out);
    end those now in an active rated match elsewhere (``cancelled``, reason ``match_in_progress``) and,
    in a rated pool, those whose account was marked meanwhile (reason ``account_marked``);
    :func:`lobby.matching.pair_wave` on the rest (the window and the repeat rule are there; in a rated
    pool the pairs at their daily cap, ``games.services.pairs_at_rated_cap``, are avoided); one match per
    pair (``games.services.match_create_seated``: classic rules, the pool's target, timer and rated; the
    longer waiter sits in seat 0); then the entries that asked for a bot and waited
    ``pool.bot_after_seconds`` get one (``match_create_vs_bot``, the level nearest their rating, rated as
    the pool; never in a BOT pool). After commit each entry's sockets get ``pool.paired`` /
    ``pool.left`` and the pool's the new count.
    """
    now = now or timezone.now()
    with transaction.atomic():
        pool = Pool.objects.select_for_update(skip_locked=True).filter(pk=pool_id).first()
        if pool is None:
            return Wave(ran=False)
        if (min_gap is not None and pool.last_wave_at is not None
                and 0 <= (now - pool.last_wave_at).total_seconds() < min_gap):
            return Wave(ran=False)
        Pool.objects.filter(pk=pool_id).update(last_wave_at=now)
        wave = Wave()
        messages: list[tuple[str, dict[str, Any]]] = []
        last_match = Subquery(PoolEntry.objects.filter(
            pool_id=pool_id, user_id=OuterRef("user_id"), status=EntryStatus.PAIRED,
        ).order_by("-pk").values("match_id")[:1])
        entries = list(PoolEntry.objects.select_for_update(of=("self",)).select_related("user")
                       .filter(pool_id=pool_id, status=EntryStatus.WAITING)
                       .annotate(last_match=last_match).order_by("pk"))
        live: list[PoolEntry] = []
        entry: PoolEntry  # each loop below: an entry (the first one's are annotated with last_match)
        for entry in entries:
            if not pool.active:
                _end(entry, EntryStatus.CANCELLED, now)
                wave.left.append((entry.pk, "pool_closed"))
            elif _gone(entry, now):
                _end(entry, EntryStatus.LEFT, now)
                wave.left.append((entry.pk, "expired" if entry.user.bot_account else "disconnected"))
            else:
                live.append(entry)
        free = set(User.objects.select_for_update(no_key=True, skip_locked=True)
                   .filter(pk__in=[e.user_id for e in live]).values_list("pk", flat=True))
        busy_ids = set(Match.objects.filter(Q(player0_id__in=free) | Q(player1_id__in=free),
                                            status=MatchStatus.ACTIVE, rated=True)
                       .values_list("player0_id", "player1_id").iterator()) if free else set()
        in_match = {uid for pair in busy_ids for uid in pair} & free
        # a BOT account may play several matches at once: games' own rule says whether it is busy
        for uid in {e.user_id for e in live if e.user.bot_account} & in_match:
            if active_rated_match_id(user_id=uid) is None:
                in_match.discard(uid)
        ready: dict[int, PoolEntry] = {}
        for entry in live:
            if entry.user_id in in_match:
                _end(entry, EntryStatus.CANCELLED, now)
                wave.left.append((entry.pk, "match_in_progress"))
            elif pool.rated and entry.user_id in free and entry.user.standing != Standing.GOOD:
                # marked while waiting (the join refused it before): rated pools are closed to it
                _end(entry, EntryStatus.CANCELLED, now)
                wave.left.append((entry.pk, "account_marked"))
            elif entry.user_id in free:
                ready[entry.pk] = entry
        opponents = _last_opponents(ready.values())
        # the pairs at their daily cap of rated matches wait for other opponents (docs/fairplay.md)
        avoid = (pairs_at_rated_cap(user_ids={e.user_id for e in ready.values()}, now=now)
                 if pool.rated else set())
        waiters = [Waiter(key=e.pk, user_id=e.user_id, rating=e.rating,
                          waited=max(0.0, (now - e.joined_at).total_seconds()),
                          last_opponent=opponents.get(e.pk)) for e in ready.values()]
        chosen = sorted((sorted((ready[key_a], ready[key_b]), key=lambda e: (e.joined_at, e.pk))
                         for key_a, key_b in pair_wave(waiters, start=pool.window_start,
                                                       growth=pool.window_growth, avoid=avoid)),
                        key=lambda pair: (pair[0].joined_at, pair[0].pk))
        for a, b in chosen[:MAX_MATCHES_PER_WAVE]:
            del ready[a.pk], ready[b.pk]
            try:
                match = match_create_seated(player0=a.user, player1=b.user, rules_preset="classic",
                                            target=pool.target, turn_timer=pool.turn_timer_seconds,
                                            rated=pool.rated)
            except GameError as exc:  # an account closed meanwhile: both wait on (the next wave decides)
                log.warning("pool %s: no match for entries %s and %s: %s", pool.slug, a.pk, b.pk, exc)
                continue
            for entry, other in ((a, b), (b, a)):
                _end(entry, EntryStatus.PAIRED, now, match)
                messages.append(_paired(entry, match, other.user, other.rating, bot=False))
            wave.pairs.append((a.pk, b.pk, match.pk))
        left_over = {e.pk for pair in chosen[MAX_MATCHES_PER_WAVE:] for e in pair}
        for entry in list(ready.values()):
            waited = (now - entry.joined_at).total_seconds()
            if (entry.pk not in left_over and entry.bot_fallback and not pool.bots_only
                    and waited >= pool.bot_after_seconds):
                level = nearest_bot_level(entry.rating)
                try:
                    match = match_create_vs_bot(user=entry.user, level=level, rules_preset="classic",
                                                target=pool.target, rated=pool.rated)
                except GameError as exc:  # no house bots (ensure_house_bots not run): keep waiting
                    log.warning("pool %s: no bot match for entry %s: %s", pool.slug, entry.pk, exc)
                    continue
                bot = match.player1
                assert bot is not None
                _end(entry, EntryStatus.BOT, now, match)
                messages.append(_paired(entry, match, bot, float(bot_rating(level)), bot=True))
                wave.bots.append((entry.pk, match.pk))
        for entry_id, reason in wave.left:
            messages.append((entry_group(entry_id), {"type": "pool.left", "reason": reason}))
        wave.waiting = waiting_count(pool_id)
        messages.append((pool_group(pool_id), {"type": "pool.count", "waiting": wave.waiting}))
        send_on_commit(messages)
    return wave


def _last_opponents(entries: Any) -> dict[int, int]:
    """``{entry id: user id of the opponent of that player's last pairing in this pool}`` for the
    ``entries`` (annotated with ``last_match``) that have one."""
    by_match: dict[int, list[PoolEntry]] = {}
    for entry in entries:
        if entry.last_match is not None:
            by_match.setdefault(entry.last_match, []).append(entry)
    found: dict[int, int] = {}
    for match_id, p0, p1 in Match.objects.filter(pk__in=list(by_match)).values_list(
            "pk", "player0_id", "player1_id"):
        for entry in by_match[match_id]:
            other = p1 if p0 == entry.user_id else p0
            if other is not None:
                found[entry.pk] = other
    return found


def _paired(entry: PoolEntry, match: Match, opponent: User, rating: float, *,
            bot: bool) -> tuple[str, dict[str, Any]]:
    return entry_group(entry.pk), {
        "type": "pool.paired", "match": match.pk,
        "opponent": {"name": opponent.public_name, "rating": round(rating)}, "bot": bot,
    }


def paired_message(entry: PoolEntry) -> dict[str, Any]:
    """The ``pool.paired`` message of an entry that ended paired or with a bot (a socket connecting
    after the wave: :func:`pool_join` returned it ``paired``)."""
    assert entry.match_id is not None  # paired or with a bot: it has its match
    match = Match.objects.select_related("player0", "player1").get(pk=entry.match_id)
    opponent = match.player1 if match.player0_id == entry.user_id else match.player0
    assert opponent is not None
    if opponent.is_bot:
        rating = float(bot_rating(opponent.bot_level or 0))
    else:
        other = PoolEntry.objects.filter(match=match).exclude(pk=entry.pk).first()
        rating = other.rating if other is not None else float(rating_get(user=opponent).shown)
    return _paired(entry, match, opponent, rating, bot=opponent.is_bot)[1]


def run_waves(*, now: datetime | None = None, min_gap: float | None = None) -> list[Wave]:
    """One wave (:func:`run_wave`, ``min_gap`` passed on) of every pool that has someone waiting (active
    or not: a closed pool's entries are ended), in pool order. Called every ``LOBBY_WAVE_SECONDS`` by
    ``lobby.waves``."""
    pool_ids = list(PoolEntry.objects.filter(status=EntryStatus.WAITING)
                    .order_by("pool_id").values_list("pool_id", flat=True).distinct())
    return [run_wave(pool_id=pool_id, now=now, min_gap=min_gap) for pool_id in pool_ids]
