"""Quick pairing's services (lobby.pools): joining and its refusals, cancel, leaving when the socket is
gone (injected clock), and the wave's writes: who is paired, with which match, the repeat rule, the
house-bot fallback, players who became busy, closed pools."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from games import services
from games.models import Match, MatchStatus
from games.services import GameError
from lobby import pools
from lobby.models import EntryStatus, Playban, PoolEntry, Seek
from push.groups import entry_group, pool_group
from ratings.selectors import bot_rating
from tests.lobby.conftest import set_rating

pytestmark = pytest.mark.django_db


def _codes(call: Any) -> str:
    with pytest.raises(GameError) as caught:
        call()
    return caught.value.code


def _at(entry: PoolEntry, seconds: float) -> Any:
    """``seconds`` after ``entry`` joined."""
    return entry.joined_at + timedelta(seconds=seconds)


# ------------------------------------------------------------------------------------------ joining
def test_join_records_the_shown_rating_and_a_waiting_entry(alice: Any, rated_pool: Any) -> None:
    set_rating(alice, 1612.4, matches=4)  # provisional: matched by the rating shown to her
    joined = pools.pool_join(user=alice, slug=rated_pool.slug, bot_fallback=True)
    entry = PoolEntry.objects.get()
    assert joined.entry.pk == entry.pk and not joined.resumed and not joined.paired
    assert (entry.user_id, entry.pool_id, entry.status, entry.rating, entry.bot_fallback) == (
        alice.pk, rated_pool.pk, EntryStatus.WAITING, 1612.0, True)
    assert entry.seen_at is not None and entry.disconnected_at is None


def test_join_refusals_each_code_and_nothing_changes(
    alice: Any, bob: Any, carol: Any, guest: Any, rated_pool: Any, casual_pool: Any, django_user_model: Any,
) -> None:
    assert _codes(lambda: pools.pool_join(user=AnonymousUser(), slug=rated_pool.slug)) == "not_authenticated"
    assert _codes(lambda: pools.pool_join(user=guest, slug=rated_pool.slug)) == "guest_rated"
    assert _codes(lambda: pools.pool_join(user=alice, slug="no-such")) == "no_such_pool"
    casual_pool.active = False
    casual_pool.save()
    assert _codes(lambda: pools.pool_join(user=alice, slug=casual_pool.slug)) == "no_such_pool"
    Playban.objects.create(user=bob, reason="abandoned", ends_at=timezone.now() + timedelta(minutes=4))
    with pytest.raises(GameError) as caught:
        pools.pool_join(user=bob, slug=rated_pool.slug)
    assert (caught.value.code, caught.value.message) == (
        "playban", "you left a rated match: you can pair again in 4 minutes")
    match = services.match_create_seated(player0=carol, player1=bob, rated=True)
    with pytest.raises(GameError) as caught:
        pools.pool_join(user=carol, slug=rated_pool.slug)
    assert caught.value.code == "match_in_progress" and str(match.pk) in caught.value.message
    dave = django_user_model.objects.create_user(username="dave")
    Seek.objects.create(creator=dave, creator_rating=1500, expires_at=timezone.now() + timedelta(minutes=5))
    assert _codes(lambda: pools.pool_join(user=dave, slug=rated_pool.slug)) == "already_seeking"
    assert PoolEntry.objects.count() == 0
    pools.pool_join(user=alice, slug=rated_pool.slug)
    casual_pool.active = True
    casual_pool.save()
    assert _codes(lambda: pools.pool_join(user=alice, slug=casual_pool.slug)) == "already_waiting"
    assert list(PoolEntry.objects.values_list("user_id", "pool_id")) == [(alice.pk, rated_pool.pk)]


def test_a_guest_joins_a_casual_pool(guest: Any, casual_pool: Any) -> None:
    entry = pools.pool_join(user=guest, slug=casual_pool.slug).entry
    assert entry.status == EntryStatus.WAITING and entry.rating == 1500.0


def test_joining_the_same_pool_again_resumes_the_wait(alice: Any, rated_pool: Any) -> None:
    first = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    pools.pool_disconnected(entry_id=first.pk, now=_at(first, 2))
    again = pools.pool_join(user=alice, slug=rated_pool.slug, bot_fallback=True, now=_at(first, 4))
    assert again.resumed and again.entry.pk == first.pk
    first.refresh_from_db()
    assert first.disconnected_at is None and first.bot_fallback and first.joined_at == again.entry.joined_at


# ------------------------------------------------------------------------------------------- cancel
def test_cancel_ends_the_wait_once(alice: Any, bob: Any, rated_pool: Any) -> None:
    entry = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    assert _codes(lambda: pools.pool_cancel(entry_id=entry.pk, user=bob)) == "not_your_entry"
    assert pools.pool_cancel(entry_id=entry.pk, user=alice) == pools.Cancelled(True)
    entry.refresh_from_db()
    assert entry.status == EntryStatus.CANCELLED and entry.ended_at is not None
    assert pools.pool_cancel(entry_id=entry.pk, user=alice) == pools.Cancelled(False, None)
    # free to join again (the one-waiting-entry constraint only holds for waiting entries)
    assert pools.pool_join(user=alice, slug=rated_pool.slug).entry.pk != entry.pk


def test_cancel_after_the_wave_returns_the_match(alice: Any, bob: Any, rated_pool: Any) -> None:
    a = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    pools.pool_join(user=bob, slug=rated_pool.slug)
    wave = pools.run_wave(pool_id=rated_pool.pk, now=_at(a, 1))
    [(_, _, match_id)] = wave.pairs
    assert pools.pool_cancel(entry_id=a.pk, user=alice) == pools.Cancelled(False, match_id)


# ------------------------------------------------------------------------------- leaving, by clock
def test_a_socket_gone_longer_than_leave_after_leaves_at_the_next_wave(
    alice: Any, rated_pool: Any, settings: Any,
) -> None:
    settings.LOBBY_LEAVE_AFTER = 5.0
    entry = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    assert pools.pool_disconnected(entry_id=entry.pk, now=_at(entry, 10))
    assert pools.run_wave(pool_id=rated_pool.pk, now=_at(entry, 14.9)).left == []
    assert PoolEntry.objects.get().status == EntryStatus.WAITING
    wave = pools.run_wave(pool_id=rated_pool.pk, now=_at(entry, 15))
    assert wave.left == [(entry.pk, "disconnected")] and wave.waiting == 0
    entry.refresh_from_db()
    assert entry.status == EntryStatus.LEFT and entry.ended_at == _at(entry, 15)


def test_a_reconnect_within_leave_after_keeps_the_entry(alice: Any, rated_pool: Any, settings: Any) -> None:
    settings.LOBBY_LEAVE_AFTER = 5.0
    entry = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    pools.pool_disconnected(entry_id=entry.pk, now=_at(entry, 10))
    assert pools.pool_join(user=alice, slug=rated_pool.slug, now=_at(entry, 13)).resumed
    assert pools.run_wave(pool_id=rated_pool.pk, now=_at(entry, 40)).left == []
    # another tab's socket answering the probe (pool_seen) keeps it the same way
    pools.pool_disconnected(entry_id=entry.pk, now=_at(entry, 41))
    assert pools.pool_seen(entry_id=entry.pk, now=_at(entry, 41.5))
    assert pools.run_wave(pool_id=rated_pool.pk, now=_at(entry, 47)).left == []
    assert PoolEntry.objects.get().status == EntryStatus.WAITING


def test_an_entry_not_seen_for_stale_after_leaves(alice: Any, rated_pool: Any) -> None:
    # its Daphne died: no disconnect was recorded, the heartbeat stopped
    entry = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    seen = entry.seen_at
    assert pools.run_wave(pool_id=rated_pool.pk,
                          now=seen + timedelta(seconds=pools.STALE_AFTER - 0.1)).left == []
    wave = pools.run_wave(pool_id=rated_pool.pk, now=seen + timedelta(seconds=pools.STALE_AFTER))
    assert wave.left == [(entry.pk, "disconnected")]


def test_a_ghost_entry_of_the_player_does_not_refuse_their_next_join(
    alice: Any, rated_pool: Any, casual_pool: Any,
) -> None:
    entry = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    pools.pool_disconnected(entry_id=entry.pk, now=_at(entry, 1))
    other = pools.pool_join(user=alice, slug=casual_pool.slug, now=_at(entry, 1 + pools.LEAVE_AFTER))
    entry.refresh_from_db()
    assert entry.status == EntryStatus.LEFT and other.entry.status == EntryStatus.WAITING


# ------------------------------------------------------------------------------------------ waves
def test_two_players_make_one_match_with_the_pools_settings(alice: Any, bob: Any, rated_pool: Any) -> None:
    set_rating(alice, 1520)
    set_rating(bob, 1580)
    a = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    b = pools.pool_join(user=bob, slug=rated_pool.slug).entry
    wave = pools.run_wave(pool_id=rated_pool.pk, now=_at(b, 0.5))
    match = Match.objects.get()
    assert wave.pairs == [(a.pk, b.pk, match.pk)] and wave.waiting == 0
    assert (match.player0_id, match.player1_id) == (alice.pk, bob.pk)  # the longer waiter sits first
    assert (match.status, match.preset, match.rules["target"], match.turn_timer_seconds, match.rated) == (
        MatchStatus.ACTIVE, "classic", 100, 60, True)
    for entry in (a, b):
        entry.refresh_from_db()
        assert (entry.status, entry.match_id, entry.ended_at) == (EntryStatus.PAIRED, match.pk, _at(b, 0.5))


def test_a_casual_pool_makes_a_casual_match(alice: Any, bob: Any, casual_pool: Any) -> None:
    b = [pools.pool_join(user=u, slug=casual_pool.slug).entry for u in (alice, bob)][1]
    pools.run_wave(pool_id=casual_pool.pk, now=_at(b, 0))
    match = Match.objects.get()
    assert (match.rated, match.rules["target"], match.turn_timer_seconds) == (False, 50, 20)


def test_the_window_widens_with_waiting_time(alice: Any, bob: Any, rated_pool: Any) -> None:
    # 1500 and 1800: a gap of 300 is inside both windows once 100 + 10 * t >= 300, t = 20 s
    set_rating(alice, 1500)
    set_rating(bob, 1800)
    a = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    pools.pool_join(user=bob, slug=rated_pool.slug)
    b = PoolEntry.objects.get(user=bob)
    later = max(a.joined_at, b.joined_at)
    assert pools.run_wave(pool_id=rated_pool.pk, now=later + timedelta(seconds=19.9)).pairs == []
    assert len(pools.run_wave(pool_id=rated_pool.pk, now=later + timedelta(seconds=20)).pairs) == 1


def _meet(users: tuple[Any, Any], pool: Any) -> Match:
    """Pair ``users`` through ``pool`` and finish their match (so they are free again)."""
    entries = [pools.pool_join(user=u, slug=pool.slug).entry for u in users]
    wave = pools.run_wave(pool_id=pool.pk, now=_at(entries[-1], 0))
    [(_, _, match_id)] = wave.pairs
    Match.objects.filter(pk=match_id).update(status=MatchStatus.FINISHED)
    return Match.objects.get(pk=match_id)


def test_the_same_two_are_not_paired_twice_in_a_row_unless_alone(
    alice: Any, bob: Any, carol: Any, rated_pool: Any,
) -> None:
    set_rating(alice, 1500)
    set_rating(bob, 1510)
    set_rating(carol, 1560)
    _meet((alice, bob), rated_pool)
    for user in (alice, bob, carol):
        pools.pool_join(user=user, slug=rated_pool.slug)
    last = PoolEntry.objects.filter(status=EntryStatus.WAITING).latest("joined_at")
    wave = pools.run_wave(pool_id=rated_pool.pk, now=_at(last, 0))
    [(first, second, match_id)] = wave.pairs
    paired = {PoolEntry.objects.get(pk=first).user_id, PoolEntry.objects.get(pk=second).user_id}
    assert carol.pk in paired and paired != {alice.pk, bob.pk}
    # only the two of them waiting: they meet again
    alice_waits = PoolEntry.objects.get(status=EntryStatus.WAITING)
    other = bob if alice_waits.user_id == alice.pk else alice
    Match.objects.filter(pk=match_id).update(status=MatchStatus.FINISHED)
    Match.objects.update(status=MatchStatus.FINISHED)
    pools.pool_join(user=other, slug=rated_pool.slug)
    assert len(pools.run_wave(pool_id=rated_pool.pk, now=timezone.now()).pairs) == 1


def test_bot_fallback_after_bot_after_seconds(alice: Any, bob: Any, house_bots: Any, rated_pool: Any) -> None:
    set_rating(alice, 1230)
    a = pools.pool_join(user=alice, slug=rated_pool.slug, bot_fallback=True).entry
    b = pools.pool_join(user=bob, slug=rated_pool.slug).entry  # asked for no bot
    set_rating(bob, 2400)
    PoolEntry.objects.filter(pk=b.pk).update(rating=2400)  # far from alice: nobody to pair with
    assert pools.run_wave(pool_id=rated_pool.pk, now=_at(a, 29.9)).bots == []
    for entry in (a, b):  # their sockets' heartbeats
        pools.pool_seen(entry_id=entry.pk, now=_at(a, 25))
    wave = pools.run_wave(pool_id=rated_pool.pk, now=_at(a, 30))
    match = Match.objects.get()
    assert wave.bots == [(a.pk, match.pk)] and wave.pairs == [] and wave.waiting == 1
    # the bot nearest 1230, by brute force over the five levels' fixed ratings
    nearest = min(range(1, 6), key=lambda level: (abs(bot_rating(level) - 1230), level))
    assert match.player0_id == alice.pk and match.player1.is_bot and match.bot_level == nearest
    assert match.rated and match.rules["target"] == 100
    a.refresh_from_db()
    assert (a.status, a.match_id) == (EntryStatus.BOT, match.pk)
    assert PoolEntry.objects.get(pk=b.pk).status == EntryStatus.WAITING


def test_a_player_who_started_a_rated_match_meanwhile_is_taken_out(
    alice: Any, bob: Any, carol: Any, house_bots: Any, rated_pool: Any,
) -> None:
    a = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    pools.pool_join(user=bob, slug=rated_pool.slug)
    services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)  # rated
    wave = pools.run_wave(pool_id=rated_pool.pk, now=_at(a, 1))
    assert wave.pairs == [] and wave.left == [(a.pk, "match_in_progress")] and wave.waiting == 1
    assert Match.objects.count() == 1


def test_a_closed_pool_ends_its_waits(alice: Any, rated_pool: Any) -> None:
    entry = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    rated_pool.active = False
    rated_pool.save()
    [wave] = pools.run_waves(now=_at(entry, 1))
    assert wave.left == [(entry.pk, "pool_closed")]
    assert PoolEntry.objects.get().status == EntryStatus.CANCELLED


def test_a_wave_pairs_many_players_once_each(django_user_model: Any, rated_pool: Any) -> None:
    users = [django_user_model.objects.create_user(username=f"p{i}") for i in range(9)]
    for i, user in enumerate(users):
        set_rating(user, 1400 + 20 * i)
        pools.pool_join(user=user, slug=rated_pool.slug)
    wave = pools.run_wave(pool_id=rated_pool.pk, now=timezone.now())
    assert len(wave.pairs) == 4 and wave.waiting == 1
    seated = [uid for m in Match.objects.all() for uid in (m.player0_id, m.player1_id)]
    assert len(seated) == 8 and len(set(seated)) == 8


def test_the_paired_message_is_sent_after_commit(
    alice: Any, bob: Any, rated_pool: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    from channels.layers import get_channel_layer

    a = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    b = pools.pool_join(user=bob, slug=rated_pool.slug).entry
    layer = get_channel_layer()
    sent: list[tuple[str, dict[str, Any]]] = []

    async def record(layer_: Any, messages: Any) -> None:
        sent.extend(messages)

    from infra import channel_layer

    original = channel_layer.group_send_many
    channel_layer.group_send_many = record  # type: ignore[assignment]
    try:
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            wave = pools.run_wave(pool_id=rated_pool.pk, now=_at(b, 0))
            assert sent == []  # nothing before the commit
    finally:
        channel_layer.group_send_many = original  # type: ignore[assignment]
    assert layer is not None and len(callbacks) >= 1
    [(_, _, match_id)] = wave.pairs
    assert sent == [
        (entry_group(a.pk), {"type": "pool.paired", "match": match_id,
                                   "opponent": {"name": "bob", "rating": 1500}, "bot": False}),
        (entry_group(b.pk), {"type": "pool.paired", "match": match_id,
                                   "opponent": {"name": "alice", "rating": 1500}, "bot": False}),
        (pool_group(rated_pool.pk), {"type": "pool.count", "waiting": 0}),
    ]


@pytest.mark.push_failure
def test_a_send_that_fails_is_recorded_and_the_write_stands(
    alice: Any, rated_pool: Any, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from infra import channel_layer
    from push import send

    async def broken(layer_: Any, messages: Any) -> None:
        raise ConnectionError("layer down")

    monkeypatch.setattr(channel_layer, "group_send_many", broken)
    seen: list[send.Failure] = []
    monkeypatch.setattr(send, "LISTENERS", [seen.append])
    with django_capture_on_commit_callbacks(execute=True):
        pools.pool_join(user=alice, slug=rated_pool.slug)
    assert [(f.types, f.groups, f.is_outage) for f in seen] == [
        (("pool.count",), (f"pool_{rated_pool.pk}",), True)]
    assert PoolEntry.objects.get().status == EntryStatus.WAITING  # the write stands


def test_nearest_bot_level_brute_force() -> None:
    for rating in range(600, 2600, 37):
        best = min(abs(bot_rating(level) - rating) for level in range(1, 6))
        assert abs(bot_rating(pools.nearest_bot_level(rating)) - rating) == best


def test_min_gap_skips_a_pool_whose_wave_just_ran(alice: Any, rated_pool: Any) -> None:
    entry = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    assert pools.run_wave(pool_id=rated_pool.pk, now=_at(entry, 1), min_gap=0.25).ran
    # another process's loop, 0.2 s later: skipped
    assert not pools.run_wave(pool_id=rated_pool.pk, now=_at(entry, 1.2), min_gap=0.25).ran
    assert pools.run_wave(pool_id=rated_pool.pk, now=_at(entry, 1.25), min_gap=0.25).ran
    assert pools.run_wave(pool_id=rated_pool.pk, now=_at(entry, 1.3)).ran  # no gap asked: always runs


def test_a_wave_makes_at_most_max_matches_longest_waiters_first(
    django_user_model: Any, rated_pool: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pools, "MAX_MATCHES_PER_WAVE", 2)
    users = [django_user_model.objects.create_user(username=f"m{i}") for i in range(6)]
    entries = []
    for i, user in enumerate(users):
        set_rating(user, 1500 + 10 * i)
        entries.append(pools.pool_join(user=user, slug=rated_pool.slug).entry)
    now = timezone.now()
    for i, entry in enumerate(entries):  # joined a second apart, m0 first
        PoolEntry.objects.filter(pk=entry.pk).update(joined_at=now - timedelta(seconds=10 - i))
    first = pools.run_wave(pool_id=rated_pool.pk, now=now)
    assert [(a, b) for a, b, _ in first.pairs] == [(entries[0].pk, entries[1].pk),
                                                  (entries[2].pk, entries[3].pk)]
    assert first.waiting == 2
    assert [(a, b) for a, b, _ in pools.run_wave(pool_id=rated_pool.pk, now=now).pairs] == [
        (entries[4].pk, entries[5].pk)]
