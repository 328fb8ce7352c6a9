"""Rating refunds after a fair-play closure (``ratings.refunds``, ``ratings.services.closure_refund``,
the task ``ratings.tasks.refund_closure``; docs/fairplay.md "Consequences and refunds"): the arithmetic
against a hand-computed case, exactly once (twice, concurrently), the history line, the buckets kept exact.

Runs on the profile's database (SQLite by default, PostgreSQL with ``DATABASE_URL``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from accounts.models import Standing, User
from games.models import Match, MatchStatus
from ratings import refunds, services, tasks
from ratings.models import PlayerRating, RatingBucket, RatingChange, RatingRefund
from tests.racing import concurrently

pytestmark = pytest.mark.django_db(transaction=True)


# --------------------------------------------------------------------------------------------- pure


def test_plan_worked_example_cap_provisional_won_and_already_refunded() -> None:
    """Cap 150, newest first. Player 1: lost 60, 50 (provisional), 70, 40 -> 60, 70, then 20 (the cap).
    Player 2: won (+15) -> nothing; lost 12.5 -> 12.5. Player 3: 30 already refunded for match 9, lost
    130 in match 10 -> 120 (150 - 30)."""
    losses = [
        refunds.Loss(1, 1, -60.0, False), refunds.Loss(2, 1, -50.0, True), refunds.Loss(3, 1, -70.0, False),
        refunds.Loss(4, 1, -40.0, False), refunds.Loss(5, 2, 15.0, False), refunds.Loss(6, 2, -12.5, False),
        refunds.Loss(9, 3, -30.0, False, refunded=30.0), refunds.Loss(10, 3, -130.0, False),
    ]
    assert refunds.plan(losses) == [
        refunds.Refund(1, 1, 60.0), refunds.Refund(3, 1, 70.0), refunds.Refund(4, 1, 20.0),
        refunds.Refund(6, 2, 12.5), refunds.Refund(10, 3, 120.0),
    ]
    assert refunds.plan([refunds.Loss(1, 1, -60.0, False, refunded=60.0)]) == []  # a rerun: nothing


def test_plan_refuses_bad_numbers() -> None:
    with pytest.raises(ValueError, match="cap must be >= 0"):
        refunds.plan([], cap=-1)
    with pytest.raises(ValueError, match="refunded points must be >= 0"):
        refunds.plan([refunds.Loss(1, 1, -5.0, False, refunded=-1.0)])


# --------------------------------------------------------------------------------------------- service


def _member(name: str) -> User:
    return User.objects.create_user(username=name, password="pw-for-tests-1")


def _rated(a: User, b: User, *, winner: User, loser_delta: float, at: datetime) -> Match:
    """A finished rated match of ``a`` and ``b`` rated at ``at``: the loser's change ``loser_delta``,
    the winner's its opposite (hand-made rows: the refund reads only these)."""
    match = Match.objects.create(rules={}, player0=a, player1=b, status=MatchStatus.FINISHED, rated=True,
                                 winner=0 if winner == a else 1, finished_at=at)
    loser = b if winner == a else a
    for player, other, delta in ((winner, loser, -loser_delta), (loser, winner, loser_delta)):
        RatingChange.objects.create(match=match, player=player, opponent=other, before=1500.0,
                                    after=1500.0 + delta, delta=delta, k=20, expected=0.5,
                                    opponent_rating=1500.0, won=player == winner)
    RatingChange.objects.filter(match=match).update(created_at=at)
    return match


def _established(user: User, filler: User, now: datetime) -> None:
    """Ten rated matches of ``user`` a month ago (against ``filler``): established before the case."""
    for _ in range(10):
        _rated(user, filler, winner=user, loser_delta=-1.0, at=now - timedelta(days=30))


def _close(user: User, at: datetime) -> None:
    User.objects.filter(pk=user.pk).update(standing=Standing.CLOSED, standing_since=at, is_active=False)


@pytest.fixture
def case() -> dict[str, Any]:
    """The hand-computed case. ``cheat`` closed now; in the 5 days before:

    - ``o1`` (established, 1400, peak 1600) lost 20, 60, 50, 40 (newest first): 170 > 150 -> 20, 60,
      50 and 20 of the last: 150, rating 1550 (peak stays 1600);
    - ``o2`` (established, 1500) won one (+15: nothing), lost 12.5 a day ago (refunded) and 30 six days
      ago (outside the window: nothing) -> 12.5, rating 1512.5;
    - ``o3`` (provisional: no rated match before) lost 25 -> nothing.
    """
    now = timezone.now()
    cheat, o1, o2, o3, filler = (_member(n) for n in ("cheat", "o1", "o2", "o3", "filler"))
    for user in (o1, o2):
        _established(user, filler, now)
    hours = timedelta(hours=1)
    matches = {
        "o1a": _rated(cheat, o1, winner=cheat, loser_delta=-20.0, at=now - 1 * hours),
        "o1b": _rated(o1, cheat, winner=cheat, loser_delta=-60.0, at=now - 2 * hours),
        "o1c": _rated(cheat, o1, winner=cheat, loser_delta=-50.0, at=now - 3 * hours),
        "o1d": _rated(cheat, o1, winner=cheat, loser_delta=-40.0, at=now - 4 * hours),
        "o2won": _rated(cheat, o2, winner=o2, loser_delta=-15.0, at=now - 5 * hours),
        "o2lost": _rated(cheat, o2, winner=cheat, loser_delta=-12.5, at=now - timedelta(days=1)),
        "o2old": _rated(cheat, o2, winner=cheat, loser_delta=-30.0, at=now - timedelta(days=6)),
        "o3": _rated(cheat, o3, winner=cheat, loser_delta=-25.0, at=now - 6 * hours),
    }
    for user, rating, peak, played in ((o1, 1400.0, 1600.0, 14), (o2, 1500.0, 1510.0, 13),
                                       (o3, 1475.0, 1500.0, 1), (cheat, 1700.0, 1700.0, 17)):
        PlayerRating.objects.create(user=user, rating=rating, peak=peak, rated_matches=played, wins=played)
    _close(cheat, now)
    return {"cheat": cheat, "o1": o1, "o2": o2, "o3": o3, "matches": matches}


def _refunds() -> dict[tuple[str, int], float]:
    return {(r.player.username, r.match_id): r.points for r in RatingRefund.objects.select_related("player")}


def test_hand_computed_refunds(case: dict[str, Any]) -> None:
    m = case["matches"]
    made = services.closure_refund(closed_id=case["cheat"].pk)
    assert len(made) == 5
    assert _refunds() == {("o1", m["o1a"].pk): 20.0, ("o1", m["o1b"].pk): 60.0, ("o1", m["o1c"].pk): 50.0,
                          ("o1", m["o1d"].pk): 20.0, ("o2", m["o2lost"].pk): 12.5}
    rows = {r.user.username: r for r in PlayerRating.objects.select_related("user")}
    assert (rows["o1"].rating, rows["o1"].peak, rows["o1"].rated_matches) == (1550.0, 1600.0, 14)
    assert (rows["o2"].rating, rows["o2"].peak) == (1512.5, 1512.5)
    assert rows["o3"].rating == 1475.0 and rows["cheat"].rating == 1700.0
    # The refunds chain: each one's before is the previous one's after (newest match first).
    chain = [(r.before, r.after) for r in RatingRefund.objects.filter(player=case["o1"]).order_by("id")]
    assert chain == [(1400.0, 1420.0), (1420.0, 1480.0), (1480.0, 1530.0), (1530.0, 1550.0)]
    # The buckets followed (the trigger): o1 moved from 1400 to 1550, o2 from 1500 to 1512.
    buckets = {b.bucket: (b.established, b.everyone) for b in RatingBucket.objects.all()
               if (b.established, b.everyone) != (0, 0)}
    assert buckets == {1550: (1, 1), 1512: (1, 1), 1475: (0, 1), 1700: (1, 1)}


def test_last_matches_only(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """With the rule looking at the closed account's last 2 matches (40 in production), only o1's two
    newest losses come back: 20 + 60."""
    monkeypatch.setattr(refunds, "REFUND_MATCHES", 2)
    services.closure_refund(closed_id=case["cheat"].pk)
    m = case["matches"]
    assert _refunds() == {("o1", m["o1a"].pk): 20.0, ("o1", m["o1b"].pk): 60.0}
    assert PlayerRating.objects.get(user=case["o1"]).rating == 1480.0


def test_not_closed_no_refund(case: dict[str, Any]) -> None:
    User.objects.filter(pk=case["cheat"].pk).update(standing=Standing.MARKED)
    assert services.closure_refund(closed_id=case["cheat"].pk) == []
    assert not RatingRefund.objects.exists()


def test_task_twice_refunds_once(case: dict[str, Any]) -> None:
    assert tasks.refund_closure.apply(args=(case["cheat"].pk,)).get() == 5
    assert tasks.refund_closure.apply(args=(case["cheat"].pk,)).get() == 0
    assert RatingRefund.objects.count() == 5
    assert PlayerRating.objects.get(user=case["o1"]).rating == 1550.0
    assert PlayerRating.objects.get(user=case["o2"]).rating == 1512.5


def test_sweep_sends_the_last_day_s_closures_again(case: dict[str, Any]) -> None:
    """A lost message: the sweep finds the closure of today (not one of two days ago) and its refunds are
    made, once."""
    old = _member("old-cheat")
    _close(old, timezone.now() - timedelta(days=2))
    assert services.closures_recent_ids() == [case["cheat"].pk]
    assert tasks.sweep_refunds.apply().get() == 1
    assert RatingRefund.objects.count() == 5
    assert tasks.sweep_refunds.apply().get() == 1 and RatingRefund.objects.count() == 5


def test_concurrent_runs_refund_once(case: dict[str, Any]) -> None:
    if connection.vendor == "sqlite":
        pytest.skip("SQLite serializes writers with one database lock (the PostgreSQL run races them)")
    results = concurrently([lambda: len(services.closure_refund(closed_id=case["cheat"].pk))] * 4)
    assert sorted(results) == [0, 0, 0, 5]
    assert RatingRefund.objects.count() == 5
    assert PlayerRating.objects.get(user=case["o1"]).rating == 1550.0


def test_history_line_and_closed_profile(case: dict[str, Any]) -> None:
    services.closure_refund(closed_id=case["cheat"].pk)
    page = Client().get("/u/o2/").content.decode()
    assert "refund: opponent closed for fair-play violation" in page
    assert "+13" in page and "1500 → 1513" in page  # 1512.5 is shown 1513 (half away from zero)
    closed = Client().get("/u/cheat/").content.decode()
    assert 'data-testid="profile-closed"' in closed
    assert "closed for a fair-play violation" in closed
    pt = Client(headers={"accept-language": "pt-br"}).get("/u/o2/", HTTP_ACCEPT_LANGUAGE="pt-br")
    assert "reembolso: adversário encerrado por violação de jogo limpo" in pt.content.decode()


def test_closed_account_history_frozen(case: dict[str, Any], finish_friend: Callable[..., Any]) -> None:
    """A match the closed account still finishes rates only its opponent."""
    cheat, o1 = case["cheat"], case["o1"]
    User.objects.filter(pk=cheat.pk).update(standing=Standing.GOOD, is_active=True)
    cheat.refresh_from_db()
    from games.signals import match_finished
    from ratings import receivers

    match_finished.disconnect(dispatch_uid="ratings.enqueue_rating")
    try:
        match = finish_friend(cheat, o1, winner=o1)
    finally:
        match_finished.connect(receivers.enqueue_rating, dispatch_uid="ratings.enqueue_rating")
    _close(cheat, timezone.now())
    changes = services.match_rate(match_id=match.pk)
    assert [c.player_id for c in changes] == [o1.pk]
    assert PlayerRating.objects.get(user=cheat).rated_matches == 17
