"""The pool socket (``ws/pool/<slug>/``) through the real ASGI stack (origin check, session auth):
refusals and their close codes (in the reader's language), the ``waiting`` frames, ``paired`` to both
players after a wave, ``cancel`` and ``left``, a disconnect recorded, bad frames, the per-account slots,
and the wave loop a pool socket starts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from games.models import Match
from lobby import pools, waves
from lobby.models import EntryStatus, PoolEntry
from tests.browser_waits import SOCKET_WAIT_S
from tests.games.wsclient import ORIGIN, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def manual_waves(monkeypatch: pytest.MonkeyPatch) -> None:
    """No wave loop: the test runs each wave itself."""
    monkeypatch.setattr(waves, "ensure_running", lambda: False)


async def _open(user: Any, path: str, language: str = "en") -> WebsocketCommunicator:
    from config.asgi import application

    headers = [(b"origin", ORIGIN), (b"host", b"testserver"), (b"accept-language", language.encode())]
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", cookie.encode()))
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect()
    assert connected
    return comm


async def _recv(comm: WebsocketCommunicator, timeout: float = SOCKET_WAIT_S) -> dict[str, Any]:
    return json.loads(await comm.receive_from(timeout=timeout))


async def _until(comm: WebsocketCommunicator, kind: str, timeout: float = SOCKET_WAIT_S) -> dict[str, Any]:
    while True:
        frame = await _recv(comm, timeout)
        if frame["type"] == kind:
            return frame


async def _closed(comm: WebsocketCommunicator) -> int:
    while True:
        output = await comm.receive_output()
        if output["type"] == "websocket.close":
            return int(output.get("code", 1000))


async def _refused(user: Any, path: str, language: str = "en") -> tuple[dict[str, Any], int]:
    comm = await _open(user, path, language)
    try:
        return await _recv(comm), await _closed(comm)
    finally:
        await comm.disconnect()


async def test_refusals_on_connect(
    alice: Any, bob: Any, guest: Any, rated_pool: Any, casual_pool: Any, manual_waves: None,
) -> None:
    path = f"/ws/pool/{rated_pool.slug}/"
    frame, close = await _refused(None, path)
    assert (frame["code"], close) == ("not_authenticated", 4401)
    frame, close = await _refused(guest, path)
    assert frame == {"type": "error", "code": "guest_rated",
                     "message": "guests play casual games only: sign up to play rated"} and close == 4403
    frame, close = await _refused(alice, "/ws/pool/nope/", "pt-BR")
    assert (frame["code"], frame["message"], close) == ("no_such_pool", "não há fila aberta nope", 4404)
    frame, close = await _refused(guest, path, "pt-BR")
    assert (frame["message"], close) == (
        "convidados jogam apenas partidas casuais: cadastre-se para jogar valendo rating", 4403)
    frame, close = await _refused(alice, "/ws/pool/nope/")
    assert (frame["code"], frame["message"], close) == ("no_such_pool", "there is no open pool nope", 4404)
    for query in ("?bot=2", "?bot=1&x=1", "?bot=1&bot=0", "?%ff=1"):
        frame, close = await _refused(alice, path + query)
        assert (frame["code"], close) == ("bad_frame", 4400), query
    comm = await _open(alice, path)
    try:
        assert (await _recv(comm))["type"] == "waiting"
        frame, close = await _refused(alice, f"/ws/pool/{casual_pool.slug}/")
        assert frame == {  # it names the pool the player waits in (lobby.labels.pool_label), and its slug
            "type": "error", "code": "already_waiting", "pool": rated_pool.slug,
            "message": "you are already waiting in the pool 100 points · 60 s a move · Rated: cancel that"
                       " first",
        } and close == 4409
    finally:
        await comm.disconnect()
    match = await database_sync_to_async(Match.objects.create)(
        rules={}, player0=bob, player1=alice, status="active", rated=True, scores=[0, 0],
        timeout_strikes=[0, 0])
    frame, close = await _refused(bob, path)
    assert frame == {"type": "error", "code": "match_in_progress",
                     "message": f"finish your rated match {match.pk} first"} and close == 4409


async def test_waiting_then_paired_both_sockets(
    alice: Any, bob: Any, rated_pool: Any, manual_waves: None,
) -> None:
    path = f"/ws/pool/{rated_pool.slug}/"
    first = await _open(alice, path)
    second = None
    try:
        assert await _recv(first) == {"type": "waiting", "pool": rated_pool.slug, "waited": 0, "waiting": 1}
        second = await _open(bob, path)
        assert (await _recv(second))["waiting"] == 2
        assert (await _until(first, "waiting"))["waiting"] == 2  # the count changed: sent at once
        wave = await database_sync_to_async(pools.run_wave)(pool_id=rated_pool.pk)
        [(_, _, match_id)] = wave.pairs
        to_alice = await _until(first, "paired")
        to_bob = await _until(second, "paired")
        assert to_alice == {"type": "paired", "match": match_id, "url": f"/match/{match_id}/",
                            "opponent": {"name": "bob", "rating": 1500}, "bot": False}
        assert to_bob["opponent"] == {"name": "alice", "rating": 1500} and to_bob["match"] == match_id
        assert await _closed(first) == 1000 and await _closed(second) == 1000
        # a reload of the waiting page after the pairing is sent to the match again
        again = await _open(alice, path)
        try:
            assert (await _recv(again))["match"] == match_id
        finally:
            await again.disconnect()
    finally:
        await first.disconnect()
        if second is not None:
            await second.disconnect()


async def test_cancel_and_bad_frames(alice: Any, rated_pool: Any, manual_waves: None) -> None:
    comm = await _open(alice, f"/ws/pool/{rated_pool.slug}/?bot=1")
    try:
        assert (await _recv(comm))["type"] == "waiting"
        entry = await database_sync_to_async(PoolEntry.objects.get)()
        assert entry.bot_fallback
        only_cancel = 'this socket takes only {"type": "cancel"}'
        for bad, detail in (("nope", "the frame is not valid JSON"), ("[1]", only_cancel),
                            ('{"type": "join"}', only_cancel),
                            ("x" * 5000, "frames are limited to 4096 bytes")):
            await comm.send_to(text_data=bad)
            assert await _until(comm, "error") == {"type": "error", "code": "bad_frame",
                                                   "message": f"malformed message: {detail}"}
        await comm.send_to(bytes_data=b"\x00")
        assert (await _until(comm, "error"))["message"] == "malformed message: send JSON text frames"
        assert (await database_sync_to_async(PoolEntry.objects.get)()).status == EntryStatus.WAITING
        await comm.send_to(text_data=json.dumps({"type": "cancel"}))
        assert await _until(comm, "left") == {"type": "left", "reason": "cancelled"}
        assert await _closed(comm) == 1000
        assert (await database_sync_to_async(PoolEntry.objects.get)()).status == EntryStatus.CANCELLED
    finally:
        await comm.disconnect()


async def test_a_disconnect_is_recorded_and_the_wave_ends_the_wait(
    alice: Any, rated_pool: Any, manual_waves: None, settings: Any,
) -> None:
    settings.LOBBY_LEAVE_AFTER = 5.0
    comm = await _open(alice, f"/ws/pool/{rated_pool.slug}/")
    assert (await _recv(comm))["type"] == "waiting"
    await comm.disconnect()
    entry = await database_sync_to_async(PoolEntry.objects.get)()
    assert entry.status == EntryStatus.WAITING and entry.disconnected_at is not None
    at = entry.disconnected_at + timezone.timedelta(seconds=5)
    wave = await database_sync_to_async(pools.run_wave)(pool_id=rated_pool.pk, now=at)
    assert wave.left == [(entry.pk, "disconnected")]


async def test_per_account_socket_slots(
    alice: Any, rated_pool: Any, manual_waves: None, settings: Any,
) -> None:
    settings.LOBBY_POOL_SOCKETS_PER_USER = 2
    path = f"/ws/pool/{rated_pool.slug}/"
    open_ = [await _open(alice, path) for _ in range(2)]
    try:
        for comm in open_:
            assert (await _recv(comm))["type"] == "waiting"  # the second tab resumes the same wait
        frame, close = await _refused(alice, path)
        assert frame == {"type": "error", "code": "pool_sockets",
                         "message": "at most 2 pool connections per player: close another tab"}
        assert close == 4409
    finally:
        for comm in open_:
            await comm.disconnect()
    assert await database_sync_to_async(PoolEntry.objects.count)() == 1


async def test_the_wave_loop_started_by_a_pool_socket_pairs_them(
    alice: Any, bob: Any, rated_pool: Any, settings: Any,
) -> None:
    settings.LOBBY_WAVE_SECONDS = 0.2
    path = f"/ws/pool/{rated_pool.slug}/"
    first = await _open(alice, path)
    second = await _open(bob, path)
    try:
        assert (await _recv(first))["type"] == "waiting"  # joined: the loop runs from here on
        assert waves.running()
        to_alice = await _until(first, "paired")
        to_bob = await _until(second, "paired")
        assert to_alice["match"] == to_bob["match"]
        assert await database_sync_to_async(Match.objects.filter(pk=to_alice["match"], rated=True).exists)()
    finally:
        await first.disconnect()
        await second.disconnect()
        await waves.stop()
        await asyncio.sleep(0)


async def test_per_address_socket_slots(
    alice: Any, bob: Any, rated_pool: Any, manual_waves: None, settings: Any,
) -> None:
    settings.LOBBY_POOL_SOCKETS_PER_IP = 1
    path = f"/ws/pool/{rated_pool.slug}/"
    first = await _open(alice, path)
    try:
        assert (await _recv(first))["type"] == "waiting"
        frame, close = await _refused(bob, path)  # the same address (the communicator's client)
        assert frame == {"type": "error", "code": "pool_ip_limit",
                         "message": "at most 1 pool connections per address: close another tab"}
        assert close == 4429
    finally:
        await first.disconnect()
    # closing frees the address's slot at once
    again = await _open(bob, path)
    try:
        assert (await _recv(again))["type"] == "waiting"
    finally:
        await again.disconnect()


async def test_bot_fallback_is_sent_as_paired_with_a_bot(
    alice: Any, house_bots: Any, rated_pool: Any, manual_waves: None,
) -> None:
    comm = await _open(alice, f"/ws/pool/{rated_pool.slug}/?bot=1")
    try:
        assert (await _recv(comm))["type"] == "waiting"
        entry = await database_sync_to_async(PoolEntry.objects.get)()
        at = entry.joined_at + timezone.timedelta(seconds=30)
        await database_sync_to_async(pools.pool_seen)(entry_id=entry.pk, now=at)  # its heartbeat
        wave = await database_sync_to_async(pools.run_wave)(pool_id=rated_pool.pk, now=at)
        [(_, match_id)] = wave.bots
        match = await database_sync_to_async(Match.objects.select_related("player1").get)(pk=match_id)
        frame = await _until(comm, "paired")
        assert frame == {"type": "paired", "match": match_id, "url": f"/match/{match_id}/",
                         "opponent": {"name": match.player1.public_name,
                                      "rating": round(pools.bot_rating(match.bot_level))},
                         "bot": True}
        assert match.player1.is_bot and match.rated
    finally:
        await comm.disconnect()


async def test_a_flood_is_refused_then_closed_and_the_wait_leaves_like_any_lost_socket(
    alice: Any, rated_pool: Any, manual_waves: None,
) -> None:
    comm = await _open(alice, f"/ws/pool/{rated_pool.slug}/")
    try:
        assert (await _recv(comm))["type"] == "waiting"
        for _ in range(90):
            await comm.send_to(text_data='{"type": "x"}')
        codes: list[str] = []
        while True:
            output = await comm.receive_output()
            if output["type"] == "websocket.close":
                assert output["code"] == 4429
                break
            frame = json.loads(output["text"])
            if frame["type"] == "error":
                codes.append(frame["code"])
        # the bucket's 40 frames (and any it refilled meanwhile, 20 a second) were read, each a bad_frame;
        # then the 40th refusal within 10 s closed it
        assert codes[:40] == ["bad_frame"] * 40 and set(codes) == {"bad_frame", "pool_rate_limited"}
        assert codes.count("pool_rate_limited") == 40
    finally:
        await comm.disconnect()
    entry = await database_sync_to_async(PoolEntry.objects.get)()
    assert entry.status == EntryStatus.WAITING and entry.disconnected_at is not None


async def test_a_playban_refusal_says_why_and_how_long_in_the_readers_language(
    alice: Any, bob: Any, rated_pool: Any, manual_waves: None,
) -> None:
    """The pool socket's ``playban`` refusal names the reason, the rated matches left in 24 h and the
    wait, in English and pt-BR, with the numbers beside it; nothing is written."""
    from datetime import timedelta

    from lobby.models import Playban

    def ban() -> None:
        now = timezone.now()
        for minutes_ago, length in ((90, 15), (1, 15)):  # two within 24 h; the second ends in 14 min
            match = Match.objects.create(rules={}, player0=alice, player1=bob, status="finished", rated=True,
                                         scores=[0, 0], timeout_strikes=[0, 0])
            Playban.objects.create(user=alice, match=match, reason="abandoned",
                                   ends_at=now - timedelta(minutes=minutes_ago - length, seconds=-30))
            Playban.objects.filter(match=match).update(created_at=now - timedelta(minutes=minutes_ago))

    await database_sync_to_async(ban)()
    path = f"/ws/pool/{rated_pool.slug}/"
    frame, close = await _refused(alice, path)
    assert frame == {
        "type": "error", "code": "playban",
        "message": "you left a rated match (2 rated matches left in the last 24 hours): you can pair again"
                   " in 15 minutes",
        "playban": {"reason": "abandoned", "left": 2, "minutes": 15},
    } and close == 4403
    frame, close = await _refused(alice, path, "pt-BR")
    assert frame["message"] == ("você abandonou uma partida valendo rating (2 partidas valendo rating"
                                " abandonadas nas últimas 24 horas): você poderá procurar adversário de novo"
                                " em 15 minutos") and close == 4403
    assert not await database_sync_to_async(PoolEntry.objects.exists)()
