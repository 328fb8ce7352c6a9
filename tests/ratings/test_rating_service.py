"""Rating a finished match: what is rated, the numbers, and exactly once (twice, concurrently, after a
crash, two overlapping matches of one player, the sweep).

Runs on the database of the profile (SQLite by default, PostgreSQL with ``DATABASE_URL``): run it
under both (``.ci/run`` does PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import services as games_services
from games.models import Match, MatchEvent, MatchStatus, ResultReason
from ratings import services, tasks
from ratings.models import PlayerRating, RatingChange
from ratings.selectors import bot_rating, rating_get
from tests.racing import concurrently

pytestmark = pytest.mark.django_db(transaction=True)


def _changes(match: Match) -> dict[int, RatingChange]:
    return {c.player_id: c for c in RatingChange.objects.filter(match=match)}


def test_member_vs_member_is_rated_once_on_finish(
    alice: Any, bob: Any, finish_friend: Callable[..., Any]
) -> None:
    match = finish_friend(alice, bob, winner=alice)
    assert match.rated and match.status == MatchStatus.FINISHED and match.winner == 0
    changes = _changes(match)  # written by the task enqueued after the finishing commit (eager here)
    assert set(changes) == {alice.pk, bob.pk}
    a, b = changes[alice.pk], changes[bob.pk]
    assert (a.before, a.after, a.delta, a.k, a.expected, a.opponent_rating, a.won) == (
        1500.0, 1520.0, 20.0, 40, 0.5, 1500.0, True)
    assert (b.before, b.after, b.delta, b.won, b.opponent_id, b.opponent_is_bot) == (
        1500.0, 1480.0, -20.0, False, alice.pk, False)
    assert rating_get(user=alice).rating == 1520.0 and rating_get(user=bob).rating == 1480.0
    row = PlayerRating.objects.get(user=alice)
    assert (row.rated_matches, row.wins, row.losses, row.peak) == (1, 1, 0, 1520.0)


def test_second_match_uses_the_current_ratings(
    alice: Any, bob: Any, finish_friend: Callable[..., Any]
) -> None:
    finish_friend(alice, bob, winner=alice)
    match = finish_friend(alice, bob, winner=bob)
    a = _changes(match)[alice.pk]
    # 1520 vs 1480: E = 1/(1+10**(-40/400)) = 0.5573116...; a loss is -40 * 0.5573 = -22.29.
    assert a.before == 1520.0 and a.opponent_rating == 1480.0
    assert a.after == pytest.approx(1520 - 40 * 0.5573116337622928, abs=1e-9)
    assert rating_get(user=bob).rating == pytest.approx(1480 + 40 * 0.5573116337622928, abs=1e-9)


def test_bot_match_moves_only_the_human(
    alice: Any, house_bots: list[Any], finish_bot: Callable[..., Any]
) -> None:
    match = finish_bot(alice, 5, won=True)
    assert match.rated and match.turn_timer_seconds == games_services.RATED_TURN_TIMER
    [change] = RatingChange.objects.filter(match=match)
    level5 = bot_rating(5)
    assert level5 == 1671  # data/bot_elo.json: 1671.1, ratings.bot_elo rounds to whole points
    assert change.player_id == alice.pk and change.opponent_rating == level5 and change.opponent_is_bot
    assert change.after == pytest.approx(1529.1188605417678, abs=1e-9)
    assert not PlayerRating.objects.filter(user__is_bot=True).exists()
    assert rating_get(user=house_bots[4]).rating == level5  # never moves


def test_k_drops_to_20_after_30_rated_matches(
    alice: Any, bob: Any, finish_friend: Callable[..., Any]
) -> None:
    PlayerRating.objects.create(user=alice, rating=1600, peak=1650, rated_matches=30, wins=20, losses=10)
    match = finish_friend(alice, bob, winner=bob)
    a, b = _changes(match)[alice.pk], _changes(match)[bob.pk]
    assert (a.k, b.k) == (20, 40)
    assert a.after == pytest.approx(1600 - 20 * 0.6400649998028851, abs=1e-9)


@pytest.mark.parametrize("case", ["guest_bot", "guest_joins", "switch_off", "aborted"])
def test_what_is_not_rated(case: str, alice: Any, bob: Any, guest: Any, house_bots: list[Any],
                           finish_friend: Callable[..., Any], finish_bot: Callable[..., Any]) -> None:
    if case == "guest_bot":
        match = finish_bot(guest, 3, won=True)
        assert match.turn_timer_seconds is None
    elif case == "guest_joins":
        match = finish_friend(alice, guest, winner=alice)
    elif case == "switch_off":
        match = finish_friend(alice, bob, winner=alice, rated=False)
    else:
        table = games_services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
        match = games_services.table_join(user=bob, token=table.invite_token)
        games_services.match_resign(match_id=match.pk, user=alice, msg_id="r1")
        match.refresh_from_db()
        assert (match.status, match.result_reason, match.winner) == (
            MatchStatus.ABORTED, ResultReason.ABORTED, None)
        assert MatchEvent.objects.filter(match=match, type="abort", seat=0, msg_id="r1").count() == 1
        again = games_services.match_resign(match_id=match.pk, user=alice, msg_id="r1")
        assert again.repeat
    assert match.status in (MatchStatus.FINISHED, MatchStatus.ABORTED)
    assert not RatingChange.objects.filter(match=match).exists()
    assert services.match_rate(match_id=match.pk) == []
    assert not PlayerRating.objects.exists()


def test_rated_table_gets_a_turn_timer(alice: Any) -> None:
    rated = games_services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    assert rated.rated and rated.turn_timer_seconds == 60
    # one waiting rated table per member (docs/fairplay.md): the first is closed before the second
    games_services.match_resign(match_id=rated.pk, user=alice)
    chosen = games_services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=30)
    assert chosen.turn_timer_seconds == 30
    casual = games_services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None,
                                         rated=False)
    assert not casual.rated and casual.turn_timer_seconds is None


def test_resign_after_both_moved_is_a_rated_loss(
    alice: Any, bob: Any, finish_friend: Callable[..., Any]
) -> None:
    match = finish_friend(alice, bob, winner=bob)
    assert match.result_reason == ResultReason.RESIGN and match.winner == 1


# ------------------------------------------------------------------------------------- exactly once


def _unrated_match(a: Any, b: Any, finish_friend: Callable[..., Any], monkeypatch: pytest.MonkeyPatch,
                   winner: Any = None) -> Match:
    """A finished rated match whose rating message was lost (the enqueue is disabled)."""
    from games.signals import match_finished
    from ratings import receivers

    match_finished.disconnect(dispatch_uid="ratings.enqueue_rating")
    try:
        return finish_friend(a, b, winner=winner or a)
    finally:
        match_finished.connect(receivers.enqueue_rating, dispatch_uid="ratings.enqueue_rating")


def test_run_twice_changes_nothing_the_second_time(alice: Any, bob: Any, finish_friend: Callable[..., Any],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    match = _unrated_match(alice, bob, finish_friend, monkeypatch)
    assert not RatingChange.objects.exists()
    assert tasks.rate_match.apply(args=(match.pk,)).get() == 2
    assert tasks.rate_match.apply(args=(match.pk,)).get() == 0
    assert RatingChange.objects.count() == 2 and rating_get(user=alice).rating == 1520.0
    assert PlayerRating.objects.get(user=alice).rated_matches == 1


def test_two_concurrent_tasks_rate_once(alice: Any, bob: Any, finish_friend: Callable[..., Any],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    match = _unrated_match(alice, bob, finish_friend, monkeypatch)
    results = concurrently([lambda: len(services.match_rate(match_id=match.pk))] * 4)
    assert sorted(results) == [0, 0, 0, 2]
    assert RatingChange.objects.count() == 2
    row = PlayerRating.objects.get(user=alice)
    assert (row.rating, row.rated_matches) == (1520.0, 1)


def test_overlapping_matches_of_one_player_both_count(
    alice: Any, bob: Any, carol: Any, finish_friend: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _unrated_match(alice, bob, finish_friend, monkeypatch)
    second = _unrated_match(alice, carol, finish_friend, monkeypatch)
    results = concurrently([lambda: len(services.match_rate(match_id=first.pk)),
                             lambda: len(services.match_rate(match_id=second.pk))])
    assert results == [2, 2]
    mine = sorted(RatingChange.objects.filter(player=alice), key=lambda c: c.id)
    assert len(mine) == 2
    # Whichever ran second started from the first one's result, never from a stale 1500.
    assert mine[0].before == 1500.0 and mine[0].after == 1520.0
    assert mine[1].before == 1520.0 and mine[1].opponent_rating == 1500.0
    assert mine[1].after == pytest.approx(1520 + 40 * (1 - 1 / (1 + 10 ** (-20 / 400))), abs=1e-9)
    row = PlayerRating.objects.get(user=alice)
    assert (row.rated_matches, row.wins, row.rating) == (2, 2, mine[1].after)


def test_crashed_task_leaves_nothing_and_the_retry_rates(
    alice: Any, bob: Any, finish_friend: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    match = _unrated_match(alice, bob, finish_friend, monkeypatch)
    real = services._push_on_commit

    def crash(*args: Any, **kwargs: Any) -> Any:  # after every write, before the commit
        raise RuntimeError("worker killed mid-task")

    monkeypatch.setattr(services, "_push_on_commit", crash)
    with pytest.raises(RuntimeError):
        services.match_rate(match_id=match.pk)
    assert not RatingChange.objects.exists()  # the changes rolled back with the ratings
    assert not PlayerRating.objects.exists()
    monkeypatch.setattr(services, "_push_on_commit", real)
    assert len(services.match_rate(match_id=match.pk)) == 2
    assert rating_get(user=alice).rating == 1520.0


def test_sweep_recovers_a_lost_task(alice: Any, bob: Any, finish_friend: Callable[..., Any],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    match = _unrated_match(alice, bob, finish_friend, monkeypatch)
    assert services.matches_unrated_ids() == []  # finished less than a minute ago: its task may be queued
    Match.objects.filter(pk=match.pk).update(finished_at=timezone.now() - timedelta(seconds=61))
    assert services.matches_unrated_ids() == [match.pk]
    assert tasks.sweep_unrated.apply().get() == 1  # enqueued (and run: eager here)
    assert RatingChange.objects.filter(match=match).count() == 2
    assert services.matches_unrated_ids() == [] and tasks.sweep_unrated.apply().get() == 0


def test_abandoned_rated_bot_match_ends_on_time_and_is_rated(alice: Any, house_bots: list[Any]) -> None:
    """Nobody at the table: the deadline sweep plays the bot's own turns (never a strike for it) and the
    absent player's automatic moves; the third in a row loses on time, and the loss is rated."""
    match = games_services.match_create_vs_bot(user=alice, level=2, rules_preset="classic", target=100)
    assert match.turn_timer_seconds == 60
    for _ in range(40):
        Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
        games_services.match_expire_turn(match_id=match.pk)
        match.refresh_from_db()
        if match.status != MatchStatus.ACTIVE:
            break
    assert (match.status, match.result_reason, match.winner) == (
        MatchStatus.FINISHED, ResultReason.TIMEOUT, 1)
    assert match.timeout_strikes[1] == 0
    [change] = RatingChange.objects.filter(match=match)
    assert change.player_id == alice.pk and not change.won and change.opponent_rating == bot_rating(2)


# ------------------------------------------------------------------------------------------ batches


def _unrated_round_robin(people: list[Any], n: int, finish_friend: Callable[..., Any],
                         monkeypatch: pytest.MonkeyPatch) -> tuple[list[Match], list[tuple[Any, Any, Any]]]:
    results = []
    matches = []
    for i in range(n):
        a, b = people[i % len(people)], people[(i + 1) % len(people)]
        winner = a if i % 3 != 2 else b
        matches.append(_unrated_match(a, b, finish_friend, monkeypatch, winner=winner))
        results.append((a, b, winner))
    return matches, results


def test_rate_pending_rates_in_the_order_matches_finished_and_twice_changes_nothing(
    alice: Any, bob: Any, carol: Any, finish_friend: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.ratings.conftest import ratings_one_at_a_time

    matches, results = _unrated_round_robin([alice, bob, carol], 9, finish_friend, monkeypatch)
    # Stored out of id order on purpose: the batch follows finished_at, not ids.
    Match.objects.filter(pk=matches[0].pk).update(finished_at=timezone.now())
    results = results[1:] + results[:1]
    monkeypatch.setattr(services, "RATE_BATCH", 4)  # three transactions: the batches chain
    assert services.matches_pending_ids(limit=100) == [m.pk for m in matches[1:]] + [matches[0].pk]
    assert tasks.rate_pending.apply().get() == 18
    expected = ratings_one_at_a_time(results)
    assert {p.pk: rating_get(user=p).rating for p in (alice, bob, carol)} == expected
    assert tasks.rate_pending.apply().get() == 0
    assert RatingChange.objects.count() == 18 and services.matches_pending_ids() == []


def test_two_racing_batches_rate_each_match_once(
    alice: Any, bob: Any, carol: Any, finish_friend: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.ratings.conftest import ratings_one_at_a_time

    matches, results = _unrated_round_robin([alice, bob, carol], 6, finish_friend, monkeypatch)
    ids = [m.pk for m in matches]
    outcomes = concurrently([lambda: len(services.matches_rate(match_ids=ids)),
                              lambda: len(services.matches_rate(match_ids=list(reversed(ids))))])
    assert sorted(outcomes) == [0, 12], outcomes
    assert RatingChange.objects.count() == 12
    assert {p.pk: rating_get(user=p).rating for p in (alice, bob, carol)} == ratings_one_at_a_time(results)


def test_a_finish_enqueues_one_batch_per_second_of_finishes(
    alice: Any, bob: Any, finish_friend: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not eager (a real broker message would be sent): the receiver enqueues ``rate_pending`` for the
    first finish and not for the next ones within the second; the cache failing falls back to the
    match's own ``rate_match``."""
    from config.celery import app
    from ratings import receivers

    sent: list[tuple[str, Any]] = []
    app.conf.task_always_eager = False  # (the eager_tasks fixture puts it back)
    monkeypatch.setattr(tasks.rate_pending, "apply_async", lambda **kw: sent.append(("pending", kw)))
    monkeypatch.setattr(tasks.rate_match, "delay", lambda match_id: sent.append(("match", match_id)))
    for match_id in (101, 102, 103):
        receivers.enqueue_rating(sender=None, match_id=match_id, rated=True)
    receivers.enqueue_rating(sender=None, match_id=104, rated=False)
    assert sent == [("pending", {"countdown": tasks.COUNTDOWN_SECONDS})]

    from django.core.cache import caches

    def broken(*args: Any, **kwargs: Any) -> bool:
        raise ConnectionError("cache down")

    monkeypatch.setattr(caches["default"], "add", broken)  # (the instance: the proxy cannot undo it)
    receivers.enqueue_rating(sender=None, match_id=105, rated=True)
    assert sent[1:] == [("match", 105)]
