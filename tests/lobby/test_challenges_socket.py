"""The notices socket (``ws/notices/``, every page): a challenge reaches the challenged player's socket
live; accepting over it sends both players to the table; declining and expiry tell the challenger;
racing accepts make exactly one match; refusals and malformed frames get their codes."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.utils import timezone

from games.models import Match
from games.services import GameError
from lobby import challenge_sweep, challenges
from lobby.models import Challenge
from lobby.seeks import Settings
from tests.lobby import challenge_fixtures as fx
from tests.lobby.challenge_fixtures import recv, recv_type, ws_connect

# this part's fixtures (tests/lobby/challenge_fixtures.py), bound here for pytest to find
(alice, bob, carol, guest, lobby_clean, make_member) = (
    fx.alice,
    fx.bob,
    fx.carol,
    fx.guest,
    fx.lobby_clean,
    fx.make_member,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("lobby_clean")]

CASUAL = Settings("classic", 100, None, False)
create = database_sync_to_async(challenges.challenge_create)


async def test_anonymous_is_refused() -> None:
    comm = await ws_connect(None, "/ws/notices/")
    assert (await recv(comm))["code"] == "not_authenticated"
    assert (await comm.receive_output())["code"] == 4401
    await comm.disconnect()


async def test_challenge_reaches_the_challenged_socket_and_accept_sends_both_to_the_table(
    alice: Any, bob: Any
) -> None:
    challenged = await ws_connect(bob, "/ws/notices/")
    assert await recv(challenged) == {"type": "notices", "received": [], "sent": []}
    challenger = await ws_connect(alice, "/ws/notices/")
    await recv(challenger)
    challenge = await create(challenger=alice, challenged=bob, choice=CASUAL)
    notice = await recv_type(challenged, "challenge")
    assert (notice["challenge"]["id"], notice["challenge"]["challenger"]) == (challenge.pk, "alice")
    assert 55 <= notice["challenge"]["seconds_left"] <= 60
    assert (await recv_type(challenger, "challenge_sent"))["challenge"]["id"] == challenge.pk
    await challenged.send_to(text_data=json.dumps({"type": "accept", "challenge": challenge.pk}))
    go = await recv_type(challenged, "go")
    match = await database_sync_to_async(lambda: Match.objects.get())()
    url = f"/match/{match.pk}/"
    assert go["url"] == url
    assert (await recv_type(challenger, "go"))["url"] == url
    assert (match.player0_id, match.player1_id) == (alice.pk, bob.pk)
    for comm in (challenged, challenger):
        await comm.disconnect()


async def test_pending_challenges_come_on_connect(alice: Any, bob: Any) -> None:
    challenge = await create(challenger=alice, challenged=bob, choice=CASUAL)
    comm = await ws_connect(bob, "/ws/notices/")
    first = await recv(comm)
    assert [c["id"] for c in first["received"]] == [challenge.pk] and first["sent"] == []
    await comm.disconnect()


async def test_decline_and_expiry_tell_the_challenger(alice: Any, bob: Any, carol: Any) -> None:
    challenger = await ws_connect(alice, "/ws/notices/")
    await recv(challenger)
    declined = await create(challenger=alice, challenged=bob, choice=CASUAL)
    await recv_type(challenger, "challenge_sent")
    challenged = await ws_connect(bob, "/ws/notices/")
    await recv(challenged)
    await challenged.send_to(text_data=json.dumps({"type": "decline", "challenge": declined.pk}))
    closed = await recv_type(challenger, "challenge_closed")
    assert (closed["id"], closed["status"], closed["challenged"]) == (declined.pk, "declined", "bob")
    expiring = await create(challenger=alice, challenged=carol, choice=CASUAL)
    await recv_type(challenger, "challenge_sent")
    later = timezone.now() + timedelta(seconds=61)
    assert await database_sync_to_async(challenge_sweep.sweep_once)(now=later) == 1
    closed = await recv_type(challenger, "challenge_closed")
    assert (closed["id"], closed["status"]) == (expiring.pk, "expired")
    assert await database_sync_to_async(challenge_sweep.sweep_once)(now=later) == 0
    for comm in (challenger, challenged):
        await comm.disconnect()


async def test_refusals_and_malformed_frames(alice: Any, bob: Any) -> None:
    challenge = await create(challenger=alice, challenged=bob, choice=CASUAL)
    comm = await ws_connect(alice, "/ws/notices/")
    await recv(comm)
    await comm.send_to(text_data=json.dumps({"type": "accept", "challenge": challenge.pk}))
    refused = await recv_type(comm, "error")
    assert (refused["code"], refused["challenge"]) == ("challenge_not_found", challenge.pk)  # not hers
    for frame in (
        "{",
        "null",
        json.dumps({"type": "accept", "challenge": "x"}),
        json.dumps({"type": "go"}),
        json.dumps({"type": "accept", "challenge": 0}),
    ):
        await comm.send_to(text_data=frame)
        assert (await recv(comm))["code"] == "bad_frame", frame
    assert await database_sync_to_async(lambda: Challenge.objects.get(pk=challenge.pk).status)() == "open"
    await comm.disconnect()


async def test_a_late_decline_is_answered_and_changes_nothing(
    alice: Any, bob: Any, carol: Any, make_member: Any
) -> None:
    """A decline of a challenge accepted, expired (swept, or past due and not swept yet) or withdrawn
    meanwhile gets an ``error`` frame saying which, and the challenge and its match stay as they were."""
    accepted = await create(challenger=alice, challenged=bob, choice=CASUAL)
    match = await database_sync_to_async(challenges.challenge_accept)(user=bob, challenge_id=accepted.pk)
    expired = await create(challenger=alice, challenged=carol, choice=CASUAL)
    later = timezone.now() + timedelta(seconds=61)
    assert await database_sync_to_async(challenge_sweep.sweep_once)(now=later) == 1
    bob_socket = await ws_connect(bob, "/ws/notices/")
    carol_socket = await ws_connect(carol, "/ws/notices/", language="pt-br")
    await recv(bob_socket)
    await recv(carol_socket)
    await bob_socket.send_to(text_data=json.dumps({"type": "decline", "challenge": accepted.pk}))
    late = await recv_type(bob_socket, "error")
    assert (late["code"], late["challenge"], late["message"]) == (
        "challenge_answered", accepted.pk, "this challenge was answered already")
    await carol_socket.send_to(text_data=json.dumps({"type": "decline", "challenge": expired.pk}))
    late = await recv_type(carol_socket, "error")
    assert (late["code"], late["challenge"]) == ("challenge_expired", expired.pk)
    assert "(" not in late["message"] and late["message"] != "this challenge has expired"  # pt-BR, no code

    def rows() -> list[tuple[Any, ...]]:
        return list(Challenge.objects.order_by("pk").values_list("pk", "status", "match_id", "answered_at"))

    after = await database_sync_to_async(rows)()
    assert [r[:3] for r in after] == [(accepted.pk, "accepted", match.pk), (expired.pk, "expired", None)]
    # a challenge past due that the sweep has not reached yet: challenge_expired, and it stays open
    dave = await database_sync_to_async(make_member)("dave")
    due = await create(challenger=dave, challenged=carol, choice=CASUAL,
                       now=timezone.now() - timedelta(seconds=61))
    await carol_socket.send_to(text_data=json.dumps({"type": "decline", "challenge": due.pk}))
    assert (await recv_type(carol_socket, "error"))["code"] == "challenge_expired"
    assert (await database_sync_to_async(rows)())[:2] == after
    assert await database_sync_to_async(lambda: Challenge.objects.get(pk=due.pk).status)() == "open"
    assert await database_sync_to_async(Match.objects.count)() == 1
    for comm in (bob_socket, carol_socket):
        await comm.disconnect()


def test_racing_accepts_of_one_challenge_make_one_match(alice: Any, bob: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks: run under PostgreSQL (CI)")
    for _ in range(3):
        challenge = challenges.challenge_create(challenger=alice, challenged=bob, choice=CASUAL)
        barrier = threading.Barrier(4)
        results: list[Any] = [None] * 4

        def run(
            i: int, challenge_id: int = challenge.pk, barrier: Any = barrier, results: Any = results
        ) -> None:
            try:
                barrier.wait(timeout=10)
                if i == 3:
                    results[i] = challenges.challenge_decline(user=bob, challenge_id=challenge_id)
                else:
                    results[i] = challenges.challenge_accept(user=bob, challenge_id=challenge_id).pk
            except GameError as exc:
                results[i] = exc.code
            finally:
                connection.close()

        threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        challenge.refresh_from_db()
        if challenge.status == "accepted":
            assert set(results[:3]) == {challenge.match_id} and results[3] is False
        else:  # the decline won: every accept is refused
            assert challenge.status == "declined" and results[:3] == ["challenge_answered"] * 3 and results[3]
        # end the match so the next round may start one (the target must be free)
        Match.objects.filter(status="active").update(status="finished")
    assert Match.objects.count() == Challenge.objects.filter(status="accepted").count()


async def test_logging_out_closes_the_notices_and_lobby_sockets(alice: Any) -> None:
    from games import user_sockets
    from web.close_codes import SESSION_ENDED_CLOSE_CODE

    comms = [await ws_connect(alice, path) for path in ("/ws/notices/", "/ws/lobby/")]
    for comm in comms:
        await recv(comm)
    await database_sync_to_async(user_sockets.close_user_sockets)(alice.pk)
    for comm in comms:
        assert (await comm.receive_output())["code"] == SESSION_ENDED_CLOSE_CODE
        await comm.disconnect()


async def test_the_server_expires_a_challenge_with_no_click(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The in-process sweep (started by the first lobby or notices socket of the process) ends a challenge
    past its time and tells the challenger: nobody clicked anything, no test called the sweep."""
    from lobby import challenge_sweep as sweep_module

    monkeypatch.setattr(sweep_module, "socket_opened", real_socket_opened)
    monkeypatch.setattr(sweep_module, "SWEEP_SECONDS", 0.2)
    old = await create(
        challenger=alice, challenged=bob, choice=CASUAL, now=timezone.now() - timedelta(seconds=61)
    )
    comm = await ws_connect(alice, "/ws/notices/")
    assert (await recv(comm))["sent"] == []  # past its time: not listed
    closed = await recv_type(comm, "challenge_closed")
    assert (closed["id"], closed["status"]) == (old.pk, "expired")
    assert await database_sync_to_async(lambda: Challenge.objects.get(pk=old.pk).status)() == "expired"
    await comm.disconnect()
    sweep_module.stop_all()


real_socket_opened = challenge_sweep.socket_opened


async def test_a_go_missed_between_pages_comes_on_connect_until_the_table_is_opened(
    alice: Any, bob: Any
) -> None:
    """A BOT account accepts over HTTP at once, while the challenger's browser is between the challenge
    form's POST and the next page's notices socket: the ``go`` pushed then reaches no socket, so the
    next connect sends it, until the challenger has opened the table."""
    from accounts.models import User
    from games import presence

    await database_sync_to_async(lambda: User.objects.filter(pk=bob.pk).update(bot_account=True))()
    challenge = await create(challenger=alice, challenged=bob, choice=Settings("classic", 100, 30, False))
    match = await database_sync_to_async(challenges.challenge_accept)(user=bob, challenge_id=challenge.pk)
    url = f"/match/{match.pk}/"
    comm = await ws_connect(alice, "/ws/notices/")
    assert await recv(comm) == {"type": "notices", "received": [], "sent": []}
    assert await recv(comm) == {"type": "go", "url": url}
    await comm.disconnect()
    # the challenged (who accepted) is not sent again; nor is anyone once the table was opened
    other = await ws_connect(bob, "/ws/notices/")
    assert await recv(other) == {"type": "notices", "received": [], "sent": []}
    await other.send_to(text_data=json.dumps({"type": "ping"}))
    assert (await recv(other))["type"] == "pong"  # the next message: no go came before it
    await other.disconnect()
    # an old accept (past the answer window) is not sent
    assert await database_sync_to_async(challenges.missed_go)(
        user=alice, now=timezone.now() + timedelta(seconds=challenges.challenge_seconds() + 1)) is None
    await database_sync_to_async(presence.opened)(match_id=match.pk, seat=0)
    comm = await ws_connect(alice, "/ws/notices/")
    assert await recv(comm) == {"type": "notices", "received": [], "sent": []}
    await comm.send_to(text_data=json.dumps({"type": "ping"}))
    assert (await recv(comm))["type"] == "pong"
    await comm.disconnect()
