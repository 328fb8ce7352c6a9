"""The pool socket (``ws/pool/<slug>/``, ``?bot=1`` for the house-bot fallback): connecting joins the
pool, the socket then waits for a pairing (docs/protocol.md "Pool socket").

Server frames: ``waiting`` (every second: seconds waited, players waiting in the pool), ``paired`` (go to
the match; the socket then closes with 1000), ``left`` (the wait ended without a match; closes with
1000), ``error`` (a refusal in the reader's language, ``lobby.errors.text``; on connect it is followed by
a 44xx close). Client frame: ``{"type": "cancel"}``; anything else is ``bad_frame``.

Limits reuse the table's (``games.ratelimit``): the per-connection message bucket (``pool_rate_limited``,
a flood closes with 4429), and socket slots in the shared cache: ``LOBBY_POOL_SOCKETS_PER_USER`` per
account (default 5) and ``LOBBY_POOL_SOCKETS_PER_IP`` per client address (default 50).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Mapping
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation.trans_real import parse_accept_lang_header

from games import conf, ratelimit
from games.db import NoConnectionSweepPerMessage, db_call
from games.services import GameError
from lobby import pools, waves
from lobby.errors import text
from lobby.models import PoolEntry
from push.groups import entry_group, pool_group
from web import close_codes, strict_json
from web.log_context import bind_socket
from web.socket_end import EndsCleanly
from web.unavailable import RefusesWhenUnavailable

log = logging.getLogger(__name__)

CLOSE_CODES: dict[str, int] = {
    "bad_frame": 4400,
    "not_authenticated": 4401,
    "guest_rated": 4403,
    "playban": 4403,
    "account_marked": 4403,
    "bots_pool_only": 4403,
    "people_only": 4403,
    "bot_api_only": 4403,
    "no_such_pool": 4404,
    "match_in_progress": 4409,
    "already_waiting": 4409,
    "already_seeking": 4409,
    "pool_sockets": close_codes.TOO_MANY_SOCKETS_CLOSE_CODE,
    "pool_ip_limit": close_codes.FLOOD_CLOSE_CODE,
}
"""Close code after each refusal on connect (docs/protocol.md "Pool socket"); 4xxx mirror HTTP's codes."""
DEFAULT_PER_USER = 5
DEFAULT_PER_IP = 50
TICK_SECONDS = 1.0
"""Seconds between two ``waiting`` frames."""


def per_user() -> int:
    return int(getattr(settings, "LOBBY_POOL_SOCKETS_PER_USER", DEFAULT_PER_USER))


def per_ip() -> int:
    return int(getattr(settings, "LOBBY_POOL_SOCKETS_PER_IP", DEFAULT_PER_IP))


def reader_language(scope: Mapping[str, Any]) -> str:
    """The reader's language for a socket: the language cookie, else the handshake's
    ``Accept-Language``, else ``LANGUAGE_CODE`` (as Django's ``LocaleMiddleware`` picks it for pages)."""
    headers = {key.decode("latin-1").lower(): value.decode("latin-1")
               for key, value in scope.get("headers", [])}
    candidates: list[str] = []
    for part in headers.get("cookie", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == settings.LANGUAGE_COOKIE_NAME and value:
            candidates.append(value)
    candidates += [lang for lang, _ in parse_accept_lang_header(headers.get("accept-language", ""))]
    for candidate in candidates:
        try:
            return translation.get_supported_language_variant(candidate)
        except LookupError:
            continue
    return str(settings.LANGUAGE_CODE)


def _in_thread(fn: Any) -> Any:
    """``fn`` (a cache call, no database) in a worker thread."""
    return sync_to_async(fn, thread_sensitive=False)


def _refusal_extra(error: GameError) -> dict[str, Any]:
    """The fields a refusal's ``error`` frame carries beside its message: ``playban``
    (``{"reason", "left", "minutes"}``), ``pool`` (the slug of the pool an ``already_waiting`` player
    waits in)."""
    params = getattr(error, "params", {})
    if error.code == "playban":
        return {"playban": {"reason": params["why"], "left": params["left"], "minutes": params["minutes"]}}
    if error.code == "already_waiting":
        return {"pool": params["pool_slug"]}
    return {}


class PoolConsumer(NoConnectionSweepPerMessage, EndsCleanly, RefusesWhenUnavailable):
    """One socket waiting in one pool (module docstring)."""

    slug: str = ""
    user: Any = None
    entry_id: int | None = None
    pool_id: int | None = None
    joined_at: Any = None
    waiting: int = 0
    done = False  # paired, left or refused: nothing more to send, nothing to record on disconnect
    language: str = "en"
    _flooded = False  # closed for flooding: its frames are no longer read
    _slots: list[tuple[str, str | int, int]]

    async def connect(self) -> None:
        bind_socket(self.scope, None)
        self._slots = []
        self.slug = str(self.scope["url_route"]["kwargs"]["slug"])
        self.language = reader_language(self.scope)
        self.user = self.scope.get("user")
        await self.accept()
        bot = self._bot_query()
        if bot is None:
            await self.refuse("bad_frame", detail="the query string takes only bot=0 or bot=1")
            return
        if self.user is None or not self.user.is_authenticated:
            await self.refuse("not_authenticated")
            return
        client = self.scope.get("client") or ("unknown", 0)
        if not await self._take_slot("pool-ip", str(client[0]), per_ip()):
            await self.refuse("pool_ip_limit", limit=per_ip())
            return
        if not await self._take_slot("pool", self.user.pk, per_user()):
            await self.refuse("pool_sockets", limit=per_user())
            return
        try:
            joined = await db_call(pools.pool_join)(user=self.user, slug=self.slug, bot_fallback=bot)
        except GameError as exc:
            await self.refuse(exc.code, extra=_refusal_extra(exc), **getattr(exc, "params", {}))
            return
        entry = joined.entry
        self.entry_id, self.pool_id, self.joined_at = entry.pk, entry.pool_id, entry.joined_at
        if joined.paired:
            await self._send(await db_call(self._paired_frame)(entry))
            await self._finish()
            return
        self._limiter = ratelimit.MessageLimiter(time.monotonic())
        await self.channel_layer.group_add(entry_group(entry.pk), self.channel_name)
        await self.channel_layer.group_add(pool_group(entry.pool_id), self.channel_name)
        if not waves.ensure_running() and not joined.resumed:
            waves.wake()  # someone may be waiting for this player: pair now, not at the period's end
        self.waiting = await db_call(pools.waiting_count)(entry.pool_id)
        await self._send_waiting()
        self.spawn(self._tick())
        self.spawn(self._heartbeat())

    def _bot_query(self) -> bool | None:
        """``?bot=1`` True, ``bot=0`` or nothing False; any other query string None (refused)."""
        try:
            raw = self.scope.get("query_string", b"").decode("ascii")
        except UnicodeDecodeError:
            return None
        query = QueryDict(raw)
        if set(query) - {"bot"} or len(query.getlist("bot")) > 1 or query.get("bot", "0") not in ("0", "1"):
            return None
        return query.get("bot") == "1"

    async def _take_slot(self, namespace: str, key: str | int, cap: int) -> bool:
        slot = await _in_thread(ratelimit.socket_slot_acquire)(match_id=namespace, user_id=key,
                                                               owner=self.channel_name, cap=cap,
                                                               first=secrets.randbelow(cap))
        if slot is None:
            return False
        self._slots.append((namespace, key, slot))
        return True

    async def refuse(self, code: str, extra: dict[str, Any] | None = None, **params: Any) -> None:
        """Send the ``error`` of ``code`` in the reader's language (with ``extra`` fields, if any) and
        close with its 44xx code."""
        self.done = True
        await self._send({**self._error(code, **params), **(extra or {})})
        await self.close(code=CLOSE_CODES[code])

    def _error(self, code: str, **params: Any) -> dict[str, Any]:
        with translation.override(self.language):
            return {"type": "error", "code": code, "message": text(code, **params)}

    async def _send(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload))

    async def _send_waiting(self) -> None:
        waited = max(0, int((timezone.now() - self.joined_at).total_seconds()))
        await self._send({"type": "waiting", "pool": self.slug, "waited": waited, "waiting": self.waiting})

    async def _tick(self) -> None:
        while not self.done:
            await asyncio.sleep(TICK_SECONDS)
            if not self.done:
                await self._send_waiting()

    async def _heartbeat(self) -> None:
        """Every ``HEARTBEAT_SECONDS``: the entry's sign of life; an entry that ended without this socket
        hearing of it (a lost message) is told now."""
        while not self.done:
            await asyncio.sleep(pools.HEARTBEAT_SECONDS)
            if self.done or self.entry_id is None:
                return
            for namespace, key, slot in self._slots:  # they expire SLOT_TTL s after the last refresh
                await self.step("slot refresh", _in_thread(ratelimit.socket_slot_refresh)(
                    match_id=namespace, user_id=key, slot=slot, owner=self.channel_name))
            if not await db_call(pools.pool_seen)(entry_id=self.entry_id):
                await self._resolve()

    async def _resolve(self) -> None:
        if self.entry_id is None:
            return  # not joined (the callers check it first)
        entry = await db_call(PoolEntry.objects.filter(pk=self.entry_id).first)()
        if entry is None or self.done:
            return
        if entry.match_id is not None:
            await self._send(await db_call(self._paired_frame)(entry))
        else:
            await self._send({"type": "left", "reason": "cancelled" if entry.status == "cancelled" else
                              "disconnected"})
        await self._finish()

    @staticmethod
    def _paired_frame(entry: PoolEntry) -> dict[str, Any]:
        return _frame(pools.paired_message(entry))

    async def _finish(self) -> None:
        self.done = True
        await self.close(code=1000)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.done or self._flooded or self.entry_id is None:
            return
        verdict = self._limiter.admit(time.monotonic())
        if verdict != "ok":
            await self._send(self._error("pool_rate_limited"))
            if verdict == "flood":  # closed, not ended: the wait leaves LOBBY_LEAVE_AFTER s later, as any
                self._flooded = True  # socket gone (a reconnect within it keeps it)
                await self.close(code=close_codes.FLOOD_CLOSE_CODE)
            return
        message: Any = None
        if text_data is None:
            detail = "send JSON text frames"
        elif len(text_data) > conf.MAX_FRAME_BYTES:
            detail = f"frames are limited to {conf.MAX_FRAME_BYTES} bytes"
        else:
            try:
                message = strict_json.loads(text_data)
                detail = "" if isinstance(message, dict) and message.get("type") == "cancel" else (
                    "this socket takes only {\"type\": \"cancel\"}")
            except (ValueError, RecursionError):
                detail = "the frame is not valid JSON"
        if detail:
            await self._send(self._error("bad_frame", detail=detail))
            return
        outcome = await db_call(pools.pool_cancel)(entry_id=self.entry_id, user=self.user)
        if self.done:
            return
        if outcome.cancelled:
            await self._send({"type": "left", "reason": "cancelled"})
            await self._finish()
        else:
            await self._resolve()

    # group messages (lobby.pools)
    async def pool_paired(self, event: dict[str, Any]) -> None:
        if self.done:
            return
        await self._send(_frame(event))
        await self._finish()

    async def pool_left(self, event: dict[str, Any]) -> None:
        if self.done:
            return
        await self._send({"type": "left", "reason": event["reason"]})
        await self._finish()

    async def pool_count(self, event: dict[str, Any]) -> None:
        if self.done or event["waiting"] == self.waiting:
            return
        self.waiting = int(event["waiting"])
        await self._send_waiting()

    async def pool_probe(self, event: dict[str, Any]) -> None:
        """Another socket of this entry closed: this one is still here."""
        if not self.done and self.entry_id is not None:
            await db_call(pools.pool_seen)(entry_id=self.entry_id)

    async def disconnect(self, code: int) -> None:
        await self.end()

    async def release(self) -> None:
        if self.entry_id is not None:
            await self.step("group discard", self.channel_layer.group_discard(
                entry_group(self.entry_id), self.channel_name))
            if self.pool_id is not None:
                await self.step("group discard", self.channel_layer.group_discard(
                    pool_group(self.pool_id), self.channel_name))
            if not self.done:
                await self.step("pool disconnect", db_call(pools.pool_disconnected)(entry_id=self.entry_id))
        for namespace, key, slot in self._slots:
            await self.step("slot release", _in_thread(ratelimit.socket_slot_release)(
                match_id=namespace, user_id=key, slot=slot, owner=self.channel_name))
        self._slots = []


def _frame(event: dict[str, Any]) -> dict[str, Any]:
    """The ``paired`` frame of a ``pool.paired`` group message."""
    match_id = int(event["match"])
    return {"type": "paired", "match": match_id, "url": reverse("games:table", args=[match_id]),
            "opponent": event["opponent"], "bot": bool(event["bot"])}
