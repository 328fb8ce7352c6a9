"""Arena events through the services (tournaments.arena_play): the start, waves recording and pairing
real matches, streak points, pause and resume, a late join, the end, the sweep and the receiver, and
waves racing on PostgreSQL never seating a player twice."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import User
from games import services as game_services
from games.models import Match, MatchStatus
from tests.racing import concurrently
from tournaments import arena_play, receivers, services
from tournaments import steps as step_module
from tournaments.errors import TournamentError
from tournaments.models import ArenaGame, Registration, Tournament, TournamentFormat, TournamentStatus

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[int, ...]]]:
    """Steps are recorded, not run, so each test drives the waves itself."""
    sent: list[tuple[str, tuple[int, ...]]] = []
    monkeypatch.setattr(services, "step_enqueue", lambda name, *args: sent.append((name, args)))
    monkeypatch.setattr(receivers, "step_enqueue", lambda name, *args: sent.append((name, args)))
    monkeypatch.setattr(step_module, "step_enqueue", lambda name, *args: sent.append((name, args)))
    return sent


def arena_of(people: list[User], *, minutes: int = 30, rated: bool = False, bots: bool = False,
             min_players: int = 2) -> Tournament:
    now = timezone.now()
    tournament = Tournament.objects.create(
        name_en="Arena", name_pt="Arena", starts_at=now, status=TournamentStatus.OPEN,
        format=TournamentFormat.ARENA, duration_minutes=minutes, ends_at=now + dt.timedelta(minutes=minutes),
        rated=rated, bots_allowed=bots, min_players=min_players, max_players=64, match_target=50,
    )
    for user in people:
        Registration.objects.create(tournament=tournament, user=user)
    assert services.tournament_start(tournament_id=tournament.pk, now=now)
    return tournament


def reg(tournament: Tournament, user: User) -> Registration:
    return Registration.objects.get(tournament=tournament, user=user)


def lose(tournament: Tournament, loser: User) -> None:
    """``loser`` resigns its Arena match in play (a casual match: the opponent wins)."""
    game = ArenaGame.objects.get(tournament=tournament, finished_at__isnull=True,
                                 player0=loser) if ArenaGame.objects.filter(
        tournament=tournament, finished_at__isnull=True, player0=loser).exists() else ArenaGame.objects.get(
        tournament=tournament, finished_at__isnull=True, player1=loser)
    assert game.match_id is not None
    game_services.match_resign(match_id=game.match_id, user=loser)


def open_pairs(tournament: Tournament) -> set[tuple[int, int]]:
    return {(g.player0_id, g.player1_id) for g in ArenaGame.objects.filter(tournament=tournament,
                                                                         finished_at__isnull=True)}


def test_start_then_waves_pair_record_and_streak(members: list[User], steps: list[Any]) -> None:
    m = members[:4]
    tournament = arena_of(m)
    tournament.refresh_from_db()
    assert (tournament.status, tournament.current_round) == (TournamentStatus.RUNNING, 0)
    assert ("tournaments.tasks.arena_wave", (tournament.pk,)) in steps
    assert Registration.objects.filter(tournament=tournament).count() == 4  # no bots: not allowed
    first = arena_play.arena_wave(tournament_id=tournament.pk)
    assert (first.paired, first.wave) == (2, 1)
    # equal scores and ratings: by id, neighbours meet
    assert open_pairs(tournament) == {(m[0].pk, m[1].pk), (m[2].pk, m[3].pk)}
    assert arena_play.arena_wave(tournament_id=tournament.pk).paired == 0  # everyone is busy
    assert Match.objects.filter(arena_game__tournament=tournament, rated=False).count() == 2
    # Wave by wave, m0 wins every match and m2 loses every one from the second on.
    lose(tournament, m[1])
    lose(tournament, m[3])
    second = arena_play.arena_wave(tournament_id=tournament.pk)
    assert (second.recorded, second.paired, second.wave) == (2, 2, 2)
    r0 = reg(tournament, m[0])
    assert (r0.arena_score, r0.arena_streak, r0.last_opponent_id) == (2, 1, m[1].pk)
    # ranking m0 (2), m2 (2), m1 (0), m3 (0): no rematch needed
    assert open_pairs(tournament) == {(m[0].pk, m[2].pk), (m[1].pk, m[3].pk)}
    lose(tournament, m[2])
    lose(tournament, m[3])
    arena_play.arena_wave(tournament_id=tournament.pk)
    # m0 4 (2 wins), m1 2, m2 2, m3 0; m0 met m2 last: m0 v m1, m2 v m3
    assert open_pairs(tournament) == {(m[0].pk, m[1].pk), (m[2].pk, m[3].pk)}
    lose(tournament, m[1])
    lose(tournament, m[2])
    arena_play.arena_wave(tournament_id=tournament.pk)
    r0 = reg(tournament, m[0])
    assert (r0.arena_score, r0.arena_streak) == (8, 3)  # 2 + 2 + 4: the third win on a streak
    third = ArenaGame.objects.filter(tournament=tournament, player0=m[0],
                                     finished_at__isnull=False).latest("pk")
    assert (third.points, third.streak, third.winner_id) == ([4, 0], [True, False], m[0].pk)
    scores = {r.user_id: r.arena_score for r in Registration.objects.filter(tournament=tournament)}
    assert scores == {m[0].pk: 8, m[1].pk: 2, m[2].pk: 2, m[3].pk: 2}
    for r in Registration.objects.filter(tournament=tournament):  # the score identity, per player
        points = [g.points[0] if g.player0_id == r.user_id else g.points[1]
                  for g in ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=False)
                  if r.user_id in (g.player0_id, g.player1_id)]
        assert sum(points) == r.arena_score


def test_pause_resume_and_late_join(members: list[User], steps: list[Any]) -> None:
    m = members
    tournament = arena_of(m[:2])
    arena_play.arena_wave(tournament_id=tournament.pk)
    arena_play.arena_pause(tournament_id=tournament.pk, user=m[1])
    arena_play.arena_pause(tournament_id=tournament.pk, user=m[1])  # twice: nothing more
    assert reg(tournament, m[1]).paused
    services.tournament_join(tournament_id=tournament.pk, user=m[2])  # late: the event runs
    late = reg(tournament, m[2])
    assert late.waiting_since is not None and late.rating is not None
    services.tournament_join(tournament_id=tournament.pk, user=m[3])
    lose(tournament, m[0])
    arena_play.arena_wave(tournament_id=tournament.pk)
    # m1 (2 points, paused) is not paired; the two newcomers waited longest (equal scores and ratings)
    assert reg(tournament, m[1]).arena_game_id is None
    assert open_pairs(tournament) == {(m[2].pk, m[3].pk)}
    arena_play.arena_resume(tournament_id=tournament.pk, user=m[1])
    assert ("tournaments.tasks.arena_wave", (tournament.pk,)) in steps
    # m1 and m0 are the only two waiting and met last: both wait
    assert arena_play.arena_wave(tournament_id=tournament.pk).paired == 0
    services.tournament_join(tournament_id=tournament.pk, user=m[4])
    arena_play.arena_wave(tournament_id=tournament.pk)
    assert (m[1].pk, m[4].pk) in open_pairs(tournament)  # m1 (2) meets the newcomer, m0 still waits
    assert reg(tournament, m[0]).arena_game_id is None
    with pytest.raises(TournamentError) as info:
        arena_play.arena_pause(tournament_id=tournament.pk, user=m[5])
    assert info.value.code == "not_registered"


def test_end_waits_for_games_in_play_then_finishes(members: list[User], steps: list[Any]) -> None:
    m = members[:2]
    tournament = arena_of(m)
    arena_play.arena_wave(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.ends_at is not None
    after = tournament.ends_at + dt.timedelta(seconds=1)
    with pytest.raises(TournamentError) as info:
        arena_play.arena_pause(tournament_id=tournament.pk, user=m[0], now=after)
    assert info.value.code == "not_running"
    assert arena_play.arena_wave(tournament_id=tournament.pk, now=after).finished is False  # a game in play
    lose(tournament, m[0])
    result = arena_play.arena_wave(tournament_id=tournament.pk, now=after)
    assert (result.recorded, result.paired, result.finished) == (1, 0, True)  # counted, nothing new
    tournament.refresh_from_db()
    assert (tournament.status, tournament.winner_id) == (TournamentStatus.FINISHED, m[1].pk)
    assert reg(tournament, m[1]).arena_score == 2
    assert arena_play.arena_wave(tournament_id=tournament.pk, now=after).finished is False  # once


def test_join_after_the_end_is_refused(members: list[User], steps: list[Any]) -> None:
    tournament = arena_of(members[:2])
    Tournament.objects.filter(pk=tournament.pk).update(ends_at=timezone.now() - dt.timedelta(seconds=1))
    with pytest.raises(TournamentError) as info:
        services.tournament_join(tournament_id=tournament.pk, user=members[2])
    assert info.value.code == "started"


def test_bots_fill_only_when_allowed_and_never_meet(members: list[User], steps: list[Any]) -> None:
    tournament = arena_of(members[:1], bots=True, min_players=4)
    bots = Registration.objects.filter(tournament=tournament, user__is_bot=True).count()
    assert bots == 3
    assert arena_play.arena_wave(tournament_id=tournament.pk).paired == 1  # the member v a bot
    (game,) = ArenaGame.objects.filter(tournament=tournament)
    assert game.player0_id == members[0].pk  # the person at seat 0
    assert arena_play.arena_wave(tournament_id=tournament.pk).paired == 0  # bots wait for a person


def test_sweep_and_receiver_enqueue_waves(members: list[User], steps: list[Any]) -> None:
    tournament = arena_of(members[:2])
    assert ("tournaments.tasks.arena_wave", tournament.pk) in services.tournaments_due()
    arena_play.arena_wave(tournament_id=tournament.pk)
    steps.clear()
    lose(tournament, members[0])  # match_finished after the commit
    assert ("tournaments.tasks.arena_wave", (tournament.pk,)) in steps


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL")
def test_racing_waves_seat_nobody_twice(members: list[User], steps: list[Any],
                                         django_user_model: Any) -> None:
    people = members + [django_user_model.objects.create_user(username=f"extra{i}", password="pw-123456!")
                        for i in range(4)]
    tournament = arena_of(people)
    results = concurrently([lambda: arena_play.arena_wave(tournament_id=tournament.pk) for _ in range(4)])
    assert sorted(r.paired for r in results) == [0, 0, 0, 5], results
    games = list(ArenaGame.objects.filter(tournament=tournament))
    seats = [p for g in games for p in (g.player0_id, g.player1_id)]
    assert len(seats) == 10 and len(set(seats)) == 10  # nobody in two matches
    active = Match.objects.filter(status=MatchStatus.ACTIVE)
    assert active.count() == 5
    # Second racing round: every match ends, then four waves at once record and re-pair once.
    for g in games:
        lose(tournament, User.objects.get(pk=g.player1_id))
    results = concurrently([lambda: arena_play.arena_wave(tournament_id=tournament.pk) for _ in range(4)])
    assert sorted(r.recorded for r in results) == [0, 0, 0, 5]
    open_games = list(ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=True))
    seats = [p for g in open_games for p in (g.player0_id, g.player1_id)]
    assert len(seats) == len(set(seats)) == 10
    last = {r.user_id: r.last_opponent_id for r in Registration.objects.filter(tournament=tournament)}
    assert all(last[g.player0_id] != g.player1_id for g in open_games)  # no immediate rematch
    assert sum(r.arena_score for r in Registration.objects.filter(tournament=tournament)) == 10


def test_page_shows_time_left_fire_games_and_pause(members: list[User], steps: list[Any],
                                                    client: Any) -> None:
    m = members[:4]
    tournament = arena_of(m)
    for _ in range(3):  # m0 wins three: on fire
        arena_play.arena_wave(tournament_id=tournament.pk)
        for game in ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=True):
            lose(tournament, User.objects.get(pk=game.player1_id if game.player0_id == m[0].pk
                                              else game.player0_id if game.player1_id == m[0].pk
                                              else game.player1_id))
    arena_play.arena_wave(tournament_id=tournament.pk)
    client.force_login(m[0])
    page = client.get(f"/tournaments/{tournament.pk}/live/").content.decode()
    assert 'data-testid="time-left"' in page and 'data-testid="pause"' in page
    assert page.count('data-testid="fire"') == 1  # m0 only: three wins in a row
    assert 'data-testid="arena-games"' in page and 'data-testid="play-link"' in page
    first = page.index('data-testid="points"')
    assert page[first:first + 40].split(">")[1].startswith("8")  # 2 + 2 + 4, first in the standings
    client.post(f"/tournaments/{tournament.pk}/arena/pause/")
    assert reg(tournament, m[0]).paused
    page = client.get(f"/tournaments/{tournament.pk}/live/").content.decode()
    assert 'data-testid="resume"' in page
    client.post(f"/tournaments/{tournament.pk}/arena/resume/")
    assert not reg(tournament, m[0]).paused
    client.force_login(members[5])
    assert 'data-testid="join"' in client.get(f"/tournaments/{tournament.pk}/").content.decode()
    joined = client.post(f"/tournaments/{tournament.pk}/join/", follow=True).content.decode()
    assert "You are in: you will be paired with the next free player." in joined
    assert reg(tournament, members[5]).waiting_since is not None
    client.logout()
    client.cookies["django_language"] = "pt-br"
    page = client.get(f"/tournaments/{tournament.pk}/live/", HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert "Tempo restante" in page


def test_simulate_arena_prints_its_invariants_and_repeats_itself() -> None:
    import io
    import json

    from django.core.management import call_command

    def run() -> dict[str, Any]:
        out = io.StringIO()
        call_command("tournament_simulate", "--format", "arena", "--minutes", "4", "--players", "6",
                     "--levels", "1", "--seed", "5", stdout=out, stderr=io.StringIO())
        report = json.loads(out.getvalue())
        report.pop("tournament"), report.pop("timings")
        return report

    first = run()
    assert (first["status"], first["players"]) == ("finished", 6)
    invariants = (first["immediate_rematches"], first["score_mismatches"], first["max_matches_at_once"])
    assert invariants == (0, 0, 1)
    # seed 5: 3 matches at once, then only 2 more (a lone match's two players may not meet again)
    assert (first["matches"], first["waves"]) == (5, 2)
    assert [(row["score"], row["games"]) for row in first["standings"]] == [
        (4, 2), (2, 1), (2, 2), (2, 2), (0, 2), (0, 1)]
    total = sum(row["score"] for row in first["standings"])
    assert total == 2 * first["matches"] + first["streak_bonus_points"]
    assert run() == first  # seeded: the same Arena again


def test_an_arena_match_state_names_its_event(members: list[User], steps: list[Any]) -> None:
    """An Arena match's end leads back to its event ("Back to the tournament"), as a Swiss board's does,
    never to an ordinary "Play again" against its house bot outside the event."""
    from games.selectors import match_state_payload

    tournament = arena_of(members[:1], bots=True, min_players=2)
    arena_play.arena_wave(tournament_id=tournament.pk)
    game = ArenaGame.objects.select_related("match").get(tournament=tournament)
    assert game.player0_id == members[0].pk and game.player1.is_bot and game.match is not None
    assert match_state_payload(match=game.match, seat=0)["match"]["tournament"] is None  # in play
    game_services.match_resign(match_id=game.match.pk, user=members[0])
    game.match.refresh_from_db()
    assert match_state_payload(match=game.match, seat=0)["match"]["tournament"] == {
        "id": tournament.pk, "url": f"/tournaments/{tournament.pk}/"}


def test_the_banner_points_at_the_arena_match_in_play(members: list[User], steps: list[Any]) -> None:
    from django.test import Client

    from tests.tournaments.test_pages import logged_in

    m = members[:2]
    tournament = arena_of(m)
    arena_play.arena_wave(tournament_id=tournament.pk)
    game = ArenaGame.objects.get(tournament=tournament, finished_at__isnull=True)
    assert logged_in(m[0]).get("/tournaments/banner.json").json() == {
        "round": None, "tournament": "Arena", "match_url": f"/match/{game.match_id}/",
        "tournament_url": f"/tournaments/{tournament.pk}/", "text": "Your Arena match is ready",
    }
    assert logged_in(members[2]).get("/tournaments/banner.json").json() == {}  # not in the event
    assert Client().get("/tournaments/banner.json").json() == {}
    lose(tournament, m[1])  # the match is over: no banner until the next wave seats them again
    assert logged_in(m[0]).get("/tournaments/banner.json").json() == {}


def test_an_arena_pairing_notice_names_no_round(members: list[User], steps: list[Any]) -> None:
    from django.utils import translation

    from tournaments import notices
    from tournaments.models import NoticeKind, TournamentNotice

    m = members[:2]
    tournament = arena_of(m)
    arena_play.arena_wave(tournament_id=tournament.pk)
    notice = TournamentNotice.objects.get(user=m[0], tournament=tournament, kind=NoticeKind.ROUND)
    assert notices.notice_text(notice) == "Your next match in “Arena” is ready."
    with translation.override("pt-br"):
        assert notices.notice_text(notice) == "Sua próxima partida em “Arena” está pronta."



def test_two_people_with_bots_allowed_meet_bots_after_meeting_each_other(members: list[User],
                                                                          steps: list[Any]) -> None:
    """The trial's Arena: two people, house bots allowed, min_players 2. It gets 2 bots (the field is
    max(min_players, people + 2)) at the people's level; after A v B both are paired with a bot at once,
    where before both waited forever (they met last, and no bot was in the field)."""
    a, b = members[:2]
    tournament = arena_of([a, b], bots=True)
    bots = list(Registration.objects.filter(tournament=tournament, user__is_bot=True).select_related("user"))
    assert sorted(r.user.username for r in bots) == ["bot-3", "bot-3-2"]  # level 3: Elo 1500, as the people
    assert [r.rating for r in bots] == [1500.0, 1500.0] and all(r.waiting_since for r in bots)
    # The bots sit out the first wave (as if seated elsewhere), so A meets B, as in the trial.
    Registration.objects.filter(pk__in=[r.pk for r in bots]).update(paused=True)
    assert open_pairs(tournament) == set() and arena_play.arena_wave(tournament_id=tournament.pk).paired == 1
    assert open_pairs(tournament) == {(a.pk, b.pk)}
    Registration.objects.filter(pk__in=[r.pk for r in bots]).update(paused=False)
    lose(tournament, b)
    wave = arena_play.arena_wave(tournament_id=tournament.pk)
    assert (wave.recorded, wave.paired) == (1, 2)
    bot_ids = {r.user_id for r in bots}
    pairs = open_pairs(tournament)
    assert {p0 for p0, _ in pairs} == {a.pk, b.pk} and {p1 for _, p1 in pairs} == bot_ids


def test_bots_fill_to_two_more_than_the_people_and_a_late_join_adds_missing_bots(
        members: list[User], steps: list[Any], django_user_model: Any) -> None:
    tournament = arena_of(members[:3], bots=True, min_players=4)
    # max(min_players 4, 3 people + 2) = 5: 2 bots (the old rule, up to min_players, gave 1)
    assert Registration.objects.filter(tournament=tournament, user__is_bot=True).count() == 2
    # An Arena started before the rule (no bots) gets its 2 bots when somebody joins late.
    old = arena_of(members[3:5], bots=True)
    Registration.objects.filter(tournament=old, user__is_bot=True).delete()
    services.tournament_join(tournament_id=old.pk, user=members[5])
    added = Registration.objects.filter(tournament=old, user__is_bot=True)
    assert added.count() == 2 and all(r.waiting_since is not None and r.rating == 1500.0 for r in added)
    extra = django_user_model.objects.create_user(username="late", password="pw-123456!")
    services.tournament_join(tournament_id=old.pk, user=extra)  # 2 bots already: none more
    assert Registration.objects.filter(tournament=old, user__is_bot=True).count() == 2


def test_without_bots_the_page_says_why_a_player_waits(members: list[User], steps: list[Any],
                                                       client: Any) -> None:
    a, b = members[:2]
    tournament = arena_of([a, b])
    arena_play.arena_wave(tournament_id=tournament.pk)
    lose(tournament, b)
    assert arena_play.arena_wave(tournament_id=tournament.pk).paired == 0  # they met last: both wait
    why = "Your last opponent is the only other free player: you are paired when someone else is free."
    client.force_login(a)
    assert why in client.get(f"/tournaments/{tournament.pk}/live/").content.decode()
    page = client.get(f"/tournaments/{tournament.pk}/live/", HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert ("Seu último adversário é o único outro jogador livre: você será emparelhado quando outra "
            "pessoa estiver livre.") in page
    services.tournament_join(tournament_id=tournament.pk, user=members[2])  # someone else is free now
    page = client.get(f"/tournaments/{tournament.pk}/live/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert why not in page


def test_an_arena_page_has_no_swiss_text(members: list[User], steps: list[Any], client: Any) -> None:
    tournament = arena_of(members[:2], minutes=45)
    page = client.get(f"/tournaments/{tournament.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Arena of 45 minutes, ends" in page and 'data-testid="ends-at"' in page
    assert "rounds by field size" not in page and "Buchholz" not in page and "TRF" not in page
    assert "after two wins in a row (🔥) a win scores 4" in page and "ordered by their performance" in page
    assert "Partial: the results recorded so far (a match still in play has no result yet)." in page
    pt = client.get(f"/tournaments/{tournament.pk}/", HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert "Arena de 45 minutos, termina" in pt and "rodadas conforme" not in pt and "Buchholz" not in pt
    assert "ordenados pela performance" in pt and "TRF" not in pt
    assert "Parcial: os resultados registrados até agora (uma partida ainda em jogo não tem resultado)." in pt
    Tournament.objects.filter(pk=tournament.pk).update(duration_minutes=None)  # an Arena with no duration
    page = client.get(f"/tournaments/{tournament.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Arena of" not in page and "Arena, ends" in page


def test_final_standings_tag_nobody_paused(members: list[User], steps: list[Any], client: Any) -> None:
    a, b = members[:2]
    tournament = arena_of([a, b])
    arena_play.arena_wave(tournament_id=tournament.pk)
    arena_play.arena_pause(tournament_id=tournament.pk, user=a)
    paused = '<span class="tag">paused</span>'
    live = f"/tournaments/{tournament.pk}/live/"
    assert paused in client.get(live, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    lose(tournament, a)
    assert tournament.ends_at is not None
    assert arena_play.arena_wave(tournament_id=tournament.pk,
                                 now=tournament.ends_at + dt.timedelta(seconds=1)).finished
    page = client.get(live, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Final standings" in page and paused not in page


def test_the_table_of_an_event_board_warns_that_an_abort_loses_it(
    members: list[User], steps: list[Any]
) -> None:
    from tests.tournaments.test_pages import logged_in

    m = members[:2]
    tournament = arena_of(m, rated=True)
    arena_play.arena_wave(tournament_id=tournament.pk)
    game = ArenaGame.objects.get(tournament=tournament, finished_at__isnull=True)
    page = logged_in(m[0]).get(f"/match/{game.match_id}/").content.decode()
    assert 'data-free-aborts-left="3" data-rated-min-moves="3" data-event-board="1">' in page
    assert ('data-key="resign_abort_event">Resign now? Not both players have moved yet, so the match is '
            "aborted and not rated, but this is a tournament board: you lose it and your opponent scores "
            "it.") in page
    client = logged_in(m[0])
    client.cookies["django_language"] = "pt-br"
    assert "esta é uma mesa de torneio: você a perde e o adversário marca o ponto" in client.get(
        f"/match/{game.match_id}/").content.decode()
    # an ordinary table has no such mark
    other = game_services.match_create_seated(player0=members[2], player1=members[3], rated=True)
    assert "data-event-board" not in logged_in(members[2]).get(f"/match/{other.pk}/").content.decode()
