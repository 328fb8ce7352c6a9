"""The home page's WebSocket (``ws/home/``): the live numbers of the front page (docs/protocol.md "Home
socket").

Open to everyone (anonymous visitors too). On connect the socket takes a seat of its client IP
(``home.live.admit``): past ``HOME_SOCKETS_PER_IP`` it gets ``error`` ``home_ip_limit`` and close
4429. Then one ``home`` message with the numbers now (``home.numbers.live_numbers``), and another each time
the site-wide ticker finds them changed (``home.live.tick``: at most one per ``HOME_INTERVAL``).
Read-only: ``sync`` resends the numbers, ``ping`` gets ``pong``; anything else is refused with the
protocol's codes (``bad_json``, ``not_an_object``, ``unknown_type``, ``frame_too_large``,
``rate_limited``; a flood closes with 4429), as the spectators' socket does.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from asgiref.sync import sync_to_async

from games import conf, ratelimit
from home import live
from push.groups import HOME_GROUP
from replays import audience
from web import close_codes, frames
from web.close_codes import IP_LIMIT_CLOSE_CODE
from web.frame_reader import Refusal, error_frame, read_object
from web.socket_end import EndsCleanly
from web.unavailable import RefusesWhenUnavailable


def _in_thread(fn: Any) -> Any:
    """``fn`` (a cache call, no database) in a worker thread off asgiref's single database thread."""
    return sync_to_async(fn, thread_sensitive=False)


class HomeConsumer(EndsCleanly, RefusesWhenUnavailable):
    """One home page's socket (module docstring)."""

    seat: audience.Seat | None = None
    reading = False
    counted = False

    async def connect(self) -> None:
        await self.accept()
        client = self.scope.get("client") or ("unknown", 0)
        seat = await _in_thread(live.admit)(ip=str(client[0]), member=self.channel_name)
        if seat is None:
            cap = live.per_ip()
            await self._send(error_frame("home_ip_limit", f"at most {cap} home page connections per address: "
                                    "close another tab of the home page", limit=cap))
            await self.close(code=IP_LIMIT_CLOSE_CODE)
            return
        self.seat = seat
        self.spawn(self._keep_seat())
        await self.channel_layer.group_add(HOME_GROUP, self.channel_name)
        live.socket_opened()
        self.counted = True
        self._limiter = ratelimit.MessageLimiter(time.monotonic())
        self.reading = True
        await self._send_current()

    async def _keep_seat(self) -> None:
        while self.seat is not None:
            await asyncio.sleep(audience.SEAT_REFRESH)
            await self.step("home seat refresh", _in_thread(live.refresh)(self.seat))

    async def _send_current(self) -> None:
        await self._send({"type": "home", **await live.current()})

    async def home_update(self, event: dict[str, Any]) -> None:
        """The ticker's coalesced numbers (``home.live.tick``)."""
        if self.reading:
            await self._send({"type": "home", **event["numbers"]})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.reading:
            return
        verdict = self._limiter.admit(time.monotonic())
        if verdict != "ok":
            await self._send(error_frame("rate_limited", "too many messages; this one was ignored"))
            if verdict == "flood":
                await self.close(code=close_codes.FLOOD_CLOSE_CODE)
                await self.end()
            return
        message = read_object(text_data, bytes_data, max_bytes=conf.MAX_FRAME_BYTES)
        if isinstance(message, Refusal):
            await self._send(error_frame(message.code, message.message))
            return
        kind = message.get("type")
        if kind == "ping":
            msg_id = message.get("id")
            await self._send({"type": "pong", "id": msg_id if isinstance(msg_id, str) else None})
        elif kind == "sync":
            await self._send_current()
        else:
            await self._send(error_frame("unknown_type", "this socket takes sync or ping"))

    async def disconnect(self, code: int) -> None:
        await self.end()

    async def release(self) -> None:
        self.reading = False
        if self.counted:
            self.counted = False
            live.socket_closed()
        seat, self.seat = self.seat, None
        if seat is None:
            return
        await self.step("group discard", self.channel_layer.group_discard(HOME_GROUP, self.channel_name))
        await self.step("home seat release", _in_thread(live.release)(seat))

    async def _send(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=frames.dumps(payload))
