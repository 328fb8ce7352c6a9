"""Racing waves, cancels and joins on the real PostgreSQL, with threads (each its own connection): a
player is never put in two matches; a cancel racing a wave either wins (no match) or loses (the match
starts and the cancel returns it), never both; both orders are forced once each, then raced freely."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, connections
from django.utils import timezone

from games.models import Match
from lobby import pools
from lobby.models import EntryStatus, PoolEntry
from tests.conftest import skip_or_fail
from tests.lobby.conftest import set_rating

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgres() -> None:
    if connection.vendor != "postgresql":
        skip_or_fail("row locks (SKIP LOCKED) need PostgreSQL: set DATABASE_URL")


def _threads(*calls: Callable[[], Any]) -> list[Any]:
    """Run ``calls`` at once (a barrier), each in its own thread and connection; their results (or the
    exception each raised)."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[i] = call()
        except Exception as exc:  # handed to the test, which asserts on it
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def _seated() -> Counter[int]:
    return Counter(uid for m in Match.objects.all() for uid in (m.player0_id, m.player1_id))


def test_racing_waves_never_seat_a_player_twice(django_user_model: Any, rated_pool: Any) -> None:
    users = [django_user_model.objects.create_user(username=f"r{i}") for i in range(12)]
    for i, user in enumerate(users):
        set_rating(user, 1500 + 10 * i)
        pools.pool_join(user=user, slug=rated_pool.slug)
    now = timezone.now()
    results = _threads(*[lambda: pools.run_wave(pool_id=rated_pool.pk, now=now) for _ in range(4)])
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sum(len(r.pairs) for r in results) == 6
    seated = _seated()
    assert len(seated) == 12 and set(seated.values()) == {1}
    assert PoolEntry.objects.filter(status=EntryStatus.PAIRED).count() == 12


def test_a_cancel_that_locks_first_wins(alice: Any, bob: Any, rated_pool: Any) -> None:
    from django.db import transaction

    a = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    pools.pool_join(user=bob, slug=rated_pool.slug)
    result: list[Any] = []
    with transaction.atomic():
        PoolEntry.objects.select_for_update().get(pk=a.pk)  # the cancel holds alice's entry
        wave = threading.Thread(target=lambda: (result.append(pools.run_wave(pool_id=rated_pool.pk)),
                                                connections.close_all()))
        wave.start()
        wave.join(1.0)
        assert wave.is_alive()  # the wave waits for the entry's lock
        PoolEntry.objects.filter(pk=a.pk).update(status=EntryStatus.CANCELLED, ended_at=timezone.now())
    wave.join(30)
    assert result[0].pairs == [] and result[0].waiting == 1
    assert Match.objects.count() == 0


def test_a_cancel_that_comes_second_gets_the_match(
    alice: Any, bob: Any, rated_pool: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    a = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    b = pools.pool_join(user=bob, slug=rated_pool.slug).entry
    creating, release = threading.Event(), threading.Event()
    real = pools.match_create_seated

    def slow_create(**kwargs: Any) -> Any:
        creating.set()  # the wave holds the pool and both entries now
        assert release.wait(30)
        return real(**kwargs)

    monkeypatch.setattr(pools, "match_create_seated", slow_create)
    waves: list[Any] = []
    cancels: list[Any] = []
    wave = threading.Thread(target=lambda: (waves.append(pools.run_wave(pool_id=rated_pool.pk)),
                                            connections.close_all()))
    wave.start()
    assert creating.wait(30)
    cancel = threading.Thread(target=lambda: (cancels.append(pools.pool_cancel(entry_id=a.pk, user=alice)),
                                              connections.close_all()))
    cancel.start()
    cancel.join(1.0)
    assert cancel.is_alive()  # waits for the wave's lock on alice's entry
    release.set()
    wave.join(30)
    cancel.join(30)
    match = Match.objects.get()
    assert waves[0].pairs == [(a.pk, b.pk, match.pk)]
    assert cancels == [pools.Cancelled(False, match.pk)]
    assert PoolEntry.objects.get(pk=a.pk).status == EntryStatus.PAIRED


@pytest.mark.parametrize("rounds", [12])
def test_cancels_racing_waves_are_each_one_outcome(
    django_user_model: Any, rated_pool: Any, rounds: int,
) -> None:
    users = [django_user_model.objects.create_user(username=f"c{i}") for i in range(2 * rounds)]
    outcomes: Counter[str] = Counter()
    for r in range(rounds):
        a_user, b_user = users[2 * r], users[2 * r + 1]
        a = pools.pool_join(user=a_user, slug=rated_pool.slug).entry
        pools.pool_join(user=b_user, slug=rated_pool.slug)
        wave, cancel = _threads(lambda: pools.run_wave(pool_id=rated_pool.pk),
                                lambda a=a, u=a_user: pools.pool_cancel(entry_id=a.pk, user=u))
        assert not isinstance(wave, Exception) and not isinstance(cancel, Exception), (wave, cancel)
        a.refresh_from_db()
        if cancel.cancelled:  # the cancel won: no match for alice; bob waits on
            outcomes["cancel"] += 1
            assert a.status == EntryStatus.CANCELLED and a.match_id is None
            assert not Match.objects.filter(player0=a_user).exists()
            assert not Match.objects.filter(player1=a_user).exists()
            PoolEntry.objects.filter(user=b_user, status=EntryStatus.WAITING).update(
                status=EntryStatus.CANCELLED)
        else:  # the wave won: the cancel was told the match
            outcomes["wave"] += 1
            assert a.status == EntryStatus.PAIRED and cancel.match_id == a.match_id is not None
            Match.objects.filter(pk=a.match_id).update(status="finished")
    seated = _seated()
    assert set(seated.values()) <= {1}
    assert sum(outcomes.values()) == rounds


def test_joins_racing_a_wave(django_user_model: Any, rated_pool: Any) -> None:
    users = [django_user_model.objects.create_user(username=f"j{i}") for i in range(8)]
    for user in users[:4]:
        pools.pool_join(user=user, slug=rated_pool.slug)
    # the four others join (twice each: two tabs) while two waves run
    calls: list[Callable[[], Any]] = [lambda: pools.run_wave(pool_id=rated_pool.pk)] * 2
    for user in users[4:]:
        calls += [lambda u=user: pools.pool_join(user=u, slug=rated_pool.slug)] * 2
    results = _threads(*calls)
    assert [r for r in results if isinstance(r, Exception)] == []  # a second tab resumes the same wait
    pools.run_wave(pool_id=rated_pool.pk)
    seated = _seated()
    assert set(seated.values()) <= {1}
    waiting = PoolEntry.objects.filter(status=EntryStatus.WAITING).values_list("user_id", flat=True)
    assert sorted([*seated, *waiting]) == sorted(u.pk for u in users)
    assert PoolEntry.objects.filter(status=EntryStatus.WAITING).count() + len(seated) == 8
