"""Quick chat at the table (issue 22 item 5; ``games.chat``, docs/protocol.md "Quick chat"): a preset id
reaches both seats (the opponent's message, the sender's echo) and is stored outside the event log;
unknown ids, spectators, bot matches and waiting tables are refused with their codes and nothing sent;
the per-player limits (3 per 10 s, 20 per match) refuse exactly the 4th and the 21st, with the clock
moved by a patch, never slept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from django.utils import translation

from games import chat, services
from games.models import ChatMessage, Match, MatchEvent
from replays.models import ReplayAccess
from tests.games.wsclient import ORIGIN, connect, recv, send

pytestmark = pytest.mark.django_db(transaction=True)


class Clock:
    """``chat.now`` under the test's control (seconds)."""

    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    cache.clear()  # the chat counters live in the shared cache (this worker's Redis db)
    c = Clock()
    monkeypatch.setattr(chat, "now", c)
    yield c
    cache.clear()


def _active(alice: Any, bob: Any, *, public: bool = False) -> Match:
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None,
                                  rated=False)
    match = services.table_join(user=bob, token=table.invite_token or "")
    if public:
        ReplayAccess.objects.create(match=match, public=True)
    return match


active = database_sync_to_async(_active)


async def two_seats(alice: Any, bob: Any, match_id: int) -> tuple[WebsocketCommunicator, ...]:
    a, _ = await connect(alice, match_id)
    b, _ = await connect(bob, match_id)
    return a, b


async def next_of(comm: WebsocketCommunicator, kinds: tuple[str, ...] = ("chat", "error")) -> dict[str, Any]:
    """The next message of one of ``kinds`` (state, presence and other messages skipped)."""
    while True:
        msg = await recv(comm)
        if msg["type"] in kinds:
            return msg


async def close(*comms: WebsocketCommunicator) -> None:
    for comm in comms:
        await comm.disconnect()


def stored(match_id: int) -> list[tuple[int, str]]:
    return list(ChatMessage.objects.filter(match_id=match_id).values_list("seat", "preset"))


async def test_preset_reaches_opponent_and_sender_echo_and_stored_outside_the_log(
        alice: Any, bob: Any) -> None:
    match = await active(alice, bob)
    events_before = await database_sync_to_async(MatchEvent.objects.filter(match=match).count)()
    a, b = await two_seats(alice, bob, match.pk)
    await send(a, {"type": "chat", "preset": "good_luck", "id": "c1"})
    assert await next_of(b) == {"type": "chat", "seat": 0, "preset": "good_luck"}
    assert await next_of(a) == {"type": "chat", "seat": 0, "preset": "good_luck"}  # the echo
    await send(b, {"type": "chat", "preset": "thanks"})
    assert await next_of(a) == {"type": "chat", "seat": 1, "preset": "thanks"}
    assert await next_of(b) == {"type": "chat", "seat": 1, "preset": "thanks"}
    await close(a, b)
    assert await database_sync_to_async(stored)(match.pk) == [(0, "good_luck"), (1, "thanks")]
    # not a game action: the event log (replays, their verification) is unchanged
    assert await database_sync_to_async(MatchEvent.objects.filter(match=match).count)() == events_before


@pytest.mark.parametrize("preset", ["gg_ez", "", None, 3, "Good luck!", "hello "])
async def test_unknown_preset_refused_nothing_sent(alice: Any, bob: Any, preset: Any) -> None:
    match = await active(alice, bob)
    a, b = await two_seats(alice, bob, match.pk)
    await send(a, {"type": "chat", "preset": preset, "id": "c1"})
    err = await next_of(a)
    assert err["type"] == "error" and err["code"] == "unknown_preset" and err["id"] == "c1"
    assert "good_luck" in err["message"]
    await send(a, {"type": "ping", "id": "p"})  # b sees nothing from the refused message
    await send(b, {"type": "ping", "id": "q"})
    assert await next_of(b, ("chat", "error", "pong")) == {"type": "pong", "id": "q"}
    await close(a, b)
    assert await database_sync_to_async(stored)(match.pk) == []


async def test_rate_limit_boundary_third_ok_fourth_refused_then_window_moves(
        alice: Any, bob: Any, clock: Clock) -> None:
    match = await active(alice, bob)
    a, b = await two_seats(alice, bob, match.pk)
    for i, preset in enumerate(("hello", "good_luck", "nice_move")):
        clock.t += 1.0
        await send(a, {"type": "chat", "preset": preset, "id": f"c{i}"})
        assert await next_of(b) == {"type": "chat", "seat": 0, "preset": preset}
        assert (await next_of(a))["type"] == "chat"
    clock.t += 1.0  # 3 s after the first: the 4th within 10 s
    await send(a, {"type": "chat", "preset": "oops", "id": "c4"})
    err = await next_of(a)
    assert (err["code"], err["id"]) == ("chat_rate_limited", "c4")
    assert "wait 7.0 s" in err["message"]  # the first one leaves the window at +10 s
    clock.t += 7.0  # now the first is 10 s old: one more is admitted
    await send(a, {"type": "chat", "preset": "oops", "id": "c5"})
    assert await next_of(b) == {"type": "chat", "seat": 0, "preset": "oops"}
    await close(a, b)
    assert [p for _s, p in await database_sync_to_async(stored)(match.pk)] == [
        "hello", "good_luck", "nice_move", "oops"]


def test_limits_per_player_and_match_total(alice: Any, bob: Any, clock: Clock) -> None:
    match = _active(alice, bob)
    for _ in range(3):
        chat.admit(match_id=match.pk, user_id=alice.pk)
    with pytest.raises(chat.ChatRefused) as refused:
        chat.admit(match_id=match.pk, user_id=alice.pk)
    assert refused.value.code == "chat_rate_limited"
    chat.admit(match_id=match.pk, user_id=bob.pk)  # the other player has a window of their own
    chat.admit(match_id=match.pk + 1, user_id=alice.pk)  # and so has another match
    for _ in range(17):  # 3 + 17 = 20 in this match, 10 s apart
        clock.t += 10.0
        chat.admit(match_id=match.pk, user_id=alice.pk)
    clock.t += 10.0
    with pytest.raises(chat.ChatRefused) as refused:
        chat.admit(match_id=match.pk, user_id=alice.pk)
    assert refused.value.code == "chat_match_limit"
    assert "20" in refused.value.message


async def test_finished_match_allows_good_game(alice: Any, bob: Any) -> None:
    match = await active(alice, bob)
    await database_sync_to_async(services.match_resign)(match_id=match.pk, user=bob)
    a, b = await two_seats(alice, bob, match.pk)
    await send(b, {"type": "chat", "preset": "good_game"})
    assert await next_of(a) == {"type": "chat", "seat": 1, "preset": "good_game"}
    await close(a, b)


async def test_waiting_table_and_bot_match_refused(alice: Any, house_bots: Any) -> None:
    table = await database_sync_to_async(services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=None, rated=False)
    a, _ = await connect(alice, table.pk)
    await send(a, {"type": "chat", "preset": "hello", "id": "w"})
    assert (await next_of(a))["code"] == "not_started"
    await a.disconnect()
    bot_match = await database_sync_to_async(services.match_create_vs_bot)(
        user=alice, level=1, rules_preset="classic", target=100, rated=False)
    a, _ = await connect(alice, bot_match.pk)
    await send(a, {"type": "chat", "preset": "hello", "id": "x"})
    assert (await next_of(a))["code"] == "chat_unavailable"
    await a.disconnect()
    assert await database_sync_to_async(ChatMessage.objects.count)() == 0


async def test_spectator_refused_and_never_sees_player_chat(alice: Any, bob: Any) -> None:
    from config.asgi import application

    match = await active(alice, bob, public=True)
    watcher = WebsocketCommunicator(application, f"/ws/watch/{match.pk}/",
                                    headers=[(b"origin", ORIGIN), (b"host", b"testserver")])
    assert (await watcher.connect())[0]
    await recv(watcher)  # its first view
    await send(watcher, {"type": "chat", "preset": "hello"})
    assert (await next_of(watcher))["code"] == "chat_players_only"
    a, b = await two_seats(alice, bob, match.pk)
    await send(a, {"type": "chat", "preset": "hello"})
    assert await next_of(b) == {"type": "chat", "seat": 0, "preset": "hello"}
    await send(watcher, {"type": "ping", "id": "w"})  # players' chat is not on the spectators' socket
    assert await next_of(watcher, ("chat", "pong")) == {"type": "pong", "id": "w"}
    await close(a, b, watcher)
    assert await database_sync_to_async(stored)(match.pk) == [(0, "hello")]


def test_texts_in_the_readers_language() -> None:
    with translation.override("en"):
        en = chat.preset_texts()
    with translation.override("pt-br"):
        pt = chat.preset_texts()
    assert list(en) == list(chat.PRESET_IDS) == list(pt)
    assert en["good_luck"] == "Good luck!" and pt["good_luck"] == "Boa sorte!"
    assert en["good_game"] == "Good game!" and pt["good_game"] == "Bom jogo!"
    assert all(en[k] != pt[k] for k in en if k != "oops")  # every text translated ("Oops!" is both)


def test_chat_send_stores_and_the_admin_shows_it_read_only(alice: Any, bob: Any, admin_client: Any) -> None:
    match = _active(alice, bob)
    assert chat.chat_send(match_id=match.pk, user=bob, preset="well_played") == 1
    with pytest.raises(chat.ChatRefused) as refused:
        chat.chat_send(match_id=match.pk, user=bob, preset="gg ez")
    assert refused.value.code == "unknown_preset"
    assert stored(match.pk) == [(1, "well_played")]
    page = admin_client.get(f"/admin/games/match/{match.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "well_played" in html and 'name="chat_messages-0-preset"' not in html  # shown, not editable


def test_table_page_has_the_presets_between_people_only(alice: Any, bob: Any, house_bots: Any,
                                                         client: Any) -> None:
    people = _active(alice, bob)
    bot_match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100,
                                             rated=False)
    client.force_login(alice)
    html = client.get(f"/match/{people.pk}/", HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert 'data-testid="chat-panel"' in html
    assert ('<button type="button" class="btn small-btn" data-preset="good_luck"'
            ' data-testid="chat-good_luck">Boa sorte!</button>') in html
    assert html.count("data-preset=") == len(chat.PRESET_IDS)
    assert 'id="chat-panel"' not in client.get(f"/match/{bot_match.pk}/").content.decode()
