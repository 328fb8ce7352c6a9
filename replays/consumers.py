"""The spectator's WebSocket (``ws/watch/<id>/``): the third party's view of a public match, live.

On connect: the match must be public (``replays.selectors.check_can_watch(live=True)``), else an
``error`` then close (4404 no such match, also a private match the user does not play; 4403 not
public: a private match's own player). Then a ``watch`` message
(``replays.watch.watch_payload``) and another after every change: services send the card-free
``match.update`` to the ``watch_<id>`` group after each commit and this consumer re-reads the
spectator's view. Spectators cannot act: ``action`` / ``resign`` get ``not_seated``; ``sync`` resends the
view, ``ping`` gets ``pong``; anything else gets the protocol's error codes (``bad_json``,
``not_an_object``, ``unknown_type``, ``frame_too_large``; ``rate_limited`` past the players' own
per-connection limit, and a flood closes with 4429). Each spectator socket holds a seat
(``replays.audience``): past ``SPECTATORS_PER_IP`` sockets of one address it is refused with
``watch_ip_limit`` and close 4429, past ``SPECTATORS_PER_MATCH`` on the match with ``watch_full`` and close
4409. Seats taken and freed change the count the players and spectators see (``spectators`` message),
sent coalesced: at most one per match per ``SPECTATORS_COUNT_INTERVAL`` (:func:`count_changed`).

The analysis' WebSocket (``ws/analysis/<id>/?token=...``, :class:`AnalysisConsumer`): the replay page's
view of its computer analysis (docs/analysis.md). Same access as the replay (a finished match; its
players, a public match, or the link's token), else an ``error`` then close (4404 no such match, also
for a private match the user may not see whatever its state; 4409 not finished). Then an
``analysis`` message (``replays.analyses.analysis_payload``), a new one at each progress report the
run pushes (``analysis_<id>`` group), the result with the last.
Read-only like the spectators': ``sync`` resends, ``ping`` gets ``pong``, the same error codes and
limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.http import QueryDict

from games import conf, ratelimit
from games.selectors import match_get
from push import send as push
from push.groups import analysis_group, match_group, watch_group
from replays import analyses, analysis_driver, audience, selectors, shared_view
from web import close_codes, frames
from web.close_codes import IP_LIMIT_CLOSE_CODE, MATCH_FULL_CLOSE_CODE
from web.frame_reader import Refusal, error_frame, read_object
from web.log_context import bind_socket
from web.socket_end import EndsCleanly, outage
from web.unavailable import RefusesWhenUnavailable, describe

log = logging.getLogger(__name__)

TYPES = ("sync", "ping", "action", "resign")


class _ReadOnlySocket(EndsCleanly, RefusesWhenUnavailable):
    """A socket whose client only reads: frames are rate-limited (the players' per-connection limit,
    ``games.ratelimit``) and parsed here; a JSON object goes to :meth:`on_message`. The database down at
    connect: ``server_unavailable`` and close 4503 (``web.unavailable``). However it ends, it leaves its
    group (and a spectator its count) once (``web.socket_end``)."""

    reading: bool = False
    kinds: tuple[str, ...] = ("sync", "ping")

    match_id: int

    async def on_message(self, kind: str, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def _check(self) -> None:
        """Whether this socket may open (runs in a database thread).

        :raises ReplayRefused: it may not.
        """
        raise NotImplementedError

    def refusal(self, exc: selectors.ReplayRefused) -> tuple[str, int]:
        """The ``error`` frame's code and the close code for a refused ``exc``."""
        raise NotImplementedError

    async def open_checked(self) -> bool:
        """Accept the socket of ``url_route``'s match, then run :meth:`_check`: True when it may read;
        else the ``error`` frame and the close of :meth:`refusal` are sent, and False."""
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        bind_socket(self.scope, self.match_id)  # this socket's log records: its request id and match
        self.reading = False
        await self.accept()
        try:
            await database_sync_to_async(self._check)()
        except selectors.ReplayRefused as exc:
            code, close_code = self.refusal(exc)
            await self._send(error_frame(code, exc.message))
            await self.close(code=close_code)
            return False
        self.start_reading()
        return True

    async def on_flood(self) -> None:
        """The client flooded the socket (it is being closed with ``FLOOD_CLOSE_CODE``)."""
        self.reading = False

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.reading:
            return
        verdict = self._limiter.admit(time.monotonic())
        if verdict != "ok":  # the players' limit (games.ratelimit): a flood is refused unread
            await self._send(error_frame("rate_limited", "too many messages; this one was ignored"))
            if verdict == "flood":
                await self.close(code=close_codes.FLOOD_CLOSE_CODE)
                await self.on_flood()
            return
        message = read_object(text_data, bytes_data, max_bytes=conf.MAX_FRAME_BYTES)
        if isinstance(message, Refusal):
            await self._send(error_frame(message.code, message.message))
            return
        kind = message.get("type")
        if kind == "chat":  # quick chat is between the two players (docs/protocol.md "Quick chat")
            await self._send(error_frame("chat_players_only",
                                         "only the match's players chat, at their table"))
        elif kind not in self.kinds:
            await self._send(error_frame("unknown_type", "this socket takes sync or ping"))
        elif kind == "ping":
            msg_id = message.get("id")
            await self._send({"type": "pong", "id": msg_id if isinstance(msg_id, str) else None})
        else:
            await self.on_message(str(kind), message)

    async def disconnect(self, code: int) -> None:
        await self.end()

    async def release(self) -> None:
        if self.reading:
            await self.on_flood()

    def start_reading(self) -> None:
        self._limiter = ratelimit.MessageLimiter(time.monotonic())
        self.reading = True

    async def _send(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=frames.dumps(payload))


WATCH_POLL_SECONDS = 1.0
"""With the in-memory channel layer in a process of its own (the embedded default, Celery not eager): how
often a spectator re-reads its match's view (:func:`polls`)."""


def polls() -> bool:
    """Whether spectator sockets poll their match's view every :data:`WATCH_POLL_SECONDS` s: only with
    the in-memory channel layer and a separate worker (the embedded default). There a move made in the
    Celery worker (a tournament round it paired: the boards' first moves, and every move of a board
    between two house bots, which its timers play at ``GAMES_BOT_VS_BOT_DELAY``) sends its ``match.update``
    on the worker's own in-memory layer, which no socket hears; the poll (one shared read per match per
    second in this process, ``replays.shared_view``) sends the view when its seq moved on. On Redis every
    process's notice reaches the sockets and nothing polls."""
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return False
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    return bool(backend.endswith("InMemoryChannelLayer"))



_count_sends: dict[asyncio.Task[None], asyncio.Event] = {}
"""This process's pending coalesced count sends (:func:`count_changed`), each with its early wake-up."""


def _in_thread(fn: Any) -> Any:
    """``fn`` (a cache call, no database) in a worker thread off asgiref's single database thread."""
    return sync_to_async(fn, thread_sensitive=False)


def count_changed(match_id: int) -> None:
    """Start a coalesced count send for ``match_id`` in this process (the caller won its flag:
    ``audience.mark_changed``): one ``spectators`` message to its players and spectators after
    ``SPECTATORS_COUNT_INTERVAL`` s. The task belongs to no socket: the socket that changed the count may
    be gone by then. The flag, not this process, makes the sends one per interval: a change that wins it
    while an earlier send is still reading or sending starts its own (the earlier one cleared the flag
    before its read, so it may not include that change)."""
    wake = asyncio.Event()
    task = asyncio.create_task(_send_count_later(match_id, wake))
    _count_sends[task] = wake
    task.add_done_callback(lambda done: _count_sends.pop(done, None))


async def _send_count_later(match_id: int, wake: asyncio.Event) -> None:
    """Wait the interval (or :func:`flush_counts`), clear the flag, read the count and send it: one
    batched group send of ``{"type": "spectators.update", "count"}`` to ``match_<id>`` (the players'
    sockets) and ``watch_<id>`` (the spectators'). An outage is one WARNING line: the next change sends
    the count again, and every ``watch`` message carries it."""
    try:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(wake.wait(), audience.count_interval())
        await _in_thread(audience.clear_flag)(match_id=match_id)
        count = await _in_thread(audience.count)(match_id=match_id)
        message = {"type": "spectators.update", "count": count}
        await push.send([(match_group(match_id), message), (watch_group(match_id), message)])
    except Exception as exc:
        if not outage(exc):
            raise
        log.warning("match %s: spectator count not sent: %s", match_id, describe(exc))


async def flush_counts() -> None:
    """Send every pending count of this process now and wait for the sends (tests; a server's sends go
    out on their own after the interval)."""
    pending = dict(_count_sends)
    for wake in pending.values():
        wake.set()
    if pending:
        await asyncio.gather(*pending)


class WatchConsumer(_ReadOnlySocket):
    """One spectator's connection to one match: it holds a seat (``replays.audience``) while open."""

    last_seq: int = -1
    kinds = TYPES
    seat: audience.Seat | None = None

    async def connect(self) -> None:
        if not await self.open_checked():
            return
        client = self.scope.get("client") or ("unknown", 0)
        seat = await _in_thread(audience.admit)(match_id=self.match_id, ip=str(client[0]),
                                                member=self.channel_name)
        if not isinstance(seat, audience.Seat):
            self.reading = False
            if seat == "ip":
                await self._send(error_frame(
                    "watch_ip_limit", f"at most {audience.per_ip()} spectator connections per address: "
                    "close another page watching a match", limit=audience.per_ip()))
                await self.close(code=IP_LIMIT_CLOSE_CODE)
            else:
                await self._send(error_frame(
                    "watch_full", f"this match has {audience.per_match()} spectators already, the most it "
                    "takes: try again later", limit=audience.per_match()))
                await self.close(code=MATCH_FULL_CLOSE_CODE)
            return
        self.seat = seat
        self.spawn(self._keep_seat())
        await self.channel_layer.group_add(watch_group(self.match_id), self.channel_name)
        joined = time.monotonic()  # in the group: a move committed after a read from now on comes as a notice
        await self._seats_changed()
        await self._send_view(since=joined)
        if polls():
            self.spawn(self._poll_view())

    async def _poll_view(self) -> None:
        """Re-read the view every :data:`WATCH_POLL_SECONDS` s while the socket holds its seat (see
        :func:`polls`); sent only when its seq moved on (a read shared by the process's spectators)."""
        while self.seat is not None:
            await asyncio.sleep(WATCH_POLL_SECONDS)
            await self.step("view poll", self._send_view(since=time.monotonic() - WATCH_POLL_SECONDS))

    async def _keep_seat(self) -> None:
        """Renew the seat every ``SEAT_REFRESH`` s while the socket is open (a failure: one WARNING line;
        the next renewal re-adds it)."""
        while self.seat is not None:
            await asyncio.sleep(audience.SEAT_REFRESH)
            await self.step("seat refresh", _in_thread(audience.refresh)(self.seat))

    async def _seats_changed(self) -> None:
        """After this socket's seat was taken or freed: start the match's count send unless one is due."""
        if await _in_thread(audience.mark_changed)(match_id=self.match_id):
            count_changed(self.match_id)

    def refusal(self, exc: selectors.ReplayRefused) -> tuple[str, int]:
        return ("no_such_match", 4404) if exc.code == "no_such_match" else ("not_public", 4403)

    def _check(self) -> None:
        """:raises ReplayRefused: the match does not exist or is not public."""
        match = match_get(match_id=self.match_id)
        selectors.check_can_watch(match=match, user=self.scope.get("user"), token=None, live=True,
                                  session=self.scope.get("session"))


    async def on_flood(self) -> None:
        self.reading = False
        seat, self.seat = self.seat, None
        if seat is None:
            return
        await self.step("group discard",
                        self.channel_layer.group_discard(watch_group(self.match_id), self.channel_name))
        await self.step("seat release", _in_thread(audience.release)(seat))
        await self.step("spectator count", self._seats_changed())

    async def on_message(self, kind: str, message: dict[str, Any]) -> None:
        if kind in ("action", "resign"):
            await self._send(error_frame("not_seated", "spectators watch: they cannot play"))
        else:
            self.last_seq = -1
            await self._send_view()

    async def match_update(self, event: dict[str, Any]) -> None:
        """Group message after a commit (card-free, ``{"seq"}``): send the view at that seq or later."""
        seq = event.get("seq")
        await self._send_view(seq=seq if isinstance(seq, int) else None)

    async def spectators_update(self, event: dict[str, Any]) -> None:
        """The match's coalesced count (:func:`_send_count_later`)."""
        await self._send({"type": "spectators", "count": int(event.get("count", 0))})

    async def _send_view(self, *, seq: int | None = None, since: float | None = None) -> None:
        """Send the match's view (``replays.shared_view``: built once per process for every spectator):
        at ``seq`` or later after a move's notice, else one read after ``since`` (default: now)."""
        if seq is not None and seq <= self.last_seq:
            return  # sent already
        built = await shared_view.view(self.match_id, seq=seq,
                                       since=time.monotonic() if seq is None and since is None else since)
        if built is None or built.seq <= self.last_seq:
            return
        self.last_seq = built.seq
        await self.send(text_data=built.text)


_REFUSED_CLOSE = {
    "no_such_match": close_codes.NOT_FOUND_CLOSE_CODE,
    "not_finished": close_codes.NOT_FINISHED_CLOSE_CODE,
    "private": close_codes.PRIVATE_CLOSE_CODE,
}


class AnalysisConsumer(_ReadOnlySocket):
    """The replay page's socket for its match's computer analysis (module docstring)."""

    async def connect(self) -> None:
        if not await self.open_checked():
            return
        analysis_driver.socket_opened()
        await self.channel_layer.group_add(analysis_group(self.match_id), self.channel_name)
        await self._send_state()

    def refusal(self, exc: selectors.ReplayRefused) -> tuple[str, int]:
        return exc.code, _REFUSED_CLOSE[exc.code]

    def _check(self) -> None:
        """:raises ReplayRefused: no such match, not finished, or private without the link's token."""
        # The token read as the replay page reads request.GET (one value, exactly as sent).
        token = selectors.share_token(QueryDict(self.scope.get("query_string", b"").decode("latin-1")))
        match = match_get(match_id=self.match_id)
        selectors.check_can_watch(match=match, user=self.scope.get("user"), token=token,
                                  session=self.scope.get("session"))


    async def on_flood(self) -> None:
        self.reading = False
        await self.step("group discard", self.channel_layer.group_discard(
            analysis_group(self.match_id), self.channel_name))

    async def on_message(self, kind: str, message: dict[str, Any]) -> None:
        await self._send_state()  # sync

    async def analysis_progress(self, event: dict[str, Any]) -> None:
        """A run's progress report (group message): the counts, or the whole analysis once done."""
        if event.get("status") in ("done", "failed"):
            await self._send_state()
            return
        await self._send({"type": "analysis", "status": event.get("status"), "done": event.get("done"),
                          "total": event.get("total"), "error": "", "result": None})

    async def _send_state(self) -> None:
        payload = await database_sync_to_async(self._payload)()
        await self._send(payload)

    def _payload(self) -> dict[str, Any]:
        match = match_get(match_id=self.match_id)
        return analyses.analysis_payload(None if match is None else analyses.analysis_get(match=match))
