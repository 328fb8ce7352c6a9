"""The BOT pool (botapi.pool_views, lobby.pools; docs/bot-api.md "Who plays whom"): two BOT accounts join
over HTTP and a wave pairs them into a rated, started match; a join again keeps the wait and moves its
expiry; a stale entry expires; no house bot fills a BOT's wait; people are refused from the BOT pool (HTTP,
service, socket) and BOTs from people's pools and open challenges; the BOT pair cap."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import services
from games.models import Match, MatchStatus
from games.services import GameError
from lobby import pools, seeks
from lobby.models import EntryStatus, PoolEntry, Seek
from lobby.seeks import Settings
from tests.botapi.conftest import error_of, pair
from tests.botapi.pool_fixtures import bot_pool, people_pool

__all__ = ["bot_pool", "people_pool"]  # fixtures

pytestmark = pytest.mark.django_db


def _code(call: Callable[[], Any]) -> str:
    with pytest.raises(GameError) as caught:
        call()
    return caught.value.code


def _iso(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_two_bots_join_over_http_and_a_wave_pairs_them_rated(
    make_bot: Callable[..., tuple[Any, str]], bot_api: Any, bot_pool: Any,
) -> None:
    robo, robo_token = pair(make_bot("robo"))
    tron, tron_token = pair(make_bot("tron"))
    answer = bot_api(robo_token).post("pool/bots-100/join/")
    assert answer.status_code == 200
    body = answer.json()
    entry = PoolEntry.objects.get(user=robo)
    assert (entry.status, entry.pool_id, entry.bot_fallback) == (EntryStatus.WAITING, bot_pool.pk, False)
    assert entry.seen_at is not None
    assert body == {"pool": "bots-100", "status": "waiting", "waiting_since": entry.joined_at.isoformat(),
                    "expires_at": (entry.seen_at + timedelta(seconds=120)).isoformat(), "match": None}
    assert bot_api(tron_token).post("pool/bots-100/join/").status_code == 200
    wave = pools.run_wave(pool_id=bot_pool.pk, now=timezone.now() + timedelta(seconds=1))
    assert len(wave.pairs) == 1 and wave.bots == [] and wave.waiting == 0
    match = Match.objects.get(pk=wave.pairs[0][2])
    assert {match.player0_id, match.player1_id} == {robo.pk, tron.pk}
    assert match.player0_id == robo.pk  # the longer waiter sits in seat 0
    assert (match.status, match.rated, match.turn_timer_seconds, match.started_at is not None) == (
        MatchStatus.ACTIVE, True, 30, True)
    assert match.rules["target"] == 100
    assert set(PoolEntry.objects.values_list("status", "match_id")) == {(EntryStatus.PAIRED, match.pk)}
    # a join right after the wave (a lost answer, a retry) is told the match
    again = bot_api(robo_token).post("pool/bots-100/join/").json()
    assert again == {"pool": "bots-100", "status": "paired", "waiting_since": None, "expires_at": None,
                     "match": match.pk}


def test_a_join_while_waiting_keeps_the_wait_and_moves_its_expiry(
    make_bot: Callable[..., tuple[Any, str]], bot_pool: Any,
) -> None:
    robo, _ = pair(make_bot("robo"))
    start = timezone.now()
    first = pools.pool_join(user=robo, slug="bots-100", via_api=True, now=start).entry
    assert pools.expires_at(first) == start + timedelta(seconds=120)
    again = pools.pool_join(user=robo, slug="bots-100", via_api=True, now=start + timedelta(seconds=100))
    assert again.resumed and again.entry.pk == first.pk
    assert pools.expires_at(again.entry) == start + timedelta(seconds=220)
    # still waiting at 219 s (alone: nobody to meet, no house bot), gone at 220 s
    wave = pools.run_wave(pool_id=bot_pool.pk, now=start + timedelta(seconds=219))
    assert (wave.left, wave.bots, wave.waiting) == ([], [], 1)
    wave = pools.run_wave(pool_id=bot_pool.pk, now=start + timedelta(seconds=220))
    assert wave.left == [(first.pk, "expired")] and wave.waiting == 0
    first.refresh_from_db()
    assert first.status == EntryStatus.LEFT


def test_a_stale_entry_expires_after_the_setting(
    make_bot: Callable[..., tuple[Any, str]], bot_pool: Any, settings: Any,
) -> None:
    settings.BOTAPI_POOL_WAIT_SECONDS = 10
    robo, _ = pair(make_bot("robo"))
    start = timezone.now()
    entry = pools.pool_join(user=robo, slug="bots-100", via_api=True, now=start).entry
    # a person's entry would leave after 30 s unseen; a BOT's after the setting, whatever its socket
    assert pools.run_wave(pool_id=bot_pool.pk, now=start + timedelta(seconds=9.9)).left == []
    assert pools.run_wave(pool_id=bot_pool.pk, now=start + timedelta(seconds=10)).left == [
        (entry.pk, "expired")]
    # and a new join after it makes a new wait
    fresh = pools.pool_join(user=robo, slug="bots-100", via_api=True, now=start + timedelta(seconds=11))
    assert fresh.entry.pk != entry.pk and not fresh.resumed


def test_no_house_bot_fills_a_bots_wait(
    make_bot: Callable[..., tuple[Any, str]], bot_pool: Any, house_bots: Any,
) -> None:
    robo, _ = pair(make_bot("robo"))
    start = timezone.now()
    entry = pools.pool_join(user=robo, slug="bots-100", via_api=True, bot_fallback=True, now=start).entry
    assert entry.bot_fallback is False
    PoolEntry.objects.filter(pk=entry.pk).update(bot_fallback=True)  # even if one asked for it
    wave = pools.run_wave(pool_id=bot_pool.pk, now=start + timedelta(seconds=60))
    assert (wave.bots, wave.waiting) == ([], 1) and Match.objects.count() == 0


def test_leave_over_http(make_bot: Callable[..., tuple[Any, str]], bot_api: Any, bot_pool: Any) -> None:
    robo, token = pair(make_bot("robo"))
    assert bot_api(token).post("pool/bots-100/leave/").json() == {"pool": "bots-100", "left": False,
                                                                   "match": None}
    bot_api(token).post("pool/bots-100/join/")
    assert bot_api(token).post("pool/bots-100/leave/").json() == {"pool": "bots-100", "left": True,
                                                                   "match": None}
    assert PoolEntry.objects.get(user=robo).status == EntryStatus.CANCELLED
    assert error_of(bot_api(token).post("pool/no-such/leave/")) == (404, "no_such_pool")


def test_refusals_over_http(
    make_bot: Callable[..., tuple[Any, str]], make_token: Callable[..., str], bot_api: Any, bot_pool: Any,
    people_pool: Any, alice: Any,
) -> None:
    robo, token = pair(make_bot("robo"))
    assert error_of(bot_api(None).post("pool/bots-100/join/")) == (401, "not_authenticated")
    assert error_of(bot_api(make_token(robo, scopes=("bot:play",))).post("pool/bots-100/join/")) == (
        403, "missing_scope")
    assert error_of(bot_api(make_token(alice)).post("pool/bots-100/join/")) == (403, "not_bot")
    assert error_of(bot_api(token).post("pool/no-such/join/")) == (404, "no_such_pool")
    refused = bot_api(token).post(f"pool/{people_pool.slug}/join/")
    assert error_of(refused) == (400, "people_only")
    assert refused.json()["message"] == ("BOT accounts play through the bot API, in the BOT pool: people's"
                                         " pools and open challenges are for people")
    assert PoolEntry.objects.count() == 0


def test_the_door_of_each_pool(
    make_bot: Callable[..., tuple[Any, str]], bot_pool: Any, people_pool: Any, alice: Any, guest: Any,
    house_bots: Any,
) -> None:
    robo, _ = pair(make_bot("robo"))
    assert _code(lambda: pools.pool_join(user=alice, slug="bots-100")) == "bots_pool_only"
    assert _code(lambda: pools.pool_join(user=alice, slug="bots-100", via_api=True)) == "bots_pool_only"
    assert _code(lambda: pools.pool_join(user=guest, slug="bots-100")) == "bots_pool_only"
    assert _code(lambda: pools.pool_join(user=robo, slug=people_pool.slug, via_api=True)) == "people_only"
    assert _code(lambda: pools.pool_join(user=robo, slug=people_pool.slug)) == "people_only"
    assert _code(lambda: pools.pool_join(user=robo, slug="bots-100")) == "bot_api_only"  # the socket's path
    assert PoolEntry.objects.count() == 0
    assert pools.pool_join(user=alice, slug=people_pool.slug).entry.status == EntryStatus.WAITING


def test_bots_do_not_open_or_accept_open_challenges(
    make_bot: Callable[..., tuple[Any, str]], alice: Any,
) -> None:
    robo, _ = pair(make_bot("robo"))
    choice = Settings(preset="classic", target=100, turn_timer=60, rated=False)
    assert _code(lambda: seeks.seek_create(user=robo, choice=choice)) == "people_only"
    seek = seeks.seek_create(user=alice, choice=choice)
    assert _code(lambda: seeks.seek_accept(user=robo, seek_id=seek.pk)) == "people_only"
    assert list(Seek.objects.values_list("creator_id", "status")) == [(alice.pk, "open")]


def _rated_matches(a: Any, b: Any, n: int) -> None:
    for _ in range(n):
        match = services.match_create_seated(player0=a, player1=b, rated=True, turn_timer=30)
        Match.objects.filter(pk=match.pk).update(status=MatchStatus.FINISHED, winner=0)


def test_two_bots_meet_rated_up_to_their_own_daily_cap(
    make_bot: Callable[..., tuple[Any, str]], bot_pool: Any, settings: Any,
) -> None:
    settings.GAMES_BOT_PAIR_RATED_PER_DAY = 5
    robo, _ = pair(make_bot("robo"))
    tron, _ = pair(make_bot("tron"))
    _rated_matches(robo, tron, 4)  # over the people's 3, under the BOTs' 5
    assert services.pair_rated_cap(user_id=robo.pk, other_id=tron.pk) == 5
    assert not services.pair_rated_full(user_id=robo.pk, other_id=tron.pk)
    assert services.pairs_at_rated_cap(user_ids={robo.pk, tron.pk}) == set()
    start = timezone.now()
    for bot in (robo, tron):
        pools.pool_join(user=bot, slug="bots-100", via_api=True, now=start)
    wave = pools.run_wave(pool_id=bot_pool.pk, now=start + timedelta(seconds=1))
    assert len(wave.pairs) == 1
    Match.objects.filter(pk=wave.pairs[0][2]).update(status=MatchStatus.FINISHED, winner=0)  # the 5th
    assert services.pair_rated_full(user_id=robo.pk, other_id=tron.pk)
    assert services.pairs_at_rated_cap(user_ids={robo.pk, tron.pk}) == {(min(robo.pk, tron.pk),
                                                                         max(robo.pk, tron.pk))}
    later = start + timedelta(seconds=5)
    for bot in (robo, tron):
        pools.pool_join(user=bot, slug="bots-100", via_api=True, now=later)
    wave = pools.run_wave(pool_id=bot_pool.pk, now=later + timedelta(seconds=1))
    assert (wave.pairs, wave.waiting) == ([], 2)


def test_a_bot_and_a_person_keep_the_peoples_cap(
    make_bot: Callable[..., tuple[Any, str]], alice: Any,
) -> None:
    robo, _ = pair(make_bot("robo"))
    _rated_matches(robo, alice, 3)
    assert services.pair_rated_cap(user_id=robo.pk, other_id=alice.pk) == 3
    assert services.pair_rated_full(user_id=alice.pk, other_id=robo.pk)
    assert services.pairs_at_rated_cap(user_ids={robo.pk, alice.pk}) == {(min(robo.pk, alice.pk),
                                                                          max(robo.pk, alice.pk))}


def test_the_bot_pool_is_hidden_from_peoples_lists(client: Any, bot_pool: Any, people_pool: Any) -> None:
    from home.numbers import pools_waiting

    home = [p["slug"] for p in pools_waiting()]
    assert people_pool.slug in home and "bots-100" not in home
    page = client.get("/play/").content.decode()
    assert people_pool.slug in page and "bots-100" not in page
    assert client.get("/play/pool/bots-100/").status_code == 404
    listed = [p["slug"] for p in client.get("/api/v1/pools/?limit=100").json()["results"]]
    assert people_pool.slug in listed and "bots-100" not in listed


@pytest.mark.django_db(transaction=True)
async def test_the_pool_socket_refuses_people_at_the_bot_pool_and_bots_anywhere(
    alice: Any, bot_pool: Any, people_pool: Any, make_bot: Callable[..., tuple[Any, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from channels.db import database_sync_to_async

    from lobby import waves
    from tests.lobby.test_pools_socket import _refused

    monkeypatch.setattr(waves, "ensure_running", lambda: False)
    robo = (await database_sync_to_async(make_bot)("robo")).user
    frame, close = await _refused(alice, "/ws/pool/bots-100/")
    assert frame == {"type": "error", "code": "bots_pool_only",
                     "message": "this pool is for BOT accounts only"} and close == 4403
    frame, close = await _refused(alice, "/ws/pool/bots-100/", "pt-BR")
    assert frame["message"] == "esta fila é só para contas de robô" and close == 4403
    frame, close = await _refused(robo, "/ws/pool/bots-100/")
    assert (frame["code"], close) == ("bot_api_only", 4403)
    frame, close = await _refused(robo, f"/ws/pool/{people_pool.slug}/")
    assert (frame["code"], close) == ("people_only", 4403)
    assert await database_sync_to_async(PoolEntry.objects.count)() == 0


@pytest.mark.django_db(transaction=True)
async def test_a_join_served_by_daphne_starts_the_wave_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sync view runs in a thread asgiref started from the server's event loop: the loop is started
    (or woken) there; called without one (a WSGI test client), nothing starts."""
    import asyncio

    from asgiref.sync import sync_to_async

    from lobby import waves

    started = asyncio.Event()
    loops: list[Any] = []

    def fake_start() -> bool:
        loops.append(asyncio.get_running_loop())
        started.set()
        return True

    monkeypatch.setattr(waves, "ensure_running", fake_start)
    assert waves.ensure_running_from_thread() is False  # this thread is no view's
    assert await sync_to_async(waves.ensure_running_from_thread)() is True
    await asyncio.wait_for(started.wait(), timeout=30)
    assert loops == [asyncio.get_running_loop()]
