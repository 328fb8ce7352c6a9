"""``/watch/``: the list of live public matches (issue 22; ``replays.live_list``), on worked data.

Worked data (the ``world`` fixture), ratings averaged over the two seats:

- ``rated``: ana (1700) v bea (1600), a rated match, 2 spectators: 1650;
- ``board``: house bots level 4 (Elo 1539) v level 5 (1671), board 3 of round 2 of "Evening Cup"
  ("Copa da Noite"): 1605;
- ``bot``: cid (never rated: 1500) v the level-3 bot (1500), a member's bot match (public by rule): 1500;
- not listed: ``private``, eve (2000) v fay (1900) at a casual friend table (the strongest of all);
  ``finished``, ana v bea finished; a friend table whose second seat is still empty.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Match, MatchStatus
from lobby.models import Pool, PoolEntry
from push import send as push_send
from ratings.models import PlayerRating
from replays import audience, live_list
from tests.lobby.home_pools import ensure_default_pools
from tournaments.models import Pairing, Round, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


def member(name: str, rating: float | None = None) -> User:
    user = User.objects.create(username=name)  # no password: hashing costs 0.3 s
    if rating is not None:
        PlayerRating.objects.create(user=user, rating=rating, peak=rating, rated_matches=12, wins=12,
                                    losses=0, last_rated_at=timezone.now())
    return user


def active(p0: User, p1: User | None, *, rated: bool = False, minutes_ago: int = 0, **extra: Any) -> Match:
    return Match.objects.create(
        rules={"target": 100}, player0=p0, player1=p1, status=MatchStatus.ACTIVE, rated=rated, first_dealer=0,
        scores=[12, 30], started_at=timezone.now() - dt.timedelta(minutes=minutes_ago), **extra)


def board_of(match: Match, *, name: str = "Evening Cup", round_number: int = 2, board: int = 3) -> None:
    """Make ``match`` board ``board`` of round ``round_number`` of a running tournament."""
    tournament = Tournament.objects.create(name_en=name, name_pt="Copa da Noite", starts_at=timezone.now(),
                                           status=TournamentStatus.RUNNING, current_round=round_number)
    round_ = Round.objects.create(tournament=tournament, number=round_number)
    Pairing.objects.create(round=round_, board=board, player0=match.player0, player1=match.player1,
                           match=match)


@pytest.fixture
def world(house_bots: list[Any]) -> dict[str, Any]:
    ana, bea, cid = member("ana", 1700), member("bea", 1600), member("cid")
    eve, fay = member("eve_hidden", 2000), member("fay_hidden", 1900)
    made = {
        "rated": active(ana, bea, rated=True, minutes_ago=5),
        "board": active(house_bots[3], house_bots[4], bot_level=4, bot_seats=[0, 1], minutes_ago=3),
        "bot": active(cid, house_bots[2], bot_level=3, bot_seats=[1], minutes_ago=1),
        "private": active(eve, fay),
        "finished": active(ana, bea, rated=True, minutes_ago=9),
        "waiting": active(member("gil_waiting", 2400), None),
    }
    Match.objects.filter(pk=made["finished"].pk).update(status=MatchStatus.FINISHED,
                                                         finished_at=timezone.now())
    Match.objects.filter(pk=made["waiting"].pk).update(status=MatchStatus.WAITING, first_dealer=None)
    board_of(made["board"])
    for n in range(2):
        assert isinstance(audience.admit(match_id=made["rated"].pk, ip=f"10.0.0.{n}", member=f"s{n}"),
                          audience.Seat)
    return made


def test_the_list_on_worked_data(world: dict[str, Any]) -> None:
    live = live_list.live_matches()
    assert (live.total, live.limit, live.capped) == (3, 50, False)
    assert [row["id"] for row in live.rows] == [world[k].pk for k in ("rated", "board", "bot")]
    assert [row["strength"] for row in live.rows] == [1650.0, 1605.0, 1500.0]
    rated, board, bot = live.rows
    assert rated == {
        "id": world["rated"].pk, "url": f"/watch/{world['rated'].pk}/",
        "players": [{"name": "ana", "rating": 1700, "is_bot": False, "bot_level": None,
                     "bot_account": False},
                    {"name": "bea", "rating": 1600, "is_bot": False, "bot_level": None,
                     "bot_account": False}],
        "strength": 1650.0, "kind": "rated", "pool": None, "tournament": None, "rated": True,
        "scores": [12, 30], "target": 100, "spectators": 2,
    }
    pairing = Pairing.objects.get(match=world["board"])
    assert board["kind"] == "tournament" and board["tournament"] == {
        "id": pairing.round.tournament_id, "name": "Evening Cup", "round": 2, "board": 3,
        "url": f"/tournaments/{pairing.round.tournament_id}/"}
    # the house bots by their calibrated Elo (data/bot_elo.json: 1539.2 and 1671.1, read as whole points)
    assert [(p["rating"], p["is_bot"], p["bot_level"]) for p in board["players"]] == [(1539, True, 4),
                                                                                       (1671, True, 5)]
    assert (board["rated"], board["spectators"]) == (False, 0)
    assert (bot["kind"], [p["rating"] for p in bot["players"]]) == ("casual", [1500, 1500])


def test_a_tie_goes_to_the_latest_started_and_a_pool_match_names_its_pool(world: dict[str, Any]) -> None:
    ensure_default_pools()
    # 1700 (hal) + 1600 (ivy) = 3300, as ana v bea, started later: listed first of the two
    later = active(member("hal", 1700), member("ivy", 1600), rated=True, minutes_ago=0)
    pool = Pool.objects.get(slug="50-20-rated")
    for user in (later.player0, later.player1):
        PoolEntry.objects.create(pool=pool, user=user, rating=1650, status="matched", match=later)
    rows = live_list.live_matches().rows
    assert [row["id"] for row in rows[:2]] == [later.pk, world["rated"].pk]
    assert (rows[0]["kind"], rows[0]["pool"]) == ("pool", "50 points · 20 s · rated")


def test_the_page_lists_public_matches_only_and_marks_the_board(client: Client,
                                                                world: dict[str, Any]) -> None:
    page = client.get("/watch/").content.decode()
    assert reverse("replays:live") == "/watch/"
    for key in ("rated", "board", "bot"):
        assert f'href="/watch/{world[key].pk}/"' in page
    for key in ("private", "finished", "waiting"):
        assert f'data-match="{world[key].pk}"' not in page and f"/watch/{world[key].pk}/" not in page
    assert "_hidden" not in page and "gil_waiting" not in page  # nothing of the private ones
    assert page.index(f'data-match="{world["rated"].pk}"') < page.index(f'data-match="{world["board"].pk}"') \
        < page.index(f'data-match="{world["bot"].pk}"')
    assert 'data-kind="tournament"' in page and "Evening Cup</a> · round 2, board 3" in page
    assert '<span class="live-spectators" data-testid="live-spectators">2 watching</span>' in page
    assert '<span class="live-score" data-testid="live-score">12–30 (to 100)</span>' in page
    assert 'data-testid="live-capped"' not in page


def test_a_private_matchs_own_player_does_not_find_it_listed_either(client: Client,
                                                                    world: dict[str, Any]) -> None:
    client.force_login(User.objects.get(username="eve_hidden"))
    page = client.get("/watch/").content.decode()
    assert f"/watch/{world['private'].pk}/" not in page and page.count('data-testid="live-row"') == 3


def test_the_page_in_portuguese(client: Client, world: dict[str, Any]) -> None:
    page = client.get("/watch/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "Assistir ao vivo" in page
    assert "Copa da Noite</a> · rodada 2, mesa 3" in page
    assert "2 assistindo" in page and "12–30 (até 100)" in page and "valendo rating" in page


def test_the_cap_says_how_many_are_left_out(client: Client, world: dict[str, Any],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_list, "LIMIT", 2)
    live = live_list.live_matches()
    assert ([r["id"] for r in live.rows], live.total, live.capped) == (
        [world["rated"].pk, world["board"].pk], 3, True)
    page = client.get("/watch/").content.decode()
    assert "Showing the 2 highest rated of 3 live matches." in page
    assert page.count('data-testid="live-row"') == 2


def test_the_empty_list(client: Client) -> None:
    page = client.get("/watch/").content.decode()
    assert 'data-testid="live-empty"' in page and "No public match is in play right now." in page
    assert 'data-testid="live-list"' not in page


def test_the_query_count_does_not_grow_with_the_rows(client: Client, world: dict[str, Any],
                                                     django_assert_max_num_queries: Any) -> None:
    with CaptureQueriesContext(connection) as three:
        assert client.get("/watch/").status_code == 200
    # ten more: tournament boards, members' matches
    bots = User.objects.filter(is_bot=True).order_by("bot_level")
    for n in range(5):
        match = active(member(f"p{n}", 1500 + n), member(f"q{n}", 1400), rated=True)
        board_of(active(bots[0], bots[1], bot_level=1, bot_seats=[0, 1]), name=f"Cup {n}", board=1)
        assert match.pk
    # the rows with players, ratings, boards and pools; their count (the cap); nothing per row
    assert len(three) <= 2
    with django_assert_max_num_queries(len(three.captured_queries)):
        page = client.get("/watch/").content.decode()
    assert page.count('data-testid="live-row"') == 13


def test_the_menu_and_the_home_page_link_the_list(client: Client, world: dict[str, Any]) -> None:
    page = client.get(reverse("home:home")).content.decode()
    assert '<a href="/watch/" data-testid="nav-watch">Watch</a>' in page
    pt = client.get(reverse("home:home"), HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert '<a href="/watch/" data-testid="nav-watch">Ao vivo</a>' in pt
    assert '<a href="/watch/" data-testid="home-watch-all">Todas as partidas ao vivo (3)</a>' in pt
    assert '<a href="/watch/" data-testid="home-watch-all">All live matches (3)</a>' in page
    other = client.get("/tournaments/").content.decode()
    assert 'data-testid="nav-watch"' in other


@pytest.mark.parametrize("backend", ["locmem", "redis"])
def test_spectator_counts_of_several_matches_in_one_read(backend: str, request: pytest.FixtureRequest,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``audience.counts``: match 1 has 2 live seats, match 2 one (and one expired), match 3 none; the
    same numbers as ``audience.count`` of each, on the local cache and on Redis (one pipeline)."""
    import secrets

    from django.test import override_settings

    caches = None
    if backend == "redis":
        caches = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                              "LOCATION": request.getfixturevalue("redis_url"),
                              "KEY_PREFIX": f"gin-test-{secrets.token_hex(6)}"}}
    now = [7000.0]
    monkeypatch.setattr(audience.time, "time", lambda: now[0])
    with override_settings(**({"CACHES": caches} if caches else {})):
        assert audience.counts(match_ids=[]) == {}
        audience.admit(match_id=2, ip="10.9.9.1", member="old")
        now[0] += audience.SEAT_TTL - 1
        for match_id, member_name in ((1, "a"), (1, "b"), (2, "c")):
            audience.admit(match_id=match_id, ip="10.9.9.2", member=member_name)
        now[0] += 2  # "old" expired, the others not
        assert audience.counts(match_ids=[1, 2, 3]) == {1: 2, 2: 1, 3: 0}
        assert [audience.count(match_id=m) for m in (1, 2, 3)] == [2, 1, 0]


@pytest.mark.django_db(transaction=True)
async def test_a_move_made_in_another_process_reaches_an_embedded_spectator(
    alice: Any, bob: Any, seeded_decks: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded default (in-memory layer, a separate Celery worker): a move whose notice reaches no
    socket here (made by the worker: a tournament board's bot-vs-bot move) is still sent to the
    spectator, by its poll (``replays.consumers.polls``)."""
    from channels.db import database_sync_to_async

    from games import selectors, services
    from replays import consumers
    from tests.games.wsclient import choose, recv
    from tests.replays.test_watch import public_friend_table, watcher

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert consumers.polls()
    monkeypatch.setattr(consumers, "WATCH_POLL_SECONDS", 0.05)
    table = await database_sync_to_async(public_friend_table)(alice, bob, "classic")
    spectator = await watcher(table.pk)
    first = [await recv(spectator) for _ in range(2)]
    seq = next(m for m in first if m["type"] == "watch")["seq"]
    monkeypatch.setattr(push_send, "get_channel_layer", lambda: None)  # "another process": no notice here

    def move() -> int:
        match = Match.objects.get(pk=table.pk)
        seat = selectors.match_state_payload(match=match, seat=0)["hand"]["to_act"]
        user = alice if seat == 0 else bob
        hand = selectors.match_state_payload(match=match, seat=seat)["hand"]
        services.match_apply_action(match_id=match.pk, user=user, action_text=choose(hand),
                                    client_seq=match.last_seq, msg_id="elsewhere")
        return Match.objects.get(pk=table.pk).last_seq

    new_seq = await database_sync_to_async(move)()
    assert new_seq == seq + 1
    got = await recv(spectator)
    assert (got["type"], got["seq"]) == ("watch", new_seq)
    await spectator.disconnect()
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "infra.channel_layer.BatchingRedisChannelLayer"}}
    assert not consumers.polls()
