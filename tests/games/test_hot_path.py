"""The live-play hot path (issue 9): how many queries a write and a state build take, and what the
after-commit broadcast sends where (each seat its own state, built once; spectators no card)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.live import cache_clear, load
from games.models import Match
from tests.games.wsclient import choose

# bot_waits: the server's own driver must not move the bot behind the tests' backs (they make the bot's
# turns themselves, count the queries of one write, and record only their own writes' broadcasts).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("bot_waits")]


class RecordingLayer:
    """A channel layer that records every ``group_send``: ``[(group, message), ...]``."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.sent.append((group, message))


@pytest.fixture
def layer(monkeypatch: pytest.MonkeyPatch) -> RecordingLayer:
    recording = RecordingLayer()
    monkeypatch.setattr(services, "get_channel_layer", lambda: recording)
    return recording


TRANSACTION = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def _sql(captured: Any) -> list[str]:
    """The verbs of the statements run, transaction control (which Django logs too) left out."""
    verbs = [q["sql"].split()[0].upper() for q in captured.captured_queries]
    return [v for v in verbs if v not in TRANSACTION]


@contextmanager
def statements(expected: list[str]) -> Iterator[CaptureQueriesContext]:
    """Assert the block runs exactly the ``expected`` statements (by verb, in order)."""
    with CaptureQueriesContext(connection) as captured:
        yield captured
    sqls = "\n".join(q["sql"][:200] for q in captured.captured_queries)
    assert _sql(captured) == expected, sqls


def _actor(match_id: int) -> tuple[Match, int, dict[str, Any]]:
    match = Match.objects.get(pk=match_id)
    seat = load(match).state.current_player
    assert seat is not None
    return match, seat, selectors.match_state_payload(match=match, seat=seat)["hand"]


def test_player_action_is_three_queries(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    """One locked read of the match with its players, one insert of the events, one conditional
    update; nothing is read again for the broadcast (the engine state is cached)."""
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    users = {0: alice, 1: bob}
    for step in range(6):
        match, seat, hand = _actor(table.pk)
        with statements(["SELECT", "INSERT", "UPDATE"]) as captured:
            applied = services.match_apply_action(
                match_id=match.pk, user=users[seat], action_text=choose(hand), client_seq=match.last_seq,
                msg_id=f"m{step}",
            )
        assert applied.seq == match.last_seq + 1 and not applied.repeat
        if connection.vendor == "postgresql":
            assert any("FOR UPDATE OF" in q["sql"] for q in captured.captured_queries)


def test_action_after_another_process_wrote_reads_the_log_once(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    """Without the cached state (the last write ran in another process) the write replays the log:
    one more query, and a repeat of the same message id is answered from the log (one more)."""
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    match, seat, hand = _actor(table.pk)
    user = alice if seat == 0 else bob
    cache_clear()
    with statements(["SELECT", "SELECT", "INSERT", "UPDATE"]):
        services.match_apply_action(match_id=match.pk, user=user, action_text=choose(hand),
                                    client_seq=match.last_seq, msg_id="x1")
    with statements(["SELECT", "SELECT"]):  # the locked read (then: stale seq), the repeat lookup
        again = services.match_apply_action(match_id=match.pk, user=user, action_text=choose(hand),
                                            client_seq=match.last_seq, msg_id="x1")
    assert again.repeat and again.seq == match.last_seq + 1


def test_bot_turn_is_three_queries(alice: Any, house_bots: Any, seeded_decks: list[int]) -> None:
    moved = 0
    match = services.match_create_vs_bot(user=alice, level=3, rules_preset="classic", target=100)
    for step in range(12):
        match, seat, hand = _actor(match.pk)
        if seat == 1:
            with statements(["SELECT", "INSERT", "UPDATE"]):
                last_seq = services.match_play_bot_turn(match_id=match.pk)
            assert last_seq == Match.objects.get(pk=match.pk).last_seq > match.last_seq
            moved += 1
        else:
            services.match_apply_action(match_id=match.pk, user=alice, action_text=choose(hand),
                                        client_seq=match.last_seq, msg_id=f"a{step}")
    assert moved >= 4


def test_state_build_is_one_query(alice: Any, house_bots: Any, seeded_decks: list[int]) -> None:
    """A ``state`` for a connecting or syncing socket: the match with its players, nothing else."""
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    with statements(["SELECT"]):
        fresh = selectors.match_get(match_id=match.pk)
        assert selectors.match_state_payload(match=fresh, seat=0)["seq"] == 1


def test_broadcast_sends_each_seat_its_own_state_and_spectators_no_card(
    alice: Any, bob: Any, seeded_decks: list[int], layer: RecordingLayer
) -> None:
    """Over whole hands of a friend match: after every write seat k's group gets exactly the state a
    fresh read builds for seat k, and the spectators' group only ``{"type", "seq"}``."""
    table = services.table_create(user=alice, rules_preset="classic", target=50, turn_timer=None)
    services.table_join(user=bob, token=table.invite_token)
    users = {0: alice, 1: bob}
    hands = set()
    for step in range(120):
        if Match.objects.get(pk=table.pk).status != "active":
            break
        match, seat, hand = _actor(table.pk)
        layer.sent.clear()
        services.match_apply_action(match_id=match.pk, user=users[seat], action_text=choose(hand),
                                    client_seq=match.last_seq, msg_id=f"m{step}")
        fresh = selectors.match_get(match_id=match.pk)
        assert fresh is not None
        groups = [group for group, _ in layer.sent]
        assert groups == [f"match_{match.pk}_seat0", f"match_{match.pk}_seat1", f"watch_{match.pk}"]
        for k in (0, 1):
            message = layer.sent[k][1]
            assert message["state"] == selectors.match_state_payload(match=fresh, seat=k)
            assert message["state"]["match"]["you"] == k and message["seq"] == fresh.last_seq
        assert layer.sent[2][1] == {"type": "match.update", "seq": fresh.last_seq}
        hands.add(layer.sent[0][1]["state"]["match"]["hand_number"])
    assert len(hands) >= 2  # a hand ended on the way: its reveal was compared too


def test_bot_seat_gets_no_broadcast(alice: Any, house_bots: Any, seeded_decks: list[int],
                                    layer: RecordingLayer) -> None:
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    match, seat, hand = _actor(match.pk)
    if seat == 1:
        services.match_play_bot_turn(match_id=match.pk)
    else:
        services.match_apply_action(match_id=match.pk, user=alice, action_text=choose(hand),
                                    client_seq=match.last_seq, msg_id="a")
    assert [group for group, _ in layer.sent] == [f"match_{match.pk}_seat0", f"watch_{match.pk}"]
