"""A tournament board's first clock (issue 22): each person's first turn timer starts when they open the
table, or ``FIRST_CLOCK_GRACE_SECONDS`` (60 s) after the pairing, whichever comes first; the automatic
move still comes at that deadline when nobody connects (server-driven). Worked times on a frozen clock
(``django.utils.timezone.now`` patched; no sleeps)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.models import User
from games import scheduling, selectors
from games import services as game_services
from games.live import load
from games.models import Match, MatchEvent
from tests.games.wsclient import connect
from tournaments import services
from tournaments.models import Pairing, Registration, Tournament, TournamentStatus

T0 = dt.datetime(2026, 12, 5, 12, 0, 0, tzinfo=dt.UTC)


class Clock:
    """A settable ``timezone.now``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, now: dt.datetime) -> None:
        self.now = now
        monkeypatch.setattr(timezone, "now", lambda: self.now)

    def at(self, seconds: float) -> dt.datetime:
        self.now = T0 + dt.timedelta(seconds=seconds)
        return self.now


def board(a: User, b: User) -> Match:
    """A board as a tournament makes it: 30 s timer, rated, the 60 s first-clock grace."""
    return game_services.match_create_seated(player0=a, player1=b, rules_preset="classic", target=50,
                                             turn_timer=30, rated=True,
                                             first_clock_grace=services.FIRST_CLOCK_GRACE_SECONDS)


def deadline_in(match_id: int, seat: int) -> float:
    """Seconds left on the clock the ``state`` message shows ``seat`` now (``turn_deadline`` - now)."""
    payload = selectors.match_state_payload(match=selectors.match_get(match_id=match_id), seat=seat)
    deadline = dt.datetime.fromisoformat(payload["match"]["turn_deadline"].replace("Z", "+00:00"))
    return (deadline - timezone.now()).total_seconds()


@pytest.mark.django_db
def test_connecting_at_9_s_starts_a_full_30_s_clock(members: list[User], monkeypatch: Any) -> None:
    clock = Clock(monkeypatch, T0)
    match = board(members[0], members[1])
    first = load(match).state.current_player
    assert first is not None
    assert (match.first_clock_until, match.first_clock_waiting) == (T0 + dt.timedelta(seconds=60), [0, 1])
    # Nobody at the table yet: the first player's clock starts at the grace's end.
    assert match.turn_deadline == match.server_move_at == T0 + dt.timedelta(seconds=90)
    clock.at(9)
    assert game_services.match_seat_arrived(match_id=match.pk, seat=first) is True
    match.refresh_from_db()
    assert match.turn_deadline == match.server_move_at == T0 + dt.timedelta(seconds=39)
    assert deadline_in(match.pk, first) == 30.0  # it showed 0:21 before the fix
    assert match.first_clock_waiting == [1 - first]
    clock.at(12)
    assert game_services.match_seat_arrived(match_id=match.pk, seat=first) is False  # a second tab
    match.refresh_from_db()
    assert match.turn_deadline == T0 + dt.timedelta(seconds=39)


@pytest.mark.django_db
def test_the_second_players_first_turn_waits_for_them_too(members: list[User], monkeypatch: Any) -> None:
    clock = Clock(monkeypatch, T0)
    match = board(members[0], members[1])
    first = load(match).state.current_player
    assert first is not None
    users = {0: members[0], 1: members[1]}
    clock.at(5)
    game_services.match_seat_arrived(match_id=match.pk, seat=first)
    clock.at(12)
    game_services.match_apply_action(match_id=match.pk, user=users[first], action_text="pass",
                                     client_seq=match.last_seq, msg_id="p1")
    match.refresh_from_db()
    assert load(match).state.current_player == 1 - first
    # Still away: the clock starts at pairing + 60 s, not at the turn's start (12 s).
    assert match.turn_deadline == T0 + dt.timedelta(seconds=90)
    clock.at(20)
    assert game_services.match_seat_arrived(match_id=match.pk, seat=1 - first)
    match.refresh_from_db()
    assert match.turn_deadline == T0 + dt.timedelta(seconds=50) and match.first_clock_waiting == []
    clock.at(21)
    game_services.match_apply_action(match_id=match.pk, user=users[1 - first], action_text="pass",
                                     client_seq=match.last_seq, msg_id="p2")
    match.refresh_from_db()
    assert match.turn_deadline == T0 + dt.timedelta(seconds=51)  # later turns: turn start + 30 s


@pytest.mark.django_db
def test_nobody_connects_the_automatic_move_comes_at_pairing_plus_grace_plus_timer(
    members: list[User], monkeypatch: Any,
) -> None:
    clock = Clock(monkeypatch, T0)
    match = board(members[0], members[1])
    first = load(match).state.current_player
    assert match.turn_deadline == T0 + dt.timedelta(seconds=60 + 30)
    with scheduling.no_timers():  # the test drives the server itself, as the timer would at the deadline
        clock.at(89.9)
        assert game_services.match_play_server_moves(match_id=match.pk) == 0
        clock.at(90)
        assert game_services.match_play_server_moves(match_id=match.pk) == 1
    match.refresh_from_db()
    assert MatchEvent.objects.filter(match=match, type="action", auto=True, seat=first).count() == 1
    assert match.timeout_strikes[first] == 1
    # The other player never came either: their first turn also runs from the grace's end (90 s now).
    assert match.turn_deadline == T0 + dt.timedelta(seconds=120)


@pytest.mark.django_db
def test_grace_is_validated_and_other_matches_keep_their_clock(members: list[User],
                                                                monkeypatch: Any) -> None:
    Clock(monkeypatch, T0)
    for bad in (-1, 601, 2.5, "60"):
        with pytest.raises(game_services.GameError) as err:
            game_services.match_create_seated(player0=members[0], player1=members[1], turn_timer=30,
                                              first_clock_grace=bad)  # type: ignore[arg-type]
        assert err.value.code == "bad_field"
    assert Match.objects.count() == 0
    plain = game_services.match_create_seated(player0=members[0], player1=members[1], turn_timer=30)
    assert (plain.first_clock_until, plain.first_clock_waiting) == (None, [])
    assert plain.turn_deadline == T0 + dt.timedelta(seconds=30)
    assert game_services.match_seat_arrived(match_id=plain.pk, seat=0) is False


@pytest.mark.django_db(transaction=True)
def test_round_pair_holds_the_people_seats_only(members: list[User], monkeypatch: Any) -> None:
    Clock(monkeypatch, T0)
    monkeypatch.setattr(services, "step_enqueue", lambda *args: None)
    tournament = Tournament.objects.create(
        name_en="Cup", name_pt="Copa", starts_at=T0, status=TournamentStatus.OPEN, min_players=4,
        max_players=8, fixed_rounds=1, match_target=50, turn_timer_seconds=30,
    )
    for member in members[:2]:
        Registration.objects.create(tournament=tournament, user=member)
    assert services.tournament_start(tournament_id=tournament.pk, now=T0)
    with scheduling.no_timers():
        assert services.round_pair(tournament_id=tournament.pk, number=1)
    boards = list(Pairing.objects.filter(round__tournament=tournament).select_related("match", "player0",
                                                                                       "player1"))
    assert len(boards) == 2
    for pairing in boards:
        match = pairing.match
        assert match is not None and match.first_clock_until == T0 + dt.timedelta(seconds=60)
        # the people's seats wait for them; a bot's seat never does
        people = [seat for seat, user in enumerate((pairing.player0, pairing.player1))
                  if user is not None and not user.is_bot]
        assert match.first_clock_waiting == people
    assert services.no_show_seconds(tournament) == 90


@pytest.mark.django_db(transaction=True)
async def test_the_table_socket_starts_the_clock_on_connect(members: list[User], monkeypatch: Any) -> None:
    clock = Clock(monkeypatch, T0)
    match = await database_sync_to_async(board)(members[0], members[1])
    first = (await database_sync_to_async(load)(match)).state.current_player
    assert first is not None
    clock.at(9)
    comm, state = await connect(members[first], match.pk)
    try:
        assert state["match"]["turn_deadline"] == "2026-12-05T12:00:39.000Z"  # 30 s from the connection
    finally:
        await comm.disconnect()
    row = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert row.turn_deadline == T0 + dt.timedelta(seconds=39) and row.first_clock_waiting == [1 - first]
