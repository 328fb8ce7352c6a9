"""Every way a WebSocket consumer ends runs its clean-up (issue 14, docs/faults.md "redis_restart").

Channels calls a consumer's ``disconnect`` only when the client's ``websocket.disconnect`` reaches it.
When the consumer dies instead (its channel layer's Redis went away, a handler raised, the server shut
down and cancelled it), ``disconnect`` never ran: the table's slot-refresh task went on refreshing its
socket slot forever ("ghost" slots: the player's next sockets were refused ``too_many_sockets``, 4409).
:class:`EndsCleanly` wraps the consumer's whole lifetime (``__call__``) in ``try``/``finally``:

- background tasks started with :meth:`EndsCleanly.spawn` are cancelled, whatever ended the consumer;
- :meth:`EndsCleanly.end` (the consumer's own release: slots, groups, counts) runs once, from
  ``disconnect`` or else from the ``finally``, each step best-effort and bounded by
  :data:`END_TIMEOUT` seconds; a failing step is one WARNING line (:meth:`EndsCleanly.step`);
- a frame sent after the client left is skipped (:meth:`EndsCleanly.client_gone`): a group message can
  be dispatched after the client's close frame and before its ``websocket.disconnect`` (autobahn's
  protocol is then ``CLOSING`` and raises ``Disconnected`` "Attempt to send on a closed protocol"), or
  after the server's own close; issue 20 found 115 such ERROR tracebacks from departed spectators;
- an outage (:func:`outage`: Redis or the database unreachable) that ends the consumer is one WARNING
  line of this module, without a traceback, and the socket is closed with 4503 ("try again later",
  ``web.unavailable``) instead of Daphne's ERROR "Exception inside application" and close 1011. Any
  other exception propagates with its traceback: those are bugs to see.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Coroutine
from typing import Any

from autobahn.exception import Disconnected
from channels.generic.websocket import AsyncWebsocketConsumer

from web.close_codes import UNAVAILABLE_CLOSE_CODE
from web.unavailable import database_unavailable, describe

log = logging.getLogger(__name__)

END_TIMEOUT = 3.0
"""Seconds one clean-up step may take (a release against a Redis that is down must not hang)."""


def outage(exc: BaseException) -> bool:
    """Whether ``exc`` means a backing service cannot be reached now: the database
    (``web.unavailable.database_unavailable``) or Redis (redis-py's ``ConnectionError`` / ``TimeoutError``,
    or the OS's ``ConnectionError``, e.g. a reset socket), as opposed to a bug."""
    if database_unavailable(exc):
        return True
    try:
        import redis.exceptions
    except ImportError:  # pragma: no cover  (redis is a dependency of every profile)
        return isinstance(exc, ConnectionError)
    return isinstance(exc, (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, ConnectionError))


class EndsCleanly(AsyncWebsocketConsumer):
    """Base of a consumer with background tasks or things to release (module docstring). Subclasses
    start their tasks with :meth:`spawn`, release in :meth:`end` (idempotent: it runs once) and
    call it from ``disconnect``."""

    _ended = False
    _background: set[asyncio.Task[Any]] | None = None
    _quiet = False  # a step failed already, or an outage ended the socket: its line says enough
    _gone = False  # the client left, or this socket was closed: frames are no longer sent
    skipped_frames = 0  # frames not sent because the client had left (tests, the DEBUG line)

    @property
    def client_gone(self) -> bool:
        """Whether frames are skipped now: this socket sent its close, or Daphne said its client left
        (a send raised autobahn's ``Disconnected``; its ``websocket.disconnect`` follows)."""
        return self._gone

    def _guarded_send(self, send: Any) -> Any:
        """``send`` (the server's ASGI send) that skips ``websocket.send`` / ``websocket.close`` once the
        client is gone (:attr:`client_gone`), at DEBUG: a departed reader is normal, not an error."""

        async def guarded(message: dict[str, Any]) -> None:
            kind = message.get("type")
            if self._gone and kind in ("websocket.send", "websocket.close"):
                self.skipped_frames += kind == "websocket.send"
                return
            try:
                await send(message)
            except Disconnected:  # Daphne: the client's close frame came, its disconnect is on its way
                self._gone = True
                self.skipped_frames += kind == "websocket.send"
                log.debug("socket %s: %s skipped: the client left", self.scope.get("path", ""), kind)
                return
            if kind == "websocket.close":
                self._gone = True

        return guarded

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Start ``coro`` as a task that ends with this consumer, whatever ends it."""
        task = asyncio.create_task(coro)
        if self._background is None:
            self._background = set()
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def cancel_background(self) -> None:
        """Cancel the background tasks (not the calling one) and wait for them (at most
        :data:`END_TIMEOUT` s)."""
        tasks = [task for task in (self._background or ()) if task is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=END_TIMEOUT)

    def live_tasks(self) -> list[asyncio.Task[Any]]:
        """The background tasks still running (tests; empty once the consumer ended)."""
        return [task for task in (self._background or ()) if not task.done()]

    async def release(self) -> None:
        """The consumer's own clean-up (override); call :meth:`step` for each part."""

    async def end(self) -> None:
        """Cancel the background tasks and run :meth:`release`, once."""
        if self._ended:
            return
        self._ended = True
        await self.cancel_background()
        await self.release()

    async def step(self, what: str, awaitable: Awaitable[Any]) -> bool:
        """Await one clean-up step (at most :data:`END_TIMEOUT` s): True when it ran, else False and one
        WARNING line for the socket's first failed step (e.g. Redis is down: the slot key then expires on
        its own, its refresh having stopped); the next ones, and every one after an outage ended the
        socket (its own line says it), at DEBUG: an outage is one line per socket, not one per step."""
        try:
            await asyncio.wait_for(awaitable, END_TIMEOUT)
        except Exception as exc:
            name = "timed out" if isinstance(exc, asyncio.TimeoutError) else describe(exc)
            level = logging.DEBUG if self._quiet else logging.WARNING
            self._quiet = True
            log.log(level, "socket %s: %s failed: %s", self.scope.get("path", ""), what, name,
                    extra={"request_id": self.scope.get("request_id")})
            return False
        return True

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        ended_by: BaseException | None = None
        try:
            await super().__call__(scope, receive, self._guarded_send(send))
        except Exception as exc:
            if not outage(exc):
                raise
            ended_by = exc
            self._quiet = True
        finally:
            if not self._ended:
                try:
                    await self.end()  # released before the close: a reconnect finds its slot free
                except Exception as exc:  # end's steps log their own failures; this is a bug's
                    log.warning("socket %s: clean-up failed: %s", scope.get("path", ""), describe(exc))
        if ended_by is not None:
            log.warning("socket %s: ended by an outage (%s): close %d", scope.get("path", ""),
                        describe(ended_by), UNAVAILABLE_CLOSE_CODE,
                        extra={"request_id": scope.get("request_id")})
            with contextlib.suppress(Exception):  # the client is gone already: nothing to tell
                await send({"type": "websocket.close", "code": UNAVAILABLE_CLOSE_CODE})
