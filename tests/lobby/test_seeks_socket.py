"""The lobby socket (``ws/lobby/``) through the real ASGI stack: the list on connect and after each
change (coalesced), accept over the socket (both players sent to the new table), refusals and malformed
frames (``bad_frame``, nothing changes), anonymous refused, the per-account socket cap."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import ratelimit
from games.models import Match
from lobby import seek_consumers, seeks
from lobby.models import Seek
from lobby.seeks import Settings
from tests.lobby import challenge_fixtures as fx
from tests.lobby.challenge_fixtures import recv, recv_type, ws_connect
from web import close_codes

# this part's fixtures (tests/lobby/challenge_fixtures.py), bound here for pytest to find
(alice, bob, carol, lobby_clean, make_member) = (fx.alice, fx.bob, fx.carol, fx.lobby_clean, fx.make_member)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("lobby_clean")]

CASUAL = Settings("classic", 100, None, False)
create = database_sync_to_async(seeks.seek_create)


async def test_anonymous_is_refused() -> None:
    comm = await ws_connect(None, "/ws/lobby/")
    message = await recv(comm)
    assert message["code"] == "not_authenticated"
    assert (await comm.receive_output())["code"] == 4401
    await comm.disconnect()


async def test_list_on_connect_and_after_changes(alice: Any, bob: Any, carol: Any, settings: Any) -> None:
    viewer = await ws_connect(carol, "/ws/lobby/")
    assert await recv(viewer) == {"type": "seeks", "seeks": []}
    seek = await create(user=alice, choice=CASUAL, rating_min=1450)
    message = await recv_type(viewer, "seeks")
    assert [(row["id"], row["creator"], row["creator_rating"], row["mine"]) for row in message["seeks"]] == [
        (seek.pk, "alice", 1500, False)
    ]
    assert message["seeks"][0]["refusal"]["code"] == "seek_out_of_range"  # carol is 1400
    await database_sync_to_async(seeks.seek_cancel)(user=alice, seek_id=seek.pk)
    assert (await recv_type(viewer, "seeks"))["seeks"] == []
    await viewer.disconnect()


async def test_changes_are_coalesced(
    alice: Any, bob: Any, carol: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seek_consumers, "COALESCE_SECONDS", 3.0)
    viewer = await ws_connect(carol, "/ws/lobby/")
    await recv(viewer)

    def three_changes() -> None:
        first = seeks.seek_create(user=alice, choice=CASUAL)
        seeks.seek_create(user=bob, choice=CASUAL)
        seeks.seek_cancel(user=alice, seek_id=first.pk)

    await database_sync_to_async(three_changes)()
    message = await recv(viewer)
    assert [row["creator"] for row in message["seeks"]] == ["bob"]  # one message with all three changes
    assert await viewer.receive_nothing(timeout=3.5)
    await viewer.disconnect()


async def test_accept_over_the_socket_sends_both_to_the_table(alice: Any, bob: Any, carol: Any) -> None:
    creator = await ws_connect(alice, "/ws/lobby/")
    await recv(creator)
    seek = await create(user=alice, choice=CASUAL)
    mine = await recv_type(creator, "seeks")
    assert mine["seeks"][0]["mine"] is True
    acceptor = await ws_connect(bob, "/ws/lobby/")
    await recv(acceptor)
    await acceptor.send_to(text_data=json.dumps({"type": "accept", "seek": seek.pk}))
    go = await recv_type(acceptor, "go")
    match = await database_sync_to_async(Match.objects.get)()
    assert go["url"] == f"/match/{match.pk}/"
    assert (await recv_type(creator, "go"))["url"] == go["url"]
    assert (match.player0_id, match.player1_id) == (alice.pk, bob.pk)
    # the acceptor's second tab accepting too is sent to the same table, not refused
    second_tab = await ws_connect(bob, "/ws/lobby/")
    await recv(second_tab)
    await second_tab.send_to(text_data=json.dumps({"type": "accept", "seek": seek.pk}))
    assert (await recv_type(second_tab, "go"))["url"] == go["url"]
    assert await database_sync_to_async(Match.objects.count)() == 1
    await second_tab.disconnect()
    # a late acceptor is refused, and told why
    late = await ws_connect(carol, "/ws/lobby/")
    await recv(late)
    await late.send_to(text_data=json.dumps({"type": "accept", "seek": seek.pk}))
    refused = await recv_type(late, "error")
    assert (refused["code"], refused["seek"]) == ("seek_taken", seek.pk)
    for comm in (creator, acceptor, late):
        await comm.disconnect()


async def test_refusal_in_the_readers_language(alice: Any) -> None:
    seek = await create(user=alice, choice=CASUAL)
    comm = await ws_connect(alice, "/ws/lobby/", language="pt-br")
    await recv(comm)
    await comm.send_to(text_data=json.dumps({"type": "accept", "seek": seek.pk}))
    refused = await recv_type(comm, "error")
    assert refused["code"] == "seek_own"
    from django.utils import translation

    from lobby.errors import text

    with translation.override("pt-br"):
        assert refused["message"] == text("seek_own")
    await comm.disconnect()


BAD_FRAMES = [
    "not json",
    "[1, 2]",
    "42",
    json.dumps({"no": "type"}),
    json.dumps({"type": "dance"}),
    json.dumps({"type": "accept"}),
    json.dumps({"type": "accept", "seek": "7"}),
    json.dumps({"type": "accept", "seek": -3}),
    json.dumps({"type": "cancel", "seek": True}),
    json.dumps({"type": "accept", "seek": 1.5}),
    json.dumps({"type": "sync", "pad": "x" * 5000}),
    '{"type": "accept", "seek": 1\u0000}',
]


async def test_malformed_frames_get_bad_frame_and_change_nothing(alice: Any, bob: Any) -> None:
    seek = await create(user=alice, choice=CASUAL)
    comm = await ws_connect(bob, "/ws/lobby/")
    await recv(comm)
    for frame in BAD_FRAMES:
        await comm.send_to(text_data=frame)
        message = await recv(comm)
        assert message["type"] == "error" and message["code"] == "bad_frame", (frame, message)
    await comm.send_to(bytes_data=b"\x00\x01")
    assert (await recv(comm))["code"] == "bad_frame"
    await comm.send_to(text_data=json.dumps({"type": "ping", "id": "p1"}))
    assert await recv(comm) == {"type": "pong", "id": "p1"}
    assert await database_sync_to_async(
        lambda: (Seek.objects.get(pk=seek.pk).status, Match.objects.count())
    )() == ("open", 0)
    await comm.disconnect()


async def test_sockets_per_account_are_capped(alice: Any) -> None:
    comms = []
    for _ in range(ratelimit.SOCKETS_PER_USER_PER_MATCH):
        comm = await ws_connect(alice, "/ws/lobby/")
        assert (await recv(comm))["type"] == "seeks"
        comms.append(comm)
    extra = await ws_connect(alice, "/ws/lobby/")
    assert (await recv(extra))["code"] == "too_many_sockets"
    assert (await extra.receive_output())["code"] == close_codes.TOO_MANY_SOCKETS_CLOSE_CODE
    await comms.pop().disconnect()
    again = await ws_connect(alice, "/ws/lobby/")
    assert (await recv(again))["type"] == "seeks"  # a slot freed by a closed socket is taken again
    for comm in [*comms, again, extra]:
        await comm.disconnect()


async def test_an_open_lobby_socket_keeps_its_creator_present(alice: Any, settings: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from lobby import challenge_sweep

    comm = await ws_connect(alice, "/ws/lobby/")
    await recv(comm)
    seek = await create(user=alice, choice=CASUAL)
    soon = timezone.now() + timedelta(seconds=seeks.LEAVE_SECONDS - 2)
    await database_sync_to_async(Seek.objects.filter(pk=seek.pk).update)(
        created_at=soon - timedelta(seconds=60)
    )
    # the seek is old enough to end, but the socket stamped alice at connect: within the leave time
    assert await database_sync_to_async(challenge_sweep.sweep_once)(now=soon) == 0
    await comm.disconnect()
    # closed: stamped once more at the close; gone once the leave time has passed since
    much_later = timezone.now() + timedelta(seconds=seeks.LEAVE_SECONDS + 1)
    assert await database_sync_to_async(challenge_sweep.sweep_once)(now=much_later) == 1


async def test_a_burst_of_frames_is_rate_limited(alice: Any) -> None:
    comm = await ws_connect(alice, "/ws/lobby/")
    await recv(comm)
    for i in range(ratelimit.BURST + 5):
        await comm.send_to(text_data=json.dumps({"type": "ping", "id": str(i)}))
    replies = [await recv(comm) for _ in range(ratelimit.BURST + 5)]
    kinds = [reply.get("code", reply["type"]) for reply in replies]
    assert kinds.count("pong") >= ratelimit.BURST and "rate_limited" in kinds
    await comm.disconnect()


async def test_a_creator_reconnecting_just_after_the_accept_is_sent_to_the_table(
    alice: Any, bob: Any
) -> None:
    seek = await create(user=alice, choice=CASUAL)
    match = await database_sync_to_async(seeks.seek_accept)(user=bob, seek_id=seek.pk)
    comm = await ws_connect(alice, "/ws/lobby/")  # her page was reloading when the accept's go went out
    assert (await recv(comm))["type"] == "seeks"
    assert await recv(comm) == {"type": "go", "url": f"/match/{match.pk}/"}
    await comm.disconnect()
    other = await ws_connect(bob, "/ws/lobby/")  # the acceptor's own lobby: nothing to go to
    await recv(other)
    assert await other.receive_nothing(timeout=0.5)
    await other.disconnect()


async def test_a_refusal_with_a_pool_or_a_playban_is_worded_and_sent_whole(alice: Any, bob: Any) -> None:
    """Accepting while waiting in a pool, then under a playban: the lobby socket sends each refusal with
    its message and parameters in the reader's language (the pool's label, the playban's reason and
    wait: lazy strings, said as text in the frame)."""
    from datetime import timedelta

    from django.utils import timezone

    from lobby import pools
    from lobby.models import EntryStatus, Playban, Pool, PoolEntry

    seek = await create(user=alice, choice=CASUAL)

    def wait_in_a_pool() -> None:
        pool = Pool.objects.create(slug="t-50-20-casual", name="x", target=50, turn_timer_seconds=20,
                                   rated=False)
        pools.pool_join(user=bob, slug=pool.slug)

    await database_sync_to_async(wait_in_a_pool)()
    comm = await ws_connect(bob, "/ws/lobby/", language="pt-br")
    try:
        await recv(comm)
        await comm.send_to(text_data=json.dumps({"type": "accept", "seek": seek.pk}))
        refused = await recv_type(comm, "error")
        assert refused == {"type": "error", "code": "already_waiting",
                           "message": "você já está esperando na fila 50 pontos · 20 s por jogada · Casual:"
                                      " cancele essa espera primeiro",
                           "pool": "50 pontos · 20 s por jogada · Casual", "pool_slug": "t-50-20-casual",
                           "seek": seek.pk}

        def ban() -> None:
            PoolEntry.objects.filter(user=bob).update(status=EntryStatus.CANCELLED)
            Playban.objects.create(user=bob, reason="timeouts", ends_at=timezone.now() + timedelta(minutes=9))

        await database_sync_to_async(ban)()
        await comm.send_to(text_data=json.dumps({"type": "accept", "seek": seek.pk}))
        refused = await recv_type(comm, "error")
        assert (refused["code"], refused["message"], refused["wait"], refused["left"]) == (
            "playban", "você deixou o tempo da jogada acabar numa partida valendo rating: você poderá"
                       " procurar adversário de novo em 9 minutos", "9 minutos", 1)
        assert not await database_sync_to_async(Match.objects.exists)()
    finally:
        await comm.disconnect()
