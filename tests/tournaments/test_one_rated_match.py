"""One rated match at a time through tournaments (issue 20, finding 5): registration refuses an event
whose expected time overlaps one the player joined, and the pairing step forfeits the board of a player
still seated in another rated match (no second match is started)."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.services import house_bots_ensure
from games import services as game_services
from games.models import Match, MatchStatus
from tests.factories import TournamentFactory
from tests.tournaments.test_lifecycle import race
from tournaments import selectors, services
from tournaments.errors import TournamentError
from tournaments.models import Pairing, Registration, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db(transaction=True)

SOON = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0) + dt.timedelta(days=1)


def event(starts_at: dt.datetime, **fields: Any) -> Tournament:
    return TournamentFactory(**{"name_en": "Cup", "name_pt": "Copa", "starts_at": starts_at, "min_players": 8,
                                "max_players": 64, "match_target": 50, "turn_timer_seconds": 30, **fields})


def hourly(starts_at: dt.datetime) -> Tournament:
    return event(starts_at, name_en="Hourly Quick", name_pt="Relâmpago de Hora em Hora", fixed_rounds=3)


def evening(starts_at: dt.datetime, name: str = "European Evening Daily") -> Tournament:
    return event(starts_at, name_en=name, match_target=100, max_rounds=7)


def test_expected_windows_worked_example() -> None:
    # Hourly Quick: 3 rounds x 15 min (to 50, 30 s timer) = 45 min.
    start = SOON.replace(hour=19, minute=0)
    assert selectors.expected_window(hourly(start)) == (start, start + dt.timedelta(minutes=45))
    # An evening event: at most 7 rounds x 30 min (to 100) = 3 h 30 min; fixed at the start: 4 rounds = 2 h.
    europe = evening(start)
    assert selectors.expected_window(europe) == (start, start + dt.timedelta(hours=3, minutes=30))
    europe.rounds = 4
    assert selectors.expected_window(europe) == (start, start + dt.timedelta(hours=2))
    # A 60 s timer doubles a round: 3 x 30 min.
    slow = event(start, fixed_rounds=3, turn_timer_seconds=60)
    assert selectors.expected_window(slow) == (start, start + dt.timedelta(minutes=90))


def test_two_events_starting_the_same_minute_cannot_both_be_joined(members: list[User]) -> None:
    first, second = hourly(SOON), hourly(SOON)
    services.tournament_join(tournament_id=first.pk, user=members[0])
    with pytest.raises(TournamentError) as refused:
        services.tournament_join(tournament_id=second.pk, user=members[0])
    assert refused.value.code == "overlap" and refused.value.other == first
    assert refused.value.message == (
        f"this tournament's time overlaps tournament {first.pk} (Hourly Quick, starting "
        f"{SOON:%Y-%m-%d %H:%M} UTC), which you have joined: one rated match at a time")
    assert list(Registration.objects.filter(user=members[0]).values_list("tournament_id", flat=True)) == [
        first.pk]
    # Another member joins both; leaving the first frees the second.
    services.tournament_join(tournament_id=second.pk, user=members[1])
    assert services.tournament_leave(tournament_id=first.pk, user=members[0]) is True
    services.tournament_join(tournament_id=second.pk, user=members[0])
    assert Registration.objects.filter(tournament=second).count() == 2


def test_the_shipped_schedules_do_not_overlap_each_other_but_an_hourly_inside_an_evening_does(
        members: list[User]) -> None:
    day = SOON.replace(hour=0, minute=0)
    at = {h: day + dt.timedelta(hours=h) for h in (19, 20, 22, 23)}
    europe, brazil = evening(at[19]), evening(at[23], "Brazilian Evening Daily")
    services.tournament_join(tournament_id=europe.pk, user=members[0])
    services.tournament_join(tournament_id=brazil.pk, user=members[0])  # 19:00-22:30, then 23:00
    for hour in (20, 22):  # inside 19:00-22:30
        with pytest.raises(TournamentError) as refused:
            services.tournament_join(tournament_id=hourly(at[hour]).pk, user=members[0])
        assert refused.value.other == europe
    # Two hourly events (45 minutes each) an hour apart, for someone in no evening event.
    services.tournament_join(tournament_id=hourly(at[19] + dt.timedelta(days=1)).pk, user=members[1])
    services.tournament_join(tournament_id=hourly(at[20] + dt.timedelta(days=1)).pk, user=members[1])
    # Finished, cancelled or withdrawn-from events no longer count.
    old = hourly(at[19] + dt.timedelta(days=2))
    services.tournament_join(tournament_id=old.pk, user=members[2])
    Tournament.objects.filter(pk=old.pk).update(status=TournamentStatus.CANCELLED)
    services.tournament_join(tournament_id=hourly(at[19] + dt.timedelta(days=2)).pk, user=members[2])


@pytest.mark.parametrize(("language", "text"), [
    ("en", "This tournament's time overlaps “Hourly Quick” ({start} UTC), which you have joined: you play "
           "one rated match at a time. Leave that tournament first to join this one."),
    ("pt-br", "O horário deste torneio coincide com o de “Relâmpago de Hora em Hora” ({start} UTC), "
              "em que você já se inscreveu: você joga uma partida valendo rating de cada vez. "
              "Cancele a inscrição naquele torneio para entrar neste."),
])
def test_the_refusal_is_shown_on_the_page(members: list[User], language: str, text: str) -> None:
    first, second = hourly(SOON), hourly(SOON + dt.timedelta(minutes=30))
    services.tournament_join(tournament_id=first.pk, user=members[0])
    client = Client(headers={"accept-language": language})
    client.force_login(members[0])
    response = client.post(reverse("tournaments:join", args=[second.pk]), follow=True)
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    assert shown == [text.format(start=f"{SOON:%Y-%m-%d %H:%M}")]
    assert not Registration.objects.filter(tournament=second).exists()


def test_two_overlapping_joins_at_once_register_one(members: list[User]) -> None:
    first, second = hourly(SOON), hourly(SOON)
    events = iter([first, second])
    lock = threading.Lock()

    def join() -> Any:
        with lock:
            tournament = next(events)
        return services.tournament_join(tournament_id=tournament.pk, user=members[0])

    results = race(2, join)
    assert sum(isinstance(r, Registration) for r in results) == 1, results
    assert [r.code for r in results if isinstance(r, TournamentError)] == ["overlap"]
    assert Registration.objects.filter(user=members[0]).count() == 1


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[int, ...]]]:
    sent: list[tuple[str, tuple[int, ...]]] = []
    monkeypatch.setattr(services, "step_enqueue", lambda name, *args: sent.append((name, args)))
    return sent


def _started(members: list[User], *, rounds: int = 3) -> Tournament:
    now = timezone.now()
    tournament = event(now, min_players=4, max_players=16, fixed_rounds=rounds)
    for member in members:
        Registration.objects.create(tournament=tournament, user=member)
    assert services.tournament_start(tournament_id=tournament.pk, now=now)
    return tournament


def test_a_player_in_a_rated_bot_match_when_the_round_is_paired_forfeits_the_board(
        members: list[User], steps: list[Any]) -> None:
    house_bots_ensure()
    tournament = _started(members[:1])
    # Registered, then started a rated bot match between the start and the pairing.
    busy = game_services.match_create_vs_bot(user=members[0], level=1, rules_preset="classic", target=100,
                                             one_active=True)
    assert busy.rated and busy.status == MatchStatus.ACTIVE
    assert services.round_pair(tournament_id=tournament.pk, number=1)
    mine = Pairing.objects.get(round__tournament=tournament, round__number=1, player0=members[0])
    assert (mine.match_id, mine.forfeit, mine.points, mine.hand_points) == (None, True, [0, 1], [0, 0])
    assert mine.player1 is not None and mine.player1.is_bot
    registration = Registration.objects.get(tournament=tournament, user=members[0])
    assert (registration.no_shows, registration.withdrawn) == (1, False)
    # Only the bot-v-bot board got a match; the member is still in just the one rated match.
    assert Match.objects.filter(tournament_pairing__round__tournament=tournament).count() == 1
    assert list(Match.objects.filter(status=MatchStatus.ACTIVE, rated=True, player0=members[0])
                .values_list("pk", flat=True)) == [busy.pk]
    # The standings count it as a loss for the member and a win for the bot.
    field = {p.id: p.score for p in selectors.swiss_field(tournament)}
    assert field[str(members[0].pk)] == 0 and field[str(mine.player1_id)] == 1


def test_a_busy_player_in_every_board_ends_the_round_at_once_and_twice_withdraws(
        members: list[User], steps: list[Any]) -> None:
    house_bots_ensure()
    tournament = _started(members[:2], rounds=3)
    for member in members[:2]:
        game_services.match_create_vs_bot(user=member, level=1, rules_preset="classic", target=100)
    Tournament.objects.filter(pk=tournament.pk).update(min_players=2)
    Registration.objects.filter(tournament=tournament, user__is_bot=True).update(withdrawn=True)
    for number in (1, 2):
        assert services.round_pair(tournament_id=tournament.pk, number=number)
        board = Pairing.objects.get(round__tournament=tournament, round__number=number)
        assert (board.match_id, board.forfeit, board.points) == (None, True, [0, 0])  # both busy: both lose
        assert ("tournaments.tasks.record_round", (tournament.pk,)) in steps
        assert services.round_record(tournament_id=tournament.pk) is True  # closes the round
        steps.clear()
    assert list(Registration.objects.filter(tournament=tournament, user__is_bot=False)
                .values_list("no_shows", "withdrawn")) == [(2, True), (2, True)]
    assert ("tournaments.tasks.finish", (tournament.pk,)) in steps or services.tournament_finish(
        tournament_id=tournament.pk)


def test_a_rated_bot_match_cannot_start_while_a_tournament_board_is_in_play(
        members: list[User], steps: list[Any]) -> None:
    house_bots_ensure()
    tournament = _started(members[:1])
    assert services.round_pair(tournament_id=tournament.pk, number=1)
    board = Pairing.objects.get(round__tournament=tournament, player0=members[0])
    with pytest.raises(game_services.MatchInProgress) as refused:
        game_services.match_create_vs_bot(user=members[0], level=1, rules_preset="classic", target=100,
                                          one_active=True)
    assert refused.value.match_id == board.match_id


def test_a_player_who_aborts_a_board_still_loses_it(members: list[User], steps: list[Any]) -> None:
    """A free abort (resigned before both moved) is not rated, but the board is the opponent's point."""
    from ratings.models import RatingChange

    tournament = _started(members[:1])
    assert services.round_pair(tournament_id=tournament.pk, number=1)
    mine = Pairing.objects.get(round__tournament=tournament, round__number=1, player0=members[0])
    game_services.match_resign(match_id=mine.match_id, user=members[0], msg_id="give-up")
    assert Match.objects.get(pk=mine.match_id).status == MatchStatus.ABORTED
    services.round_record(tournament_id=tournament.pk)
    mine.refresh_from_db()
    assert (mine.points, mine.forfeit) == ([0, 1], False)
    assert not RatingChange.objects.filter(match_id=mine.match_id).exists()
