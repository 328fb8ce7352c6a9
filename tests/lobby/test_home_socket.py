"""The home socket ``ws/home/`` (``home.consumers``, ``home.live``, ``web.presence``):

- coalescing: however many changes, one ``home`` message per interval slot site-wide, and only when the
  numbers changed (an injected clock: no sleeps racing a deadline);
- per-IP cap: past ``HOME_SOCKETS_PER_IP`` a socket is refused ``home_ip_limit`` / 4429, another address
  is not, and a closed socket frees its seat;
- presence: a signed-in player's socket marks them online while it is open, an anonymous one does not;
- bad frames get the protocol's codes; the ticker survives an outage and reports a bug.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from accounts.models import User
from home import live as home_live
from lobby.models import Pool, PoolEntry
from tests.browser_waits import SOCKET_WAIT_S
from tests.games.wsclient import ORIGIN, recv, session_cookie
from tests.lobby.home_pools import ensure_default_pools
from web import presence
from web.presence import PresenceMiddleware

pytestmark = pytest.mark.django_db(transaction=True)

QUIET = override_settings(HOME_INTERVAL=3600.0)
"""The ticker's own slot is an hour: within a test only the explicit ticks (injected clock) send."""


@pytest.fixture(autouse=True)
def asgi_loaded() -> None:
    import config.asgi  # noqa: F401


def communicator(ip: str = "203.0.113.9", cookie: str | None = None) -> WebsocketCommunicator:
    from config.asgi import application

    headers = [(b"origin", ORIGIN), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    comm = WebsocketCommunicator(application, "/ws/home/", headers=headers)
    comm.scope["client"] = (ip, 50000)
    return comm


async def opened(ip: str = "203.0.113.9",
                 cookie: str | None = None) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    comm = communicator(ip, cookie)
    connected, _ = await comm.connect()
    assert connected
    return comm, await recv(comm)


def join(n: int, slug: str = "50-20-casual") -> None:
    ensure_default_pools()  # a transactional test's flush empties the pools the data migration made
    pool = Pool.objects.get(slug=slug)
    start = User.objects.count()
    for i in range(n):
        user = User.objects.create(username=f"waiter{start + i}")
        PoolEntry.objects.create(pool=pool, user=user, rating=1500)


def waiting(numbers: dict[str, Any], slug: str = "50-20-casual") -> int:
    return next(p["waiting"] for p in numbers["pools"] if p["slug"] == slug)


@QUIET
async def test_ticks_coalesce_changes_into_one_message_per_slot() -> None:
    """Ten joins within one slot: one message, carrying all ten; ticks of other "processes" in the same
    slot send nothing; an unchanged tick sends nothing."""
    sent: list[dict[str, Any]] = []

    async def send(numbers: dict[str, Any]) -> None:
        sent.append(numbers)

    slot = 3600.0
    await database_sync_to_async(join)(0)  # the pool (a transactional test's flush may have emptied them)
    assert await home_live.tick(now=10 * slot, send=send)  # first read: "changed" from nothing
    for _ in range(10):
        await database_sync_to_async(join)(1)
        # Ten other processes tick within the same slot: the slot is taken, none of them reads or sends.
        assert not await home_live.tick(now=10 * slot + 0.5, send=send)
    assert len(sent) == 1 and waiting(sent[0]) == 0
    assert await home_live.tick(now=11 * slot, send=send)  # the next slot's winner sends all ten at once
    assert len(sent) == 2 and waiting(sent[1]) == 10
    assert not await home_live.tick(now=12 * slot, send=send)  # nothing changed: nothing sent
    assert len(sent) == 2


@QUIET
async def test_a_socket_gets_the_numbers_then_one_message_per_tick() -> None:
    await database_sync_to_async(join)(0)
    comm, first = await opened()
    assert first["type"] == "home" and waiting(first) == 0
    assert set(first) == {"type", "players_online", "matches_in_play", "pools", "live_match"}
    await database_sync_to_async(join)(3)
    assert await home_live.tick(now=100 * 3600.0)  # the real send: the group, through the channel layer
    update = await recv(comm)
    assert update["type"] == "home" and waiting(update) == 3
    assert await comm.receive_nothing(timeout=0.3)  # one message for three joins
    await database_sync_to_async(join)(2)
    assert not await home_live.tick(now=100 * 3600.0 + 1)  # same slot: nothing
    assert await comm.receive_nothing(timeout=0.3)
    assert await home_live.tick(now=101 * 3600.0)
    assert waiting(await recv(comm)) == 5
    await comm.send_to(text_data=json.dumps({"type": "sync"}))
    assert waiting(await recv(comm)) == 5
    await comm.disconnect()
    assert home_live.ticker.sockets == 0 and home_live.ticker.task is None


@QUIET
@override_settings(HOME_SOCKETS_PER_IP=2)
async def test_per_ip_cap() -> None:
    mine = [await opened("198.51.100.4"), await opened("198.51.100.4")]
    assert [first["type"] for _, first in mine] == ["home", "home"]
    comm = communicator("198.51.100.4")
    connected, _ = await comm.connect()
    assert connected
    error = await recv(comm)
    assert error["type"] == "error" and error["code"] == "home_ip_limit" and error["limit"] == 2
    assert await comm.receive_output() == {"type": "websocket.close", "code": 4429}
    await comm.disconnect()
    elsewhere, first = await opened("192.0.2.77")  # another address is not limited
    assert first["type"] == "home"
    await mine[0][0].disconnect()  # a closed socket frees its seat at once
    again, first = await opened("198.51.100.4")
    assert first["type"] == "home"
    for c in (mine[1][0], elsewhere, again):
        await c.disconnect()
    assert home_live.ticker.sockets == 0


def test_seats_of_a_killed_process_expire(settings: Any) -> None:
    """Seats not renewed stop counting ``SEAT_TTL`` s after their last renewal (cap 1, injected time)."""
    from replays import audience

    settings.HOME_SOCKETS_PER_IP = 1
    assert home_live.admit(ip="10.2.2.2", member="dead", now=1000.0) is not None
    assert home_live.admit(ip="10.2.2.2", member="new", now=1000.0 + audience.SEAT_TTL - 1) is None
    assert home_live.admit(ip="10.2.2.2", member="new", now=1000.0 + audience.SEAT_TTL + 1) is not None


@QUIET
async def test_bad_frames_are_refused_with_codes() -> None:
    comm, _ = await opened()
    for frame, code in (("{", "bad_json"), ("[1]", "not_an_object"), ('{"type": "join"}', "unknown_type"),
                        ("x" * 70_000, "frame_too_large")):
        await comm.send_to(text_data=frame)
        reply = await recv(comm)
        assert reply["type"] == "error" and reply["code"] == code, (frame[:10], reply)
    await comm.send_to(text_data=json.dumps({"type": "ping", "id": "p1"}))
    assert await recv(comm) == {"type": "pong", "id": "p1"}
    await comm.disconnect()


@QUIET
async def test_a_members_socket_marks_them_online() -> None:
    user = await database_sync_to_async(User.objects.create_user)("online-ana", password="x")
    cookie = await database_sync_to_async(session_cookie)(user)
    anonymous, first = await opened()
    assert first["players_online"] == 0
    comm, first = await opened(cookie=cookie)
    assert first["players_online"] == 1  # marked at the accept, before the first numbers were read
    await comm.disconnect()
    await anonymous.disconnect()
    assert await database_sync_to_async(presence.count)() == 1  # still online for ONLINE_SECONDS


async def test_presence_middleware_marks_every_touch_seconds() -> None:
    """The middleware's keeper marks at the accept and after each TOUCH_SECONDS (injected sleep), stops
    with the socket; a bot's or an anonymous socket is never marked."""
    user = await database_sync_to_async(User.objects.create)(username="kept")
    marks: list[int] = []
    naps: list[float] = []
    release = asyncio.Event()
    napped = asyncio.Event()

    async def sleep(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 3:
            napped.set()
            await asyncio.Event().wait()  # the third nap lasts until the socket ends

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept"})
        await release.wait()

    async def send(message: dict[str, Any]) -> None:
        pass

    from web import presence as presence_module

    original = presence_module.touch
    presence_module.touch = lambda user_id, **kw: marks.append(user_id)  # type: ignore[assignment]
    try:
        app = PresenceMiddleware(inner, sleep=sleep)
        running = asyncio.create_task(app({"type": "websocket", "user": user}, None, send))
        await asyncio.wait_for(napped.wait(), SOCKET_WAIT_S)
        assert marks == [user.pk] * 3 and naps == [presence.TOUCH_SECONDS] * 3
        release.set()
        await asyncio.wait_for(running, SOCKET_WAIT_S)
        bot = await database_sync_to_async(User.objects.create)(username="bot9", is_bot=True, bot_level=3)
        from django.contrib.auth.models import AnonymousUser

        for who in (bot, AnonymousUser()):
            await asyncio.wait_for(PresenceMiddleware(inner, sleep=sleep)({"type": "websocket", "user": who},
                                                                          None, send), SOCKET_WAIT_S)
        assert marks == [user.pk] * 3
    finally:
        presence_module.touch = original  # type: ignore[assignment]


def test_on_redis_presence_seats_and_slots_are_shared(redis_url: str) -> None:
    """The production path: marks, seats (the Lua admission) and interval slots live in Redis, so every
    Daphne process counts and claims against the same keys (worked example with injected times)."""
    import secrets

    caches = {"default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url,
        "KEY_PREFIX": f"gin-test-{secrets.token_hex(6)}",
    }}
    with override_settings(CACHES=caches, HOME_SOCKETS_PER_IP=2, HOME_INTERVAL=1.0):
        for user_id, at in ((1, 1000.0), (2, 1030.0), (1, 1050.0), (3, 935.0)):
            presence.touch(user_id, now=at)
        assert presence.count(now=1050.0) == 2  # 1 (twice) and 2; 3 marked 115 s before
        assert presence.count(now=1095.0) == 1  # cutoff 1035: 2's mark at 1030 is too old
        a = home_live.admit(ip="10.9.9.9", member="p1-a", now=1000.0)
        b = home_live.admit(ip="10.9.9.9", member="p2-b", now=1000.0)
        assert a is not None and a.tracked and b is not None
        assert home_live.admit(ip="10.9.9.9", member="p2-c", now=1000.0) is None
        home_live.release(b)
        assert home_live.admit(ip="10.9.9.9", member="p2-c", now=1000.0) is not None
        assert home_live.claim_slot(2000.2) and not home_live.claim_slot(2000.9)  # one winner per slot
        assert home_live.claim_slot(2001.0)


@QUIET
async def test_a_new_socket_reuses_a_fresh_read() -> None:
    """``current``: the ticker's read when at most two intervals old (no queries per connecting socket),
    else a new read (injected clock; HOME_INTERVAL is an hour here)."""
    await database_sync_to_async(join)(1)
    t = 50 * 3600.0
    assert await home_live.tick(now=t, send=_discard)
    await database_sync_to_async(join)(1)  # not read yet
    assert waiting(await home_live.current(now=t + 3600.0)) == 1  # the tick's read, one interval old
    assert waiting(await home_live.current(now=t + 3 * 3600.0)) == 2  # too old: read again
    assert waiting(await home_live.current(now=t - 1.0)) == 2  # a read from the future is not trusted


async def _discard(numbers: dict[str, Any]) -> None:
    pass


async def test_the_ticker_survives_an_outage_and_reports_a_bug(monkeypatch: pytest.MonkeyPatch,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """Redis down during a tick: one WARNING, and the next tick runs; a bug ends the ticker with an ERROR
    (the next socket to open starts a new one). Ticks are counted, not timed (limits are generous)."""
    import logging

    import redis.exceptions

    calls: list[str] = []
    second = asyncio.Event()
    outcomes = iter([redis.exceptions.ConnectionError("down"), None, ValueError("a bug")])

    async def fake_tick() -> bool:
        outcome = next(outcomes)
        calls.append(type(outcome).__name__)
        if outcome is not None:
            raise outcome
        second.set()
        return False

    monkeypatch.setattr(home_live, "tick", fake_tick)
    ticker = home_live.Ticker()
    with override_settings(HOME_INTERVAL=0.01), caplog.at_level(logging.WARNING, logger="home.live"):
        ticker.opened()
        await asyncio.wait_for(second.wait(), SOCKET_WAIT_S)
        assert ticker.task is not None
        await asyncio.wait([ticker.task], timeout=SOCKET_WAIT_S)  # the third tick's bug ends it
        assert calls == ["ConnectionError", "NoneType", "ValueError"]
        await asyncio.sleep(0)  # the done callback runs
    records = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "home.live"]
    assert records[0][0] == "WARNING" and "home numbers not sent" in records[0][1]
    assert records[1] == ("ERROR", "home ticker stopped")


@QUIET
async def test_a_send_lost_to_an_outage_is_made_at_the_next_slot() -> None:
    """The numbers count as sent only once the send succeeded: a failed send is tried again at the
    next slot (not forgotten because they were read already)."""
    import redis.exceptions

    await database_sync_to_async(join)(1)
    sent: list[dict[str, Any]] = []

    async def failing(numbers: dict[str, Any]) -> None:
        raise redis.exceptions.ConnectionError("down")

    async def send(numbers: dict[str, Any]) -> None:
        sent.append(numbers)

    with pytest.raises(redis.exceptions.ConnectionError):
        await home_live.tick(now=70 * 3600.0, send=failing)
    assert await home_live.tick(now=71 * 3600.0, send=send) and waiting(sent[0]) == 1
    assert not await home_live.tick(now=72 * 3600.0, send=send)  # sent now: not again
