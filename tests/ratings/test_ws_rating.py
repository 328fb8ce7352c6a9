"""The rating change is pushed over the table's WebSocket to each seat, its own change only."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import services as games_services
from ratings.models import RatingChange
from tests.games.wsclient import connect, drain
from tests.ratings.conftest import first_moves

pytestmark = pytest.mark.django_db(transaction=True)


def _finished(seen: list[dict[str, Any]]) -> bool:
    return any(m["type"] == "state" and m["match"]["status"] == "finished" for m in seen)


def _rated(seen: list[dict[str, Any]]) -> bool:
    return _finished(seen) and any(m["type"] == "rating" for m in seen)


async def _drain(comm: Any, until: Any = _rated) -> list[dict[str, Any]]:
    """Every message until ``until(seen)`` holds (by default: the match's final state and the rating
    came; the rating may come before or after the final state: the task runs from the same commit's
    callbacks), each waited for (on a busy machine one can come later than any quiet spell), then until
    the socket stays quiet for a second (a second rating message would be among them)."""
    return await drain(comm, settle=1, until=until)


async def test_each_seat_gets_its_own_rating_message(alice: Any, bob: Any) -> None:
    table = await database_sync_to_async(games_services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=None)
    match = await database_sync_to_async(games_services.table_join)(user=bob, token=table.invite_token)
    await database_sync_to_async(first_moves)(match.pk, {0: alice, 1: bob})
    comm_a, _ = await connect(alice, match.pk)
    comm_b, _ = await connect(bob, match.pk)
    try:
        await database_sync_to_async(games_services.match_resign)(match_id=match.pk, user=bob)
        seen_a, seen_b = await _drain(comm_a), await _drain(comm_b)
        [got_a] = [m for m in seen_a if m["type"] == "rating"]  # exactly one each
        [got_b] = [m for m in seen_b if m["type"] == "rating"]
        # ("rematch": a friend match's end says where its rematch stands)
        assert seen_a[-1]["type"] in ("state", "rating", "rematch") and any(
            m["type"] == "state" and m["match"]["status"] == "finished" for m in seen_a)
    finally:
        await comm_a.disconnect()
        await comm_b.disconnect()
    assert got_a == {"type": "rating", "match_id": match.pk, "before": 1500, "after": 1520, "change": "+20",
                     "delta": 20.0, "k": 40, "opponent_rating": 1500, "won": True}
    assert got_b["after"] == 1480 and got_b["change"] == "-20" and got_b["won"] is False
    assert await database_sync_to_async(RatingChange.objects.filter(match_id=match.pk).count)() == 2


def test_match_rating_json_for_a_table_opened_later(alice: Any, bob: Any, carol: Any,
                                                    finish_friend: Any) -> None:
    from django.test import Client

    match = finish_friend(alice, bob, winner=alice)
    client = Client()
    client.force_login(alice)
    got = client.get(f"/ratings/match/{match.pk}.json")
    assert got.status_code == 200 and got.json()["change"] == "+20" and got.json()["after"] == 1520
    stranger = Client()
    stranger.force_login(carol)
    assert stranger.get(f"/ratings/match/{match.pk}.json").status_code == 404
    unrated = finish_friend(alice, bob, winner=alice, rated=False)
    missing = client.get(f"/ratings/match/{unrated.pk}.json")
    assert missing.status_code == 404 and missing.json() == {"error": "not rated", "rated": False}


async def test_a_table_opened_after_a_lost_push_reads_the_rating_once(
        alice: Any, bob: Any, monkeypatch: Any) -> None:
    """The rating task committed but its push reached nobody (an outage; the embedded profile's worker
    before ``push.forward``): a table opened afterwards reads this seat's change itself, once, with no
    polling (the consumer once read the database 13 times over 118 s waiting for it)."""
    from push.send import Outcome
    from ratings import services, tasks

    monkeypatch.setattr(tasks.rate_match, "delay", lambda match_id: None)  # the worker runs it later
    monkeypatch.setattr(services, "send_on_commit", lambda messages: Outcome())  # its push reaches nobody
    table = await database_sync_to_async(games_services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=None)
    match = await database_sync_to_async(games_services.table_join)(user=bob, token=table.invite_token)
    await database_sync_to_async(first_moves)(match.pk, {0: alice, 1: bob})
    await database_sync_to_async(games_services.match_resign)(match_id=match.pk, user=bob)
    written = await database_sync_to_async(services.match_rate)(match_id=match.pk)  # the worker, later
    assert len(written) == 2
    comm_a, first = await connect(alice, match.pk)
    try:
        seen = [first, *await _drain(comm_a, until=lambda seen: any(m["type"] == "rating" for m in seen))]
    finally:
        await comm_a.disconnect()
    assert first["match"]["status"] == "finished"
    assert [m for m in seen if m["type"] == "rating"] == [
        {"type": "rating", "match_id": match.pk, "before": 1500, "after": 1520, "change": "+20",
         "delta": 20.0, "k": 40, "opponent_rating": 1500, "won": True}]
