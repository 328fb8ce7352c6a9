"""Who watches a live match: the spectator sockets' seats, their caps and the count (issue 20, finding 2).

Seats. Each open spectator socket (``ws/watch/<id>/``) holds one seat in two sets of the shared cache
(Redis in production, so every Daphne process sees the same sets): its client IP's and its match's.
A seat is the socket's channel name with a deadline (now + :data:`SEAT_TTL` s), renewed every
:data:`SEAT_REFRESH` s while the socket is open and removed when it closes. A seat whose deadline passed
counts for nothing and is pruned by the next admission: the seats of a Daphne that was killed (``kill
-9``: no clean-up ran) are gone within ``SEAT_TTL`` s, never stuck. On Redis the two sets are sorted
sets (score: the deadline) and admission is one Lua script (prune, check both caps, add: atomic across
processes); on another cache (the embedded profile's locmem, one process) a dict in the cache changed
under a process lock.

Caps (settings, read at each call): ``SPECTATORS_PER_IP`` seats per client IP (``scope["client"]``:
Daphne's ``--proxy-headers`` puts the browser's address there behind nginx) and ``SPECTATORS_PER_MATCH``
seats per match. :func:`admit` refuses past either (``"ip"`` / ``"match"``). A cache that fails (Redis
down) admits the socket untracked, as the table's socket slots do (``games.ratelimit``): the caps guard
against abuse, they are no reason to lock everyone out while Redis restarts.

The count (``spectators`` messages to the players and the spectators) is :func:`count`, the match's live
seats. It is sent coalesced: a seat change marks the match with a flag in the cache (:func:`mark_changed`,
``SET NX``, so one caller in all processes wins it); the winner sends the count once
``SPECTATORS_COUNT_INTERVAL`` s later (``replays.consumers``), after clearing the flag. So a match gets
at most about one ``spectators`` message per interval, to its players and spectators (messages grow
with the audience, not with its square), and every change is followed by a send that reads it.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import redis.exceptions
from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache

log = logging.getLogger(__name__)

SEAT_TTL = 60.0
"""Seconds a seat lives after its last renewal (a killed process's seats are freed within this)."""
SEAT_REFRESH = 20.0
"""Seconds between the renewals of an open socket's seat."""
FLAG_TTL = 10.0
"""Seconds a count flag outlives its sender at most (a process killed between winning and sending)."""

DEFAULT_PER_IP = 20
DEFAULT_PER_MATCH = 1000
DEFAULT_COUNT_INTERVAL = 1.0

_local_lock = threading.Lock()

# KEYS: the IP's set, the match's set. ARGV: now, deadline, member, IP cap, match cap, TTL in ms.
# Returns -1 (IP over its cap), -2 (match over its cap) or the match's count with the new seat.
ADMIT_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[3]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
    return -1
end
if not redis.call('ZSCORE', KEYS[2], ARGV[3]) and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then
    return -2
end
for i = 1, 2 do
    redis.call('ZADD', KEYS[i], ARGV[2], ARGV[3])
    redis.call('PEXPIRE', KEYS[i], ARGV[6])
end
return redis.call('ZCARD', KEYS[2])
"""


def per_ip() -> int:
    """``SPECTATORS_PER_IP``: seats one client IP may hold (all matches together)."""
    return int(getattr(settings, "SPECTATORS_PER_IP", DEFAULT_PER_IP))


def per_match() -> int:
    """``SPECTATORS_PER_MATCH``: seats one match may have."""
    return int(getattr(settings, "SPECTATORS_PER_MATCH", DEFAULT_PER_MATCH))


def count_interval() -> float:
    """``SPECTATORS_COUNT_INTERVAL``: seconds between two ``spectators`` messages of one match, at least."""
    return float(getattr(settings, "SPECTATORS_COUNT_INTERVAL", DEFAULT_COUNT_INTERVAL))


@dataclass(frozen=True, slots=True)
class Seat:
    """An admitted socket's seat: ``member`` (its channel name), its IP and match; ``tracked`` False when
    the cache failed at admission (nothing to renew or release)."""

    match_id: int
    ip: str
    member: str
    tracked: bool = True


def _ip_key(ip: str) -> str:
    return f"spectators:ip:{ip}"


def _match_key(match_id: int) -> str:
    return f"spectators:match:{match_id}"


def _flag_key(match_id: int) -> str:
    return f"spectators:due:{match_id}"


def redis_client() -> Any | None:
    """The Redis client of Django's cache when it is Redis (the production profile), else None."""
    backend = caches["default"]  # not the ``cache`` proxy: isinstance needs the backend itself
    if isinstance(backend, RedisCache):
        return backend._cache.get_client(write=True)
    return None


def raw_key(name: str) -> str:
    """``name`` as the cache stores it (its KEY_PREFIX and version), for the raw Redis commands."""
    return cache.make_and_validate_key(name)


def cache_errors() -> tuple[type[BaseException], ...]:
    """The errors of a failing cache (Redis, or its socket): the callers go on without the seats."""
    return (redis.exceptions.RedisError, OSError)


def admit(*, match_id: int, ip: str, member: str) -> Seat | str:
    """Take a seat for the socket ``member`` (its channel name) of ``ip`` on ``match_id``.

    :returns: the :class:`Seat`, or ``"ip"`` (the IP holds ``per_ip()`` seats already) or ``"match"``
        (the match has ``per_match()``): then nothing was taken. A failing cache admits, untracked.
    """
    now = time.time()
    try:
        client = redis_client()
        if client is not None:
            verdict = int(client.eval(ADMIT_LUA, 2, raw_key(_ip_key(ip)), raw_key(_match_key(match_id)), now,
                                      now + SEAT_TTL, member, per_ip(), per_match(), int(SEAT_TTL * 1000)))
            if verdict < 0:
                return "ip" if verdict == -1 else "match"
            return Seat(match_id, ip, member)
        with _local_lock:
            seats = {name: _live(name, now) for name in (_ip_key(ip), _match_key(match_id))}
            ip_seats, match_seats = seats[_ip_key(ip)], seats[_match_key(match_id)]
            if member not in ip_seats and len(ip_seats) >= per_ip():
                return "ip"
            if member not in match_seats and len(match_seats) >= per_match():
                return "match"
            for name, held in seats.items():
                held[member] = now + SEAT_TTL
                cache.set(name, held, SEAT_TTL)
    except cache_errors() as exc:
        log.warning("spectator seats of match %s unavailable, admitting untracked: %s: %s", match_id,
                    type(exc).__name__, exc)
        return Seat(match_id, ip, member, tracked=False)
    return Seat(match_id, ip, member)


def _live(name: str, now: float) -> dict[str, float]:
    """The local cache's seats under ``name`` whose deadline is still ahead (caller holds the lock)."""
    held = cache.get(name)
    return {m: d for m, d in held.items() if d > now} if isinstance(held, dict) else {}


def refresh(seat: Seat) -> None:
    """Renew ``seat`` for :data:`SEAT_TTL` s (re-added if it expired meanwhile, e.g. Redis restarted).

    :raises redis.exceptions.RedisError | OSError: the cache failed (the caller's step logs it; the seat
        then expires on its own).
    """
    if not seat.tracked:
        return
    now = time.time()
    client = redis_client()
    names = (_ip_key(seat.ip), _match_key(seat.match_id))
    if client is not None:
        pipe = client.pipeline(transaction=False)
        for name in names:
            pipe.zadd(raw_key(name), {seat.member: now + SEAT_TTL})
            pipe.pexpire(raw_key(name), int(SEAT_TTL * 1000))
        pipe.execute()
        return
    with _local_lock:
        for name in names:
            held = _live(name, now)
            held[seat.member] = now + SEAT_TTL
            cache.set(name, held, SEAT_TTL)


def release(seat: Seat) -> None:
    """Free ``seat`` (the socket closed).

    :raises redis.exceptions.RedisError | OSError: the cache failed (the seat expires on its own).
    """
    if not seat.tracked:
        return
    client = redis_client()
    names = (_ip_key(seat.ip), _match_key(seat.match_id))
    if client is not None:
        pipe = client.pipeline(transaction=False)
        for name in names:
            pipe.zrem(raw_key(name), seat.member)
        pipe.execute()
        return
    with _local_lock:
        now = time.time()
        for name in names:
            held = _live(name, now)
            held.pop(seat.member, None)
            cache.set(name, held, SEAT_TTL)


def count(*, match_id: int) -> int:
    """How many spectator sockets watch ``match_id`` now (its live seats); 0 when the cache fails."""
    now = time.time()
    try:
        client = redis_client()
        if client is not None:
            return int(client.zcount(raw_key(_match_key(match_id)), f"({now}", "+inf"))
        with _local_lock:
            return len(_live(_match_key(match_id), now))
    except cache_errors() as exc:
        log.warning("spectator count of match %s unavailable: %s: %s", match_id, type(exc).__name__, exc)
        return 0


def counts(*, match_ids: list[int]) -> dict[int, int]:
    """:func:`count` of several matches at once (the ``/watch/`` list): ``{match_id: spectators}``, one
    round trip (a Redis pipeline of ``ZCOUNT``s); every match 0 when the cache fails (logged)."""
    if not match_ids:
        return {}
    now = time.time()
    try:
        client = redis_client()
        if client is not None:
            pipe = client.pipeline(transaction=False)
            for match_id in match_ids:
                pipe.zcount(raw_key(_match_key(match_id)), f"({now}", "+inf")
            return {match_id: int(n) for match_id, n in zip(match_ids, pipe.execute(), strict=True)}
        with _local_lock:
            return {match_id: len(_live(_match_key(match_id), now)) for match_id in match_ids}
    except cache_errors() as exc:
        log.warning("spectator counts of %s matches unavailable: %s: %s", len(match_ids), type(exc).__name__,
                    exc)
        return dict.fromkeys(match_ids, 0)


def mark_changed(*, match_id: int) -> bool:
    """Note that ``match_id``'s seats changed (call after the change). True when the caller won the
    match's count flag and must send the count after :func:`count_interval` s (clearing the flag first:
    :func:`clear_flag`); False when a send is already due, which will read this change too.

    :raises redis.exceptions.RedisError | OSError: the cache failed (no count is sent for this change).
    """
    return bool(cache.add(_flag_key(match_id), 1, FLAG_TTL))


def clear_flag(*, match_id: int) -> None:
    """Drop ``match_id``'s count flag (the sender, just before it reads the count): a change from now on
    wins a new flag and a new send."""
    cache.delete(_flag_key(match_id))
