"""Fixtures for the ratings tests: members, a guest, house bots, and finished matches.

``alice`` / ``bob`` / ``carol``: members; ``guest``: a guest; ``house_bots``: bot-1..bot-5.
``finish_friend(a, b, winner=a)`` / ``finish_bot(user, level, won=...)``: a match played until both
players have moved, then resigned by the loser (so it FINISHES and is rated when rated), returned
refreshed. Rating tasks run eagerly here unless a test says otherwise (``CELERY_TASK_ALWAYS_EAGER``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

# Shared fixtures (tests/fixtures.py): threads' DB connections close after each call (autouse), a guest,
# the house bots.
from tests.fixtures import guest, house_bots, short_lived_connections

__all__ = ["guest", "house_bots", "short_lived_connections"]  # fixtures


@pytest.fixture(autouse=True)
def eager_tasks(settings: Any) -> Iterator[None]:
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture
def make_member(db: None) -> Callable[[str], Any]:
    from tests.factories import UserFactory

    def make(username: str) -> Any:
        return UserFactory(username=username, password="pw-for-tests-1")

    return make


@pytest.fixture
def alice(make_member: Callable[[str], Any]) -> Any:
    return make_member("alice")


@pytest.fixture
def bob(make_member: Callable[[str], Any]) -> Any:
    return make_member("bob")


@pytest.fixture
def carol(make_member: Callable[[str], Any]) -> Any:
    return make_member("carol")


def first_moves(match_id: int, users: dict[int, Any]) -> None:
    """Play a fresh match until each seat has made ``games.conf.rated_min_moves()`` moves of its own
    (passes, stock draws, discards; never a knock), so a resignation then rates a rated match between
    people (docs/fairplay.md "Limits that make farming slow"; at least one move each, so it is never
    aborted either)."""
    from games import conf, services
    from games.live import load
    from games.models import Match

    needed = max(1, conf.rated_min_moves())
    moved = {0: 0, 1: 0}
    while min(moved.values()) < needed:
        match = Match.objects.get(pk=match_id)
        live = load(match)
        seat = live.state.current_player
        assert seat is not None
        moved[seat] += 1
        if match.bot_level is not None and seat == 1:
            assert services.match_play_bot_turn(match_id=match_id) is not None
            continue
        legal = [str(a) for a in live.state.legal_actions(seat)]
        action = next((a for a in ("pass", "draw stock") if a in legal),
                      next((a for a in legal if a.startswith("discard")), legal[0]))
        services.match_apply_action(match_id=match_id, user=users[seat], action_text=action,
                                    client_seq=match.last_seq, msg_id=f"first-{seat}-{match.last_seq}")


@pytest.fixture
def finish_friend(db: None) -> Callable[..., Any]:
    def finish(a: Any, b: Any, *, winner: Any, rated: bool = True) -> Any:
        from games import services
        from games.models import Match
        from tests.factories import FriendMatchFactory

        match = FriendMatchFactory(host=a, friend=b, rated=rated)
        first_moves(match.pk, {0: a, 1: b})
        loser = b if winner == a else a
        services.match_resign(match_id=match.pk, user=loser)
        return Match.objects.get(pk=match.pk)

    return finish


@pytest.fixture
def finish_bot(db: None) -> Callable[..., Any]:
    def finish(user: Any, level: int, *, won: bool) -> Any:
        from games import services
        from games.models import Match
        from tests.factories import BotMatchFactory

        match = BotMatchFactory(user=user, level=level)
        first_moves(match.pk, {0: user})
        if won:
            bot = Match.objects.get(pk=match.pk).player1
            # The bot resigns: the services' resign for a bot seat (its user is never logged in).
            services.match_resign(match_id=match.pk, user=bot)
        else:
            services.match_resign(match_id=match.pk, user=user)
        return Match.objects.get(pk=match.pk)

    return finish


def ratings_one_at_a_time(results: list[tuple[Any, Any, Any]]) -> dict[int, float]:
    """Each player's rating after rating ``results`` ``(player a, player b, winner)`` one at a time in
    that order, from 1500 with no matches (members only): the brute-force reference for batches.
    ``{user id: exact rating}``."""
    from ratings import elo

    state: dict[int, tuple[float, float, int]] = {}  # rating, peak, rated matches
    for a, b, winner in results:
        before = {p.pk: state.get(p.pk, (elo.INITIAL_RATING, elo.INITIAL_RATING, 0)) for p in (a, b)}
        for me, other in ((a, b), (b, a)):
            rating, peak, played = before[me.pk]
            k = elo.k_factor(rated_matches=played, peak_rating=peak)
            after = elo.rate(rating=rating, opponent=before[other.pk][0], score=int(winner == me), k=k).after
            state[me.pk] = (after, max(peak, after), played + 1)
    return {pk: value[0] for pk, value in state.items()}
