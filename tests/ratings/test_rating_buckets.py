"""Rating buckets (``ratings.models.RatingBucket``, kept by the triggers of migration 0003) and the ranks
read from them (``ratings.selectors.ranks_of``), checked against counting the whole board.

Runs on the profile's database: SQLite by default (row triggers), PostgreSQL with ``DATABASE_URL``
(statement triggers with transition tables; ``.ci/run``).
"""

from __future__ import annotations

import math
import random
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, connections, transaction
from django.db.models import Q
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import User
from ratings import selectors
from ratings.models import PlayerRating, RatingBucket
from web.paging import NoSuchPage

pytestmark = pytest.mark.django_db


def _expected_buckets() -> dict[int, tuple[int, int]]:
    """Bucket -> (established, everyone), counted from the rating rows themselves."""
    counts: Counter[tuple[int, str]] = Counter()
    for rating, played in PlayerRating.objects.values_list("rating", "rated_matches"):
        if played > 0:
            counts[(math.floor(rating), "everyone")] += 1
            counts[(math.floor(rating), "established")] += int(played >= 10)
    return {b: (counts[(b, "established")], counts[(b, "everyone")]) for b, _ in counts}


def _stored_buckets() -> dict[int, tuple[int, int]]:
    """The bucket table without its empty rows (a bucket emptied by an update keeps a row of zeros)."""
    return {b: (e, a) for b, e, a in RatingBucket.objects.values_list("bucket", "established", "everyone")
            if (e, a) != (0, 0)}


def _brute_rank(user_id: int, rating: float, *, provisional: bool) -> int:
    board = PlayerRating.objects.filter(rated_matches__gt=0 if provisional else 9)
    return board.filter(Q(rating__gt=rating) | Q(rating=rating, user_id__lt=user_id)).count() + 1


def _users(n: int, prefix: str = "b") -> list[User]:
    return User.objects.bulk_create([User(username=f"{prefix}{i:03d}") for i in range(n)])


def test_worked_example_ranks_by_bucket_and_inside_one_point() -> None:
    """Seven players: three inside [1500, 1501), two of them tied at 1500.5 (the lower id first), one
    provisional above them all. Established board: 1620, 1500.9, 1500.5 (a), 1500.5 (b), 1500.0, 1499.99."""
    a, b, c, d, e, f, g = _users(7)
    for user, rating, played in [(a, 1500.5, 10), (b, 1500.5, 12), (c, 1500.9, 30), (d, 1500.0, 10),
                                 (e, 1499.99, 11), (f, 1620.0, 40), (g, 1700.0, 3)]:
        PlayerRating.objects.create(user=user, rating=rating, peak=rating, rated_matches=played,
                                    wins=played, losses=0)
    assert _stored_buckets() == {1499: (1, 1), 1500: (4, 4), 1620: (1, 1), 1700: (0, 1)}
    pairs = [(u.pk, r) for u, r in [(a, 1500.5), (b, 1500.5), (c, 1500.9), (d, 1500.0), (e, 1499.99),
                                     (f, 1620.0)]]
    assert selectors.ranks_of(pairs) == {f.pk: 1, c.pk: 2, a.pk: 3, b.pk: 4, d.pk: 5, e.pk: 6}
    everyone = selectors.ranks_of([*pairs, (g.pk, 1700.0)], provisional=True)
    assert everyone == {g.pk: 1, f.pk: 2, c.pk: 3, a.pk: 4, b.pk: 5, d.pk: 6, e.pk: 7}
    assert selectors.rank_get(user_id=e.pk) == 6
    assert selectors.rank_get(user_id=g.pk) is None  # provisional: not on the default board
    assert selectors.rank_get(user_id=g.pk, provisional=True) == 1

    # Crossing a bucket, becoming established, leaving the board: the counts follow every write.
    PlayerRating.objects.filter(user=g).update(rated_matches=10, wins=10)
    row = PlayerRating.objects.get(user=d)
    row.rating = 1619.2
    row.save()
    PlayerRating.objects.filter(user=e).delete()
    assert _stored_buckets() == _expected_buckets() == {1500: (3, 3), 1619: (1, 1), 1620: (1, 1),
                                                         1700: (1, 1)}
    assert selectors.rank_get(user_id=d.pk) == 3  # behind 1700 and 1620


def test_unrated_rows_count_nowhere() -> None:
    """A rating row made before the first rated match (the rating task creates them at 1500, 0 matches)
    is on no board and in no bucket."""
    (u,) = _users(1)
    PlayerRating.objects.create(user=u)
    assert _stored_buckets() == {}


_OPS = st.lists(
    st.tuples(
        st.sampled_from(["create", "save", "update", "bulk_update", "delete"]),
        st.integers(0, 11),  # which player
        st.floats(100, 2900, allow_nan=False),  # a rating
        st.integers(0, 14),  # rated matches
    ),
    min_size=1, max_size=25,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_OPS, ties=st.booleans())
def test_buckets_and_ranks_match_a_count_of_the_whole_board(
    ops: list[tuple[str, int, float, int]], ties: bool
) -> None:
    """Property: after any sequence of writes (ORM create, save, queryset update, bulk_update, delete),
    the buckets equal a GROUP BY of the rating rows and every board player's rank from
    :func:`ranks_of` equals a count of the players ahead of it, on both boards."""

    class Rollback(Exception):
        pass

    try:
        with transaction.atomic():
            users = _users(12, prefix="h")
            for op, which, rating, played in ops:
                if ties:  # few distinct ratings: many players tied and in one bucket
                    rating = 1500.0 + (which % 3) * 0.25
                user = users[which]
                row = PlayerRating.objects.filter(user=user).first()
                fields = {"rating": rating, "peak": rating, "rated_matches": played, "wins": played,
                          "losses": 0}
                if op == "create" or row is None:
                    if row is None:
                        PlayerRating.objects.create(user=user, **fields)
                elif op == "save":
                    for name, value in fields.items():
                        setattr(row, name, value)
                    row.save()
                elif op == "update":
                    PlayerRating.objects.filter(user=user).update(**fields)
                elif op == "bulk_update":
                    rows = list(PlayerRating.objects.all())
                    for r in rows:
                        r.rating = max(100.0, r.rating - 0.6)
                    PlayerRating.objects.bulk_update(rows, ["rating"])
                else:
                    row.delete()
            assert _stored_buckets() == _expected_buckets()
            for provisional in (False, True):
                board = PlayerRating.objects.filter(rated_matches__gt=0 if provisional else 9)
                pairs = list(board.values_list("user_id", "rating"))
                ranks = selectors.ranks_of(pairs, provisional=provisional)
                assert ranks == {pk: _brute_rank(pk, r, provisional=provisional) for pk, r in pairs}
            raise Rollback
    except Rollback:
        pass


def test_search_ranks_are_the_board_positions(make_member: Callable[[str], Any]) -> None:
    """Every row of a name search carries its position on the whole board."""
    rng = random.Random(5)
    users = _users(60, prefix="s")
    PlayerRating.objects.bulk_create([
        PlayerRating(user=u, rating=round(rng.uniform(1400, 1600), 1), peak=1600, rated_matches=10,
                     wins=10, losses=0) for u in users
    ])
    board = list(PlayerRating.objects.filter(rated_matches__gte=10).order_by("-rating", "user_id")
                 .values_list("user__username", flat=True))
    page = selectors.board_page(tab="all", provisional=False, search="s01", page=1)
    assert [r["username"] for r in page.rows] == [n for n in board if n.startswith("s01")]
    assert {r["username"]: r["rank"] for r in page.rows} == {
        n: board.index(n) + 1 for n in board if n.startswith("s01")}


def test_a_broad_search_pages_the_top_players_and_says_so(
    monkeypatch: pytest.MonkeyPatch, make_member: Callable[[str], Any]
) -> None:
    """More players found than ``SEARCH_CAP``: the highest rated ``SEARCH_CAP`` are paged, with their
    board ranks, and the page says to type more of the name (English and pt-BR)."""
    from django.test import Client

    monkeypatch.setattr(selectors, "SEARCH_CAP", 4)
    users = _users(7, prefix="wide")
    PlayerRating.objects.bulk_create([
        PlayerRating(user=u, rating=1800 - 10 * i, peak=1800, rated_matches=12, wins=12, losses=0)
        for i, u in enumerate(users)
    ])
    first = selectors.board_page(tab="all", provisional=False, search="wide", page=1, per_page=3)
    second = selectors.board_page(tab="all", provisional=False, search="wide", page=2, per_page=3)
    assert first.count == 4 and first.extra == {"search_capped": 4}
    assert [r["rank"] for r in first.rows + second.rows] == [1, 2, 3, 4]
    with pytest.raises(NoSuchPage):
        selectors.board_page(tab="all", provisional=False, search="wide", page=3, per_page=3)
    narrow = selectors.board_page(tab="all", provisional=False, search="wide005", page=1)
    assert narrow.count == 1 and narrow.extra == {} and narrow.rows[0]["rank"] == 6
    html = Client().get("/rankings/?q=wide").content.decode()
    assert "More than 4 players have a name starting like that: these are the 4 highest rated." in html
    pt = Client(headers={"accept-language": "pt-br"}).get("/rankings/?q=wide").content.decode()
    assert "Mais de 4 jogadores têm um nome que começa assim" in pt


@pytest.mark.django_db(transaction=True)
def test_concurrent_rating_writes_keep_the_buckets_exact() -> None:
    """Four threads, each its own connection, move their own players across buckets at the same time,
    one UPDATE statement per transaction as the rating task writes (on PostgreSQL the triggers lock the
    shared buckets in ascending order: no deadlock, no lost count)."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serializes writers: nothing runs concurrently there")
    users = _users(40, prefix="c")
    PlayerRating.objects.bulk_create([
        PlayerRating(user=u, rating=1500.0 + (i % 4), peak=1600, rated_matches=10, wins=10, losses=0)
        for i, u in enumerate(users)
    ])
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def work(part: int) -> None:
        rng = random.Random(part)
        mine = [u.pk for u in users[part::4]]
        try:
            barrier.wait()
            for _ in range(25):
                with transaction.atomic():
                    rows = list(PlayerRating.objects.select_for_update().filter(user_id__in=mine)
                                .order_by("user_id"))
                    for r in rows:
                        r.rating = 1495.0 + rng.random() * 10
                    PlayerRating.objects.bulk_update(rows, ["rating"])
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert _stored_buckets() == _expected_buckets()
    assert sum(e for e, _a in _stored_buckets().values()) == 40
