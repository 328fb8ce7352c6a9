"""The production channel layer: channels-redis' ``RedisChannelLayer`` plus one batched send of several
group messages (:meth:`BatchingRedisChannelLayer.group_send_many`), and :func:`group_send_many` to call
it on any layer.

Why: a move's after-commit broadcast sends three group messages (each seat its own ``state``, the
spectators a notice). ``RedisChannelLayer.group_send`` makes two Redis round trips per group, plus two
per group that has members (expire the group, read its members, expire the members' queues, a Lua
script that queues the message): ten round trips per move, about 1 ms of the sender's CPU (issue 9).
The batched send makes the same changes, in the same order, in two round trips: one script that expires
and reads every group (``GROUP_MEMBERS_LUA``: one command, where a pipeline of two per group cost half
the send's CPU), one pipeline that expires the queues and runs the library's script for every group.

A member of a group in the sending process (a socket of the same Daphne: both seats of a bot match,
as a rule) gets its copy from memory, without Redis (:meth:`BatchingRedisChannelLayer.group_send_many`),
and one task per process, the receive pump, moves what Redis holds for the process's sockets into their
buffers (:meth:`BatchingRedisChannelLayer.receive`). Why: a message to a socket of the sending process
went to Redis and back (the layer's receive and send were 17 % of a saturated Daphne's GIL time, py-spy
under ``scripts/loadtest 50 --think 0``), and channels-redis' receive let whichever socket held its lock
wait in the blocking pop, blind to its own buffer.

The commands and the script are those of channels-redis 4.3 (``RedisChannelLayer.group_send``); it is
pinned below 5 (pyproject.toml), and ``tests/platform/test_channel_layer.py`` checks, on a real Redis,
that a consumer receives from the batch exactly what the library's own ``group_send`` delivers.

The embedded profile's layer is :class:`PackingInMemoryChannelLayer`: channels' in-memory layer, whose
``deepcopy`` of every message and sweep of every channel and group on every send and receive were a
third of the Daphne process's CPU with 50 matches (issue 9: cProfile of scripts/loadtest).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import logging
import time
from typing import Any

import msgpack
from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.core import ChannelLock, RedisChannelLayer
from channels_redis.utils import create_pool
from redis.asyncio import BlockingConnectionPool
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError

log = logging.getLogger(__name__)

Messages = list[tuple[str, dict[str, Any]]]
"""``[(group name, message), ...]``, sent in this order."""

# channels-redis 4.3's group_send script, verbatim: queue the message on every channel key below its
# capacity (KEYS: channel keys; ARGV: one message per key, one capacity per key, now, expiry).
GROUP_SEND_LUA = """
    local over_capacity = 0
    local current_time = ARGV[#ARGV - 1]
    local expiry = ARGV[#ARGV]
    for i=1,#KEYS do
        if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[i + #KEYS]) then
            redis.call('ZADD', KEYS[i], current_time, ARGV[i])
            redis.call('EXPIRE', KEYS[i], expiry)
        else
            over_capacity = over_capacity + 1
        end
    end
    return over_capacity
"""


# The members of every group of one batched send, in ONE command: each group key first loses the members
# whose membership expired, as channels-redis' group_send does (ZREMRANGEBYSCORE, ZRANGE per group);
# KEYS: group keys; ARGV[1]: the newest expired score (now - group_expiry). Returns one list per key.
GROUP_MEMBERS_LUA = """
    local members = {}
    for i=1,#KEYS do
        redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, ARGV[1])
        members[i] = redis.call('ZRANGE', KEYS[i], 0, -1)
    end
    return members
"""
GROUP_MEMBERS_SHA = hashlib.sha1(GROUP_MEMBERS_LUA.encode()).hexdigest()


def dead_connection_retry() -> Retry:
    """redis-py's retry for the layer's connections: a command (or pipeline) that fails with a
    connection error is sent once more, at once, on a new connection; a timeout is not retried (a
    stalled Redis is bounded by the socket timeouts, not doubled).

    Why: redis-py 8 retries nothing by default (``Retry(NoBackoff(), 0)``), and a pooled connection can
    be dead without the pool noticing: in issue 14's fault run, 2 minutes after a Redis restart, a
    Daphne's after-commit broadcast took such a connection from the pool and failed ("Error UNKNOWN
    while writing to socket. Connection lost."), so the player had the ``ack`` of a committed move and
    no ``state`` until its own ``sync`` 15 s later. With Redis really down the retry is one more refused
    connect (milliseconds)."""
    return Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,))


POOL_MAX_CONNECTIONS = 100
"""Redis connections one Daphne process's channel layer may open (redis-py's own default)."""
POOL_WAIT_S = 10.0
"""Seconds a layer command waits for a free connection when all are busy, before it fails."""
PUMP_RETRY_S = 1.0
"""Seconds between two attempts of a process's receive pump to read Redis while it fails."""
RECEIVE_ERRORS: list[BaseException] = []
"""Every error of a receive pump that was not an outage (a message lost), in this process: the tests fail
on one (``tests/conftest.py``), as on a push that could not be sent."""
SWEEP_S = 10.0
"""Seconds between two sweeps of the buffers of local channels silent for ``expiry`` seconds."""


class BatchingRedisChannelLayer(RedisChannelLayer):
    """``RedisChannelLayer`` with :meth:`group_send_many` (configured in ``config.settings``), whose
    connections retry once on a dead connection (:func:`dead_connection_retry`; a host's own
    ``retry`` in the settings wins), from a pool that waits for a free connection (:meth:`create_pool`)."""

    def create_pool(self, index: int) -> Any:
        """The pool for host ``index``: its connections retry as :func:`dead_connection_retry`, and a
        command that finds all :data:`POOL_MAX_CONNECTIONS` busy waits up to :data:`POOL_WAIT_S` s for one
        (redis-py's ``BlockingConnectionPool``; a host's own ``max_connections`` / ``timeout`` win).

        Why: channels-redis keeps one pool per event loop, so one per Daphne process, and redis-py 8's
        plain pool (at most 100 connections) raises ``MaxConnectionsError: Too many connections`` at
        once for the 101st command in flight. Every command in flight holds a connection until its reply
        is read, and a burst of socket opens or closes (each a ``group_add`` / ``group_discard``) or a
        busy event loop (replies read late) had more than 100 at once: issue 20's 600-800 spectators
        lost 402 group discards and 936 counts so. A burst now queues for a connection instead of
        failing. (Its other cause, two group sends per spectator join or leave, is gone: the count is
        coalesced, ``replays.audience``.) Sentinel hosts keep channels-redis' own pool."""
        host = dict(self.hosts[index])
        host.setdefault("retry", dead_connection_retry())
        if "address" not in host or "master_name" in host:
            return create_pool(host)
        address = host.pop("address")
        host.setdefault("max_connections", POOL_MAX_CONNECTIONS)
        host.setdefault("timeout", POOL_WAIT_S)
        return BlockingConnectionPool.from_url(address, **host)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pump: asyncio.Task[None] | None = None
        self._pump_failing = False
        self._receiving: dict[str, int] = {}
        self._received_at: dict[str, float] = {}
        self._swept_at = time.monotonic()

    # ------------------------------------------------------------------ receiving: one pump per process

    async def receive(self, channel: str) -> dict[str, Any]:
        """The next message of ``channel``.

        A process-local channel (``specific.<process>!...``, a socket's) reads its own buffer, which one
        task per process (:meth:`_pump_run`) fills from the process's Redis key, and
        :meth:`group_send_many` fills directly for a member in this process (:meth:`_local_members`).
        channels-redis instead lets whichever receiver holds a lock pop the process's key: that receiver
        then waits in the blocking pop, blind to its own buffer, so a message put there by this process
        would wait up to the pop's 5 s timeout. Other channels are received as the library does.

        :raises RuntimeError: two event loops receive on this layer at once.
        """
        if "!" not in channel:
            return dict(await super().receive(channel))
        real_channel = self.non_local_name(channel)
        assert real_channel.endswith(self.client_prefix + "!"), "Wrong client prefix"
        self._ensure_pump(real_channel)
        self._receiving[channel] = self._receiving.get(channel, 0) + 1
        buffer = self.receive_buffer[channel]
        try:
            return dict(await buffer.get() if buffer.empty() else buffer.get_nowait())
        finally:
            left = self._receiving.pop(channel, 1) - 1
            if left:
                self._receiving[channel] = left
            else:
                if buffer.empty() and self.receive_buffer.get(channel) is buffer:
                    del self.receive_buffer[channel]  # an asyncio queue binds to the loop that waits on it
            self._received_at[channel] = time.monotonic()

    def _ensure_pump(self, real_channel: str) -> None:
        """Start the pump on the running loop unless it runs there. A pump left on a loop that no longer
        runs (a test's) is replaced; one on another running loop while a channel receives is an error,
        as with channels-redis.

        :raises RuntimeError: two event loops receive on this layer at once."""
        loop = asyncio.get_running_loop()
        pump = self._pump
        if pump is not None and not pump.done():
            if pump.get_loop() is loop:
                return
            if self._receiving and pump.get_loop().is_running():
                raise RuntimeError("Two event loops are trying to receive() on one channel layer at once!")
        if pump is not None and pump.get_loop() is not loop:
            # Queues and locks bound to the old loop (a test's, closed): their sockets are gone with it,
            # and a lock its pump held when the loop stopped would stay locked.
            self.receive_buffer.clear()
            self._receiving.clear()
            self._received_at.clear()
            self.receive_clean_locks = ChannelLock()
            self.receive_cleaners: list[Any] = []
        self._pump = loop.create_task(self._pump_run(real_channel), name="channel-layer-pump")
        self._pump_failing = False

    async def _pump_run(self, real_channel: str) -> None:
        """Move the messages queued on this process's Redis key (``real_channel``) into each named
        channel's buffer, until cancelled. A Redis error is logged once per outage (WARNING) and retried
        after :data:`PUMP_RETRY_S` s: the sockets stay open, and what is sent once Redis is back reaches
        them (a send made while it was down failed at its sender, ``push.send``). Any other error (a
        message that does not unpack) loses that message, logged at ERROR with the traceback."""
        this = asyncio.current_task()
        while True:
            try:
                popped = await self._pop(real_channel)
            except (RedisError, OSError) as error:  # an outage: the pump must outlive it
                if this is not None and this.cancelling():
                    raise asyncio.CancelledError from error  # redis-py made the cancellation an error
                if not self._pump_failing:
                    log.warning("channel layer: cannot receive from Redis (%s); retrying every %s s",
                                error, PUMP_RETRY_S)
                self._pump_failing = True
                await asyncio.sleep(PUMP_RETRY_S)
                continue
            except Exception as error:  # a bug, not an outage: recorded (a test fails on it) and loud
                RECEIVE_ERRORS.append(error)
                log.exception("channel layer: a message of %s could not be received: dropped", real_channel)
                await asyncio.sleep(PUMP_RETRY_S)  # never a busy loop, whatever keeps failing
                continue
            finally:
                # redis-py can swallow a cancellation that lands mid-read and read again (seen: the
                # pump of a test's closing loop never ended): a cancelled pump stops at the next turn.
                if this is not None and this.cancelling():
                    raise asyncio.CancelledError
            if self._pump_failing:
                log.warning("channel layer: receiving from Redis again")
                self._pump_failing = False
            if popped is None:
                continue
            to, message = popped
            now = time.monotonic()
            for name in to if isinstance(to, list) else [to]:
                if self._gone(name, now):
                    continue  # its socket is gone: the message would have expired in Redis
                # A channel that never received yet (a consumer receives from its start; a script may
                # send before it does) is timed from its first message, for the sweep.
                self._received_at.setdefault(name, now)
                self._buffer_put(name, message)

    async def _pop(self, real_channel: str) -> tuple[str | list[str], dict[str, Any]] | None:
        """One message of the process key ``real_channel`` and the channel(s) it names, or None when
        none came within ``brpop_timeout`` (5 s): channels-redis' ``receive_single`` without its loop
        until a message, so that a cancelled pump stops within that time even when redis-py swallowed
        the cancellation. As there, a popped message stays in a backup queue until a cleaner task
        drops it, and no pop starts before the previous one's cleaner ended (the pop first puts the
        backup back: without the lock a message just handled would be put back and handled twice)."""
        index = self.consistent_hash(real_channel)
        key = self.prefix + real_channel
        locks = self.receive_clean_locks  # (replaced with the pump's loop: release the one acquired)
        await locks.acquire(key)
        try:
            content = await self._brpop_with_clean(index, key, timeout=self.brpop_timeout)
        except BaseException:
            locks.release(key)
            raise
        if content is None:
            locks.release(key)
            return None
        cleaner = asyncio.ensure_future(self._clean_receive_backup(index, key))
        self.receive_cleaners.append(cleaner)

        def cleaned(task: asyncio.Future[Any]) -> None:
            with contextlib.suppress(ValueError):  # (the list is replaced with the pump's loop)
                self.receive_cleaners.remove(task)
            locks.release(key)

        cleaner.add_done_callback(cleaned)
        message = self.deserialize(content)
        return message.pop("__asgi_channel__", real_channel), message

    def _buffer_put(self, channel: str, message: dict[str, Any]) -> None:
        """Queue ``message`` in ``channel``'s buffer; a full buffer drops its oldest message, loudly."""
        buffer = self.receive_buffer[channel]
        if buffer.full():
            log.warning("channel %s holds %s unread messages: the oldest is dropped", channel, buffer.qsize())
        buffer.put_nowait(message)

    def _local_members(self, names: list[str]) -> tuple[list[str], list[str]]:
        """``names`` split into ``(local, remote)``: local are this process's channels that received in
        the last ``expiry`` seconds or are receiving now, while the pump's event loop lives (a Daphne's;
        a Celery process has none). A caller on another thread's loop hands the copies to that loop
        (:meth:`_deliver_local`). A local channel whose socket ended less than ``expiry`` s ago gets the
        message in a buffer nobody reads, swept later (:meth:`_sweep`), as the message would have
        expired in Redis."""
        pump = self._pump
        if pump is None or pump.done() or pump.get_loop().is_closed():
            return [], names
        prefix = f"specific.{self.client_prefix}!"
        now = time.monotonic()
        local: list[str] = []
        remote: list[str] = []
        for name in names:
            if name.startswith(prefix) and self._live(name, now):
                local.append(name)
            else:
                remote.append(name)
        return local, remote

    def _live(self, channel: str, now: float) -> bool:
        """Whether a socket reads local ``channel``: a receive is pending on it or ended less than
        ``expiry`` seconds before ``now`` (``time.monotonic()``). A consumer receives from its start,
        before it joins any group, so a channel a message is addressed to has received unless its
        socket is gone."""
        return channel in self._receiving or now - self._received_at.get(channel, -1e18) < self.expiry

    def _gone(self, channel: str, now: float) -> bool:
        """Whether local ``channel`` received, then stopped for ``expiry`` seconds (its socket ended)."""
        at = self._received_at.get(channel)
        return channel not in self._receiving and at is not None and now - at >= self.expiry

    def _sweep(self) -> None:
        """At most once per :data:`SWEEP_S`: forget the local channels silent for ``expiry`` seconds and
        drop their buffers (their sockets are gone; channels-redis kept such a buffer forever). Run on
        the pump's loop, which owns the buffers (handed over from another thread's)."""
        now = time.monotonic()
        if now - self._swept_at < SWEEP_S:
            return
        self._swept_at = now
        pump = self._pump
        loop = pump.get_loop() if pump is not None else None
        if loop is not None and loop is not running_loop() and not loop.is_closed():
            loop.call_soon_threadsafe(self._drop_silent, now)
            return
        self._drop_silent(now)

    def _drop_silent(self, now: float) -> None:
        for name, at in list(self._received_at.items()):
            if name not in self._receiving and now - at >= self.expiry:
                del self._received_at[name]
                self.receive_buffer.pop(name, None)

    async def close_pools(self) -> None:
        """Stop the pump (this loop's connections are closing), then close them."""
        pump, self._pump = self._pump, None
        if pump is not None and pump.get_loop() is running_loop():
            # redis-py at times swallows a cancellation that lands mid-read and reads again: ask until
            # the pump has stopped.
            while not pump.done():
                pump.cancel()
                await asyncio.wait([pump], timeout=0.05)
        await super().close_pools()

    # ------------------------------------------------------------------ sending

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """``group_send_many([(group, message)])``: a member in this process gets it without Redis."""
        await self.group_send_many([(group, message)])

    async def group_send_many(self, messages: Messages) -> None:
        """``group_send`` each ``(group, message)`` of ``messages``, in order: each group's members read
        in one Redis round trip (:meth:`_group_members`), then each member in this process (a socket of
        this Daphne) given its copy at once (:meth:`_local_members`; one msgpack round trip per message,
        as a Redis delivery makes, shared by the process's members as channels-redis shares it), and the
        other members' copies queued in one more round trip (with one Redis host; with several, the library's
        ``group_send`` for them).

        Each group's members are read before any message is queued (a socket joining a group during
        the call may miss that group's message, as it may with ``group_send``).

        :raises TypeError: a group name is not valid (nothing is sent).
        """
        for group, _ in messages:
            self.require_valid_group_name(group)
        self._sweep()
        if self.ring_size != 1:
            for group, message in messages:
                await self._send_to_members(group, message)
            return
        connection = self.connection(0)
        members = await self._group_members(connection, [self._group_key(group) for group, _ in messages])

        sends = connection.pipeline(transaction=False)
        sent: list[tuple[str, int]] = []
        for (group, message), names in zip(messages, members, strict=True):
            if not names:
                continue
            local, channel_names = self._local_members([name.decode("utf8") for name in names])
            self._deliver_local(local, message)
            if not channel_names:
                continue
            _, key_to_message, key_to_capacity = self._map_channel_keys_to_connection(channel_names, message)
            keys = list(key_to_message)
            for key in keys:
                sends.zremrangebyscore(key, min=0, max=int(time.time()) - int(self.expiry))
            args = [key_to_message[key] for key in keys] + [key_to_capacity[key] for key in keys]
            sends.eval(GROUP_SEND_LUA, len(keys), *keys, *args, time.time(), self.expiry)
            sent.append((group, len(keys)))
        if not sent:
            return
        results = await sends.execute()
        position = 0
        for group, count in sent:
            position += count
            over_capacity = results[position]
            position += 1
            if over_capacity > 0:  # a message lost: loud (it was INFO, and hid issue 9's frozen tables)
                log.warning("%s of %s channels over capacity in group %s: message dropped", over_capacity,
                            count, group)

    async def _group_members(self, connection: Any, keys: list[str]) -> list[list[bytes]]:
        """The members of each group key of ``keys`` (expired ones removed first): one EVALSHA of
        :data:`GROUP_MEMBERS_LUA`, or EVAL (which caches it) when Redis does not hold the script yet
        (a new or restarted Redis, a ``SCRIPT FLUSH``).

        Why one script: the pipeline it replaces packed and parsed two commands per group (four per
        move), half the CPU of the batched send with a local member (cProfile, issue 23)."""
        expired = int(time.time()) - self.group_expiry
        try:
            members = await connection.evalsha(GROUP_MEMBERS_SHA, len(keys), *keys, expired)
        except NoScriptError:
            members = await connection.eval(GROUP_MEMBERS_LUA, len(keys), *keys, expired)
        return list(members)

    def _deliver_local(self, channels: list[str], message: dict[str, Any]) -> None:
        """Put one copy of ``message`` (a msgpack round trip through the layer's serializer, what a
        Redis delivery gives: tuples become lists) in each of ``channels``' buffers."""
        if not channels:
            return
        copy_ = self.deserialize(self.serialize(message))
        pump = self._pump
        loop = pump.get_loop() if pump is not None else None
        if loop is None or loop is running_loop():
            for name in channels:
                self._buffer_put(name, copy_)
            return
        # From another thread's loop (``push.send`` sends on its own loop thread): the buffers are the
        # pump loop's, so the puts run there, in the order they are made.
        loop.call_soon_threadsafe(self._buffer_put_many, channels, copy_)

    def _buffer_put_many(self, channels: list[str], message: dict[str, Any]) -> None:
        for name in channels:
            self._buffer_put(name, message)

    async def _send_to_members(self, group: str, message: dict[str, Any]) -> None:
        """With several Redis hosts: the library's ``group_send`` to the members outside this process,
        and the local ones given theirs directly."""
        key = self._group_key(group)
        connection = self.connection(self.consistent_hash(group))
        await connection.zremrangebyscore(key, min=0, max=int(time.time()) - self.group_expiry)
        local, remote = self._local_members([x.decode("utf8") for x in await connection.zrange(key, 0, -1)])
        self._deliver_local(local, message)
        if not remote:
            return
        connections, key_to_message, key_to_capacity = self._map_channel_keys_to_connection(remote, message)
        for index, keys in connections.items():
            pipe = self.connection(index).pipeline(transaction=False)
            for channel_key in keys:
                pipe.zremrangebyscore(channel_key, min=0, max=int(time.time()) - int(self.expiry))
            args = [key_to_message[k] for k in keys] + [key_to_capacity[k] for k in keys]
            pipe.eval(GROUP_SEND_LUA, len(keys), *keys, *args, time.time(), self.expiry)
            over_capacity = (await pipe.execute())[-1]
            if over_capacity > 0:
                log.warning("%s of %s channels over capacity in group %s: message dropped", over_capacity,
                            len(keys), group)


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, or None (a plain thread: a Celery worker, a pool thread)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


async def group_send_many(layer: Any, messages: Messages) -> None:
    """Send ``messages`` on ``layer``: batched by a :class:`BatchingRedisChannelLayer`, one
    ``group_send`` after the other on any other layer (the in-memory one)."""
    batch = getattr(layer, "group_send_many", None)
    if batch is not None:
        await batch(messages)
        return
    for group, message in messages:
        await layer.group_send(group, message)


def _packed(message: dict[str, Any]) -> bytes | None:
    """``message`` as the Redis layer's serializer packs it (msgpack, its defaults), or None when msgpack
    cannot (then it is deep-copied, as channels' in-memory layer does)."""
    try:
        return bytes(msgpack.packb(message))
    except Exception:
        return None


def _copy(message: dict[str, Any], packed: bytes | None) -> Any:
    """A receiver's own copy of ``message``: unpacked from ``packed`` (what a consumer gets from Redis:
    tuples become lists), else a ``deepcopy``."""
    if packed is not None:
        try:
            return msgpack.unpackb(packed)
        except Exception:  # e.g. an int map key, which msgpack's strict_map_key refuses
            pass
    return copy.deepcopy(message)


class PackingInMemoryChannelLayer(InMemoryChannelLayer):
    """channels' ``InMemoryChannelLayer`` (the embedded profile's, configured in ``config.settings``)
    with two costs cut, and the same deliveries:

    - each receiver's copy of a message is a msgpack round trip (the bytes packed once per
      ``group_send``), as the Redis layer carries it, instead of a ``deepcopy`` (76 us for a hand-1
      ``state``, 21 us packed and unpacked); a message msgpack cannot carry is deep-copied as before;
    - the sweep of expired messages and group memberships, which walks every channel and every group,
      runs at most once per :attr:`CLEAN_INTERVAL` seconds instead of on every send and receive (its
      cost grew with the number of sockets: O(sockets) per message). A message or membership expires at
      most that much later than ``expiry`` (60 s) or ``group_expiry`` (1 day) say.

    ``group_send`` queues on the group's channels one after the other in their join order, skipping a
    full one, as the library's tasks did (without a task per channel)."""

    CLEAN_INTERVAL = 1.0
    _cleaned_at = float("-inf")

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        """Queue ``message`` on ``channel``.

        :raises ChannelFull: the channel holds ``capacity`` messages."""
        assert isinstance(message, dict), "message is not a dict"
        self._put(channel, message, _packed(message))

    def _put(self, channel: str, message: dict[str, Any], packed: bytes | None) -> None:
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        queue = self.channels.setdefault(channel, asyncio.Queue(maxsize=self.get_capacity(channel)))
        try:
            queue.put_nowait((time.time() + self.expiry, _copy(message, packed)))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """Queue ``message`` on every channel of ``group`` (a full channel misses it)."""
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        members = self.groups.get(group)
        if not members:
            return
        packed = _packed(message)
        for channel in list(members):
            with contextlib.suppress(ChannelFull):
                self._put(channel, message, packed)

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned_at < self.CLEAN_INTERVAL:
            return
        self._cleaned_at = now
        super()._clean_expired()  # type: ignore[misc]  # private to channels: not in its stubs
