"""A match finishes exactly once when its finishing writes race: a timeout at the third strike, a
resignation by each player, all at once. Exactly one of them ends it; the end's consequences start once
(``games.signals.match_finished``: the rating task and the tournament's round are enqueued from it,
the players' final ``state`` is pushed once); the rating is written once however often it runs.

On PostgreSQL (``.ci/run``) the match row lock serializes the three; on SQLite the IMMEDIATE
transactions and the compare-and-set on ``last_seq`` do.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import services
from games.models import Match, MatchEvent, MatchStatus, ResultReason
from games.signals import match_finished
from ratings.models import RatingChange
from tests.racing import race
from tests.ratings.conftest import first_moves

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("attempt", range(3))
def test_a_timeout_and_two_resignations_finish_a_rated_match_once(
        alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch, attempt: int) -> None:
    from ratings import services as ratings_services
    from ratings import tasks

    monkeypatch.setattr(tasks.rate_match, "delay", lambda match_id: None)
    monkeypatch.setattr(tasks.rate_pending, "delay", lambda *args, **kwargs: None)
    finished: list[int] = []

    def count(sender: Any, *, match_id: int, **kwargs: Any) -> None:
        finished.append(match_id)

    match_finished.connect(count, dispatch_uid="test-finish-race")
    try:
        table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=30,
                                      rated=True)
        match = services.table_join(user=bob, token=table.invite_token)
        first_moves(match.pk, {0: alice, 1: bob})
        # The player to act is on their last strike and late: the timer's next call ends the match.
        from games.live import load

        late = load(match).state.current_player
        strikes = [0, 0]
        strikes[late] = services.TIMEOUT_STRIKES_TO_LOSE - 1
        Match.objects.filter(pk=match.pk).update(timeout_strikes=strikes,
                                                 turn_deadline=timezone.now() - timedelta(seconds=1))
        results = race([
            lambda: services.match_expire_turn(match_id=match.pk),
            lambda: services.match_resign(match_id=match.pk, user=alice, msg_id="r-a"),
            lambda: services.match_resign(match_id=match.pk, user=bob, msg_id="r-b"),
        ])
    finally:
        match_finished.disconnect(dispatch_uid="test-finish-race")
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    assert finished == [match.pk], results  # the end's consequences started once
    types = list(MatchEvent.objects.filter(match_id=match.pk).order_by("seq").values_list("type", flat=True))
    assert types.count("resign") == 1 and types.count("match_end") == 1, types  # one end in the log
    assert types[-2:] == ["resign", "match_end"], types
    resigned = MatchEvent.objects.get(match_id=match.pk, type="resign").payload["seat"]
    assert match.winner == 1 - resigned
    if match.result_reason == ResultReason.TIMEOUT:
        assert resigned == late and types[-3] == "timeout", types  # the late seat lost on time
    else:
        assert match.result_reason == ResultReason.RESIGN
    # exactly one writer ended it; the other two were refused (match_over) or changed nothing (None)
    assert sorted(map(str, results)).count("match_over") + results.count(None) == 2, results
    first = ratings_services.match_rate(match_id=match.pk)
    again = ratings_services.match_rate(match_id=match.pk)
    assert len(first) == 2 and again == []
    assert RatingChange.objects.filter(match_id=match.pk).count() == 2
