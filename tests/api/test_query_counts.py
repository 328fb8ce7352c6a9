"""Every list of the API reads a fixed number of queries, whatever its number of rows (1 vs 20)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games.models import Match, MatchStatus, ResultReason
from ratings.models import PlayerRating, RatingChange
from tests.lobby.home_pools import ensure_default_pools
from tournaments.models import Pairing, Registration, Round, RoundStatus, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


def build(n: int) -> dict[str, Any]:
    """``n`` of each row kind: members on the board (established), rated BOT accounts, rated matches of
    ``hero`` (each a rating change and a finished match), tournaments, and one tournament with ``n``
    boards in round 1."""
    from accounts.services import house_bots_ensure

    house_bots_ensure()  # the bots' list: always its five levels
    ensure_default_pools()  # the pools' list: a transactional test's flush empties the data migration's
    now = dt.datetime.now(dt.UTC)
    hero = User.objects.create(username="hero")  # no password: hashing one costs 0.3 s
    PlayerRating.objects.create(
        user=hero, rating=1600, peak=1600, rated_matches=10 + n, wins=10 + n, losses=0, last_rated_at=now
    )
    others = [User.objects.create(username=f"p{i}") for i in range(2 * n)]
    for i, user in enumerate(others[:n]):
        PlayerRating.objects.create(
            user=user, rating=1500 - i, peak=1500, rated_matches=10, wins=5, losses=5, last_rated_at=now
        )
    for i in range(n):  # rated BOT accounts (the BOT ranking)
        bot = User.objects.create(username=f"b{i}", bot_account=True)
        PlayerRating.objects.create(user=bot, rating=1450 - i, peak=1450, rated_matches=3, wins=2, losses=1)
    for i in range(n):
        match = Match.objects.create(
            rules={"target": 100},
            player0=hero,
            player1=others[i],
            status=MatchStatus.FINISHED,
            scores=[100, 20],
            winner=0,
            result_reason=ResultReason.TARGET,
            rated=True,
            first_dealer=0,
            started_at=now,
            finished_at=now - dt.timedelta(minutes=i),
        )
        RatingChange.objects.create(
            match=match,
            player=hero,
            opponent=others[i],
            before=1500 + i,
            after=1501 + i,
            delta=1,
            k=32,
            expected=0.5,
            opponent_rating=1500,
            won=True,
        )
    tournaments = [
        Tournament.objects.create(
            name_en=f"Cup {i}",
            name_pt=f"Copa {i}",
            starts_at=now,
            status=TournamentStatus.FINISHED,
            winner=hero,
            rounds=1,
            current_round=1,
        )
        for i in range(n)
    ]
    cup = tournaments[0]
    round_ = Round.objects.create(tournament=cup, number=1, status=RoundStatus.FINISHED)
    for user in others:
        Registration.objects.create(tournament=cup, user=user, rating=1500)
    for b in range(n):
        Pairing.objects.create(
            round=round_,
            board=b + 1,
            player0=others[2 * b],
            player1=others[2 * b + 1],
            points=[1, 0],
            hand_points=[100, 40],
        )
    from lobby.models import Seek

    for user in others[:n]:  # open challenges of the lobby, one each (api.lobby)
        Seek.objects.create(creator=user, creator_rating=1500, expires_at=now + dt.timedelta(hours=1))
    return {"cup": cup.pk}


LISTS: dict[str, Callable[[dict[str, Any]], str]] = {
    "rankings": lambda ids: "/api/v1/rankings/?limit=100",
    "rankings_30d": lambda ids: "/api/v1/rankings/?tab=30d&limit=100",
    "bot_rankings": lambda ids: "/api/v1/rankings/bots/?limit=100",
    "player_ratings": lambda ids: "/api/v1/players/hero/ratings/?limit=100",
    "player_matches": lambda ids: "/api/v1/players/hero/matches/?limit=100",
    "player_matches_filtered": lambda ids: (
        "/api/v1/players/hero/matches/?limit=100&result=won&opponent=member"
    ),
    "tournaments": lambda ids: "/api/v1/tournaments/?limit=100",
    "standings": lambda ids: f"/api/v1/tournaments/{ids['cup']}/standings/",
    "pairings": lambda ids: f"/api/v1/tournaments/{ids['cup']}/rounds/1/pairings/",
    "bots": lambda ids: "/api/v1/bots/",
    "pools": lambda ids: "/api/v1/pools/",
    "seeks": lambda ids: "/api/v1/lobby/seeks/?limit=100",
}
MAX_QUERIES = {
    # The page's user ids (an index-only scan, however deep the page), then their rows (+ 30-day changes).
    "rankings": 3,
    "rankings_30d": 4,
    "bot_rankings": 2,  # the rated BOT accounts with their users; the house bots (anchors)
    "player_ratings": 3,
    "player_matches": 3,
    "player_matches_filtered": 3,
    "tournaments": 2,
    "standings": 5,  # ... and the players' ratings after the event (tournaments.selectors.ratings_after)
    "pairings": 3,
    "bots": 1,
    "pools": 2,  # count, rows with their waiting counts
    "seeks": 2,  # count, rows with their creators
}


def count(url: str, rows: int) -> int:
    client = Client()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, response.content
    results = response.json()["results"]
    assert len(results) >= min(rows, 1), url
    return len(queries)


@pytest.mark.parametrize("name", sorted(LISTS))
def test_query_count_does_not_grow_with_rows(name: str, django_assert_max_num_queries: Any) -> None:
    from django.core.cache import cache

    ids = build(1)
    one = count(LISTS[name](ids), 1)
    Tournament.objects.all().delete()
    Match.objects.all().delete()
    User.objects.all().delete()
    cache.clear()  # the boards' cached row count
    ids = build(20)
    with django_assert_max_num_queries(MAX_QUERIES[name]):
        twenty = count(LISTS[name](ids), 20)
    assert twenty == one, f"{name}: {one} queries for 1 row, {twenty} for 20"
