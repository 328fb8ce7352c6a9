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


async def test_the_consumer_sends_the_rating_when_the_workers_push_cannot_reach_it(
        alice: Any, bob: Any, monkeypatch: Any) -> None:
    """The embedded profile: the rating task runs in the Celery worker, whose in-process channel layer
    is not Daphne's, and late (a slow worker). The push never arrives; the consumer reads the rating
    change itself once it exists and sends the ``rating`` message, once."""
    import asyncio

    from games import consumers
    from ratings import push, services, tasks

    monkeypatch.setattr(consumers, "RATING_WATCH_DELAYS", (0.2,) * 40, raising=False)  # 8 s in all
    monkeypatch.setattr(tasks.rate_match, "delay", lambda match_id: None)  # the worker is slow
    monkeypatch.setattr(push, "group_send_many", lambda messages: None)  # its push reaches nobody
    table = await database_sync_to_async(games_services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=None)
    match = await database_sync_to_async(games_services.table_join)(user=bob, token=table.invite_token)
    await database_sync_to_async(first_moves)(match.pk, {0: alice, 1: bob})
    comm_a, _ = await connect(alice, match.pk)
    try:
        await database_sync_to_async(games_services.match_resign)(match_id=match.pk, user=bob)
        before = await _drain(comm_a, until=_finished)
        assert not [m for m in before if m["type"] == "rating"]  # not rated yet: nothing to send
        await asyncio.sleep(1.5)
        written = await database_sync_to_async(services.match_rate)(match_id=match.pk)  # the worker, late
        after = await _drain(comm_a, until=lambda seen: any(m["type"] == "rating" for m in seen))
        assert len(written) == 2
    finally:
        await comm_a.disconnect()
    assert [m for m in after if m["type"] == "rating"] == [
        {"type": "rating", "match_id": match.pk, "before": 1500, "after": 1520, "change": "+20",
         "delta": 20.0, "k": 40, "opponent_rating": 1500, "won": True}]
