"""The lobby's WebSocket, ``ws/lobby/`` (docs/protocol.md "Lobby socket"), and the base it shares with
the notices socket (:class:`MemberSocket`).

On connect (a member or a guest; anonymous: ``not_authenticated``, close 4401): a ``seeks`` message, the
open challenges as this user sees them (``lobby.seeks.seek_rows``), and a new one after every change
(coalesced: the changes within :data:`COALESCE_SECONDS` of the first give one read and one message).
Frames: ``ping`` (``pong``), ``sync`` (``seeks`` again), ``accept`` ``{"seek": id}`` (``go`` with the
table's URL, or an ``error``), ``cancel`` ``{"seek": id}`` (the list follows). When the user's seek is
accepted: ``go`` ``{"url"}``. Any malformed frame: ``error`` ``bad_frame`` (nothing changes).

Limits (``games.ratelimit``): each socket's frames share the table's token bucket (``rate_limited``; a
flood closes with 4429); at most ``ratelimit.SOCKETS_PER_USER_PER_MATCH`` lobby sockets per account (and
as many notices sockets), counted in the shared cache under the pseudo match ids :data:`LOBBY_SLOTS` /
``notice_consumers.NOTICE_SLOTS`` (``too_many_sockets``, close 4409). Anonymous visitors get the page
without a socket, so the per-account cap covers every socket (guest accounts are rate limited per IP).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from games import conf, ratelimit
from games.services import GameError
from lobby import challenge_sweep, seeks
from lobby.errors import said, said_params, text
from push.groups import LOBBY_GROUP, lobby_user_group, sessions_group
from web import close_codes, strict_json
from web.close_codes import NOT_AUTHENTICATED_CLOSE_CODE, SESSION_ENDED_CLOSE_CODE
from web.socket_end import EndsCleanly
from web.unavailable import RefusesWhenUnavailable

log = logging.getLogger(__name__)

LOBBY_SLOTS = -1
"""Pseudo match id of the lobby sockets' slots in ``games.ratelimit`` (no match has a negative id)."""
COALESCE_SECONDS = 0.25
"""Changes of the list within this long of the first are sent as one ``seeks`` message."""


def _in_thread(fn: Any) -> Any:
    """``fn`` (a cache call, no database) in a worker thread."""
    return sync_to_async(fn, thread_sensitive=False)


def socket_language(scope: Mapping[str, Any]) -> str:
    """The reader's language for a socket: the language cookie (the site's switcher sets it), else the
    default, as ``LocaleMiddleware`` picks it for pages."""
    cookies = scope.get("cookies") or {}
    code = cookies.get(settings.LANGUAGE_COOKIE_NAME, "")
    supported = {lang for lang, _ in settings.LANGUAGES}
    return code if code in supported else settings.LANGUAGE_CODE


class MemberSocket(EndsCleanly, RefusesWhenUnavailable):
    """A socket of a signed-in person (member or guest) with a slot per account and the table's frame
    limits; JSON objects with a ``type`` in :attr:`kinds` go to :meth:`on_frame`."""

    slots: int = LOBBY_SLOTS
    kinds: tuple[str, ...] = ("ping", "sync")
    reading = False
    _slot: int | None = None
    user: Any = None
    lang = "en"

    async def connect(self) -> None:
        self.lang = socket_language(self.scope)
        await self.accept()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or getattr(user, "is_bot", False):
            await self.refuse("not_authenticated", NOT_AUTHENTICATED_CLOSE_CODE)
            return
        self.user = user
        slot = await _in_thread(ratelimit.socket_slot_acquire)(match_id=self.slots, user_id=user.pk,
                                                               owner=self.channel_name)
        if slot is None:
            await self.refuse("too_many_sockets", close_codes.TOO_MANY_SOCKETS_CLOSE_CODE,
                              limit=ratelimit.SOCKETS_PER_USER_PER_MATCH)
            return
        self._slot = slot
        self.spawn(self._keep_slot())
        self._limiter = ratelimit.MessageLimiter(time.monotonic())
        # Logging out (or a password change) closes this socket too, as it closes the tables' (4001).
        await self.channel_layer.group_add(sessions_group(user.pk), self.channel_name)
        await self.opened()
        self.reading = True
        challenge_sweep.socket_opened()

    async def opened(self) -> None:
        """Join the groups and send the first message (override)."""

    async def closed(self) -> None:
        """Leave the groups (override; each part through :meth:`step`)."""

    async def on_frame(self, kind: str, message: dict[str, Any]) -> None:
        """A well-formed frame of a kind of :attr:`kinds` but ``ping`` (override)."""

    async def _keep_slot(self) -> None:
        while True:
            await asyncio.sleep(ratelimit.SLOT_REFRESH)
            await self.step("slot refresh", _in_thread(ratelimit.socket_slot_refresh)(
                match_id=self.slots, user_id=self.user.pk, slot=self._slot, owner=self.channel_name))

    def in_language(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` in a database thread, with this socket's language active (refusal messages)."""
        lang = self.lang

        def run(*args: Any, **kwargs: Any) -> Any:
            with translation.override(lang):
                return fn(*args, **kwargs)

        return database_sync_to_async(run)

    def error(self, code: str, **params: Any) -> dict[str, Any]:
        """An ``error`` message: ``{"type": "error", "code", "message"}`` (the message in the reader's
        language; ``params`` are also sent)."""
        with translation.override(self.lang):
            return {"type": "error", "code": code, "message": text(code, **params), **params}

    def error_from(self, exc: GameError) -> dict[str, Any]:
        """The ``error`` message of a service's refusal: its code, and its message in the reader's
        language (``lobby.errors.said``) with the refusal's parameters."""
        with translation.override(self.lang):
            return {"type": "error", "code": exc.code, "message": said(exc), **said_params(exc)}

    async def refuse(self, code: str, close_code: int, **params: Any) -> None:
        await self.send_json(self.error(code, **params))
        await self.close(code=close_code)

    async def bad_frame(self, detail: str) -> None:
        await self.send_json(self.error("bad_frame", detail=detail))

    async def send_json(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.reading:
            return
        verdict = self._limiter.admit(time.monotonic())
        if verdict != "ok":
            await self.send_json(self.error("rate_limited"))
            if verdict == "flood":
                self.reading = False
                await self.close(code=close_codes.FLOOD_CLOSE_CODE)
            return
        if text_data is None:
            await self.bad_frame("send JSON text frames")
            return
        if len(text_data) > conf.MAX_FRAME_BYTES:
            await self.bad_frame(f"frames are limited to {conf.MAX_FRAME_BYTES} bytes")
            return
        try:
            message = strict_json.loads(text_data)
        except strict_json.StrictJSONError as exc:
            await self.bad_frame(f"not valid JSON: {exc}")
            return
        except (ValueError, RecursionError):
            await self.bad_frame("not valid JSON")
            return
        if not isinstance(message, dict):
            await self.bad_frame("a message must be a JSON object")
            return
        kind = message.get("type")
        if kind not in self.kinds:
            await self.bad_frame(f"unknown type; this socket takes {', '.join(self.kinds)}")
        elif kind == "ping":
            msg_id = message.get("id")
            await self.send_json({"type": "pong", "id": msg_id if isinstance(msg_id, str) else None})
        else:
            await self.on_frame(str(kind), message)

    async def id_field(self, message: dict[str, Any], name: str) -> int | None:
        """The positive int ``message[name]``, or None after a ``bad_frame``."""
        value = message.get(name)
        if type(value) is not int or not 0 < value < 2**63:
            await self.bad_frame(f"{name!r} must be a positive integer")
            return None
        return value

    async def disconnect(self, code: int) -> None:
        await self.end()

    async def release(self) -> None:
        self.reading = False
        if self._slot is None:
            return
        await self.step("slot release", _in_thread(ratelimit.socket_slot_release)(
            match_id=self.slots, user_id=self.user.pk, slot=self._slot, owner=self.channel_name))
        await self.step("group discard", self.channel_layer.group_discard(
            sessions_group(self.user.pk), self.channel_name))
        await self.closed()

    async def user_session_ended(self, event: dict[str, Any]) -> None:
        """Group message of ``games.user_sockets``: the user logged out or changed their password: close
        with ``SESSION_ENDED_CLOSE_CODE`` (the page's reconnect then finds no session: 4401)."""
        self.reading = False
        await self.close(code=SESSION_ENDED_CLOSE_CODE)


class LobbyConsumer(MemberSocket):
    """``ws/lobby/``: the live list of open challenges (module docstring)."""

    kinds = ("ping", "sync", "accept", "cancel")
    _pending: asyncio.Task[None] | None = None

    async def opened(self) -> None:
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.channel_layer.group_add(lobby_user_group(self.user.pk), self.channel_name)
        self.spawn(self._stay_seen())
        await self.send_seeks()
        match_id = await self.in_language(seeks.recently_accepted_match_id)(user=self.user)
        if match_id is not None:  # accepted while this page was away: its "go" may have been missed
            await self.send_json({"type": "go", "url": reverse("games:table", args=[match_id])})

    async def _stay_seen(self) -> None:
        """Stamp this user present on the lobby page while the socket is open (``challenge_sweep.seen``)."""
        while True:
            await self.step("presence", _in_thread(challenge_sweep.seen)(self.user.pk))
            await asyncio.sleep(challenge_sweep.seen_refresh_seconds())

    async def closed(self) -> None:
        # The last stamp: the leave time counts from now, not from the last refresh.
        await self.step("presence", _in_thread(challenge_sweep.seen)(self.user.pk))
        for group in (LOBBY_GROUP, lobby_user_group(self.user.pk)):
            await self.step("group discard", self.channel_layer.group_discard(group, self.channel_name))

    async def send_seeks(self) -> None:
        rows = await self.in_language(seeks.seek_rows)(viewer=self.user)
        await self.send_json({"type": "seeks", "seeks": rows})

    async def on_frame(self, kind: str, message: dict[str, Any]) -> None:
        if kind == "sync":
            await self.send_seeks()
            return
        seek_id = await self.id_field(message, "seek")
        if seek_id is None:
            return
        try:
            if kind == "accept":
                match = await self.in_language(seeks.seek_accept)(user=self.user, seek_id=seek_id)
                await self.send_json({"type": "go", "url": reverse("games:table", args=[match.pk])})
            else:
                await self.in_language(seeks.seek_cancel)(user=self.user, seek_id=seek_id)
        except GameError as exc:
            await self.send_json({**self.error_from(exc), "seek": seek_id})

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        """Group message: the open seeks changed. Coalesced (:data:`COALESCE_SECONDS`)."""
        if self._pending is None or self._pending.done():
            self._pending = self.spawn(self._send_later())

    async def _send_later(self) -> None:
        await asyncio.sleep(COALESCE_SECONDS)
        self._pending = None
        await self.send_seeks()

    async def lobby_go(self, event: dict[str, Any]) -> None:
        """Group message: this user's seek was accepted; their table is at ``url``."""
        await self.send_json({"type": "go", "url": str(event.get("url", ""))})
