"""Rematch over the finished match's WebSocket (docs/protocol.md "Rematch"): the offer reaches the
opponent live, the answer reaches the offerer, both learn the new match; who is still at the table is
shown; bad messages get the protocol's codes and change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import services
from games.models import Match, RematchOffer
from tests.games.wsclient import connect, drain, recv, recv_until, send

pytestmark = pytest.mark.django_db(transaction=True)


def _finished(alice: Any, bob: Any, **options: Any) -> Match:
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None,
                                  rated=False, **options)
    match = services.table_join(user=bob, token=table.invite_token or "")
    services.match_resign(match_id=match.pk, user=bob)
    match.refresh_from_db()
    return match


finished = database_sync_to_async(_finished)


async def rematch_msg(comm: Any) -> dict[str, Any]:
    """The next ``rematch`` message (acks and other messages before it are skipped)."""
    msg, _ = await recv_until(comm, "rematch")
    return msg


async def settle(comm: Any, **expected: Any) -> list[dict[str, Any]]:
    """Every message until a ``rematch`` message with the ``expected`` fields (each waited for: on a
    busy machine it can come later than any settle), then those still on their way (0.3 s)."""
    def arrived(seen: list[dict[str, Any]]) -> bool:
        return any(m["type"] == "rematch" and all(m.get(k) == v for k, v in expected.items()) for m in seen)

    return await drain(comm, settle=0.3, until=arrived)


async def latest_rematch(comm: Any, **expected: Any) -> dict[str, Any]:
    """The last ``rematch`` message once one with the ``expected`` fields came (:func:`settle`): the
    state the table shows (a first version took the messages within 0.5 s of the first one, and a
    loaded machine delivered the last one later)."""
    return [m for m in await settle(comm, **expected) if m["type"] == "rematch"][-1]


async def test_offer_accept_both_learn_the_new_match(alice: Any, bob: Any) -> None:
    match = await finished(alice, bob)
    a, first = await connect(alice, match.pk)
    assert first["match"]["status"] == "finished"
    shown = await rematch_msg(a)
    assert shown["offer"] is None and shown["can_offer"] and shown["opponent_present"] is False
    b, _ = await connect(bob, match.pk)
    assert (await rematch_msg(b))["opponent_present"] is True
    assert (await rematch_msg(a))["opponent_present"] is True  # bob came back to the table: alice sees it

    await send(a, {"type": "rematch_offer", "id": "r1"})
    ack = await recv(a)
    assert ack == {"type": "ack", "id": "r1", "seq": match.last_seq, "repeat": False}
    offered = await rematch_msg(b)  # live, on bob's socket
    assert offered["offer"] == {"by": 0, "status": "open"} and offered["can_offer"]  # bob may accept
    assert (await rematch_msg(a))["offer"] == {"by": 0, "status": "open"}

    await send(b, {"type": "rematch_accept", "id": "x1"})
    assert (await recv(b))["repeat"] is False
    new = await database_sync_to_async(Match.objects.get)(rematch_of_id=match.pk)
    for comm in (a, b):
        msg = await latest_rematch(comm, new_match={"id": new.pk, "url": f"/match/{new.pk}/"})
        assert msg["offer"] == {"by": 0, "status": "accepted"}
        assert msg["new_match"] == {"id": new.pk, "url": f"/match/{new.pk}/"}
    # a double click: acked as a repeat, answered with the same new match, nothing created
    await send(b, {"type": "rematch_accept", "id": "x2"})
    assert (await recv(b))["repeat"] is True
    assert (await rematch_msg(b))["new_match"]["id"] == new.pk
    assert await database_sync_to_async(Match.objects.filter(rematch_of_id=match.pk).count)() == 1
    # both can open the new table
    for user in (alice, bob):
        comm, state = await connect(user, new.pk)
        assert state["match"]["status"] == "active" and state["hand"] is not None
        await comm.disconnect()
    await a.disconnect()
    await b.disconnect()


async def test_decline_and_cancel_reach_the_other_player(alice: Any, bob: Any) -> None:
    match = await finished(alice, bob)
    a, _ = await connect(alice, match.pk)
    b, _ = await connect(bob, match.pk)
    await settle(a, opponent_present=True)
    await settle(b, opponent_present=True)
    await send(b, {"type": "rematch_offer"})
    assert (await recv(b)) == {"type": "ack", "id": None, "seq": match.last_seq, "repeat": False}
    assert (await rematch_msg(a))["offer"] == {"by": 1, "status": "open"}
    await send(b, {"type": "rematch_cancel"})
    cancelled = {"by": 1, "status": "cancelled"}
    assert (await latest_rematch(a, offer=cancelled))["offer"] == cancelled
    await send(b, {"type": "rematch_offer"})
    offered = {"by": 1, "status": "open"}
    assert (await latest_rematch(a, offer=offered))["offer"] == offered
    await send(a, {"type": "rematch_decline", "id": "no"})
    declined = await latest_rematch(b, offer={"by": 1, "status": "declined"})
    assert declined["offer"] == {"by": 1, "status": "declined"}
    assert not declined["can_offer"] and declined["offers_left"] == 1
    # the one who declined may still offer
    assert (await latest_rematch(a, offer={"by": 1, "status": "declined"}))["can_offer"]
    await send(b, {"type": "rematch_offer", "id": "again"})
    err = await recv(b)
    assert (err["type"], err["code"], err["id"]) == ("error", "rematch_declined", "again")
    await a.disconnect()
    await b.disconnect()


async def test_an_offer_to_a_player_who_left_says_so(alice: Any, bob: Any) -> None:
    match = await finished(alice, bob)
    a, _ = await connect(alice, match.pk)
    b, _ = await connect(bob, match.pk)
    await settle(a, opponent_present=True)
    await b.disconnect()
    # bob closed his table
    assert (await latest_rematch(a, opponent_present=False))["opponent_present"] is False
    await send(a, {"type": "rematch_offer"})
    msg = await latest_rematch(a, offer={"by": 0, "status": "open"})
    assert msg["offer"] == {"by": 0, "status": "open"} and msg["opponent_present"] is False
    # bob comes back: the offer is waiting for him
    b, _ = await connect(bob, match.pk)
    waiting = await rematch_msg(b)
    assert waiting["offer"] == {"by": 0, "status": "open"} and waiting["opponent_present"] is True
    assert (await latest_rematch(a, opponent_present=True))["opponent_present"] is True
    # alice leaves before bob answers: her offer stays, but it cannot start without her
    await a.disconnect()
    gone = await latest_rematch(b, opponent_present=False)
    assert gone["opponent_present"] is False and gone["offer"]["status"] == "open" and not gone["can_offer"]
    await send(b, {"type": "rematch_accept", "id": "late"})
    err = await recv(b)
    assert (err["type"], err["code"], err["id"]) == ("error", "opponent_left", "late")
    assert not await database_sync_to_async(Match.objects.filter(rematch_of_id=match.pk).exists)()
    await b.disconnect()


async def test_refusals_over_the_socket(alice: Any, bob: Any, house_bots: Any) -> None:
    table = await database_sync_to_async(services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=None, rated=False)
    live = await database_sync_to_async(services.table_join)(user=bob, token=table.invite_token)
    a, _ = await connect(alice, live.pk)
    for kind in ("rematch_offer", "rematch_accept", "rematch_decline", "rematch_cancel"):
        await send(a, {"type": kind, "id": kind})
        err = await recv(a)
        assert (err["type"], err["code"], err["id"]) == ("error", "match_not_over", kind)
    await send(a, {"type": "rematch_offer", "id": 7})
    assert (await recv(a))["code"] == "bad_field"  # an id is a string
    await a.disconnect()
    # a bot match: never a rematch message, and an offer is refused
    bot = await database_sync_to_async(services.match_create_vs_bot)(
        user=alice, level=1, rules_preset="classic", target=100, rated=False)
    await database_sync_to_async(services.match_resign)(match_id=bot.pk, user=alice)
    a, _ = await connect(alice, bot.pk)
    assert [m["type"] for m in await drain(a, settle=0.3)] == []
    await send(a, {"type": "rematch_offer"})
    assert (await recv(a))["code"] == "rematch_unavailable"
    await a.disconnect()
    # on the finished friend match: accepting or declining without an offer
    match = await finished(alice, bob)
    a, _ = await connect(alice, match.pk)
    await settle(a, opponent_present=False)
    for kind in ("rematch_accept", "rematch_decline", "rematch_cancel"):
        await send(a, {"type": kind})
        assert (await recv(a))["code"] == "no_rematch_offer"
    await a.disconnect()
    assert not await database_sync_to_async(RematchOffer.objects.exists)()


async def test_a_repeated_offer_is_acked_as_a_repeat(alice: Any, bob: Any) -> None:
    """A second ``rematch_offer`` while one's own offer is open, or once the rematch is made, changes
    nothing and is acked with ``repeat: true`` (as a repeated action is), then answered with where
    things stand."""
    match = await finished(alice, bob)
    a, _ = await connect(alice, match.pk)
    b, _ = await connect(bob, match.pk)
    await settle(a, opponent_present=True)
    await settle(b, opponent_present=True)
    await send(a, {"type": "rematch_offer", "id": "o1"})
    ack, _ = await recv_until(a, "ack")
    assert ack == {"type": "ack", "id": "o1", "seq": match.last_seq, "repeat": False}
    await settle(a, offer={"by": 0, "status": "open"})
    for msg_id in ("o1", "o2"):  # the same id resent, and a second click with a new id
        await send(a, {"type": "rematch_offer", "id": msg_id})
        ack, _ = await recv_until(a, "ack")
        assert ack == {"type": "ack", "id": msg_id, "seq": match.last_seq, "repeat": True}
        assert (await rematch_msg(a))["offer"] == {"by": 0, "status": "open"}
    assert await database_sync_to_async(RematchOffer.objects.filter(match_id=match.pk).count)() == 1
    await send(b, {"type": "rematch_accept", "id": "yes"})
    ack, _ = await recv_until(b, "ack")
    assert ack["repeat"] is False
    new = await database_sync_to_async(Match.objects.get)(rematch_of_id=match.pk)
    for comm in (a, b):  # an offer once the rematch is made: a repeat, answered with the new match
        await settle(comm, offer={"by": 0, "status": "accepted"})
        await send(comm, {"type": "rematch_offer", "id": "late"})
        ack, _ = await recv_until(comm, "ack")
        assert ack == {"type": "ack", "id": "late", "seq": match.last_seq, "repeat": True}
        assert (await rematch_msg(comm))["new_match"]["id"] == new.pk
    assert await database_sync_to_async(Match.objects.filter(rematch_of_id=match.pk).count)() == 1
    await a.disconnect()
    await b.disconnect()
