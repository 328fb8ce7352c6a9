"""Limits of the table's WebSocket (docs/protocol.md "Limits"; issue 8).

- Messages: each connection has a token bucket of ``BURST`` tokens refilled at ``MESSAGES_PER_SECOND``;
  a frame that finds it empty is answered ``rate_limited`` and not read. A connection with
  ``FLOOD_REFUSALS`` refused frames within ``FLOOD_WINDOW`` seconds is closed with
  ``web.close_codes.FLOOD_CLOSE_CODE``.
  (8 sockets x 2,000 ``sync`` frames took 177 s of server work and slowed everyone else's moves.)
  ``sync`` (a full state rebuilt from the database) has its own, tighter bucket of ``SYNC_BURST``
  refilled at ``SYNCS_PER_SECOND``: the buckets refill while the server works, so on a busy server
  that is slower than 20 syncs a second the general bucket alone never emptied (measured: 5 sockets
  each got ~900 of 2,000 syncs answered over 165 s before the close).
- Sockets: at most ``SOCKETS_PER_USER_PER_MATCH`` open sockets per player per match, counted in Django's
  cache so the cap holds across Daphne processes (Redis in production). Each socket holds one of that
  many slot keys (``cache.add`` is atomic: SET NX on Redis), refreshed every ``SLOT_REFRESH`` seconds
  and expiring ``SLOT_TTL`` seconds after the last refresh, so the slots of a killed process free
  themselves. A cache that fails (Redis down) admits the socket untracked: the cap is a guard against
  abuse, not a reason to lock a player out of their match.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field

from django.core.cache import cache

log = logging.getLogger(__name__)

MESSAGES_PER_SECOND = 20.0
BURST = 40
FLOOD_REFUSALS = 40
FLOOD_WINDOW = 10.0
SYNCS_PER_SECOND = 2.0
SYNC_BURST = 10

SOCKETS_PER_USER_PER_MATCH = 5
SLOT_TTL = 60
SLOT_REFRESH = 20
UNTRACKED = -1
"""The slot of a socket admitted while the cache was failing."""


@dataclass(slots=True)
class TokenBucket:
    """``burst`` tokens, refilled continuously at ``rate`` per second; times are ``time.monotonic()``."""

    rate: float
    burst: float
    now: float
    tokens: float = field(init=False)
    stamp: float = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = self.burst
        self.stamp = self.now

    def take(self, now: float) -> bool:
        """Spend one token at time ``now``; False (nothing spent) when the bucket is empty."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class MessageLimiter:
    """One connection's message limit: :meth:`admit` says ``ok``, ``limited`` (refuse this frame) or
    ``flood`` (refused ``FLOOD_REFUSALS`` times within ``FLOOD_WINDOW`` s: close the connection)."""

    def __init__(self, now: float) -> None:
        self.bucket = TokenBucket(MESSAGES_PER_SECOND, BURST, now)
        self.syncs = TokenBucket(SYNCS_PER_SECOND, SYNC_BURST, now)
        self.refusals: deque[float] = deque(maxlen=FLOOD_REFUSALS)

    def admit(self, now: float) -> str:
        """Any frame, before it is read."""
        return "ok" if self.bucket.take(now) else self._refused(now)

    def admit_sync(self, now: float) -> str:
        """A ``sync`` (after :meth:`admit`): its own bucket; refusals count towards the same flood."""
        return "ok" if self.syncs.take(now) else self._refused(now)

    def _refused(self, now: float) -> str:
        self.refusals.append(now)
        if len(self.refusals) == FLOOD_REFUSALS and now - self.refusals[0] <= FLOOD_WINDOW:
            return "flood"
        return "limited"


def _slot_key(match_id: int | str, user_id: int | str, slot: int) -> str:
    return f"ws-socket:{match_id}:{user_id}:{slot}"


def socket_slot_acquire(*, match_id: int | str, user_id: int | str, owner: str,
                        cap: int = SOCKETS_PER_USER_PER_MATCH, first: int = 0) -> int | None:
    """Take a free socket slot of ``user_id`` in ``match_id`` for the connection ``owner`` (its channel
    name). Returns the slot (0..cap-1), ``UNTRACKED`` when the cache failed, None when all are taken.
    Other sockets reuse the slots with a name of their own for ``match_id`` and their ``cap`` (the lobby's
    pool sockets: ``"pool"`` and the user id, ``"pool-ip"`` and the client address). The slots are tried
    from ``first`` on, round: a large cap (an address's) starts at a random one, so the n-th socket does
    not try n taken slots first."""
    try:
        for slot in ((first + i) % cap for i in range(cap)):
            if cache.add(_slot_key(match_id, user_id, slot), owner, timeout=SLOT_TTL):
                return slot
    except Exception as exc:
        log.warning("socket slots of match %s unavailable, admitting untracked: %s: %s",
                    match_id, type(exc).__name__, exc)
        return UNTRACKED
    return None


def socket_slot_refresh(*, match_id: int | str, user_id: int | str, slot: int, owner: str) -> None:
    """Extend ``owner``'s slot by ``SLOT_TTL`` (re-take it if it expired meanwhile and is still free)."""
    if slot == UNTRACKED:
        return
    key = _slot_key(match_id, user_id, slot)
    try:
        if cache.get(key) == owner:
            cache.touch(key, SLOT_TTL)
        else:
            cache.add(key, owner, timeout=SLOT_TTL)
    except Exception as exc:
        log.warning("socket slot of match %s not refreshed: %s: %s", match_id, type(exc).__name__, exc)


def socket_slot_release(*, match_id: int | str, user_id: int | str, slot: int, owner: str) -> None:
    """Free ``owner``'s slot (only if it still holds it: an expired slot may belong to another socket)."""
    if slot == UNTRACKED:
        return
    key = _slot_key(match_id, user_id, slot)
    try:
        if cache.get(key) == owner:
            cache.delete(key)
    except Exception as exc:
        log.warning("socket slot of match %s not released: %s: %s", match_id, type(exc).__name__, exc)


def socket_count(*, match_id: int, user_id: int) -> int | None:
    """How many sockets ``user_id`` has open to ``match_id`` now (their held slots), or None when the
    cache fails (unknown). A socket of a killed process counts until its slot expires (``SLOT_TTL``)."""
    keys = [_slot_key(match_id, user_id, slot) for slot in range(SOCKETS_PER_USER_PER_MATCH)]
    try:
        return len(cache.get_many(keys))
    except Exception as exc:
        log.warning("socket slots of match %s unreadable: %s: %s", match_id, type(exc).__name__, exc)
        return None
