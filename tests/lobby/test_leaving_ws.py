"""The table's socket when a player leaves a match between people (docs/protocol.md "Leaving"): the
opponent's ``opponent_gone`` messages as the leaver's sockets close and reopen, the ``claim`` frame's
refusals and its ``ack`` + final ``state``. Through the real ASGI stack (session auth, groups)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from channels.db import database_sync_to_async

from engine.deck import seeded_deck
from games import services
from games.models import Match, MatchStatus, SeatPresence
from lobby.models import Playban
from tests.games.conftest import short_lived_connections  # noqa: F401
from tests.games.wsclient import connect, drain, recv_until, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _timings(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.GAMES_BOT_DELAY = (0.0, 0.0)
    settings.GAMES_HAND_PAUSE = 0.0
    settings.GAMES_CLAIM_AFTER = 60
    settings.GAMES_GONE_NOTICE_AFTER = 0  # told at once (the 10 s default: the last test)
    counter = itertools.count(5000)
    monkeypatch.setattr(services.play, "new_deck", lambda: seeded_deck(next(counter)))


@pytest.fixture
def pair(django_user_model: Any) -> tuple[Any, Any, Match]:
    alice = django_user_model.objects.create_user(username="alice", password="pw-for-tests-1")
    bob = django_user_model.objects.create_user(username="bob", password="pw-for-tests-1")
    match = services.match_create_seated(player0=alice, player1=bob, rated=True, turn_timer=600)
    return alice, bob, match


async def test_the_opponent_is_told_when_a_player_leaves_and_may_claim_after_the_wait(
    pair: tuple[Any, Any, Match], settings: Any
) -> None:
    alice, bob, match = pair
    a, _ = await connect(alice, match.pk)
    # bob has not opened the table yet: alice learns at once that he is gone (since the start)
    gone, _ = await recv_until(a, "opponent_gone")
    assert (gone["match_id"], gone["gone"], gone["claim"]) == (match.pk, True, "win")
    assert 0 <= gone["seconds"] <= 5 and 55 <= gone["claim_in"] <= 60
    b, _ = await connect(bob, match.pk)
    back, _ = await recv_until(a, "opponent_gone")
    assert (back["gone"], back["seconds"], back["claim_in"]) == (False, 0, 0)
    # bob's only socket closes: alice is told, with the 60 s wait ahead
    await b.disconnect()
    gone, _ = await recv_until(a, "opponent_gone")
    assert gone["gone"] is True and gone["seconds"] <= 5 and gone["claim_in"] >= 55
    row = await database_sync_to_async(SeatPresence.objects.get)(match=match, seat=1)
    assert row.sockets == 0
    # claiming now is too early; a malformed claim is refused; neither changes anything
    await send(a, {"type": "claim", "id": "k1"})
    refused, _ = await recv_until(a, "error")
    assert (refused["code"], refused["id"]) == ("claim_too_early", "k1")
    await send(a, {"type": "claim", "id": 7})
    refused, _ = await recv_until(a, "error")
    assert refused["code"] == "bad_field"
    assert (await database_sync_to_async(Match.objects.get)(pk=match.pk)).status == MatchStatus.ACTIVE
    # once the wait is over (the setting, not a sleep), the claim wins
    settings.GAMES_CLAIM_AFTER = 0
    await send(a, {"type": "claim", "id": "k2"})
    ack, _ = await recv_until(a, "ack")
    assert (ack["id"], ack["outcome"], ack["repeat"]) == ("k2", "win", False)
    state, _ = await recv_until(a, "state")
    while state["match"]["status"] == "active":
        state, _ = await recv_until(a, "state")
    assert (state["match"]["status"], state["match"]["winner"], state["match"]["result_reason"]) == (
        "finished", 0, "left")
    # a resend of the same claim is answered with its outcome, not applied again
    await send(a, {"type": "claim", "id": "k2"})
    again, _ = await recv_until(a, "ack")
    assert (again["outcome"], again["repeat"]) == ("win", True)
    bans = await database_sync_to_async(lambda: list(Playban.objects.values_list("user_id", "reason")))()
    assert bans == [(bob.pk, "abandoned")]
    await drain(a)
    await a.disconnect()


async def test_a_second_tab_keeps_the_player_here(pair: tuple[Any, Any, Match]) -> None:
    alice, bob, match = pair
    b1, _ = await connect(bob, match.pk)
    b2, _ = await connect(bob, match.pk)
    a, _ = await connect(alice, match.pk)
    await drain(a)
    await b1.disconnect()  # one of bob's two tabs closes: he is still here
    await send(a, {"type": "claim", "id": "c1"})
    refused, seen = await recv_until(a, "error")
    assert refused["code"] == "opponent_present"
    assert not [m for m in seen if m["type"] == "opponent_gone" and m["gone"]]
    await b2.disconnect()
    gone, _ = await recv_until(a, "opponent_gone")
    assert gone["gone"] is True
    await a.disconnect()


async def test_a_fresh_leave_is_told_only_after_the_notice_time(
    pair: tuple[Any, Any, Match], settings: Any
) -> None:
    """A reload (close, then open) is no leave: the opponent is told only once the player has been gone
    ``GAMES_GONE_NOTICE_AFTER`` s (1 s here), by the socket looking again then."""
    settings.GAMES_GONE_NOTICE_AFTER = 1
    alice, bob, match = pair
    b, _ = await connect(bob, match.pk)
    a, _ = await connect(alice, match.pk)
    await b.disconnect()
    # the first notice after the close is the one at 1 s (none at once: no 0.3 s look, which a busy
    # machine could stretch past the second)
    gone, seen = await recv_until(a, "opponent_gone")
    assert [m for m in seen if m["type"] == "opponent_gone"] == [gone]
    assert gone["gone"] is True and gone["seconds"] >= 1
    await a.disconnect()
