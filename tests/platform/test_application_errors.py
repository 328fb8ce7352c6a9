"""One refusal vocabulary (issue 24): every app's refused request is a ``web.errors.ApplicationError``
with a stable ``code`` and an English ``message``; a worked example of each subclass."""

from __future__ import annotations

from typing import Any

import pytest

from games.services import GameError, MatchInProgress
from replays.selectors import ReplayRefused, check_can_watch
from tournaments.errors import TournamentError
from web.errors import ApplicationError


def test_the_base_holds_a_code_and_an_english_message() -> None:
    error = ApplicationError("full", "this tournament is full")
    assert (error.code, error.message) == ("full", "this tournament is full")
    assert str(error) == "this tournament is full"


def test_a_game_error_is_an_application_error() -> None:
    error = GameError("not_your_turn", "it is not your turn")
    assert isinstance(error, ApplicationError)
    assert (error.code, error.message, str(error)) == ("not_your_turn",) + ("it is not your turn",) * 2
    busy = MatchInProgress(12)
    assert isinstance(busy, GameError) and busy.match_id == 12 and busy.code == "match_in_progress"
    assert busy.message == "you have a rated match in progress (match 12): finish it first"


def test_a_tournament_error_is_an_application_error_and_may_name_the_other_tournament() -> None:
    other: Any = object()  # a Tournament in the services: only kept, never read here
    error = TournamentError("overlap", "this tournament's time overlaps another you joined", other=other)
    assert isinstance(error, ApplicationError)
    assert (error.code, error.message, error.other) == (
        "overlap", "this tournament's time overlaps another you joined", other)
    assert TournamentError("full", "this tournament is full").other is None


def test_a_replay_refusal_is_an_application_error() -> None:
    with pytest.raises(ReplayRefused) as refused:
        check_can_watch(match=None, user=None, token=None)  # no such match: refused before any read
    assert isinstance(refused.value, ApplicationError)
    assert (refused.value.code, refused.value.message) == ("no_such_match", "no such match")


def test_the_three_are_distinct_refusals() -> None:
    """An ``except GameError`` never catches a tournament's or a replay's refusal (nor the reverse)."""
    classes = (GameError, TournamentError, ReplayRefused)
    for one in classes:
        for other in classes:
            assert issubclass(one, other) == (one is other)
