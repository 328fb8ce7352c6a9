"""Issue 8 on the table's socket, through the real ASGI stack in this process: a committed move is
acknowledged whatever the broadcast does, NUL in text fields, rate limits and the socket cap, logout and
a password change closing the user's sockets."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client

from games import ratelimit, services, user_sockets
from games.models import Match, MatchEvent
from games.ratelimit import MessageLimiter, TokenBucket
from push import send as push_send
from tests.games.test_ws_errors import expect_error
from tests.games.wsclient import choose, connect, drain, recv, recv_until, send

pytestmark = pytest.mark.django_db(transaction=True)


async def friend_match(alice: Any, bob: Any) -> Match:
    table = await database_sync_to_async(services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=None
    )
    return await database_sync_to_async(services.table_join)(user=bob, token=table.invite_token)


@database_sync_to_async
def stored_ids(match_id: int) -> list[str]:
    rows = MatchEvent.objects.filter(match_id=match_id).exclude(msg_id="")
    return list(rows.values_list("msg_id", flat=True))


class BrokenLayer:
    """Stands in for the channel layer the services broadcast with: its ``group_send`` raises or hangs."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.calls = 0

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.calls += 1
        if self.mode == "raise":
            raise ConnectionError("Redis is down")
        await asyncio.sleep(3600)


class Records(logging.Handler):
    """Collects log records (pytest's caplog loses its handler when ``config.asgi`` first runs
    ``django.setup()``, which reconfigures logging)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record)


@pytest.mark.push_failure
@pytest.mark.parametrize("mode", ["raise", "hang"])
async def test_committed_move_is_acked_when_the_broadcast_fails(
    mode: str, alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Redis failure (or a stall) after the commit answered ``server_error`` ("nothing was applied") for
    a stored move: the answer is the ``ack``, the event is stored, one warning line is logged. Then the
    consumer sends the mover its new ``state`` itself (the broadcast that carries it failed): issue 14's
    fault run had a client acknowledged and then silent for 15 s, waiting for it."""
    match = await friend_match(alice, bob)
    users = {0: alice, 1: bob}
    probe, state = await connect(alice, match.pk)
    await probe.disconnect()
    mover = state["hand"]["to_act"]
    comm, state = await connect(users[mover], match.pk)
    layer = BrokenLayer(mode)
    monkeypatch.setattr(push_send, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(push_send, "PUSH_TIMEOUT", 0.3)
    records = Records()
    logging.getLogger("push.send").addHandler(records)
    await send(comm, {"type": "action", "action": choose(state["hand"]), "seq": state["seq"], "id": "m-1"})
    ack, seen = await recv_until(comm, "ack")
    assert ack == {"type": "ack", "id": "m-1", "seq": state["seq"] + 1, "repeat": False}, seen
    assert not [m for m in seen if m["type"] == "error"]
    assert await stored_ids(match.pk) == ["m-1"]
    assert layer.calls == 1
    logging.getLogger("push.send").removeHandler(records)
    warnings = [r for r in records.seen if r.getMessage().startswith(
        f"push of match.update to match_{match.pk}_seat0, match_{match.pk}_seat1, watch_{match.pk} not sent: "
        + ("ConnectionError: Redis is down" if mode == "raise" else "TimeoutError"))]
    assert len(warnings) == 1 and warnings[0].exc_info is None, records.seen
    after = await recv(comm)  # the state the failed broadcast carried, from the consumer's own read
    assert (after["type"], after["seq"]) == ("state", state["seq"] + 1), after
    assert after == await state_now(match.pk, mover)  # the whole state: this seat's cards and all
    assert await drain(comm) == []  # nothing else: no error frame after the ack
    await comm.disconnect()


@database_sync_to_async
def state_now(match_id: int, seat: int) -> dict[str, Any]:
    """``seat``'s ``state`` as the selectors build it now (what the failed broadcast would have carried)."""
    from games import selectors

    match = selectors.match_get(match_id=match_id)
    assert match is not None
    return json.loads(json.dumps(selectors.match_state_payload(match=match, seat=seat)))  # as sent


@pytest.mark.push_failure
async def test_failed_broadcast_and_failed_state_read_is_one_warning_not_an_error(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The broadcast fails and so does the consumer's own read of the state (the database went away
    too): the committed move's answer stays the ``ack`` alone (no ``server_error``: it was applied), one
    WARNING line; the client's next ``sync`` gets the state."""
    from django.db import OperationalError

    from games.consumers import MatchConsumer

    match = await friend_match(alice, bob)
    users = {0: alice, 1: bob}
    probe, state = await connect(alice, match.pk)
    await probe.disconnect()
    mover = state["hand"]["to_act"]
    comm, state = await connect(users[mover], match.pk)
    monkeypatch.setattr(push_send, "get_channel_layer", lambda: BrokenLayer("raise"))
    payload = MatchConsumer._state_payload

    def unreachable(self: Any) -> None:
        raise OperationalError("connection failed: connection refused")

    monkeypatch.setattr(MatchConsumer, "_state_payload", unreachable)
    records = Records()
    logging.getLogger("games.consumers").addHandler(records)
    await send(comm, {"type": "action", "action": choose(state["hand"]), "seq": state["seq"], "id": "m-2"})
    ack, _ = await recv_until(comm, "ack")
    assert ack == {"type": "ack", "id": "m-2", "seq": state["seq"] + 1, "repeat": False}
    assert await drain(comm, settle=0.3) == []
    logging.getLogger("games.consumers").removeHandler(records)
    lines = [r.getMessage() for r in records.seen if r.levelno >= logging.WARNING]
    assert lines == [f"match {match.pk}: state after a failed broadcast not sent: OperationalError: "
                     "connection failed: connection refused"]
    monkeypatch.setattr(MatchConsumer, "_state_payload", payload)
    await send(comm, {"type": "sync"})
    synced, _ = await recv_until(comm, "state")
    assert synced["seq"] == state["seq"] + 1
    await comm.disconnect()


async def test_nul_in_a_text_field_is_bad_field(alice: Any, bob: Any) -> None:
    """``\\u0000`` in ``id`` (action or resign) or ``action``: ``bad_field`` before any write (PostgreSQL
    refuses NUL: it was a ``server_error`` with a traceback there), and the match plays on."""
    match = await friend_match(alice, bob)
    users = {0: alice, 1: bob}
    probe, state = await connect(alice, match.pk)
    await probe.disconnect()
    mover = state["hand"]["to_act"]
    comm, state = await connect(users[mover], match.pk)
    move = choose(state["hand"])
    seq = state["seq"]
    for message in [
        {"type": "action", "action": move, "seq": seq, "id": "a\u0000b"},
        {"type": "action", "action": move, "seq": seq, "id": "\u0000"},
        {"type": "action", "action": move + "\u0000", "seq": seq, "id": "nul-2"},
        {"type": "action", "action": "\u0000" + move, "seq": seq, "id": "nul-3"},
        {"type": "resign", "id": "r\u0000"},
    ]:
        reply = await expect_error(comm, message, "bad_field", match.pk, message["id"])
        assert "NUL" in reply["message"]
    await send(comm, {"type": "action", "action": move, "seq": seq, "id": "ok-1"})
    ack, _ = await recv_until(comm, "ack")
    assert ack["id"] == "ok-1" and ack["seq"] == seq + 1
    assert await stored_ids(match.pk) == ["ok-1"]
    await comm.disconnect()


# --------------------------------------------------------------------------------------------- rate limits


def test_token_bucket_worked_example() -> None:
    bucket = TokenBucket(rate=20.0, burst=40, now=100.0)
    assert [bucket.take(100.0) for _ in range(41)] == [True] * 40 + [False]
    assert bucket.take(100.04) is False  # 0.04 s x 20/s = 0.8 of a token
    assert bucket.take(100.06) is True  # 0.8 + 0.4 = 1.2 tokens
    assert bucket.take(100.06) is False
    assert [bucket.take(200.0) for _ in range(41)] == [True] * 40 + [False]  # refilled to the burst, no more


def steady(limiter: MessageLimiter, per_second: float, seconds: float) -> list[str]:
    """The verdicts for frames sent at a steady rate after the burst was spent at time 0."""
    return [limiter.admit(n / per_second) for n in range(1, int(per_second * seconds))]


def test_flood_is_40_refusals_within_10_seconds() -> None:
    limiter = MessageLimiter(now=0.0)
    assert [limiter.admit(0.0) for _ in range(40)] == ["ok"] * 40
    assert [limiter.admit(0.0) for _ in range(39)] == ["limited"] * 39
    assert limiter.admit(0.0) == "flood"
    # 22 frames/s after the burst: 1 in 11 refused, 2 refusals/s, 40 take 20 s: limited, never closed
    slow = MessageLimiter(now=0.0)
    [slow.admit(0.0) for _ in range(40)]
    verdicts = steady(slow, 22.0, 60.0)
    assert "flood" not in verdicts and 115 <= verdicts.count("limited") <= 125
    # 30 frames/s: 1 in 3 refused, 10 refusals/s: closed after 40 refusals, 4 s in
    fast = MessageLimiter(now=0.0)
    [fast.admit(0.0) for _ in range(40)]
    verdicts = steady(fast, 30.0, 60.0)
    assert 115 <= verdicts.index("flood") <= 125 and verdicts.count("limited") == 39


def test_sync_has_its_own_tighter_bucket() -> None:
    limiter = MessageLimiter(now=0.0)
    verdicts = [(limiter.admit(0.0), limiter.admit_sync(0.0)) for _ in range(12)]
    assert verdicts == [("ok", "ok")] * 10 + [("ok", "limited")] * 2
    assert limiter.admit_sync(0.4) == "limited"  # 0.4 s x 2/s = 0.8 of a sync
    assert limiter.admit_sync(0.6) == "ok"  # 0.8 + 0.4 = 1.2
    assert limiter.admit(0.6) == "ok"  # other messages still have their own tokens


@pytest.fixture
def tight_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """5-message bursts, no refill to speak of, a flood after 10 refusals: exact counts in a test."""
    monkeypatch.setattr(ratelimit, "MESSAGES_PER_SECOND", 0.001)
    monkeypatch.setattr(ratelimit, "BURST", 5)
    monkeypatch.setattr(ratelimit, "FLOOD_REFUSALS", 10)


async def test_flood_is_rate_limited_unapplied_then_closed_4429(
    alice: Any, bob: Any, tight_limits: None
) -> None:
    match = await friend_match(alice, bob)
    users = {0: alice, 1: bob}
    probe, state = await connect(alice, match.pk)
    await probe.disconnect()
    comm, state = await connect(users[state["hand"]["to_act"]], match.pk)
    for n in range(5):
        await send(comm, {"type": "ping", "id": n})
        assert await recv(comm) == {"type": "pong", "id": n}
    move = {"type": "action", "action": choose(state["hand"]), "seq": state["seq"], "id": "late-1"}
    for n in range(10):  # the 6th..15th frames: the move itself is refused unread, then 9 more
        await send(comm, move if n == 0 else {"type": "sync"})
        reply = await recv(comm)
        assert (reply["type"], reply["code"], reply["id"]) == ("error", "rate_limited", None), reply
    assert "closing" in reply["message"]
    assert (await comm.receive_output()) == {"type": "websocket.close", "code": 4429}
    assert await stored_ids(match.pk) == []
    assert (await database_sync_to_async(Match.objects.get)(pk=match.pk)).last_seq == state["seq"]


async def test_pings_over_the_default_burst_are_refused(alice: Any, bob: Any) -> None:
    """The real limits: 200 pings at once get the burst's 40 pongs first (then one more per 1/20 s the
    server takes meanwhile), ``rate_limited`` errors, and the 40th refusal closes the socket with 4429."""
    match = await friend_match(alice, bob)
    comm, _ = await connect(alice, match.pk)
    for n in range(200):
        await send(comm, {"type": "ping", "id": n})
    seen = []
    while True:
        out = await comm.receive_output()
        if out["type"] == "websocket.close":
            assert out["code"] == 4429
            break
        seen.append(json.loads(out["text"]))
    assert seen[:40] == [{"type": "pong", "id": n} for n in range(40)]
    errors = [m for m in seen if m["type"] == "error"]
    assert len(errors) == 40 and {m["code"] for m in errors} == {"rate_limited"}
    assert seen[-1] == errors[-1] and "closing" in errors[-1]["message"]
    pong_ids = [m["id"] for m in seen if m["type"] == "pong"]
    assert pong_ids == sorted(pong_ids) and len(pong_ids) + 40 <= 200


async def test_sync_flood_is_closed_even_when_the_server_is_slow(alice: Any, bob: Any) -> None:
    """200 ``sync`` frames at once (each a state rebuilt from the database): the 10-sync burst is
    answered, then refusals, and the 40th closes the socket with 4429. Without the sync bucket a
    server slower than 20 syncs/s refilled the general bucket as fast as it worked and answered ~900
    of 2,000 over 165 s."""
    match = await friend_match(alice, bob)
    comm, _ = await connect(alice, match.pk)
    for _ in range(200):
        await send(comm, {"type": "sync"})
    seen = []
    while True:
        out = await comm.receive_output()
        if out["type"] == "websocket.close":
            assert out["code"] == 4429
            break
        seen.append(json.loads(out["text"]))
    assert [m["type"] for m in seen[:10]] == ["state"] * 10
    errors = [m for m in seen if m["type"] == "error"]
    assert len(errors) == 40 and {m["code"] for m in errors} == {"rate_limited"}
    assert "syncs per second" in errors[0]["message"]
    assert len(seen) - 40 < 40  # states answered: the burst plus what refilled while it worked


# --------------------------------------------------------------------------------------------- socket cap


def clear_slots(match_id: int, *users: Any) -> None:
    """Forget slot keys a previous test may have left for these ids (ids restart in each test)."""
    cache.delete_many([f"ws-socket:{match_id}:{u.pk}:{n}" for u in users for n in range(10)])


async def test_sixth_socket_of_a_player_is_refused_4409(alice: Any, bob: Any) -> None:
    match = await friend_match(alice, bob)
    await database_sync_to_async(clear_slots)(match.pk, alice, bob)
    comms = [(await connect(alice, match.pk))[0] for _ in range(5)]
    extra, refusal = await connect(alice, match.pk, expect_state=False)
    assert (refusal["type"], refusal["code"]) == ("error", "too_many_sockets"), refusal
    assert "at most 5" in refusal["message"]
    assert (await extra.receive_output()) == {"type": "websocket.close", "code": 4409}
    other, _ = await connect(bob, match.pk)  # the cap is per player
    await comms.pop().disconnect()
    again, state = await connect(alice, match.pk)  # a closed socket frees its slot
    assert state["type"] == "state"
    for comm in [*comms, again, other]:
        await comm.disconnect()
    assert await database_sync_to_async(cache.get_many)(
        [f"ws-socket:{match.pk}:{alice.pk}:{n}" for n in range(5)]
    ) == {}


async def test_slots_of_a_killed_process_expire(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed with sockets open never releases their slots: they expire after ``SLOT_TTL``."""
    match = await friend_match(alice, bob)
    await database_sync_to_async(clear_slots)(match.pk, alice, bob)
    monkeypatch.setattr(ratelimit, "SLOT_TTL", 1)
    acquire = database_sync_to_async(ratelimit.socket_slot_acquire)
    slots = [await acquire(match_id=match.pk, user_id=alice.pk, owner=f"dead-{n}") for n in range(5)]
    assert slots == [0, 1, 2, 3, 4]
    assert await acquire(match_id=match.pk, user_id=alice.pk, owner="dead-5") is None
    await asyncio.sleep(1.5)
    comm, state = await connect(alice, match.pk)
    assert state["type"] == "state"
    await comm.disconnect()


async def test_a_failing_cache_admits_the_socket(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = await friend_match(alice, bob)

    class BrokenCache:
        def __getattr__(self, name: str) -> Any:
            def broken(*args: Any, **kwargs: Any) -> Any:
                raise ConnectionError("Redis is down")

            return broken

    monkeypatch.setattr(ratelimit, "cache", BrokenCache())
    slot = ratelimit.socket_slot_acquire(match_id=match.pk, user_id=alice.pk, owner="x")
    assert slot == ratelimit.UNTRACKED
    comm, state = await connect(alice, match.pk)
    assert state["type"] == "state"
    await comm.disconnect()


# --------------------------------------------------------------------------------------------- session end


def login_client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


async def open_with(client: Client, match_id: int) -> tuple[Any, dict[str, Any]]:
    """A socket carrying ``client``'s session cookie (``connect`` makes a new session per socket)."""
    from config.asgi import application

    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie.encode())]
    comm = WebsocketCommunicator(application, f"/ws/match/{match_id}/", headers=headers)
    connected, _ = await comm.connect()
    assert connected
    return comm, await recv(comm)


async def expect_session_ended(comm: Any) -> None:
    msg = await recv(comm)
    assert (msg["type"], msg["code"]) == ("error", "session_ended"), msg
    assert (await comm.receive_output()) == {"type": "websocket.close", "code": 4001}


async def test_logout_closes_the_users_sockets(alice: Any, bob: Any) -> None:
    """Two tabs of alice (two sessions) and bob's: alice logs out in tab A; both her sockets get
    ``session_ended`` and close 4001 (they kept acting after logout), bob's stays. Reconnecting with the
    logged-out session is refused (4401), with her other session it works."""
    match = await friend_match(alice, bob)
    tab_a, tab_b = [await database_sync_to_async(login_client)(alice) for _ in range(2)]
    bobs = await database_sync_to_async(login_client)(bob)
    sockets = [await open_with(c, match.pk) for c in (tab_a, tab_b, bobs)]
    assert [state["type"] for _, state in sockets] == ["state"] * 3
    response = await database_sync_to_async(tab_a.post)("/accounts/logout/")
    assert response.status_code == 302
    await expect_session_ended(sockets[0][0])
    await expect_session_ended(sockets[1][0])
    assert await sockets[2][0].receive_nothing(timeout=0.3)
    again, first = await open_with(tab_a, match.pk)
    assert (first["code"], (await again.receive_output())["code"]) == ("not_authenticated", 4401)
    other, state = await open_with(tab_b, match.pk)
    assert state["type"] == "state"
    for comm in (again, other, sockets[2][0]):
        await comm.disconnect()


def test_logout_closes_the_sockets_only_after_the_session_is_gone(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The close (4001) makes the table reconnect at once: if the session still existed then, the
    reconnect was let in and a second one was needed to learn of the logout (CI: three sockets where
    one reconnect was due). logout() sends its signal before its own flush, so the receiver flushes."""
    client = login_client(alice)
    key = client.session.session_key
    seen: list[tuple[int, bool]] = []
    monkeypatch.setattr(user_sockets, "close_user_sockets",
                        lambda user_id: seen.append((user_id, Session.objects.filter(pk=key).exists())))
    assert client.post("/accounts/logout/").status_code == 302
    assert seen == [(alice.pk, False)]


async def test_password_change_closes_the_users_sockets(alice: Any, bob: Any) -> None:
    match = await friend_match(alice, bob)
    tab = await database_sync_to_async(login_client)(alice)
    comm, state = await open_with(tab, match.pk)
    assert state["type"] == "state"

    def change() -> None:
        user = type(alice).objects.get(pk=alice.pk)
        user.set_password("a new long passphrase")
        user.save()

    await database_sync_to_async(change)()
    await expect_session_ended(comm)
    again, first = await open_with(tab, match.pk)  # the old session's password hash no longer matches
    assert first["code"] == "not_authenticated"
    await again.disconnect()


async def test_a_password_changed_out_of_band_ends_the_socket_at_the_next_check(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A password stored with no signal reaching this process (here ``update()``, like
    ``manage.py changepassword`` beside the embedded profile's in-process channel layer: trial of issue 8)
    still ends the socket, at its next periodic session check; the other player's socket stays."""
    from django.contrib.auth.hashers import make_password

    monkeypatch.setattr(ratelimit, "SLOT_REFRESH", 0.2)
    match = await friend_match(alice, bob)
    tab = await database_sync_to_async(login_client)(alice)
    bobs = await database_sync_to_async(login_client)(bob)
    comm, state = await open_with(tab, match.pk)
    other, _ = await open_with(bobs, match.pk)
    assert state["type"] == "state"
    assert await comm.receive_nothing(timeout=0.6)  # checks pass while the password is unchanged
    await database_sync_to_async(
        lambda: type(alice).objects.filter(pk=alice.pk).update(password=make_password("another passphrase"))
    )()
    await expect_session_ended(comm)
    assert await other.receive_nothing(timeout=0.5)
    await other.disconnect()
