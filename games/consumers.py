"""The table's WebSocket (``ws/match/<id>/``): thin JSON front of ``games.services`` (docs/protocol.md).

Parse and validate a frame, call one service in a worker thread of a pool (services run concurrently:
``db_call``), answer ``ack``/``error``. Frames are rate limited per connection and sockets capped per
player and match (``games.ratelimit``). After a commit the service sends each seat its own ``state`` on
that seat's group (``push.groups.seat_group``), built once per update; the consumer forwards it (never an
older one than it already sent), so no message carries a card to a socket that may not see it. The
server's own moves (the bot's, automatic moves at a turn deadline) do not depend on this socket:
``games.scheduling`` drives them after each commit; opening a table only tells the in-process driver
which event loop to use (``scheduling.table_opened``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from asgiref.sync import sync_to_async
from channels.auth import get_user
from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import reverse

from games import chat, conf, presence, ratelimit, rematch, scheduling, selectors, services
from games.db import NoConnectionSweepPerMessage, db_call
from games.services import GameError
from push import send as push
from push.groups import match_group, seat_group, sessions_group
from web import close_codes, frames, strict_json
from web.close_codes import SESSION_ENDED_CLOSE_CODE
from web.log_context import bind_socket
from web.socket_end import EndsCleanly, outage
from web.unavailable import RefusesWhenUnavailable, database_unavailable, describe

log = logging.getLogger(__name__)

CLIENT_TYPES = ("action", "resign", "sync", "ping", "rematch_offer", "rematch_cancel", "rematch_accept",
                "rematch_decline", "claim", "chat")
REMATCH_SERVICES = {
    "rematch_offer": rematch.rematch_offer, "rematch_cancel": rematch.rematch_cancel,
    "rematch_accept": rematch.rematch_accept, "rematch_decline": rematch.rematch_decline,
}
STALE_STATE_GRACE_S = 3.0
"""Seconds past the bot's latest possible move (its pause, plus the hand pause after a hand) after which
a socket that got no newer ``state`` reads it itself (``MatchConsumer._stale_watch``)."""
MAX_ID_LENGTH = 64
MAX_SEQ = 2**53 - 1  # the largest integer JavaScript clients represent exactly


def _shown(value: Any) -> str:
    """``value`` as JSON for an error message, cut to 40 characters (a client may send megabytes)."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _in_thread(fn: Any) -> Any:
    """``fn`` (a cache call, no database) run in a worker thread off asgiref's single database thread."""
    return sync_to_async(fn, thread_sensitive=False)


def _check_text(name: str, value: str) -> None:
    """Refuse a NUL character in a text field before anything is written: PostgreSQL cannot store one
    (it was a ``server_error`` with a traceback).

    :raises GameError: ``bad_field``.
    """
    if "\x00" in value:
        raise GameError("bad_field", f"{name!r} must not contain NUL (\\u0000)")


def _error(code: str, message: str, msg_id: Any = None) -> dict[str, Any]:
    echo = msg_id if isinstance(msg_id, str) else None
    return {"type": "error", "code": code, "message": message, "id": echo}


class MatchConsumer(NoConnectionSweepPerMessage, EndsCleanly, RefusesWhenUnavailable):
    """One player's connection to one match (the database down at connect: ``server_unavailable``, 4503).
    However it ends (closed, an outage, a failing handler, the server's shutdown) its tasks stop and its
    slot is released (``web.socket_end``; else it expires ``SLOT_TTL`` s later, no longer refreshed)."""

    match_id: int
    seat: int | None = None
    user: Any = None
    _slot: int = ratelimit.UNTRACKED
    _slot_task: asyncio.Task[None] | None = None
    _closing: bool = False
    _sent_seq = -1  # seq of the latest state sent
    _holds_rules = False  # this socket was sent the match's rules (docs/protocol.md "state", protocol 2)
    _held_last_hand: int | None = None  # the number of the last hand this socket was sent (None: none)
    _held_moves: tuple[int, int, Any] | None = None  # (hand number, moves sent, the last one) of ``hand``
    _over = False  # the latest state sent was of a finished or aborted match
    _rematch_sent: dict[str, Any] | None = None  # the latest ``rematch`` message sent (games.rematch)
    _rating_sent = False  # this seat's ``rating`` message went out (from the push or the watch)
    _rating_task: asyncio.Task[None] | None = None  # the one read of a finished rated match's rating
    _bot_opponent = False  # the other seat is a house bot (moved by the server)
    _stale_task: asyncio.Task[None] | None = None  # the watch of the bot's next state (_stale_watch)
    _people = False  # a match between people (or a friend table): its seats' presence is tracked
    _gone_sent: dict[str, Any] | None = None  # the latest ``opponent_gone`` message sent
    _gone_task: asyncio.Task[None] | None = None  # a look at the opponent's presence later (_look_again)

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        bind_socket(self.scope, self.match_id)  # this socket's log records: its request id and match
        self.seat = None
        await self.accept()
        if self.user is None or not self.user.is_authenticated:
            await self._refuse("not_authenticated", "log in or play as a guest first", 4401)
            return
        match = await db_call(selectors.match_get)(match_id=self.match_id)
        seat = None if match is None else match.seat_of(self.user.pk)
        # a private match the user may not see is refused as one that does not exist, whatever its state
        if match is None or (seat is None and not await db_call(selectors.may_see)(
                match, self.user, self.scope.get("session"))):
            await self._refuse("no_such_match", f"no match {self.match_id}", 4404)
            return
        if seat is None:
            await self._refuse("not_seated", "you are not a player of this match", 4403)
            return
        slot = await _in_thread(ratelimit.socket_slot_acquire)(
            match_id=self.match_id, user_id=self.user.pk, owner=self.channel_name
        )
        if slot is None:
            await self._refuse(
                "too_many_sockets",
                f"at most {ratelimit.SOCKETS_PER_USER_PER_MATCH} open connections per player per match:"
                " close another tab of this table",
                close_codes.TOO_MANY_SOCKETS_CLOSE_CODE,
            )
            return
        self._slot = slot
        self._slot_task = self.spawn(self._keep_slot())
        self._limiter = ratelimit.MessageLimiter(time.monotonic())
        self.seat = seat
        self._sent_seq = -1
        self._bot_opponent = any(bot != seat for bot in (match.bot_seats or []))
        self._people = not match.bot_seats and match.bot_level is None
        if self._people:
            # before the group notice below: the opponent's socket reads this seat as here
            await db_call(presence.opened)(match_id=self.match_id, seat=seat)
        await self.channel_layer.group_add(sessions_group(self.user.pk), self.channel_name)
        await self.channel_layer.group_add(match_group(self.match_id), self.channel_name)
        await self.channel_layer.group_add(seat_group(self.match_id, seat), self.channel_name)
        # A tournament board: this player's first clock starts now (unless the grace already ended it);
        # the state sent below carries the new deadline.
        if seat in (match.first_clock_waiting or []) and await db_call(services.match_seat_arrived)(
            match_id=self.match_id, seat=seat
        ):
            match = await db_call(selectors.match_get)(match_id=self.match_id) or match
        scheduling.table_opened(match)
        await self._send_state(whole=True)
        if self._people and match.status == "active":
            await self._send_gone()  # the opponent may have left before this socket opened
        if self._rematch_sent is not None or (self._people and match.status == "active"):
            # the opponent's table (its "opponent gone" notice, its match-end card) shows this player is here
            await self._tell_presence()

    async def _keep_slot(self) -> None:
        """Every ``SLOT_REFRESH`` seconds while the socket is open: refresh its slot (it expires on its own
        if this process dies) and re-check its session. The check ends the socket (``session_ended``,
        4001) when the user's password changed where no group message reaches this process: e.g.
        ``manage.py changepassword`` beside the embedded profile, whose channel layer lives inside Daphne."""
        while True:
            await asyncio.sleep(ratelimit.SLOT_REFRESH)
            # a failed refresh (Redis restarting) is one WARNING line; the next one re-takes the slot
            await self.step("slot refresh", _in_thread(ratelimit.socket_slot_refresh)(
                match_id=self.match_id, user_id=self.user.pk, slot=self._slot, owner=self.channel_name
            ))
            if self._people and not self._over:
                # games.presence: this seat is here; and the opponent may be gone without a close (their
                # process died), which no group notice says: look
                await self.step("presence heartbeat", db_call(presence.heartbeat)(
                    match_id=self.match_id, seat=self.seat))
                await self.step("presence read", self._send_gone(again=True))
            if not await self._session_valid():
                await self.user_session_ended({})
                return

    async def _session_valid(self) -> bool:
        """Whether this socket's session still authenticates its user (Django's check: the session's
        password hash must match the user's current one; ``channels.auth.get_user`` runs it)."""
        try:
            user = await get_user(self.scope)
        except Exception as exc:  # a database hiccup must not close a player's table
            log.warning("match %s: session check failed: %s: %s", self.match_id, type(exc).__name__, exc)
            return True
        return getattr(user, "pk", None) == self.user.pk

    async def _refuse(self, code: str, message: str, close_code: int) -> None:
        await self._send(_error(code, message))
        await self.close(code=close_code)

    async def disconnect(self, code: int) -> None:
        await self.end()

    async def release(self) -> None:
        """Release this socket's slot and leave its groups (``web.socket_end``: once, each step
        best-effort, whatever ended the socket; the background tasks are cancelled already)."""
        if self._slot_task is not None:
            await self.step("slot release", _in_thread(ratelimit.socket_slot_release)(
                match_id=self.match_id, user_id=self.user.pk, slot=self._slot, owner=self.channel_name
            ))
        if self.seat is not None:
            if self._people:
                await self.step("presence close",
                                db_call(presence.closed)(match_id=self.match_id, seat=self.seat))
            for group in (match_group(self.match_id), seat_group(self.match_id, self.seat),
                          sessions_group(self.user.pk)):
                await self.step("group discard", self.channel_layer.group_discard(group, self.channel_name))
            if (self._rematch_sent is not None or self._people) and self._slot_task is not None:
                # the slot is released and the seat counted down: the opponent sees this player left
                await self.step("presence notice", self._tell_presence())

    async def user_session_ended(self, event: dict[str, Any]) -> None:
        """Group message of ``games.user_sockets``: the user logged out or changed their password."""
        await self._send(_error("session_ended", "you logged out or your password changed: reconnect"))
        await self.close(code=SESSION_ENDED_CLOSE_CODE)
        self._closing = True

    # ------------------------------------------------------------------------------------- receiving

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.seat is None or self._closing:
            return
        rate = f"{ratelimit.MESSAGES_PER_SECOND:g} messages per second (bursts of {ratelimit.BURST})"
        if await self._limited(self._limiter.admit(time.monotonic()), rate):
            return  # refused unread: a flood must cost as little as possible
        too_large = _error("frame_too_large", f"frames are limited to {conf.MAX_FRAME_BYTES} bytes")
        if text_data is None:
            big = len(bytes_data or b"") > conf.MAX_FRAME_BYTES
            await self._send(too_large if big else _error("bad_json", "send JSON text frames"))
            return
        if len(text_data) > conf.MAX_FRAME_BYTES or len(text_data.encode()) > conf.MAX_FRAME_BYTES:
            await self._send(too_large)
            return
        try:
            message = strict_json.loads(text_data)
            if "\\u" in text_data:  # an escape may decode to a lone surrogate, which no database stores
                json.dumps(message, ensure_ascii=False).encode()
        except UnicodeEncodeError:
            await self._send(_error("bad_json", "the frame's JSON has a lone surrogate (\\ud800-\\udfff)"))
            return
        except strict_json.StrictJSONError as exc:
            await self._send(_error("bad_json", f"the frame is not valid JSON: {exc}"))
            return
        except ValueError:
            await self._send(_error("bad_json", "the frame is not valid JSON"))
            return
        except RecursionError:  # "[[[[...]]]]": valid JSON nested deeper than the parser's stack
            await self._send(_error("bad_json", "the frame's JSON is nested too deeply"))
            return
        if not isinstance(message, dict):
            await self._send(_error("not_an_object", "a message must be a JSON object"))
            return
        kind = message.get("type")
        msg_id = message.get("id")
        if kind not in CLIENT_TYPES:
            await self._send(_error("unknown_type", f"type must be one of {', '.join(CLIENT_TYPES)}", msg_id))
            return
        if kind == "sync":
            rate = f"{ratelimit.SYNCS_PER_SECOND:g} syncs per second (bursts of {ratelimit.SYNC_BURST})"
            if await self._limited(self._limiter.admit_sync(time.monotonic()), rate):
                return
        try:
            await getattr(self, f"on_{kind}")(message)
        except GameError as exc:
            await self._send(_error(exc.code, exc.message, msg_id))
        except Exception as exc:
            if outage(exc):  # the database or Redis is down: one line per frame, not 6 KB of traceback
                log.warning("match %s: %s failed: %s unavailable (%s)", self.match_id, kind,
                            "database" if database_unavailable(exc) else "Redis", describe(exc))
            else:
                log.exception("match %s: failed on %r", self.match_id, message)
            await self._send(_error("server_error", "unexpected failure; nothing was applied", msg_id))

    async def _limited(self, verdict: str, rate: str) -> bool:
        """Answer a refused frame (``games.ratelimit``): ``rate_limited``, and close 4429 on a flood."""
        if verdict == "ok":
            return False
        if verdict == "flood":
            await self._send(_error("rate_limited", f"over {rate} for too long: closing"))
            await self.close(code=close_codes.FLOOD_CLOSE_CODE)
            self._closing = True  # frames already queued are ignored
        else:
            await self._send(_error("rate_limited", f"over {rate}; this message was ignored"))
        return True

    @staticmethod
    def _field(message: dict[str, Any], name: str, kind: type[Any], *, required: bool = True) -> Any:
        if name not in message:
            if required:
                raise GameError("missing_field", f"{message['type']} needs {name!r}")
            return None
        value = message[name]
        if type(value) is not kind:
            wanted = {int: "an integer", str: "a string"}.get(kind, kind.__name__)
            raise GameError("bad_field", f"{name!r} must be {wanted}, got {_shown(value)}")
        if kind is str and not 1 <= len(value) <= MAX_ID_LENGTH:
            raise GameError("bad_field", f"{name!r} must be 1-{MAX_ID_LENGTH} characters")
        if kind is str:
            _check_text(name, value)
        if kind is int and not 0 <= value <= MAX_SEQ:
            raise GameError("bad_field", f"{name!r} must be 0..{MAX_SEQ}")
        return value

    def _check_not_bot_account(self) -> None:
        """A BOT account moves only through the bot API (docs/bot-api.md): its browser may watch its
        table, never play on it (``bot_api_only``)."""
        if getattr(self.user, "bot_account", False):
            raise GameError("bot_api_only", "a BOT account plays through the bot API (/api/v1/bot/), not"
                                            " the table's socket")

    async def on_action(self, message: dict[str, Any]) -> None:
        self._check_not_bot_account()
        action = message.get("action")
        msg_id = self._field(message, "id", str)
        seq = self._field(message, "seq", int)
        if "action" not in message:
            raise GameError("missing_field", "action needs 'action'")
        if not isinstance(action, str):
            raise GameError(
                "malformed_action", f"action must be a string like 'discard Kc', got {_shown(action)}"
            )
        _check_text("action", action)
        result = await db_call(services.match_apply_action)(
            match_id=self.match_id, user=self.user, action_text=action, client_seq=seq, msg_id=msg_id,
        )
        await self._send({"type": "ack", "id": msg_id, "seq": result.seq, "repeat": result.repeat})
        await self._state_if_unsent(result)

    async def on_resign(self, message: dict[str, Any]) -> None:
        self._check_not_bot_account()
        msg_id = self._field(message, "id", str, required=False) or ""
        result = await db_call(services.match_resign)(
            match_id=self.match_id, user=self.user, msg_id=msg_id,
        )
        await self._send({"type": "ack", "id": msg_id or None, "seq": result.seq, "repeat": result.repeat})
        await self._state_if_unsent(result)

    async def _state_if_unsent(self, result: services.Applied | services.Claimed) -> None:
        """After the ``ack`` of a write whose after-commit broadcast failed (its ``broadcast``, a
        ``push.send.Outcome``): send this socket the state itself. Without it the player had its ``ack``
        but no new ``state`` and waited for one (issue 14's fault run: a pooled Redis connection dead
        since a Redis restart failed the broadcast; the client sat 15 s until its own ``sync``). The
        write is committed and acknowledged: a failing read here is one WARNING line, never an error
        frame ("nothing was applied" would be false); the client's next ``sync`` gets the state."""
        if result.broadcast is None or not result.broadcast.failed:
            return
        try:
            await self._send_state()
        except Exception as exc:
            log.warning("match %s: state after a failed broadcast not sent: %s: %s", self.match_id,
                        type(exc).__name__, exc)

    async def on_sync(self, message: dict[str, Any]) -> None:
        await self._send_state(whole=True)  # the client may hold nothing it can trust: everything

    async def on_ping(self, message: dict[str, Any]) -> None:
        await self._send({"type": "pong", "id": message.get("id")})

    async def _on_rematch(self, message: dict[str, Any]) -> None:
        """``rematch_offer`` / ``rematch_cancel`` / ``rematch_accept`` / ``rematch_decline``
        (docs/protocol.md "Rematch"): ``ack`` (``repeat`` when it changed nothing), then both seats get
        their ``rematch`` message from the group notice the service sends after its commit."""
        msg_id = self._field(message, "id", str, required=False)
        done = await db_call(REMATCH_SERVICES[message["type"]])(match_id=self.match_id, user=self.user)
        await self._send({"type": "ack", "id": msg_id, "seq": done.seq, "repeat": not done.changed})
        if not done.changed:
            await self._send_rematch(force=True)  # nothing was broadcast: answer with where things stand

    on_rematch_offer = on_rematch_cancel = on_rematch_accept = on_rematch_decline = _on_rematch

    async def on_claim(self, message: dict[str, Any]) -> None:
        """``claim`` (docs/protocol.md "Leaving"): the opponent has been gone ``presence.claim_after()``:
        end the match (rated: this player wins; casual: without a result). ``ack`` with ``outcome``
        (``win`` / ``end``), then the ``state`` of the ended match; refusals ``opponent_present``,
        ``claim_too_early``, ``not_between_people``, ``match_over``, ``not_started``."""
        self._check_not_bot_account()
        msg_id = self._field(message, "id", str, required=False) or ""
        result = await db_call(services.match_claim)(match_id=self.match_id, user=self.user, msg_id=msg_id)
        await self._send({"type": "ack", "id": msg_id or None, "seq": result.seq, "repeat": result.repeat,
                          "outcome": result.outcome})
        await self._state_if_unsent(result)

    async def on_chat(self, message: dict[str, Any]) -> None:
        """``chat`` (docs/protocol.md "Quick chat"): a preset message to the opponent. Checked and stored
        by ``games.chat.chat_send``, then sent on the match's group (card-free), so both seats' sockets
        get ``{"type": "chat", "seat": <sender>, "preset": <id>}``: the opponent's shows it, the sender's
        is its echo (the acknowledgement). A refusal is an ``error`` (``chat.ChatRefused``'s codes)."""
        self._field(message, "id", str, required=False)
        try:
            seat = await db_call(chat.chat_send)(match_id=self.match_id, user=self.user,
                                                 preset=message.get("preset"))
        except chat.ChatRefused as exc:
            raise GameError(exc.code, exc.message) from None
        await push.send([(match_group(self.match_id),
                          {"type": "chat.message", "seat": seat, "preset": message["preset"]})],
                        self.channel_layer)

    # ------------------------------------------------------------------------------------- group

    async def chat_message(self, event: dict[str, Any]) -> None:
        """Group message of :meth:`on_chat`: a seat's quick-chat preset (no text: each page translates
        the id into its reader's language)."""
        await self._send({"type": "chat", "seat": int(event["seat"]), "preset": str(event["preset"])})

    async def rating_update(self, event: dict[str, Any]) -> None:
        """Group message from ``ratings`` after its task committed: send THIS seat's ``rating`` message
        (``event["seats"]`` maps "0"/"1" to each human seat's; docs/protocol.md "rating")."""
        message = (event.get("seats") or {}).get(str(self.seat))
        if message is not None:
            await self._send_rating(message)

    async def _send_rating(self, message: dict[str, Any]) -> None:
        """Send this seat's ``rating`` message unless it went out already (the worker's push and the
        consumer's own read of the database both deliver it; the screen gets it once)."""
        if not self._rating_sent:
            self._rating_sent = True
            await self._send(message)

    async def _read_rating(self) -> None:
        """A rated match has finished on this socket: read this seat's rating change once and send it if
        it is there. Otherwise the rating task has not committed yet, and its ``rating.update`` push
        (``ratings.services``, through ``push.send``; from the embedded profile's worker forwarded to
        this process, ``push.forward``) reaches this socket, which joined the match's group before this
        read. A push lost to an outage is recorded and logged; the table's next connect reads it here.
        (This replaced 13 reads over 118 s: the push from the worker never reached the embedded
        profile's Daphne.)"""
        message = await db_call(selectors.seat_rating)(match_id=self.match_id, user_id=self.user.pk)
        if message is not None:
            await self._send_rating(message)

    async def match_update(self, event: dict[str, Any]) -> None:
        """Group message from services after a commit. On the seat's group it carries this seat's
        ``state`` (``services.play.broadcast_on_commit``): send it, unless a newer one went out already
        (writes of one match commit in order, but their broadcasts run in different threads and may
        arrive out of order). Without a ``state`` (an older sender), build it."""
        state = event.get("state")
        if state is None:
            await self._send_state()
        else:
            await self._send_payload(state)

    async def rematch_update(self, event: dict[str, Any]) -> None:
        """Group notice of ``games.rematch`` after a commit: send this seat its ``rematch`` message."""
        await self._send_rematch()

    async def presence_update(self, event: dict[str, Any]) -> None:
        """Group notice: a player's socket to this match opened or closed. A match between people in
        play: this seat's ``opponent_gone`` message when it changed; a finished one: the ``rematch``
        message says whether the opponent is still here (friend matches: those with a rematch)."""
        if self._rematch_sent is not None:
            await self._send_rematch()
        elif self._people and not self._over:
            await self._send_gone()

    async def _send_gone(self, *, again: bool = False) -> None:
        """Send this seat's ``opponent_gone`` message (``presence.opponent_gone_payload``) when the
        opponent's presence changed since the last one sent (``again``: also when still gone, with the
        time corrected); nothing while the opponent is here and no ``opponent_gone`` was ever sent.

        An opponent gone for less than ``presence.notice_after()`` (10 s) is not told yet (a reload, or
        two players reaching a new table a second apart, is no leave): this socket looks again when
        that time has passed (:meth:`_look_again`)."""
        payload = await db_call(self._gone_payload)()
        if payload is None:
            return
        fresh = presence.notice_after().total_seconds() - payload["seconds"]
        if payload["gone"] and fresh > 0:
            self._look_again(fresh)
            return
        last = self._gone_sent
        changed = (last is None and payload["gone"]) or (last is not None and last["gone"] != payload["gone"])
        if changed or (again and payload["gone"]):
            self._gone_sent = payload
            await self._send(payload)

    def _look_again(self, delay: float) -> None:
        """In ``delay`` seconds (and a little), :meth:`_send_gone` again (one such look pending at a time)."""
        if self._gone_task is not None and not self._gone_task.done():
            self._gone_task.cancel()

        async def look() -> None:
            await asyncio.sleep(delay + 0.5)
            if not self._closing and not self._over:
                await self._send_gone()

        self._gone_task = self.spawn(look())

    def _gone_payload(self) -> dict[str, Any] | None:
        match = selectors.match_get(match_id=self.match_id)
        if match is None or self.seat is None or match.status != "active":
            return None
        if not presence.between_people(match):
            return None
        return presence.opponent_gone_payload(match, self.seat)

    async def _tell_presence(self) -> None:
        await push.send([(match_group(self.match_id), {"type": "presence.update"})], self.channel_layer)

    async def _send_rematch(self, *, force: bool = False) -> None:
        """Send this seat's ``rematch`` message unless it equals the last one sent (``force``: send it
        anyway, as the answer to a repeated message). Friend matches that are over only."""
        payload = await db_call(self._rematch_payload)()
        if payload is not None and (force or payload != self._rematch_sent):
            self._rematch_sent = payload
            await self._send(payload)

    def _rematch_payload(self) -> dict[str, Any] | None:
        match = selectors.match_get(match_id=self.match_id)
        if match is None or self.seat is None:
            return None
        present = rematch.is_here(match, 1 - self.seat)
        return rematch.rematch_payload(match=match, seat=self.seat, opponent_present=present)

    async def spectators_update(self, event: dict[str, Any]) -> None:
        """Group message of ``replays.consumers``: how many spectators watch this match now."""
        await self._send({"type": "spectators", "count": int(event.get("count", 0))})

    # ------------------------------------------------------------------------------------- state and timers

    async def _send_state(self, *, whole: bool = False) -> None:
        """Read this seat's state and send it (``whole``: every part, held or not: connect and ``sync``)."""
        payload = await db_call(self._state_payload)()
        if payload is None:
            return
        await self._send_payload(payload, whole=whole)

    async def _send_payload(self, payload: dict[str, Any], *, whole: bool = False) -> None:
        """Send a ``state``, unless this socket already got a later one (a read that raced a write).

        Protocol 2 (docs/protocol.md "state"): the frame leaves out what this socket holds, the match's
        rules once sent and a last hand it was sent already (``last_hand_no`` names the one to keep);
        ``whole`` (connect, ``sync``) sends every part and starts the socket's holdings afresh. A
        broadcast ``payload`` lacks the rules and an unchanged last hand: when this socket does not hold
        them (it missed the frame that carried them: a lost or late broadcast) the whole state is read
        for it instead, so a client never has to keep a last hand or rules it was not sent."""
        if payload["seq"] < self._sent_seq:
            return
        if whole:
            self._holds_rules, self._held_last_hand, self._held_moves = False, None, None
        if not self._holds(payload):
            read = await db_call(self._state_payload)()
            if read is None or read["seq"] < self._sent_seq:
                return
            log.info("match %s: seat %s lacked a part of state %s: sent seq %s read whole", self.match_id,
                     self.seat, payload["seq"], read["seq"])
            payload = read
        self._sent_seq = payload["seq"]
        await self._send(self._leaner(payload))
        self._watch_for_stale(payload)
        was_over = self._over
        self._over = payload["match"]["status"] in ("finished", "aborted")
        if self._over and not was_over:
            await self._send_rematch()  # a friend match's end: where the rematch stands
            rated = payload["match"]["status"] == "finished" and payload["match"].get("rated")
            if rated and self._rating_task is None and not self._rating_sent:
                self._rating_task = self.spawn(self._read_rating())

    def _holds(self, payload: dict[str, Any]) -> bool:
        """Whether this socket holds every part ``payload`` leaves out (a broadcast's rules, last hand)."""
        if "rules" not in payload["match"] and not self._holds_rules:
            return False
        number = payload.get("last_hand_no")
        return "last_hand" in payload or (number is not None and number == self._held_last_hand)

    def _leaner(self, payload: dict[str, Any]) -> dict[str, Any]:
        """``payload`` without what this socket holds already, and note what it holds once the frame is
        sent: the rules; a last hand of the same number (an ended hand never changes); of ``hand.moves``
        (a seat's view of a hand's moves only grows while it is played) the moves after those sent,
        with ``hand.moves_from`` their index. A shallow copy: the payload may be shared (the broadcast's,
        the hand memo's)."""
        frame = payload
        match = payload["match"]
        if self._holds_rules and "rules" in match:
            frame = {**frame, "match": {k: v for k, v in match.items() if k != "rules"}}
        self._holds_rules = True
        if "last_hand" in payload:
            last = payload["last_hand"]
            number = None if last is None else last.get("number")
            if number is not None and number == self._held_last_hand:
                frame = {k: v for k, v in frame.items() if k != "last_hand"}
            self._held_last_hand = number
        hand = payload.get("hand")
        moves = None if hand is None else hand.get("moves")
        if hand is None or moves is None or "moves_from" in hand:
            self._held_moves = None
            return frame
        held = self._held_moves
        if held is not None and held[0] == hand["number"] and 0 < held[1] <= len(moves) \
                and moves[held[1] - 1] == held[2]:
            frame = {**frame, "hand": {**hand, "moves": moves[held[1]:], "moves_from": held[1]}}
        self._held_moves = (hand["number"], len(moves), moves[-1]) if moves else None
        return frame

    def _watch_for_stale(self, payload: dict[str, Any]) -> None:
        """After sending ``payload``: if the bot is to move next, start :meth:`_stale_watch` (replacing
        the watch of an older state)."""
        current = asyncio.current_task()
        if self._stale_task is not None and self._stale_task is not current:
            self._stale_task.cancel()
        self._stale_task = None
        if not self._bot_opponent or payload["match"]["status"] != "active":
            return
        hand = payload.get("hand") or {}
        to_act = hand.get("to_act")
        if to_act == self.seat:
            return  # this player's move: nothing to wait for
        delay = conf.bot_delay_range()[1] + STALE_STATE_GRACE_S
        if to_act is None or (hand.get("number", 1) > 1 and hand.get("last_action") is None):
            delay += conf.hand_pause_seconds()  # between hands, or a new hand's first move: after the pause
        self._stale_task = self.spawn(self._stale_watch(payload["seq"], delay))

    async def _stale_watch(self, seq: int, delay: float) -> None:
        """The bot was to move after state ``seq``: when ``delay`` s pass with no newer state sent, read
        the state and send it if newer (one WARNING line: a broadcast was lost), else look again later.

        Why: a state broadcast can be lost where no error is seen (issue 9's production load test: 2
        in 9 runs at saturation, a client waited for a bot move stored 15 s earlier, until its own
        ``sync``); the server's own move must reach the table without the player asking."""
        while not self._closing and self._sent_seq == seq:
            await asyncio.sleep(delay)
            if self._closing or self._sent_seq != seq:
                return
            try:
                payload = await db_call(self._state_payload)()
            except Exception as exc:  # a database hiccup: look again after the next delay
                log.warning("match %s: stale-state read failed: %s: %s", self.match_id,
                            type(exc).__name__, exc)
                continue
            if payload is not None and payload["seq"] > seq and self._sent_seq == seq:
                log.warning("match %s: seat %s had no state after seq %s for %.1f s: sent seq %s read "
                            "from the database", self.match_id, self.seat, seq, delay, payload["seq"])
                await self._send_payload(payload)
                return

    def _state_payload(self) -> dict[str, Any] | None:
        match = selectors.match_get(match_id=self.match_id)
        if match is None or self.seat is None:
            return None
        invite_url = None
        if match.status == "waiting" and self.seat == 0 and match.invite_token:
            headers = dict(self.scope.get("headers") or [])
            host = headers.get(b"host", b"").decode("latin-1")
            scheme = "https" if self.scope.get("scheme") == "wss" else "http"
            path = reverse("games:join", args=[match.invite_token])
            invite_url = f"{scheme}://{host}{path}" if host else None
        return selectors.match_state_payload(match=match, seat=self.seat, invite_url=invite_url, full=True)

    async def _send(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=frames.dumps(payload))


class UnknownPathConsumer(AsyncWebsocketConsumer):
    """Catch-all for WebSocket paths no route knows (``/ws/nothing/``, ``/ws/match/abc/``): accept,
    send the error ``not_found`` and close with 4404, instead of failing the handshake with a
    server error (docs/protocol.md "Connection")."""

    async def connect(self) -> None:
        await self.accept()
        path = self.scope.get("path", "")
        await self.send(text_data=frames.dumps(_error("not_found", f"no WebSocket endpoint at {path!r}")))
        await self.close(code=close_codes.NOT_FOUND_CLOSE_CODE)

