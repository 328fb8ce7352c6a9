"""A fair-play closure and the tournaments (docs/fairplay.md "Consequences and refunds"): the closed
player's line leaves the standings, every result stands, the others are ranked again, a finished
tournament it won gets the new first as its winner, the page says the standings were recomputed; a
running one withdraws it, one not started drops its registration."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from fairplay import services as fairplay_services
from games.models import Match
from tests.factories import TournamentFactory
from tournaments import selectors, tiebreaks
from tournaments.models import Pairing, Registration, Round, RoundStatus, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db


def test_tiebreaks_removed_player_leaves_the_lines_and_its_results_stand() -> None:
    """a beat b and c; c beat d; b beat d. Without a: b and c on 1 point, Buchholz 2 each (a's 2 counts,
    d's 0), Sonneborn-Berger 0 each (they beat d); hand points +9 for b, -15 for c: b first."""
    results = [
        tiebreaks.Result(1, "a", "b", 1, 52, 31), tiebreaks.Result(1, "b", "a", 0, 31, 52),
        tiebreaks.Result(1, "c", "d", 1, 50, 40), tiebreaks.Result(1, "d", "c", 0, 40, 50),
        tiebreaks.Result(2, "a", "c", 1, 55, 30), tiebreaks.Result(2, "c", "a", 0, 30, 55),
        tiebreaks.Result(2, "b", "d", 1, 50, 20), tiebreaks.Result(2, "d", "b", 0, 20, 50),
    ]
    ratings = {"a": 1600.0, "b": 1500.0, "c": 1500.0, "d": 1400.0}
    lines = tiebreaks.standings(ratings, results, removed={"a"})
    got = [(s.rank, s.player, s.score, s.buchholz, s.sonneborn_berger, s.hand_point_diff) for s in lines]
    assert got == [
        (1, "b", 1, 2.0, 0.0, 9), (2, "c", 1, 2.0, 0.0, -15), (3, "d", 0, 2.0, 0.0, -40),
    ]
    assert [s.player for s in tiebreaks.standings(ratings, results)] == ["a", "b", "c", "d"]


def _finished(members: list[Any]) -> Tournament:
    a, b, c, d = members[:4]
    t = TournamentFactory(status=TournamentStatus.FINISHED, rounds=2, current_round=2, winner=a,
                          starts_at=timezone.now() - dt.timedelta(hours=2))
    for user, rating in ((a, 1600), (b, 1500), (c, 1500), (d, 1400)):
        Registration.objects.create(tournament=t, user=user, rating=rating)
    for number, boards in ((1, ((a, b, 52, 31), (c, d, 50, 40))), (2, ((a, c, 55, 30), (b, d, 50, 20)))):
        rnd = Round.objects.create(tournament=t, number=number, status=RoundStatus.FINISHED)
        for board, (w, loser, ws, ls) in enumerate(boards, start=1):
            match = Match.objects.create(rules={}, player0=w, player1=loser, status="finished",
                                         scores=[ws, ls], winner=0, rated=True)
            Pairing.objects.create(round=rnd, board=board, player0=w, player1=loser, match=match,
                                   points=[1, 0], hand_points=[ws, ls])
    return t


def test_closure_recomputes_and_marks_standings(members: list[Any], django_user_model: Any,
                                                django_capture_on_commit_callbacks: Any) -> None:
    a, b, c, d, e = members[:5]
    finished = _finished(members)
    running = TournamentFactory(status=TournamentStatus.RUNNING, rounds=3, current_round=1,
                                starts_at=timezone.now() - dt.timedelta(minutes=10))
    Registration.objects.create(tournament=running, user=a, rating=1600)
    Registration.objects.create(tournament=running, user=e, rating=1500)
    upcoming = TournamentFactory()
    Registration.objects.create(tournament=upcoming, user=a)
    moderator = django_user_model.objects.create_superuser(username="boss", password="pw-123456!x")
    assert [row.line.player for row in selectors.standings_of(finished)] == [str(u.pk) for u in (a, b, c, d)]

    with django_capture_on_commit_callbacks(execute=True):
        action = fairplay_services.account_close(moderator=moderator, target_id=a.pk, reason="assistance")
    assert action.details == {"was": "good", "unregistered": [upcoming.pk], "withdrawn": [running.pk],
                              "recomputed": sorted([finished.pk, running.pk])}
    finished.refresh_from_db()
    running.refresh_from_db()
    assert finished.winner_id == b.pk and finished.recomputed_at is not None
    assert running.recomputed_at is not None
    assert Registration.objects.get(tournament=running, user=a).withdrawn
    assert not Registration.objects.filter(tournament=upcoming, user=a).exists()
    rows = selectors.standings_of(finished)
    assert [(row.line.rank, row.line.player) for row in rows] == [(1, str(b.pk)), (2, str(c.pk)),
                                                                  (3, str(d.pk))]
    html = Client().get(f"/tournaments/{finished.pk}/").content.decode()
    assert 'data-testid="standings-recomputed"' in html
    assert "Standings recomputed after a fair-play closure." in html
    pt = Client().get(f"/tournaments/{finished.pk}/", HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert "Classificação recalculada após o encerramento" in pt
