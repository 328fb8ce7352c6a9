"""Results and exports (docs/tournaments.md "Results and exports"): the CSV files of a worked example,
CSV formula injection, the TRF of a stored event, the refusals (private event, Arena TRF, no results
yet), the page's export box, and a seeded simulation re-paired from its own TRF file."""

from __future__ import annotations

import datetime as dt
import io
import re

import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import User
from games import services as game_services
from games.models import Match
from ratings.models import PlayerRating
from ratings.tasks import rate_match
from tests.tournaments.test_pages import finished_event, logged_in, soon
from tournaments import closing, results, selectors, swiss, trf
from tournaments.models import (
    ArenaGame,
    Pairing,
    Registration,
    Round,
    RoundStatus,
    Tournament,
    TournamentAccess,
    TournamentFormat,
    TournamentStatus,
)


@pytest.mark.django_db
def test_standings_and_games_csv_of_a_finished_event(members: list[User]) -> None:
    t, match = finished_event(members)
    response = Client().get(f"/tournaments/{t.pk}/results.csv")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="tournament-{t.pk}-standings.csv"'
    # member0 beat member1 and member2 had the bye: both on 1 point; Buchholz 0 (beaten member1's 0)
    # against the bye's virtual opponent at 0 too, S-B alike: the hand points (+21 v 0) put member0 first.
    assert response.content.decode().split("\r\n") == [
        "rank,player,points,buchholz,sonneborn_berger,hand_point_diff,rating_start,rating_end,games,"
        "withdrawn,bot",
        "1,member0,1.0,0.0,0.0,21,1500,1526,1,0,0",
        "2,member2,1.0,0.0,0.0,0,1500,1500,0,0,0",
        "3,member1,0.0,1.0,0.0,-21,1500,1474,1,0,0",
        "",
    ]
    games = Client().get(f"/tournaments/{t.pk}/games.csv").content.decode().split("\r\n")
    assert games == [
        "round,board,player0,player1,points0,points1,hand_points0,hand_points1,result,replay_url",
        f"1,1,member0,member1,1,0,52,31,1-0,http://testserver/replay/{match.pk}/",
        "1,2,member2,,1,0,0,0,bye,",
        "",
    ]


def test_a_name_a_spreadsheet_would_run_is_quoted() -> None:
    assert [results.safe_cell(x) for x in ("=HYPERLINK(1)", "+1", "-2", "@SUM(A1)", "ok", "a=b")] == [
        "'=HYPERLINK(1)", "'+1", "'-2", "'@SUM(A1)", "ok", "a=b"]


@pytest.mark.django_db
def test_csv_quotes_a_formula_username(django_user_model: type[User], members: list[User]) -> None:
    t, _ = finished_event(members)
    User.objects.filter(pk=members[2].pk).update(username="=cmd", display_name="")
    body = Client().get(f"/tournaments/{t.pk}/results.csv").content.decode()
    assert "\r\n2,'=cmd,1.0," in body


@pytest.mark.django_db
def test_trf_of_a_finished_event(members: list[User]) -> None:
    t, _ = finished_event(members)
    response = Client().get(f"/tournaments/{t.pk}/results.trf")
    assert response["Content-Disposition"] == f'attachment; filename="tournament-{t.pk}-results.trf"'
    report = trf.read(response.content.decode("utf-8"))
    assert report.name == "Test Cup" and report.rounds == 1
    # Pairing numbers: equal ratings, so by username: member0 1, member1 2, member2 3.
    assert [(p.number, p.name, p.rating, p.points, p.rank, p.games) for p in report.players] == [
        (1, "member0", 1500, 1.0, 1, (trf.Game(2, "w", "1"),)),
        (2, "member1", 1500, 0.0, 3, (trf.Game(1, "b", "0"),)),
        (3, "member2", 1500, 1.0, 2, (trf.Game(0, "-", "U"),)),
    ]


@pytest.mark.django_db
def test_a_forfeit_is_plus_and_minus(members: list[User]) -> None:
    t, match = finished_event(members)
    Pairing.objects.filter(match=match).update(forfeit=True, points=[0, 1])
    players = trf.read(trf.write(results.trf_report(t))).players
    assert [p.games[0] for p in players[:2]] == [trf.Game(2, "w", "-"), trf.Game(1, "b", "+")]


@pytest.mark.django_db
def test_exports_refused_where_the_event_is_not_seen(members: list[User]) -> None:
    t, _ = finished_event(members)
    Tournament.objects.filter(pk=t.pk).update(access=TournamentAccess.CODE, entry_code="secret")
    for path in ("results.csv", "games.csv", "results.trf"):
        assert Client().get(f"/tournaments/{t.pk}/{path}").status_code == 404
        assert logged_in(members[5]).get(f"/tournaments/{t.pk}/{path}").status_code == 404
        assert logged_in(members[1]).get(f"/tournaments/{t.pk}/{path}").status_code == 200  # a player
    coded = Client()
    session = coded.session
    session["tournament_codes"] = [t.pk]
    session.save()
    assert coded.get(f"/tournaments/{t.pk}/results.trf").status_code == 200
    assert Client().get("/tournaments/424242/results.csv").status_code == 404


@pytest.mark.django_db
def test_no_results_yet_and_arena_has_no_trf(members: list[User]) -> None:
    waiting = soon()
    response = Client().get(f"/tournaments/{waiting.pk}/results.csv")
    assert response.status_code == 404
    assert "exports open once its first round starts" in response.content.decode()
    now = dt.datetime.now(dt.UTC)
    arena = soon(format=TournamentFormat.ARENA, status=TournamentStatus.RUNNING,
                 ends_at=now + dt.timedelta(hours=1))
    a, b = members[:2]
    Registration.objects.create(tournament=arena, user=a, arena_score=4, arena_streak=2)
    Registration.objects.create(tournament=arena, user=b, arena_score=0)
    for _ in range(2):
        ArenaGame.objects.create(tournament=arena, player0=a, player1=b, winner=a, points=[2, 0],
                                 hand_points=[55, 20], finished_at=now)
    trf_response = Client().get(f"/tournaments/{arena.pk}/results.trf")
    assert trf_response.status_code == 404 and "Arena event has no TRF" in trf_response.content.decode()
    response = Client().get(f"/tournaments/{arena.pk}/results.csv")
    assert response["Content-Disposition"] == (
        f'attachment; filename="tournament-{arena.pk}-standings-partial.csv"')
    # No rating fixed: 1500 each. member0 beat a 1500 twice: 1500 + 500 = 2000; member1: 1000.
    assert response.content.decode().split("\r\n")[:3] == [
        "rank,player,score,performance,streak,games,wins,withdrawn,bot", "1,member0,4,2000,2,2,2,0,0",
        "2,member1,0,1000,0,2,0,0,0"]
    games = Client().get(f"/tournaments/{arena.pk}/games.csv").content.decode().split("\r\n")
    assert len(games) == 4 and games[1].endswith(",member0,member1,2,0,55,20,member0,")


@pytest.mark.django_db
def test_arena_page_csv_and_api_share_one_order(members: list[User]) -> None:
    """Three players on 2 points: performance decides (not the username), on the page, in the CSV and
    in the API alike. Ratings ann 1500, ben 1700, cid 1400, dan 1600; ann beat cid, ben beat dan, cid
    beat dan. Performance: ben 1600 + 500 = 2100, ann 1400 + 500 = 1900, cid (1500 + 1600) / 2 = 1550,
    dan (1700 + 1400) / 2 - 500 = 1050; eve has played nobody: none, last."""
    now = dt.datetime.now(dt.UTC)
    arena = soon(format=TournamentFormat.ARENA, status=TournamentStatus.RUNNING,
                 ends_at=now + dt.timedelta(hours=1), max_players=8)
    ann, ben, cid, dan, eve = members[:5]
    for user, name, rating, score, streak in ((ann, "ann", 1500, 2, 1), (ben, "ben", 1700, 2, 1),
                                              (cid, "cid", 1400, 2, 1), (dan, "dan", 1600, 0, 0),
                                              (eve, "eve", 1550, 0, 0)):
        User.objects.filter(pk=user.pk).update(username=name)
        Registration.objects.create(tournament=arena, user=user, rating=rating, arena_score=score,
                                    arena_streak=streak)
    for winner, loser in ((ann, cid), (ben, dan), (cid, dan)):
        ArenaGame.objects.create(tournament=arena, player0=winner, player1=loser, winner=winner,
                                 points=[2, 0], hand_points=[100, 40], finished_at=now)
    expected = [(1, "ben", 2100), (2, "ann", 1900), (3, "cid", 1550), (4, "dan", 1050), (5, "eve", None)]
    csv_rows = Client().get(f"/tournaments/{arena.pk}/results.csv").content.decode().split("\r\n")
    assert csv_rows[1:6] == ["1,ben,2,2100,1,1,1,0,0", "2,ann,2,1900,1,1,1,0,0", "3,cid,2,1550,1,2,1,0,0",
                             "4,dan,0,1050,0,2,0,0,0", "5,eve,0,,0,0,0,0,0"]
    api = Client().get(f"/api/v1/tournaments/{arena.pk}/standings/").json()["results"]
    assert [(r["rank"], r["player"]["username"], r["performance"]) for r in api] == expected
    html = Client().get(f"/tournaments/{arena.pk}/").content.decode()
    ids = {u.pk: n for u, n in ((ann, "ann"), (ben, "ben"), (cid, "cid"), (dan, "dan"), (eve, "eve"))}
    shown = [(int(rank), ids[int(pk)], None if perf == "–" else int(perf)) for pk, rank, perf in re.findall(
        r'<tr data-player="(\d+)".*?<td class="num rank">(\d+)</td>.*?'
        r'data-label="Performance">([^<]+)</td>', html, re.S)]
    assert shown == expected


@pytest.mark.django_db
def test_page_export_box_and_rating_after(members: list[User]) -> None:
    t, _ = finished_event(members)
    for lang, words in (("en", ("Export", "Standings (CSV)", "Results (TRF)")),
                        ("pt-br", ("Exportar", "Classificação (CSV)", "Resultados (TRF)"))):
        html = Client(HTTP_ACCEPT_LANGUAGE=lang).get(f"/tournaments/{t.pk}/").content.decode()
        assert all(w in html for w in words), lang
        assert f'href="/tournaments/{t.pk}/results.trf"' in html and "Partial" not in html
        # member0 1500 +26.4, member1 1500 -26.4 (finished_event's rating changes), member2's bye: 1500
        assert re.findall(r'data-testid="rating-after">(\d+)<', html) == ["1526", "1500", "1474"]
    assert 'data-testid="export"' not in Client().get(f"/tournaments/{soon().pk}/").content.decode()


NEEDS_SERVER_MOVES = pytest.mark.skipif(not hasattr(game_services, "match_create_seated"),
                                        reason="needs server-driven moves")


@NEEDS_SERVER_MOVES
@pytest.mark.django_db(transaction=True)
def test_re_pairing_each_round_from_the_trf_gives_the_stored_pairing() -> None:
    """A seeded simulation (7 house bots, 4 rounds: a bye every round). For each round k >= 2, the
    Swiss pairing fed only the TRF file's rounds < k pairs the same boards and the same bye as stored:
    an outside program reading our TRF has what it needs to check our pairings."""
    call_command("tournament_simulate", "--players", "7", "--rounds", "4", "--seed", "11", "--levels",
                 "1,2,3", "--json", stdout=io.StringIO(), stderr=io.StringIO())
    t = Tournament.objects.get(is_simulation=True, simulation_seed=11)
    report = trf.read(trf.write(results.trf_report(t)))
    assert report.rounds == 4 and len(report.players) == 7
    assert all(len(p.games) == 4 for p in report.players)
    number = {p.id: p.number for p in selectors.swiss_field(t)}
    for k in range(2, 5):
        field = [swiss.Player(id=str(n), score=score, rating=rating, opponents=frozenset(str(o) for o in met),
                              had_bye=bye, number=n)
                 for n, score, rating, met, bye in trf.field_before(report, k)]
        fresh = swiss.pair_round(field)
        stored = list(selectors.pairings_of(t).filter(round__number=k))
        assert {frozenset(pair) for pair in fresh.pairs} == {
            frozenset((str(number[str(p.player0_id)]), str(number[str(p.player1_id)])))
            for p in stored if p.player1_id}, k
        assert fresh.bye == next(str(number[str(p.player0_id)]) for p in stored if p.player1_id is None)


@pytest.mark.django_db
def test_rating_after_is_right_when_the_elo_task_runs_after_the_finish(members: list[User]) -> None:
    """The user's trial: member0 (1480) beat member1 (1500) in the last match; the event closed BEFORE the
    rating task of that match ran. The page, the CSV and the API read the rating after from the ratings
    app's rows, so they show her profile's rating once it landed, never the stale 1480."""
    alice, bob, cid = members[:3]
    PlayerRating.objects.create(user=alice, rating=1480, peak=1480)
    PlayerRating.objects.create(user=bob, rating=1500, peak=1500)
    t = soon(status=TournamentStatus.RUNNING, rounds=1, current_round=1, max_players=8)
    for user, start in ((alice, 1480), (bob, 1500), (cid, 1500)):
        Registration.objects.create(tournament=t, user=user, rating=start)
    r1 = Round.objects.create(tournament=t, number=1, status=RoundStatus.FINISHED)
    match = Match.objects.create(rules={}, player0=alice, player1=bob, status="finished",
                                 scores=[100, 31], winner=0, rated=True, turn_timer_seconds=30,
                                 finished_at=dt.datetime(2026, 12, 7, 18, 30, tzinfo=dt.UTC))
    Pairing.objects.create(round=r1, board=1, player0=alice, player1=bob, match=match, points=[1, 0],
                           hand_points=[100, 31])
    Pairing.objects.create(round=r1, board=2, player0=cid, points=[1, 0], hand_points=[0, 0])
    closing.event_close(t, winner_id=alice.pk, now=dt.datetime(2026, 12, 7, 18, 31, tzinfo=dt.UTC))
    assert rate_match(match.pk) == 2  # the Elo task, after the close
    # Her profile: 1480 + 40 x (1 - 0.471) = 1501.15 (K 40 while provisional); his 1500 - 21.15.
    assert round(PlayerRating.objects.get(user=alice).rating) == 1501
    assert round(PlayerRating.objects.get(user=bob).rating) == 1479

    html = Client().get(f"/tournaments/{t.pk}/").content.decode()
    shown = re.findall(r'data-testid="rating-change">([^<]+)<.*?data-testid="rating-after">([^<]+)<',
                       html, re.S)
    assert shown == [("+21", "1501"), ("0", "1500"), ("-21", "1479")]
    csv_rows = Client().get(f"/tournaments/{t.pk}/results.csv").content.decode().split("\r\n")[1:4]
    assert [row.split(",")[1] + ":" + row.split(",")[6] + ">" + row.split(",")[7] for row in csv_rows] == [
        "member0:1480>1501", "member2:1500>1500", "member1:1500>1479"]
    api = Client().get(f"/api/v1/tournaments/{t.pk}/standings/").json()["results"]
    assert [(r["player"]["username"], r["rating"], round(r["rating_after"])) for r in api] == [
        ("member0", 1480, 1501), ("member2", 1500, 1500), ("member1", 1500, 1479)]
