"""The bot API's two ndjson streams (docs/bot-api.md "The event stream", "The match stream"): async views
whose ``StreamingHttpResponse`` is fed by an async generator, served by Daphne (ASGI).

Each stream listens on the channel layer on a channel of its own and answers every message by reading
the database (``botapi.states``, in a database thread): a push only says "something changed", the line
is always built from what is stored, and only this seat's view (never a concealed card). At every
keep-alive (a blank line each ``BOTAPI_KEEPALIVE_SECONDS``, default 7) the stream also re-reads what a
lost push would have told it (the match's seq; the account's matches and challenges) and checks that its
token is still live (a revoked token ends the stream): no line depends on one push arriving.

- Event stream, ``GET stream/events/``: joins ``bot_events_group`` (``games.bot_events``: a match of the
  account started or ended) and ``notice_group`` (the lobby's challenge notices, turned into
  ``challenge`` / ``challengeClosed`` lines). At most :data:`EVENT_STREAMS_PER_ACCOUNT` per account,
  counted in the cache like the table's sockets (``games.ratelimit``'s slots: a slot of a process that
  died expires by itself).
- Match stream, ``GET match/<id>/stream/``: joins the seat's group (``seat_group``, whose ``match.update``
  each write sends), sends ``matchFull`` then a ``state`` per change (a seq past the last one sent;
  changes closer together than a read may come as one state, the latest), and ends after the state whose
  status is ``finished`` or ``aborted``. A new stream always starts with ``matchFull``: a reconnect
  catches up whole.

Refusals before the stream starts are the API's JSON errors, ``{"error", "message"}``, with their status.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils import timezone
from rest_framework.request import Request

from accounts.models import ApiToken, User
from botapi import states
from botapi.auth import BearerToken
from botapi.errors import BotApiError
from games import ratelimit
from games.db import db_call
from lobby.models import ChallengeStatus
from push.groups import bot_events_group, notice_group, seat_group

CONTENT_TYPE = "application/x-ndjson"
KEEPALIVE_SECONDS = 7.0
"""Default of the ``BOTAPI_KEEPALIVE_SECONDS`` setting."""
EVENT_STREAMS_PER_ACCOUNT = 2
SLOT_NAME = "bot-events"
"""The name ``games.ratelimit``'s slots count the event streams under (per account)."""
REMEMBERED = 2000
"""Matches and closed challenges an event stream remembers having announced (the oldest forgotten)."""
PLAY_SCOPE = "bot:play"


def keepalive_seconds() -> float:
    return float(getattr(settings, "BOTAPI_KEEPALIVE_SECONDS", KEEPALIVE_SECONDS))


def _in_thread(fn: Any) -> Any:
    """``fn`` (a cache call, no database) in a worker thread."""
    return sync_to_async(fn, thread_sensitive=False)


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def _refusal(exc: BotApiError) -> HttpResponse:
    response = JsonResponse({"error": exc.code, "message": exc.message}, status=exc.status_code)
    if exc.status_code == 401:
        response["WWW-Authenticate"] = 'Bearer realm="bot"'
    return response


def _method_refused(request: HttpRequest) -> HttpResponse | None:
    if request.method in ("GET", "HEAD"):
        return None
    response = _refusal(BotApiError("method_not_allowed", "a stream is read with GET", status=405))
    response["Allow"] = "GET, HEAD"
    return response


def _authorize(request: HttpRequest) -> tuple[User, ApiToken]:
    """The BOT account and token of ``request`` (``Authorization: Bearer``), with the ``bot:play`` scope.

    :raises BotApiError: ``not_authenticated``, ``bad_token`` (401), ``missing_scope``, ``not_bot`` (403).
    """
    found = BearerToken().authenticate(Request(request))
    if found is None:
        raise BotApiError("not_authenticated", "send your API token: 'Authorization: Bearer <token>'")
    user, token = found
    if PLAY_SCOPE not in token.scopes:
        raise BotApiError("missing_scope", f"this token lacks the scope {PLAY_SCOPE}")
    if not user.bot_account:
        raise BotApiError("not_bot",
                          "upgrade this account to a BOT account first (POST /api/v1/bot/account/upgrade/)")
    return user, token


def _token_live(token_id: int) -> bool:
    """Whether the stream's token is still live, with its scope and a BOT account (one query)."""
    token = ApiToken.objects.select_related("user").filter(pk=token_id, revoked_at__isnull=True).first()
    return (token is not None and PLAY_SCOPE in token.scopes and token.user.is_active
            and bool(token.user.bot_account))


class _Listener:
    """A channel of the layer, joined to ``groups``: :meth:`next` waits for its next message until a
    deadline; :meth:`close` leaves the groups."""

    def __init__(self, groups: list[str]) -> None:
        self.layer = get_channel_layer()
        self.groups = groups
        self.channel = ""

    async def open(self) -> None:
        assert self.layer is not None, "the bot API's streams need a channel layer (CHANNEL_LAYERS)"
        self.channel = await self.layer.new_channel()
        for group in self.groups:
            await self.layer.group_add(group, self.channel)

    async def next(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None when none came within ``timeout`` seconds."""
        if timeout <= 0:
            return None
        assert self.layer is not None
        try:
            return dict(await asyncio.wait_for(self.layer.receive(self.channel), timeout))
        except TimeoutError:
            return None

    async def close(self) -> None:
        if self.layer is None or not self.channel:
            return
        for group in self.groups:
            await self.layer.group_discard(group, self.channel)


class _Beat:
    """The keep-alive clock: :meth:`left` seconds until the next blank line, :meth:`due` once reached
    (then the next one is counted from now)."""

    def __init__(self) -> None:
        self.every = keepalive_seconds()
        self.at = time.monotonic() + self.every

    def left(self) -> float:
        return max(0.0, self.at - time.monotonic())

    def due(self) -> bool:
        if time.monotonic() < self.at:
            return False
        self.at = time.monotonic() + self.every
        return True


# --- the match stream ----------------------------------------------------------------------------------


async def match_stream(request: HttpRequest, match_id: int) -> HttpResponseBase:
    """``GET /api/v1/bot/match/<id>/stream/``: the match as this BOT's seat sees it (module docstring).

    Refusals: ``not_authenticated``, ``bad_token`` (401), ``missing_scope``, ``not_bot``, ``not_seated``
    (403), ``no_such_match`` (404)."""
    refused = _method_refused(request)
    if refused is not None:
        return refused
    try:
        user, token = await db_call(_authorize)(request)
        match, seat = await db_call(states.seated_match_read)(match_id, user.pk)
        if match is None:
            raise BotApiError("no_such_match", f"no match {match_id}")
        if seat is None:
            raise BotApiError("not_seated", "this account is not a player of this match")
    except BotApiError as exc:
        return _refusal(exc)
    return _streaming(_match_lines(match_id, seat, token.pk))


def _streaming(lines: AsyncIterator[bytes]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type=CONTENT_TYPE)
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy in front must pass each line on at once
    return response


async def _match_lines(match_id: int, seat: int, token_id: int) -> AsyncIterator[bytes]:
    """``matchFull``, then a ``state`` per change until the match is over, with keep-alive lines. The
    seat's group is joined before the first read, so no change falls between the read and the wait."""
    listener = _Listener([seat_group(match_id, seat)])
    try:
        await listener.open()
        first = await db_call(states.full_read)(match_id, seat)
        if first is None:
            return
        full, over = first
        sent = full["state"]["seq"]
        yield _line(full)
        beat = _Beat()
        while not over:
            message = await listener.next(beat.left())
            if message is None and not beat.due():
                continue
            if message is None:
                yield b"\n"
                if not await db_call(_token_live)(token_id):
                    return
            elif int(message.get("seq", sent + 1)) <= sent:
                continue  # a push this stream has read already (the state is read from the database)
            got = await db_call(states.state_read)(match_id, seat, sent)
            if got is None:
                continue
            state, over = got
            sent = state["seq"]
            yield _line({"type": "state", **state})
    finally:
        await listener.close()


# --- the event stream ----------------------------------------------------------------------------------


class EventTracker:
    """What one event stream has announced, and the lines of what it has not (synchronous: each method
    reads the database, in a database thread; one call at a time)."""

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        self.matches: OrderedDict[int, bool] = OrderedDict()  # match id -> its matchFinish was sent
        self.open: set[int] = set()  # challenges announced open
        self.closed: OrderedDict[int, None] = OrderedDict()  # challenges announced closed

    def _remember(self, store: OrderedDict[int, Any], key: int, value: Any) -> None:
        store[key] = value
        store.move_to_end(key)
        while len(store) > REMEMBERED:
            store.popitem(last=False)

    def _match_lines(self, match: Any) -> list[dict[str, Any]]:
        seat = match.seat_of(self.user_id)
        lines = []
        if match.pk not in self.matches:
            lines.append({"type": "matchStart", "match": states.match_object(match, seat)})
            self._remember(self.matches, match.pk, False)
        if match.status in states.OVER and not self.matches[match.pk]:
            lines.append({"type": "matchFinish", "match": states.finish_object(match, seat)})
            self._remember(self.matches, match.pk, True)
        return lines

    def catch_up(self) -> list[dict[str, Any]]:
        """Lines for what the database holds and this stream has not said: a match started, a match
        ended, a challenge opened or closed. On connect: every active match and open challenge."""
        lines: list[dict[str, Any]] = []
        active = states.active_matches_read(self.user_id)
        for match in active:
            lines += self._match_lines(match)
        active_ids = {m.pk for m in active}
        for match_id in [m for m, finished in self.matches.items() if not finished and m not in active_ids]:
            ended = states.user_match_read(match_id, self.user_id)
            if ended is not None:
                lines += self._match_lines(ended)
        now = timezone.now()
        still_open = states.open_challenges_read(self.user_id, now)
        for challenge in still_open:
            if challenge.pk not in self.open and challenge.pk not in self.closed:
                lines.append({"type": "challenge",
                              "challenge": states.challenge_object(challenge, self.user_id)})
                self.open.add(challenge.pk)
        gone = self.open - {c.pk for c in still_open}
        if gone:
            rows = states.challenges_read(sorted(gone), self.user_id)
            for challenge_id in sorted(gone):
                row = rows.get(challenge_id)
                status = row.status if row is not None else ChallengeStatus.CANCELLED
                if status == ChallengeStatus.OPEN:
                    status = ChallengeStatus.EXPIRED  # past due; the sweep has not marked it yet
                lines += self._closed(challenge_id, str(status))
        return lines

    def _closed(self, challenge_id: int, status: str) -> list[dict[str, Any]]:
        if challenge_id not in self.open:
            return []
        self.open.discard(challenge_id)
        self._remember(self.closed, challenge_id, None)
        return [{"type": "challengeClosed", "id": challenge_id, "status": status}]

    def on_message(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """Lines for one channel-layer message: ``bot.match`` (``games.bot_events``) or a lobby notice
        (``notice.push``: ``challenge``, ``challenge_sent``, ``challenge_closed``; others say nothing
        here). Each is checked against the database (the message only names what changed)."""
        if message.get("type") == "bot.match":
            match = states.user_match_read(int(message["match_id"]), self.user_id)
            return [] if match is None else self._match_lines(match)
        if message.get("type") != "notice.push":
            return []
        payload = message.get("payload") or {}
        kind = payload.get("type")
        if kind in ("challenge", "challenge_sent"):
            challenge_id = int((payload.get("challenge") or {}).get("id", 0))
            if challenge_id in self.open or challenge_id in self.closed:
                return []
            row = states.challenges_read([challenge_id], self.user_id).get(challenge_id)
            if row is None or row.status != ChallengeStatus.OPEN or row.expires_at <= timezone.now():
                return []
            self.open.add(challenge_id)
            return [{"type": "challenge", "challenge": states.challenge_object(row, self.user_id)}]
        if kind == "challenge_closed":
            return self._closed(int(payload.get("id", 0)), str(payload.get("status", "")))
        return []


async def stream_events(request: HttpRequest) -> HttpResponseBase:
    """``GET /api/v1/bot/stream/events/``: the account's event stream (module docstring).

    Refusals: ``not_authenticated``, ``bad_token`` (401), ``missing_scope``, ``not_bot`` (403),
    ``too_many_streams`` (429: :data:`EVENT_STREAMS_PER_ACCOUNT` open already)."""
    refused = _method_refused(request)
    if refused is not None:
        return refused
    try:
        user, token = await db_call(_authorize)(request)
    except BotApiError as exc:
        return _refusal(exc)
    owner = secrets.token_hex(8)
    slot = await _in_thread(ratelimit.socket_slot_acquire)(
        match_id=SLOT_NAME, user_id=user.pk, owner=owner, cap=EVENT_STREAMS_PER_ACCOUNT)
    if slot is None:
        return _refusal(BotApiError(
            "too_many_streams", f"at most {EVENT_STREAMS_PER_ACCOUNT} event streams per account at once:"
            " close another one", status=429))
    return _streaming(_event_lines(user.pk, token.pk, slot, owner))


async def _event_lines(user_id: int, token_id: int, slot: int, owner: str) -> AsyncIterator[bytes]:
    """The event stream's lines; its slot is held until the client goes away (the generator closed or
    cancelled; a stream never started frees it when it expires, ``games.ratelimit.SLOT_TTL``)."""
    listener = _Listener([bot_events_group(user_id), notice_group(user_id)])
    tracker = EventTracker(user_id)
    refreshed = time.monotonic()
    try:
        await listener.open()
        for line in await db_call(tracker.catch_up)():
            yield _line(line)
        beat = _Beat()
        while True:
            message = await listener.next(beat.left())
            if message is not None:
                lines = await db_call(tracker.on_message)(message)
            elif beat.due():
                yield b"\n"
                if not await db_call(_token_live)(token_id):
                    return
                if time.monotonic() - refreshed >= ratelimit.SLOT_REFRESH:
                    refreshed = time.monotonic()
                    await _in_thread(ratelimit.socket_slot_refresh)(
                        match_id=SLOT_NAME, user_id=user_id, slot=slot, owner=owner)
                lines = await db_call(tracker.catch_up)()
            else:
                continue
            for line in lines:
                yield _line(line)
    finally:
        try:
            await listener.close()
        finally:
            await _in_thread(ratelimit.socket_slot_release)(
                match_id=SLOT_NAME, user_id=user_id, slot=slot, owner=owner)
