"""Server-driven moves (``games.scheduling``, ``services.match_play_server_moves``): bots and turn timers
move with no socket open, a match between two house bots plays to its end by itself, and duplicated or
concurrent deliveries of one scheduled move apply it exactly once."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connections
from django.utils import timezone

from engine.cards import format_cards
from engine.match import replay
from engine.rules import RuleSet
from games import scheduling, selectors, services
from games.live import engine_event, load
from games.models import Match, MatchEvent
from games.services import GameError

pytestmark = pytest.mark.django_db(transaction=True)


def _rows(match_id: int) -> list[MatchEvent]:
    return list(MatchEvent.objects.filter(match_id=match_id).order_by("seq"))


def _assert_replays(match: Match) -> list[MatchEvent]:
    rows = _rows(match.pk)
    assert [r.seq for r in rows] == list(range(1, match.last_seq + 1))
    events = [engine_event(r.payload) for r in rows]
    state = replay(RuleSet.from_dict(match.rules), match.first_dealer, events)
    assert state.is_over and state.winner == match.winner and list(state.final_scores) == match.scores
    return rows


def test_bot_vs_bot_match_plays_to_the_end_with_no_socket(house_bots: Any, seeded_decks: list[int]) -> None:
    match = services.match_create_bot_vs_bot(bot0=house_bots[0], bot1=house_bots[4], target=50)
    done = Match.objects.get(pk=match.pk)  # the commit's driver played it out before create returned
    assert (done.status, done.result_reason, done.bot_seats, done.server_move_at) == (
        "finished", "target", [0, 1], None
    )
    assert max(done.scores) >= 50 and done.scores[done.winner] == max(done.scores)
    rows = _assert_replays(done)
    actions = [r for r in rows if r.type == "action"]
    assert {r.seat for r in actions} == {0, 1}
    assert all(not r.msg_id and not r.auto for r in actions)  # bot moves, none made for a late player
    assert len(seeded_decks) == sum(1 for r in rows if r.type == "deal")
    assert done.simulation_seed is None  # a real match: secure randomness (here the tests' decks)


def _log(match: Match) -> list[tuple[str, dict[str, Any]]]:
    """The event log without the deals' salts and commitments (secret-random in every match)."""
    skip = {"salt", "commitment"}
    return [(r.type, {k: v for k, v in r.payload.items() if k not in skip}) for r in _rows(match.pk)]


def test_a_seeded_bot_match_is_a_function_of_its_seed(house_bots: Any, seeded_decks: list[int]) -> None:
    """``simulation_seed`` (simulations only): the same seed replays the same match, move for move,
    whatever its row id; hand n is dealt from ``sub_seed(seed, "deal", n)``; another seed differs."""
    from engine.deck import seeded_deck, sub_seed

    bots = house_bots[0], house_bots[1]
    one = services.match_create_bot_vs_bot(bot0=bots[0], bot1=bots[1], target=50, simulation_seed=42)
    two = services.match_create_bot_vs_bot(bot0=bots[0], bot1=bots[1], target=50, simulation_seed=42)
    other = services.match_create_bot_vs_bot(bot0=bots[0], bot1=bots[1], target=50, simulation_seed=43)
    one, two, other = (Match.objects.get(pk=m.pk) for m in (one, two, other))
    assert one.pk != two.pk and one.simulation_seed == two.simulation_seed == 42
    assert (one.first_dealer, one.scores, one.winner, one.last_seq) == (
        two.first_dealer, two.scores, two.winner, two.last_seq)
    assert _log(one) == _log(two)
    deals = [r for r in _rows(one.pk) if r.type == "deal"]
    assert [r.payload["deck"] for r in deals] == [
        format_cards(seeded_deck(sub_seed(42, "deal", n))).split() for n in range(1, len(deals) + 1)
    ]
    assert _log(other) != _log(one)
    assert seeded_decks == []  # no seeded match drew a deck from new_deck()
    _assert_replays(one)


@pytest.mark.parametrize("seed", [-1, 2**63, "7", 1.0, True])
def test_a_bad_simulation_seed_is_refused(house_bots: Any, seed: Any) -> None:
    with pytest.raises(GameError) as err:
        services.match_create_bot_vs_bot(bot0=house_bots[0], bot1=house_bots[1], simulation_seed=seed)
    assert err.value.code == "bad_field" and "simulation seed" in err.value.message
    assert not Match.objects.exists()


def test_bot_vs_bot_refuses_people_and_one_bot_twice(alice: Any, house_bots: Any) -> None:
    with pytest.raises(GameError) as err:
        services.match_create_bot_vs_bot(bot0=alice, bot1=house_bots[0])
    assert err.value.code == "bad_field"
    with pytest.raises(GameError) as err:
        services.match_create_bot_vs_bot(bot0=house_bots[1], bot1=house_bots[1])
    assert (err.value.code, err.value.message) == ("bad_field", "a match needs two different players")
    assert not Match.objects.exists()


def test_seated_match_puts_a_bot_at_either_seat(alice: Any, house_bots: Any, bot_waits: None) -> None:
    match = services.match_create_seated(player0=house_bots[2], player1=alice, rules_preset="table",
                                         target=50, turn_timer=30)
    match.refresh_from_db()
    assert (match.bot_seats, match.bot_level, match.first_dealer, match.turn_timer_seconds) == ([0], 3, 0, 30)
    # seat 1 (alice, the non-dealer) is offered the upcard: her deadline is the pending server move
    assert load(match).state.current_player == 1
    assert match.server_move_at == match.turn_deadline
    assert timedelta(seconds=29) < match.turn_deadline - timezone.now() <= timedelta(seconds=30)
    services.match_apply_action(match_id=match.pk, user=alice, action_text="pass", client_seq=1, msg_id="p")
    match.refresh_from_db()
    # now the bot (seat 0) is to act: the 30 s deadline comes before its 10-minute test pause
    assert load(match).state.current_player == 0 and match.server_move_at == match.turn_deadline
    # without a timer the bot's pause alone is pending
    other = services.match_create_seated(player0=house_bots[2], player1=alice, rules_preset="table",
                                         target=50)
    services.match_apply_action(match_id=other.pk, user=alice, action_text="pass", client_seq=1, msg_id="p")
    other.refresh_from_db()
    assert other.turn_deadline is None and load(other).state.current_player == 0
    assert timedelta(seconds=590) < other.server_move_at - timezone.now() <= timedelta(seconds=600)


def test_closed_tab_with_a_turn_timer_still_ends(
    alice: Any, house_bots: Any, seeded_decks: list[int]
) -> None:
    """A person who never opens the table (or closed it) against a bot: the server plays her automatic
    moves at each deadline and the bot's replies, until she loses on time (three in a row)."""
    match = services.match_create_seated(player0=alice, player1=house_bots[0], target=100, turn_timer=15)
    Match.objects.filter(pk=match.pk).update(turn_timer_seconds=1)  # below the form's minimum, for speed
    Match.objects.filter(pk=match.pk, turn_deadline__isnull=False).update(
        turn_deadline=timezone.now(), server_move_at=timezone.now()
    )
    services.match_sweep_server_moves(grace_seconds=0)  # starts the chain (as the beat sweep would)
    deadline = timezone.now() + timedelta(seconds=30)
    while timezone.now() < deadline:
        done = Match.objects.get(pk=match.pk)
        if done.status != "active":
            break
        threading.Event().wait(0.1)
    assert (done.status, done.result_reason, done.winner) == ("finished", "timeout", 1)
    rows = _rows(match.pk)
    assert [r.type for r in rows[-3:]] == ["timeout", "resign", "match_end"]
    autos = [r for r in rows if r.auto and r.type == "action"]
    assert autos and {r.seat for r in autos} == {0}
    assert Match.objects.get(pk=match.pk).timeout_strikes[0] == services.TIMEOUT_STRIKES_TO_LOSE


def _race(match_id: int, seq: int, callers: int) -> list[int]:
    """``callers`` threads deliver the same scheduled move at once; returns each call's move count."""
    barrier = threading.Barrier(callers)
    results: list[int] = []
    lock = threading.Lock()

    def deliver() -> None:
        try:
            barrier.wait()
            moved = services.match_play_server_moves(match_id=match_id, expected_seq=seq)
            with lock:
                results.append(moved)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=deliver) for _ in range(callers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_duplicated_and_concurrent_deliveries_apply_one_move(
    alice: Any, house_bots: Any, seeded_decks: list[int], bot_waits: None
) -> None:
    match = services.match_create_vs_bot(user=alice, level=2, rules_preset="classic", target=100)
    if load(match).state.current_player == 0:  # make it the bot's turn
        services.match_apply_action(match_id=match.pk, user=alice, action_text="pass", client_seq=1,
                                    msg_id="p")
    match.refresh_from_db()
    seq = match.last_seq
    assert load(match).state.current_player == 1
    # its pause (10 minutes here) has not passed: an early delivery moves nothing
    assert services.match_play_server_moves(match_id=match.pk, expected_seq=seq) == 0
    Match.objects.filter(pk=match.pk).update(server_move_at=timezone.now())
    results = _race(match.pk, seq, callers=6)
    assert sorted(results) == [0, 0, 0, 0, 0, 1]
    match.refresh_from_db()
    rows = _rows(match.pk)
    bot_rows = [r for r in rows if r.seq > seq and r.type == "action"]
    assert len(bot_rows) == 1 and bot_rows[0].seat == 1 and bot_rows[0].seq == seq + 1
    # a late duplicate of the same delivery, and the sweep, find nothing to do
    assert services.match_play_server_moves(match_id=match.pk, expected_seq=seq) == 0
    assert services.match_sweep_server_moves(grace_seconds=0) == 0
    assert Match.objects.get(pk=match.pk).last_seq == match.last_seq


def test_stale_server_move_at_is_repaired_not_looped(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    """A row that says a move is due when none is (e.g. set by the migration for a person to act)."""
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None,
                                  rated=False)
    match = services.table_join(user=bob, token=table.invite_token)
    Match.objects.filter(pk=match.pk).update(server_move_at=timezone.now() - timedelta(seconds=5))
    assert services.match_overdue_ids(grace_seconds=1) == [match.pk]
    assert services.match_sweep_server_moves(grace_seconds=1) == 0
    fresh = Match.objects.get(pk=match.pk)
    assert (fresh.last_seq, fresh.server_move_at) == (1, None)
    assert services.match_overdue_ids(grace_seconds=1) == []


def test_in_process_driver_is_the_default_on_both_layers(settings: Any) -> None:
    """Daphne makes the server's moves by default in both profiles; ``local_layer`` tells the worker's
    sweep whether its own moves would reach a socket (only through Redis)."""
    from replays import analysis_driver

    del settings.GAMES_SERVER_MOVES_IN_PROCESS
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    assert scheduling.in_process() and scheduling.local_layer() and analysis_driver.in_process()
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "infra.channel_layer.BatchingRedisChannelLayer"}}
    assert scheduling.in_process() and not scheduling.local_layer()
    assert not analysis_driver.in_process()  # seconds of CPU: a worker's, not a socket process's
    settings.GAMES_SERVER_MOVES_IN_PROCESS = False
    assert not scheduling.in_process() and not analysis_driver.in_process()
    del settings.GAMES_SERVER_MOVES_IN_PROCESS
    settings.CELERY_TASK_ALWAYS_EAGER = True
    assert scheduling.in_process() and scheduling.local_layer()


def test_heavy_moves_go_to_the_workers_only_where_their_broadcast_reaches_a_table(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``scheduling.schedule``: on Redis (default driver) a level-5 or bot-vs-bot match's move is a
    Celery task, a level-1 match's runs here; with the in-memory layer both run here."""
    from games import tasks

    sent: list[tuple[int, int | None]] = []
    ran: list[tuple[int, int | None]] = []
    monkeypatch.setattr(tasks.play_server_moves, "apply_async",
                        lambda kwargs, **_: sent.append((kwargs["match_id"], kwargs["expected_seq"])))
    monkeypatch.setattr(scheduling, "_run", lambda match_id, seq: ran.append((match_id, seq)))
    monkeypatch.setattr(scheduling, "_loop", None)
    del settings.GAMES_SERVER_MOVES_IN_PROCESS
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert (scheduling.heavy(5, [1]), scheduling.heavy(None, [0, 1]), scheduling.heavy(4, [1])) == (
        True, True, False)
    now = timezone.now()
    for backend, expect_sent, expect_ran in (
        ("infra.channel_layer.BatchingRedisChannelLayer", [(7, 3)], [(8, 3)]),
        ("channels.layers.InMemoryChannelLayer", [], [(7, 3), (8, 3)]),
    ):
        settings.CHANNEL_LAYERS = {"default": {"BACKEND": backend}}
        sent.clear()
        ran.clear()
        scheduling.schedule(7, 3, now, is_heavy=True)
        scheduling.schedule(8, 3, now, is_heavy=False)
        assert (sent, ran) == (expect_sent, expect_ran)


def test_the_workers_sweep_takes_over_only_what_daphne_left(
    alice: Any, house_bots: Any, seeded_decks: list[int], settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Production default (Daphne drives, Redis layer): beat's sweep enqueues a task only for a bot move
    overdue by more than ``DAPHNE_TAKEOVER_GRACE_SECONDS`` (its Daphne died); the embedded default's
    worker waits ``IN_PROCESS_SWEEP_GRACE_SECONDS``; the Celery driver's, 1 s."""
    from games import tasks
    from tests.games.wsclient import choose

    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "infra.channel_layer.BatchingRedisChannelLayer"}}
    del settings.GAMES_SERVER_MOVES_IN_PROCESS
    enqueued: list[int] = []
    monkeypatch.setattr(tasks.play_server_moves, "apply_async",
                        lambda kwargs, **_: enqueued.append(kwargs["match_id"]))
    monkeypatch.setattr(scheduling, "schedule", lambda *args, **kwargs: None)  # no Daphne here: nobody drives
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100,
                                         rated=False)
    while match.server_move_at is None:  # until the bot is to act
        state = selectors.match_state_payload(match=match, seat=0)["hand"]
        services.match_apply_action(match_id=match.pk, user=alice, action_text=choose(state),
                                    client_seq=match.last_seq, msg_id=f"m{match.last_seq}")
        match.refresh_from_db()
    for late, expected in ((2.0, []), (4.0, [match.pk])):
        Match.objects.filter(pk=match.pk).update(server_move_at=timezone.now() - timedelta(seconds=late))
        enqueued.clear()
        assert tasks.sweep_server_moves() == len(expected) and enqueued == expected
    # a level-5 bot's moves are the workers' own: enqueued once 1 s late
    strong = services.match_create_vs_bot(user=alice, level=5, rules_preset="classic", target=100,
                                          rated=False)
    Match.objects.filter(pk=strong.pk).update(server_move_at=timezone.now() - timedelta(seconds=2))
    Match.objects.filter(pk=match.pk).update(server_move_at=timezone.now() - timedelta(seconds=2))
    enqueued.clear()
    assert tasks.sweep_server_moves() == 1 and enqueued == [strong.pk]
    Match.objects.filter(pk=strong.pk).update(server_move_at=None)
    settings.GAMES_SERVER_MOVES_IN_PROCESS = False  # the Celery driver: 1 s
    Match.objects.filter(pk=match.pk).update(server_move_at=timezone.now() - timedelta(seconds=2))
    enqueued.clear()
    assert tasks.sweep_server_moves() == 1 and enqueued == [match.pk]
    del settings.GAMES_SERVER_MOVES_IN_PROCESS
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    enqueued.clear()
    # the embedded worker plays nothing itself before 30 s (Daphne sweeps its own matches)
    assert tasks.sweep_server_moves() == 0 and enqueued == []
    assert Match.objects.get(pk=match.pk).last_seq == match.last_seq


def test_the_bots_reply_reads_the_state_the_players_write_cached(
    alice: Any, house_bots: Any, seeded_decks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write caches its state before the same commit's driver plays the bot's reply (here at once,
    inside the commit): neither the reply nor the next state build replays the log."""
    from games import live, selectors
    from tests.games.wsclient import choose

    replays: list[int] = []
    library_rebuild = live.rebuild
    monkeypatch.setattr(live, "rebuild", lambda m, rows: (replays.append(m.pk), library_rebuild(m, rows))[1])
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    assert replays == [match.pk]  # the new match's empty log, before its first deal
    replays.clear()
    for step in range(12):
        match = Match.objects.select_related("player0", "player1").get(pk=match.pk)
        if match.status != "active":
            break
        state = selectors.match_state_payload(match=match, seat=0)
        assert state["hand"]["to_act"] == 0  # the bot replied within the commit of the move before
        services.match_apply_action(match_id=match.pk, user=alice, action_text=choose(state["hand"]),
                                    client_seq=match.last_seq, msg_id=f"m{step}")
    assert replays == []
    assert Match.objects.get(pk=match.pk).last_seq > 12  # the bot moved in between
