"""Fixtures for the API tests: the ratings tests' players and finished matches, plus a tournament.

``seeded``: alice and bob (members), a guest, the house bots; ``rated``: a rated friend match alice beat
bob in (resigned; also the tournament's round 1 board), ``lost_to_bot``: a rated match alice lost to
bot-2 (public: a member's bot match), ``private``: an unrated friend match bob beat alice in (private),
``live``: bob's bot match in play; ``tournament``: finished, alice and bob, one round. Both rated
matches are rated. Returned as a dict of those objects.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

from tests.ratings.conftest import (  # noqa: F401  (fixtures)
    alice,
    bob,
    carol,
    eager_tasks,
    finish_bot,
    finish_friend,
    first_moves,
    guest,
    house_bots,
    make_member,
    short_lived_connections,
)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    """The seeded members' passwords hashed cheaply (PBKDF2 costs ~0.3 s per member, per test)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def tournament_of(players: list[Any], *, matches: list[Any], name: str = "API Cup") -> Any:
    """A finished tournament of ``players`` (registered with ratings 1500): round 1 pairs them two by
    two in order, board k playing ``matches[k]`` (once finished, its winner seat scores 1; a live one
    has no result yet); an odd last player has a bye."""
    from tournaments.models import Pairing, Registration, Round, RoundStatus, Tournament, TournamentStatus

    now = dt.datetime.now(dt.UTC)
    tournament = Tournament.objects.create(
        name_en=name,
        name_pt="Copa API",
        status=TournamentStatus.FINISHED,
        starts_at=now - dt.timedelta(hours=1),
        started_at=now - dt.timedelta(hours=1),
        finished_at=now,
        rounds=1,
        current_round=1,
        winner=players[0],
    )
    for user in players:
        Registration.objects.create(tournament=tournament, user=user, rating=1500.0)
    round_ = Round.objects.create(
        tournament=tournament, number=1, status=RoundStatus.FINISHED, finished_at=now
    )
    board = 1
    for k in range(0, len(players) - 1, 2):
        match = matches[k // 2]
        done = match.winner is not None
        Pairing.objects.create(
            round=round_,
            board=board,
            player0=players[k],
            player1=players[k + 1],
            match=match,
            points=[1 - match.winner, match.winner] if done else None,
            hand_points=list(match.scores) if done else None,
        )
        board += 1
    if len(players) % 2:
        Pairing.objects.create(
            round=round_, board=board, player0=players[-1], points=[1, 0], hand_points=[0, 0]
        )
    return tournament


@pytest.fixture
def seeded(
    alice: Any,  # noqa: F811
    bob: Any,  # noqa: F811
    guest: Any,  # noqa: F811
    house_bots: Any,  # noqa: F811
    finish_friend: Callable[..., Any],  # noqa: F811
    finish_bot: Callable[..., Any],  # noqa: F811
) -> dict[str, Any]:
    from games import services
    from ratings.services import match_rate

    rated = finish_friend(alice, bob, winner=alice)
    lost_to_bot = finish_bot(alice, 2, won=False)
    private = finish_friend(alice, bob, winner=bob, rated=False)
    for match in (rated, lost_to_bot):  # the rating task runs on commit, which a test transaction never does
        match_rate(match_id=match.pk)
    live = services.match_create_vs_bot(user=bob, level=1, rules_preset="classic", target=100)
    tournament = tournament_of([alice, bob], matches=[rated])
    from clubs.models import Club, ClubMember, ClubRole

    club = Club.objects.create(name="API Club", slug="api-club", invite_code="i" * 22, created_by=alice)
    ClubMember.objects.create(club=club, user=alice, role=ClubRole.OWNER)
    ClubMember.objects.create(club=club, user=bob)
    return {
        "alice": alice,
        "bob": bob,
        "guest": guest,
        "rated": rated,
        "lost_to_bot": lost_to_bot,
        "private": private,
        "live": live,
        "tournament": tournament,
        "club": club,
    }
