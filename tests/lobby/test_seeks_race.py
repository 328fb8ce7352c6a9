"""Racing accepts on the real database (PostgreSQL under CI): the seek's row lock lets exactly one
acceptor start a match; every other gets ``seek_taken``. Also an accept racing the creator's cancel, and
one player accepting two seeks at once (never two matches for one player), and one player accepting one
seek in two tabs at once (both get the one match)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from games.models import Match
from lobby import seeks
from lobby.models import Seek
from lobby.seeks import Settings
from tests.lobby import challenge_fixtures as fx
from tests.racing import race

# this part's fixtures (tests/lobby/challenge_fixtures.py), bound here for pytest to find
(alice, bob, carol, lobby_clean, make_member) = (fx.alice, fx.bob, fx.carol, fx.lobby_clean, fx.make_member)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("lobby_clean")]

CASUAL = Settings("classic", 100, None, False)
RATED = Settings("classic", 100, 60, True)


def test_racing_accepts_make_exactly_one_match(alice: Any, make_member: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks: run under PostgreSQL (CI)")
    for round_ in range(3):
        players = [make_member(f"p{round_}-{i}", 1500) for i in range(6)]
        seek = seeks.seek_create(user=alice, choice=CASUAL)
        results = race([lambda p=p, s=seek: seeks.seek_accept(user=p, seek_id=s.pk) for p in players])
        matches = [r for r in results if isinstance(r, Match)]
        assert len(matches) == 1, results
        assert sorted(r for r in results if isinstance(r, str)) == ["seek_taken"] * 5
        seek.refresh_from_db()
        winner = players[results.index(matches[0])]
        assert (seek.status, seek.accepted_by_id, seek.match_id) == ("accepted", winner.pk, matches[0].pk)
        assert Match.objects.filter(player0=alice, player1=winner).count() == 1
    assert Match.objects.count() == 3


def test_one_player_accepting_in_two_tabs_at_once_gets_one_match_in_both(alice: Any, bob: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks: run under PostgreSQL (CI)")
    for _ in range(3):
        seek = seeks.seek_create(user=alice, choice=CASUAL)
        first, second = race([lambda s=seek: seeks.seek_accept(user=bob, seek_id=s.pk)] * 2)
        assert isinstance(first, Match) and isinstance(second, Match), (first, second)
        seek.refresh_from_db()
        assert first.pk == second.pk == seek.match_id and seek.accepted_by_id == bob.pk
    assert Match.objects.filter(player0=alice, player1=bob).count() == 3


def test_accept_racing_cancel_is_one_or_the_other(alice: Any, bob: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks: run under PostgreSQL (CI)")
    for _ in range(5):
        seek = seeks.seek_create(user=alice, choice=CASUAL)
        accept, cancel = race(
            [
                lambda s=seek: seeks.seek_accept(user=bob, seek_id=s.pk),
                lambda s=seek: seeks.seek_cancel(user=alice, seek_id=s.pk),
            ]
        )
        seek.refresh_from_db()
        if isinstance(accept, Match):
            assert cancel is False and seek.status == "accepted" and seek.match_id == accept.pk
        else:
            assert accept == "seek_gone" and cancel is True and seek.status == "cancelled"
    assert Match.objects.count() == Seek.objects.filter(status="accepted").count()


def test_one_player_accepting_two_rated_seeks_at_once_gets_one_match(
    alice: Any, bob: Any, carol: Any
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks: run under PostgreSQL (CI)")
    first = seeks.seek_create(user=alice, choice=RATED)
    second = seeks.seek_create(user=bob, choice=RATED)
    results = race(
        [
            lambda: seeks.seek_accept(user=carol, seek_id=first.pk),
            lambda: seeks.seek_accept(user=carol, seek_id=second.pk),
        ]
    )
    assert len([r for r in results if isinstance(r, Match)]) == 1, results
    assert [r for r in results if isinstance(r, str)] == ["match_in_progress"]
    assert Match.objects.filter(player1=carol, status="active", rated=True).count() == 1
