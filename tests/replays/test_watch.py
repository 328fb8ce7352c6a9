"""Spectating: over many seeded hands the spectator's ``watch`` payload (the exact dict the consumer sends)
never names a concealed card of either player nor any stock card while the hand is in play; the socket
refuses private and unknown matches, refuses every action with the protocol's codes, sends a fresh view
after each move, and the players learn how many watch."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from engine.cards import card_name
from engine.spectator import concealed_cards
from games import services
from games.live import cache_clear, load
from games.models import Match
from replays.models import ReplayAccess
from replays.watch import watch_payload
from tests.games.test_ws_friend_match import strings
from tests.games.wsclient import ORIGIN, choose, connect, recv

pytestmark = pytest.mark.django_db(transaction=True)

HANDS = 20


def public_friend_table(alice: Any, bob: Any, preset: str, target: int = 100) -> Match:
    table = services.table_create(
        user=alice, rules_preset=preset, target=target, turn_timer=None, rated=False
    )
    services.table_join(user=bob, token=table.invite_token)
    ReplayAccess.objects.create(match=table, public=True)
    return Match.objects.select_related("player0", "player1").get(pk=table.pk)


def leaked(payload: dict[str, Any], secret: set[str]) -> set[str]:
    public = {k: v for k, v in payload.items() if k != "last_hand"}  # the ended hand is public
    return {tok for s in strings(public) for tok in s.split()} & secret


@pytest.mark.parametrize("preset", ["classic", "oklahoma"])
def test_no_concealed_card_in_any_spectator_payload(
    alice: Any, bob: Any, seeded_decks: Any, preset: str
) -> None:
    table = public_friend_table(alice, bob, preset)
    Match.objects.filter(pk=table.pk).update(rules={**table.rules, "target": 10_000})  # HANDS hands
    cache_clear()
    users = {0: alice, 1: bob}
    checked = 0
    for step in range(100_000):
        match = Match.objects.select_related("player0", "player1").get(pk=table.pk)
        state = load(match).state
        if state.hand_number > HANDS:
            break
        hand = state.hand
        assert hand is not None and not hand.is_over
        payload = watch_payload(match=match)
        secret = concealed_cards(hand)
        assert not leaked(payload, secret), (step, leaked(payload, secret))
        shown = payload["hand"]
        assert shown["card_counts"] == [len(h) for h in hand.hands]
        assert shown["stock_count"] == len(hand.stock)
        assert "deck" not in shown and "cards" not in shown
        # what both players have shown is there: the pile and the cards taken from it
        known = set(shown["known"][0]) | set(shown["known"][1])
        assert known == {card_name(c) for k in hand.known for c in k}
        checked += 1
        seat = state.current_player
        from games import selectors

        mine = selectors.match_state_payload(match=match, seat=seat)["hand"]
        services.match_apply_action(match_id=match.pk, user=users[seat], action_text=choose(mine),
                                    client_seq=match.last_seq, msg_id=f"m{step}")
    assert checked > HANDS * 10


def test_watch_page_refuses_private_and_redirects_a_finished_match(
    alice: Any, bob: Any, seeded_decks: Any, client: Any
) -> None:
    table = services.table_create(
        user=alice, rules_preset="classic", target=50, turn_timer=None, rated=False
    )
    services.table_join(user=bob, token=table.invite_token)
    # a private match: to a stranger, no such match (issue 20, finding 7); its player is told it is private
    assert client.get(reverse("replays:watch", args=[table.pk])).status_code == 404
    missing = client.get("/watch/999999/")
    assert missing.status_code == 404
    # the watch page's own words: not the replay's "no finished match"
    assert "There is no match with this number to watch." in missing.content.decode()
    assert "finished" not in missing.content.decode().split("<main", 1)[1].split("</main>", 1)[0]
    client.force_login(alice)
    assert client.get(reverse("replays:watch", args=[table.pk])).status_code == 403
    client.logout()
    ReplayAccess.objects.create(match=table, public=True)
    page = client.get(reverse("replays:watch", args=[table.pk]))
    assert page.status_code == 200
    assert page.context["state"]["hand"]["card_counts"] in ([10, 11], [11, 10], [10, 10])
    assert client.get(reverse("replays:replay", args=[table.pk])).status_code == 409  # live: no replay
    services.match_resign(match_id=table.pk, user=bob)
    finished = client.get(reverse("replays:watch", args=[table.pk]))
    assert finished.url == reverse("replays:replay", args=[table.pk])


async def watcher(match_id: int) -> WebsocketCommunicator:
    from config.asgi import application

    comm = WebsocketCommunicator(application, f"/ws/watch/{match_id}/",
                                 headers=[(b"origin", ORIGIN), (b"host", b"testserver")])
    connected, _ = await comm.connect()
    assert connected
    return comm


async def test_spectator_socket_sees_moves_cannot_act_and_is_counted(
    alice: Any, bob: Any, seeded_decks: Any
) -> None:
    table = await database_sync_to_async(public_friend_table)(alice, bob, "classic")
    player, first = await connect(alice, table.pk)
    spectator = await watcher(table.pk)
    got = {m["type"]: m for m in [await recv(spectator), await recv(spectator)]}
    view = got["watch"]
    assert view["seq"] == first["seq"] and got["spectators"]["count"] == 1
    assert (await recv(player)) == {"type": "spectators", "count": 1}
    # spectators cannot act; bad frames get the protocol's codes
    for frame, code in (
        ({"type": "action", "action": "pass", "seq": view["seq"], "id": "x"}, "not_seated"),
        ({"type": "resign"}, "not_seated"),
        ("{not json", "bad_json"),
        ("[1]", "not_an_object"),
        ({"type": "hello"}, "unknown_type"),
    ):
        await spectator.send_to(text_data=frame if isinstance(frame, str) else json.dumps(frame))
        answer = await recv(spectator)
        assert answer["type"] == "error" and answer["code"] == code, (frame, answer)
    await spectator.send_to(text_data=json.dumps({"type": "ping", "id": "p"}))
    assert await recv(spectator) == {"type": "pong", "id": "p"}
    # a move by a player: the spectator gets the new view, with no concealed card
    seat = first["hand"]["to_act"]

    def move() -> None:
        from games import selectors

        match = Match.objects.select_related("player0", "player1").get(pk=table.pk)
        mine = selectors.match_state_payload(match=match, seat=seat)["hand"]
        services.match_apply_action(match_id=table.pk, user=alice if seat == 0 else bob,
                                    action_text=choose(mine), client_seq=match.last_seq, msg_id="a1")

    await database_sync_to_async(move)()
    update = await recv(spectator)
    while update["type"] != "watch":
        update = await recv(spectator)
    assert update["seq"] > view["seq"]
    match = await database_sync_to_async(lambda: Match.objects.select_related("player0", "player1").get(
        pk=table.pk))()
    live = await database_sync_to_async(load)(match)
    assert not leaked(update, concealed_cards(live.state.hand))
    await spectator.disconnect()
    message = await recv(player)
    while message.get("type") != "spectators":
        message = await recv(player)
    assert message == {"type": "spectators", "count": 0}
    await player.disconnect()


async def test_private_and_unknown_matches_are_refused(alice: Any, bob: Any, seeded_decks: Any) -> None:
    table = await database_sync_to_async(services.table_create)(
        user=alice, rules_preset="classic", target=50, turn_timer=None, rated=False)
    await database_sync_to_async(services.table_join)(user=bob, token=table.invite_token)
    # a private match: to a stranger, as if there were no such match (issue 20, finding 7)
    for match_id, code, close in ((table.pk, "no_such_match", 4404), (999_999, "no_such_match", 4404)):
        comm = await watcher(match_id)
        answer = await recv(comm)
        assert answer["type"] == "error" and answer["code"] == code
        closed = await comm.receive_output()
        assert closed == {"type": "websocket.close", "code": close}
        await comm.disconnect()


async def test_a_spectator_flooding_the_socket_is_limited(alice: Any, bob: Any, seeded_decks: Any) -> None:
    table = await database_sync_to_async(public_friend_table)(alice, bob, "classic")
    comm = await watcher(table.pk)
    got = [await recv(comm), await recv(comm)]
    assert {m["type"] for m in got} == {"watch", "spectators"}
    for i in range(60):
        await comm.send_to(text_data=json.dumps({"type": "ping", "id": str(i)}))
    answers = [await recv(comm) for _ in range(60)]
    assert [a["type"] for a in answers[:40]] == ["pong"] * 40  # the burst
    assert any(a.get("code") == "rate_limited" for a in answers[40:])
    await comm.disconnect()
