"""A BOT-vs-BOT match played to the end through the reference client, on the production profile: two
Daphne processes on the Redis channel layer and PostgreSQL (each BOT on its own server), the match
stream and moves over HTTP, the rating in the BOT ranking exactly once (issue 27, "How it is shown to
work")."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from accounts.models import User
from accounts.tokens import SCOPES, token_create
from botclient.http import Connection
from botclient.runner import Runner
from engine.bots.ladder import make_bot
from games.models import Match, MatchEvent, MatchStatus
from ratings import services as rating_services
from ratings.models import PlayerRating, RatingChange
from ratings.selectors import board_page, bot_board

pytestmark = [pytest.mark.slow]

MATCH_WAIT_S = 600.0
"""How long the whole match may take under a loaded CI machine (a few hundred HTTP moves)."""


def bot_account(username: str) -> tuple[User, str]:
    user = User(username=username, bot_account=True)
    user.set_unusable_password()
    user.save()
    return user, token_create(user=user, name="e2e", scopes=SCOPES)[1]


def test_bot_vs_bot_through_the_reference_client_is_rated_once_in_the_bot_ranking(
    transactional_db: None, redis_url: str, daphne_server_factory: Any, settings: Any, skip_or_fail: Any,
) -> None:
    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        skip_or_fail("the production profile needs PostgreSQL (DATABASE_URL)")
    settings.GAMES_HAND_PAUSE = 0.0  # mirrored into the servers: no pause between hands
    servers = [daphne_server_factory(REDIS_URL=redis_url) for _ in range(2)]
    (ann, ann_token), (bea, bea_token) = bot_account("e2e-ann"), bot_account("e2e-bea")
    runners = [
        Runner(Connection(servers[0].url, ann_token, timeout=30.0), lambda: make_bot(3), max_matches=1),
        Runner(Connection(servers[1].url, bea_token, timeout=30.0), lambda: make_bot(2), max_matches=1),
    ]
    threads = [threading.Thread(target=r.run, daemon=True) for r in runners]
    for thread in threads:
        thread.start()
    challenge = runners[0].challenge("e2e-bea", target=100, turn_timer=60, rated=True)
    assert (challenge["challenged"]["username"], challenge["rated"]) == ("e2e-bea", True)
    for thread in threads:
        thread.join(MATCH_WAIT_S)
    for runner in runners:
        runner.stop()
    assert not any(t.is_alive() for t in threads), [r.stats for r in runners]

    match = Match.objects.get(player0=ann, player1=bea)
    assert match.status == MatchStatus.FINISHED and match.rated and match.winner in (0, 1)
    assert max(match.scores) >= 100
    # Every acknowledged move is in the event log, posted by the seat of the runner that made it; no
    # move was refused but a stale one after a reconnection, and the turn timer never moved for them.
    moves = MatchEvent.objects.filter(match=match, seat__isnull=False, type="action")
    assert sum(r.stats.actions_posted for r in runners) == moves.exclude(auto=True).count() > 20
    assert not moves.filter(auto=True).exists()
    for runner in runners:
        assert set(runner.stats.errors) <= {"stale_seq", "stream_ended"}, runner.stats.errors
        assert runner.stats.matches_finished == 1

    changes = list(RatingChange.objects.filter(match=match).order_by("player_id"))
    assert [c.player_id for c in changes] == sorted([ann.pk, bea.pk])
    winner = (ann, bea)[match.winner]
    by_user = {c.player_id: c for c in changes}
    assert by_user[winner.pk].after > by_user[winner.pk].before == 1500.0
    rows = {r.user_id: r.rating for r in PlayerRating.objects.filter(user__in=[ann, bea])}
    assert rows == {c.player_id: c.after for c in changes}

    # Exactly once: a re-delivered rating task changes nothing.
    assert rating_services.match_rate(match_id=match.pk) == []
    assert RatingChange.objects.filter(match=match).count() == 2
    assert {r.user_id: r.rating for r in PlayerRating.objects.filter(user__in=[ann, bea])} == rows

    # In the BOT ranking (with the house bots as anchors), never on the people's board.
    people = board_page(tab="all", provisional=True, search="", page=1)
    assert not {ann.username, bea.username} & {row["username"] for row in people.rows}
    bots = {row["username"]: row for row in bot_board() if not row["anchor"]}
    assert set(bots) == {ann.username, bea.username}
    assert bots[winner.username]["rank"] == 1 and bots[winner.username]["wins"] == 1
    assert all(row["rated_matches"] == 1 and row["provisional"] for row in bots.values())
