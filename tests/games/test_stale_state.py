"""A bot's move whose state broadcast is lost still reaches the table (``MatchConsumer._stale_watch``)."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import consumers, services
from games.models import Match
from games.services import play, server_moves
from push.send import Outcome
from tests.games.wsclient import choose, connect, recv, send

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_lost_bot_broadcast_is_read_and_sent_after_the_bots_latest_move(
    alice: Any, house_bots: Any, seeded_decks: list[int], settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.GAMES_BOT_DELAY = (0.0, 0.0)
    settings.GAMES_HAND_PAUSE = 0.0
    monkeypatch.setattr(consumers, "STALE_STATE_GRACE_S", 0.4)
    bot_writing = threading.local()
    dropped: list[int] = []
    library_broadcast, library_bot_turn = server_moves.broadcast_on_commit, server_moves.match_play_bot_turn

    def broadcast(match: Any, live: Any) -> Any:
        if getattr(bot_writing, "on", False):
            dropped.append(match.last_seq)
            return Outcome()  # lost: nothing sent, and nothing says so
        return library_broadcast(match, live)

    def bot_turn(**kwargs: Any) -> Any:
        bot_writing.on = True
        try:
            return library_bot_turn(**kwargs)
        finally:
            bot_writing.on = False

    # The bot's writes send with it: its locked write (server_moves) and its one statement (play).
    monkeypatch.setattr(server_moves, "broadcast_on_commit", broadcast)
    monkeypatch.setattr(play, "broadcast_on_commit", broadcast)
    monkeypatch.setattr(server_moves, "match_play_bot_turn", bot_turn)  # the driver and timer call it
    match = await database_sync_to_async(services.match_create_vs_bot)(
        user=alice, level=1, rules_preset="classic", target=100, rated=False,
    )
    warnings: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: warnings.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("games.consumers").addHandler(handler)
    comm, state = await connect(alice, match.pk)
    try:
        while not state["hand"]["your_turn"]:  # the bot dealt first and moved: read at connect
            state = await recv(comm)
        turns = 0
        while turns < 2:  # two of the bot's turns, each of its broadcasts lost
            await send(comm, {"type": "action", "action": choose(state["hand"]), "seq": state["seq"],
                              "id": f"m{state['seq']}"})
            while True:
                msg = await recv(comm)
                assert msg["type"] in ("ack", "state"), msg
                if msg["type"] == "state" and msg["hand"]["your_turn"]:
                    break
            stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
            if msg["seq"] > state["seq"] + 1:  # the bot moved in between
                turns += 1
                # the state read after the lost broadcasts is the stored one, the bot's moves in it
                assert msg["seq"] == stored.last_seq and dropped[-1] == stored.last_seq
            state = msg
    finally:
        await comm.disconnect()
        logging.getLogger("games.consumers").removeHandler(handler)
    assert len([w for w in warnings if "had no state after seq" in w]) >= 2, warnings
