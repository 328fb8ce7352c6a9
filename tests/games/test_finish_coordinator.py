"""Every way a match finishes goes through ``games.services.finish.match_finish``: the end is recorded
in the finishing transaction and ``games.signals.match_finished`` is sent once, after the commit (its
receivers read the finished row), with the result the route gives; a second attempt to end the match
(a resignation resent or repeated, the turn timer firing after a resignation, a second claim) sends
nothing. An aborted match (abandoned, a rated match resigned before both moved) sends no
``match_finished`` at all (``games.signals``). Writes that race to end a match: test_finish_race.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import presence, services
from games.live import load
from games.models import Match, MatchStatus, ResultReason
from games.services import GameError
from games.signals import match_finished, match_left
from tests.games.play import play_until
from tests.ratings.conftest import first_moves

pytestmark = pytest.mark.django_db(transaction=True)  # on_commit hooks run, as in production


@pytest.fixture
def ends(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[Any]]]:
    """What the ends sent: ``finished`` (match id, rated, and the row's status, winner and result reason
    as the receiver reads them after the commit), ``left`` (match id, seats, why). The rating task is
    not enqueued (no worker here)."""
    from ratings import tasks

    monkeypatch.setattr(tasks.rate_match, "delay", lambda match_id: None)
    monkeypatch.setattr(tasks.rate_pending, "delay", lambda *args, **kwargs: None)
    sent: dict[str, list[Any]] = {"finished": [], "left": []}

    def on_finished(sender: Any, *, match_id: int, rated: bool, **kwargs: Any) -> None:
        row = Match.objects.values_list("status", "winner", "result_reason").get(pk=match_id)
        sent["finished"].append((match_id, rated, *row))

    def on_left(sender: Any, *, match: Match, seats: list[int], why: str, **kwargs: Any) -> None:
        sent["left"].append((match.pk, seats, why))

    match_finished.connect(on_finished, dispatch_uid="test-finish-coordinator")
    match_left.connect(on_left, dispatch_uid="test-finish-coordinator")
    try:
        yield sent
    finally:
        match_finished.disconnect(dispatch_uid="test-finish-coordinator")
        match_left.disconnect(dispatch_uid="test-finish-coordinator")


def _code(call: Any) -> str:
    with pytest.raises(GameError) as refused:
        call()
    return refused.value.code


def _rated_friends(alice: Any, bob: Any) -> Match:
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=30, rated=True)
    match = services.table_join(user=bob, token=table.invite_token)
    first_moves(match.pk, {0: alice, 1: bob})  # past the free abort: a resignation is a result
    return Match.objects.get(pk=match.pk)


def _after_the_end_nothing_more(match: Match, users: tuple[Any, Any], ends: dict[str, list[Any]]) -> None:
    """Every other way to end ``match`` again is refused or does nothing, and sends nothing."""
    sent = {key: list(value) for key, value in ends.items()}
    row = Match.objects.values_list("status", "winner", "result_reason", "last_seq").get(pk=match.pk)
    for user in users:
        assert _code(lambda user=user: services.match_resign(match_id=match.pk, user=user)) == "match_over"
    Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.match_expire_turn(match_id=match.pk) is None  # the timer's task, come late
    assert services.match_play_server_moves(match_id=match.pk) == 0
    assert Match.objects.values_list("status", "winner", "result_reason", "last_seq").get(pk=match.pk) == row
    assert ends == sent


@pytest.mark.parametrize("players", ["people", "bots"])
def test_the_last_hand_won_finishes_once(
    alice: Any, bob: Any, house_bots: list[Any], seeded_decks: list[int], ends: dict[str, list[Any]],
    players: str,
) -> None:
    """People: their moves (the locked write, then on PostgreSQL the one-statement write, whose end is
    announced after its statement); bots: the server's driver, the whole match in one call."""
    if players == "people":
        table = services.table_create(user=alice, rules_preset="classic", target=50, turn_timer=None,
                                      rated=False)
        match = services.table_join(user=bob, token=table.invite_token)
        match = play_until(match.pk, {0: alice, 1: bob})
    else:
        match = services.match_create_bot_vs_bot(bot0=house_bots[0], bot1=house_bots[1], target=50)
        match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    winner = load(match).state.winner
    assert winner is not None and match.result_reason not in (
        ResultReason.RESIGN, ResultReason.TIMEOUT, ResultReason.LEFT)
    assert ends["finished"] == [(match.pk, False, MatchStatus.FINISHED, winner, match.result_reason)]
    assert ends["left"] == []
    _after_the_end_nothing_more(match, (match.player0, match.player1), ends)


def test_a_resignation_finishes_once_and_its_repeat_sends_nothing(
    alice: Any, bob: Any, ends: dict[str, list[Any]]
) -> None:
    match = _rated_friends(alice, bob)
    done = services.match_resign(match_id=match.pk, user=bob, msg_id="r1")
    assert ends["finished"] == [(match.pk, True, MatchStatus.FINISHED, 0, ResultReason.RESIGN)]
    again = services.match_resign(match_id=match.pk, user=bob, msg_id="r1")  # the resend
    assert again.repeat and again.seq == done.seq
    assert ends["left"] == []
    _after_the_end_nothing_more(match, (alice, bob), ends)


def test_a_loss_on_time_finishes_once(alice: Any, bob: Any, ends: dict[str, list[Any]]) -> None:
    """The third automatic move in a row: the late player loses on time, and left the match (its
    ``match_left``, inside the transaction, once)."""
    match = _rated_friends(alice, bob)
    late = load(match).state.current_player
    assert late is not None
    strikes = [0, 0]
    strikes[late] = services.TIMEOUT_STRIKES_TO_LOSE - 1
    Match.objects.filter(pk=match.pk).update(timeout_strikes=strikes,
                                             turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.match_expire_turn(match_id=match.pk) is not None
    assert ends["finished"] == [(match.pk, True, MatchStatus.FINISHED, 1 - late, ResultReason.TIMEOUT)]
    assert ends["left"] == [(match.pk, [late], "timeouts")]
    _after_the_end_nothing_more(match, (alice, bob), ends)


def test_a_claim_finishes_once(alice: Any, bob: Any, ends: dict[str, list[Any]]) -> None:
    """Alice claims the rated match bob left: her win (``left``), bob's ``match_left``; her resent
    claim is answered with its outcome, a new one finds the match over. Each seat first makes its
    ``GAMES_RATED_MIN_MOVES`` own moves, so the claim is rated (docs/fairplay.md "Limits that make
    farming slow": a claim earlier finishes the match unrated, ``test_leaving.py``)."""
    match = services.match_create_seated(player0=alice, player1=bob, rated=True, turn_timer=60)
    first_moves(match.pk, {0: alice, 1: bob})
    start = match.started_at
    assert start is not None
    presence.opened(match_id=match.pk, seat=0, now=start)
    when = start + timedelta(seconds=90)
    done = services.match_claim(match_id=match.pk, user=alice, msg_id="c1", now=when)
    assert done.outcome == "win"
    assert ends["finished"] == [(match.pk, True, MatchStatus.FINISHED, 0, ResultReason.LEFT)]
    assert ends["left"] == [(match.pk, [1], "abandoned")]
    assert services.match_claim(match_id=match.pk, user=alice, msg_id="c1", now=when).repeat
    assert _code(lambda: services.match_claim(match_id=match.pk, user=alice, msg_id="c2",
                                              now=when)) == "match_over"
    _after_the_end_nothing_more(match, (alice, bob), ends)


def test_aborted_matches_end_once_without_match_finished(
    alice: Any, bob: Any, house_bots: list[Any], ends: dict[str, list[Any]]
) -> None:
    """A casual bot match abandoned by its player, a casual match between people claimed, and a rated
    match resigned before both moved: each ends once (aborted, no winner), and none is ``finished``."""
    casual = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100,
                                          rated=False)
    assert services.match_abandon(match_id=casual.pk, user=alice)
    assert _code(lambda: services.match_abandon(match_id=casual.pk, user=alice)) == "match_over"
    assert services.match_abandon(match_id=casual.pk) is False  # the idle sweep
    claimed = services.match_create_seated(player0=alice, player1=bob, rated=False)
    start = claimed.started_at
    assert start is not None
    presence.opened(match_id=claimed.pk, seat=0, now=start)
    done = services.match_claim(match_id=claimed.pk, user=alice, now=start + timedelta(seconds=90))
    assert done.outcome == "end"
    aborted = services.match_create_seated(player0=alice, player1=bob, rated=True, turn_timer=60)
    services.match_resign(match_id=aborted.pk, user=alice, msg_id="a1")
    rows = dict(Match.objects.filter(pk__in=[casual.pk, claimed.pk, aborted.pk])
                .values_list("pk", "result_reason"))
    assert rows == {casual.pk: ResultReason.ABANDONED, claimed.pk: ResultReason.ABANDONED,
                    aborted.pk: ResultReason.ABORTED}
    assert ends["finished"] == []
    assert ends["left"] == [(claimed.pk, [1], "abandoned")]
    for match, users in ((claimed, (alice, bob)), (aborted, (alice, bob))):
        _after_the_end_nothing_more(match, users, ends)
