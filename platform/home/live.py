"""The home socket's live numbers: one coalesced ``home`` message a second at most, site-wide, and the
per-IP cap on home sockets (docs/protocol.md "Home socket").

Coalescing. The numbers (``home.numbers.live_numbers``) change with many events (a player joins a pool,
a match starts or ends, a socket opens somewhere): sending one message per event would send a socket
as many messages as the site has events. Instead the numbers are *read*, from committed rows, at most
once per :func:`interval` (``HOME_INTERVAL``, 1 s) for the whole site, and sent only when they differ
from the last sent ones:

- Every Daphne process with at least one home socket open runs one ticker (:func:`socket_opened`,
  :func:`socket_closed`), which calls :func:`tick` every interval.
- :func:`tick` claims the current interval's slot in the shared cache (``cache.add`` of
  ``home:tick:<floor(now / interval)>``: SET NX on Redis, so one process of all wins each slot); the
  winner reads the numbers and, when they changed since the last send (``home:last`` in the cache),
  sends ``{"type": "home.update", "numbers"}`` once to the group ``push.groups.HOME_GROUP`` through the
  channel layer, which every home socket of every process has joined. So each socket gets at most one
  ``home`` message per interval (plus the one it gets when it opens), and a change is seen within about
  one interval.
- Reads see only committed rows, so nothing is ever sent before its commit, and no writer (pools,
  challenges, the games' services, raw SQL) has to remember to notify this module: the one place that
  sends is :func:`tick`.

Per-IP cap. Each open home socket holds a seat in its client IP's set in the shared cache (the sorted
set and Lua admission of ``replays.audience``, with a site-wide set of home sockets as its second set),
renewed every ``audience.SEAT_REFRESH`` s and freed at close; seats of a killed process expire after
``audience.SEAT_TTL`` s. Past ``HOME_SOCKETS_PER_IP`` (default 10) the socket is refused
(``home_ip_limit``, close 4429). A failing cache admits untracked, as the spectators' seats do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError
from redis.exceptions import RedisError

from home.numbers import live_numbers
from push.groups import HOME_GROUP
from push.send import send as push_send
from replays import audience
from web.socket_end import outage
from web.unavailable import describe

log = logging.getLogger(__name__)

LAST_KEY = "home:last"
"""The ticker's last read, ``{"at": seconds since 1970, "numbers"}`` (:func:`fresh_numbers`)."""
SENT_KEY = "home:sent"
"""The numbers last sent (stored after the send succeeded: a send lost to an outage is made again)."""
DEFAULT_INTERVAL = 1.0
DEFAULT_PER_IP = 10
ALL_SOCKETS_CAP = 1_000_000
"""The site-wide set's cap (the Lua script checks two sets; only the IP's cap is meant to bite)."""

_local_lock = threading.Lock()


def interval() -> float:
    """``HOME_INTERVAL``: seconds between two ``home`` messages, at least (default 1)."""
    return float(getattr(settings, "HOME_INTERVAL", DEFAULT_INTERVAL))


def per_ip() -> int:
    """``HOME_SOCKETS_PER_IP``: home sockets one client IP may hold open (default 10)."""
    return int(getattr(settings, "HOME_SOCKETS_PER_IP", DEFAULT_PER_IP))


# ----------------------------------------------------------------------------------------- coalescing


def claim_slot(now: float) -> bool:
    """Whether this caller won the interval slot of ``now`` (seconds since 1970): the first caller of
    all processes in each slot does.

    :raises redis.exceptions.RedisError | OSError: the cache failed.
    """
    slot = int(now // interval())
    return bool(cache.add(f"home:tick:{slot}", 1, max(2.0, 2 * interval())))


async def send_numbers(numbers: dict[str, Any]) -> None:
    """Send ``numbers`` to every home socket (the group ``push.groups.HOME_GROUP``, all processes), through
    ``push.send`` (an outage is recorded and logged; the next change sends the numbers again).

    :raises RuntimeError: there is no channel layer (a configuration error)."""
    if get_channel_layer() is None:
        raise RuntimeError("no channel layer: the home numbers cannot be sent")
    await push_send([(HOME_GROUP, {"type": "home.update", "numbers": numbers})])


def _read_changed(now: float) -> dict[str, Any] | None:
    """The numbers at ``now`` when they differ from the last sent ones (:data:`SENT_KEY`), else None.
    Each read is kept under :data:`LAST_KEY` for :func:`fresh_numbers`."""
    numbers = live_numbers(now=now)
    cache.set(LAST_KEY, {"at": now, "numbers": numbers}, 3600)
    return None if cache.get(SENT_KEY) == numbers else numbers


async def tick(now: float | None = None,
               send: Callable[[dict[str, Any]], Awaitable[None]] = send_numbers) -> bool:
    """One step of the ticker at ``now`` (default the clock): claim the slot, read, send on change.
    True when a message was sent. ``send`` is injectable (tests)."""
    now = time.time() if now is None else now
    if not await sync_to_async(claim_slot, thread_sensitive=False)(now):
        return False
    numbers = await database_sync_to_async(_read_changed)(now)
    if numbers is None:
        return False
    await send(numbers)
    await sync_to_async(cache.set, thread_sensitive=False)(SENT_KEY, numbers, 3600)
    return True


def fresh_numbers(now: float | None = None) -> dict[str, Any] | None:
    """The ticker's last read when it is at most two intervals old at ``now`` (default the clock), else
    None. A cache read only; a failing cache is None (the caller reads the numbers itself).
    """
    now = time.time() if now is None else now
    try:
        last = cache.get(LAST_KEY)
    except (RedisError, OSError):
        return None
    if isinstance(last, dict) and 0 <= now - float(last.get("at", 0.0)) <= 2 * interval():
        return dict(last["numbers"])
    return None


async def current(now: float | None = None) -> dict[str, Any]:
    """The numbers a socket gets when it opens (or asks with ``sync``): the ticker's last read when it is
    at most two intervals old (a reconnect storm after a restart costs no queries per socket), else
    read now (no home socket was open for a while: the last read may be old)."""
    now = time.time() if now is None else now
    fresh = await sync_to_async(fresh_numbers, thread_sensitive=False)(now)
    if fresh is not None:
        return fresh
    return await database_sync_to_async(live_numbers)(now=now)


class Ticker:
    """This process's ticker: runs :func:`tick` every :func:`interval` while :attr:`sockets` > 0."""

    def __init__(self) -> None:
        self.sockets = 0
        self.task: asyncio.Task[None] | None = None

    def opened(self) -> None:
        self.sockets += 1
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run())
            self.task.add_done_callback(_ticker_ended)

    def closed(self) -> None:
        self.sockets = max(0, self.sockets - 1)
        if self.sockets == 0 and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _run(self) -> None:
        while self.sockets > 0:
            await asyncio.sleep(interval())
            try:
                await tick()
            except (DatabaseError, RedisError, OSError) as exc:
                if not outage(exc):
                    raise
                # An outage: this interval's numbers are lost; the next tick reads them again.
                log.warning("home numbers not sent: %s", describe(exc))


def _ticker_ended(task: asyncio.Task[None]) -> None:
    """A ticker that died of a bug says so (the next home socket to open starts a new one)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("home ticker stopped", exc_info=task.exception())


ticker = Ticker()


def socket_opened() -> None:
    """A home socket of this process opened (starts the ticker)."""
    ticker.opened()


def socket_closed() -> None:
    """A home socket of this process closed (the last one stops the ticker)."""
    ticker.closed()


# ------------------------------------------------------------------------------------------ IP seats


def _ip_key(ip: str) -> str:
    return f"home:ip:{ip}"


ALL_KEY = "home:all"


def admit(*, ip: str, member: str, now: float | None = None) -> audience.Seat | None:
    """Take a seat for the home socket ``member`` (its channel name) of ``ip``: the :class:`Seat
    <replays.audience.Seat>` (``match_id`` 0), or None when ``ip`` holds :func:`per_ip` seats already
    (nothing taken). A failing cache admits, untracked."""
    now = time.time() if now is None else now
    try:
        client = audience.redis_client()
        if client is not None:
            keys = (audience.raw_key(_ip_key(ip)), audience.raw_key(ALL_KEY))
            verdict = int(client.eval(audience.ADMIT_LUA, 2, *keys, now, now + audience.SEAT_TTL, member,
                                      per_ip(), ALL_SOCKETS_CAP, int(audience.SEAT_TTL * 1000)))
            return None if verdict < 0 else audience.Seat(0, ip, member)
        with _local_lock:
            held = _live(_ip_key(ip), now)
            if member not in held and len(held) >= per_ip():
                return None
            held[member] = now + audience.SEAT_TTL
            cache.set(_ip_key(ip), held, audience.SEAT_TTL)
    except audience.cache_errors() as exc:
        log.warning("home seats unavailable, admitting untracked: %s: %s", type(exc).__name__, exc)
        return audience.Seat(0, ip, member, tracked=False)
    return audience.Seat(0, ip, member)


def _live(name: str, now: float) -> dict[str, float]:
    held = cache.get(name)
    return {m: d for m, d in held.items() if d > now} if isinstance(held, dict) else {}


def refresh(seat: audience.Seat) -> None:
    """Renew ``seat`` for ``audience.SEAT_TTL`` s.

    :raises redis.exceptions.RedisError | OSError: the cache failed (the seat then expires on its own).
    """
    if not seat.tracked:
        return
    now = time.time()
    client = audience.redis_client()
    if client is not None:
        pipe = client.pipeline(transaction=False)
        for name in (_ip_key(seat.ip), ALL_KEY):
            pipe.zadd(audience.raw_key(name), {seat.member: now + audience.SEAT_TTL})
            pipe.pexpire(audience.raw_key(name), int(audience.SEAT_TTL * 1000))
        pipe.execute()
        return
    with _local_lock:
        held = _live(_ip_key(seat.ip), now)
        held[seat.member] = now + audience.SEAT_TTL
        cache.set(_ip_key(seat.ip), held, audience.SEAT_TTL)


def release(seat: audience.Seat) -> None:
    """Free ``seat`` (the socket closed).

    :raises redis.exceptions.RedisError | OSError: the cache failed (the seat expires on its own).
    """
    if not seat.tracked:
        return
    client = audience.redis_client()
    if client is not None:
        pipe = client.pipeline(transaction=False)
        for name in (_ip_key(seat.ip), ALL_KEY):
            pipe.zrem(audience.raw_key(name), seat.member)
        pipe.execute()
        return
    with _local_lock, contextlib.suppress(KeyError):
        held = _live(_ip_key(seat.ip), time.time())
        del held[seat.member]
        cache.set(_ip_key(seat.ip), held, audience.SEAT_TTL)
