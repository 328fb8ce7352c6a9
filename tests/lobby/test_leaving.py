"""Leaving a match between people and playbans (issue 21 section 3; docs/lobby.md "Leaving a match between
people", "Playbans"): presence measured on the server, the claim and its refusals, the server's end of a
match whose players are gone, the escalating playbans and the profile's count.

Clocks are injected (the services' ``now``, or ``timezone.now`` patched: event rows are append-only and
stamped by it); nothing sleeps.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from engine.deck import seeded_deck
from games import presence, services, tasks
from games.live import load
from games.models import Match, MatchEvent, MatchStatus, SeatPresence
from games.services import GameError
from lobby import busy, playbans
from lobby.errors import said
from lobby.models import Playban
from ratings import services as rating_services
from ratings.models import RatingChange

# The games tests' fixtures, reused (not copied): house bots; threads' DB connections close after each call.
from tests.games.conftest import house_bots, short_lived_connections  # noqa: F401


@pytest.fixture(autouse=True)
def _seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = itertools.count(4000)
    monkeypatch.setattr(services.play, "new_deck", lambda: seeded_deck(next(counter)))


@pytest.fixture(autouse=True)
def _no_pauses(settings: Any) -> None:
    settings.GAMES_BOT_DELAY = (0.0, 0.0)
    settings.GAMES_HAND_PAUSE = 0.0
    settings.GAMES_CLAIM_AFTER = 60
    settings.GAMES_GONE_END_AFTER = 600
    settings.GAMES_ONE_GONE_END_AFTER = 86_400


@pytest.fixture
def people(django_user_model: Any) -> tuple[Any, Any, Any]:
    return tuple(django_user_model.objects.create_user(username=name, password="pw-for-tests-1")
                 for name in ("alice", "bob", "carol"))


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> Callable[[timedelta], datetime]:
    """``later(delta)``: from now on ``timezone.now`` reads ``delta`` past the real clock; returns it."""
    real: Callable[[], datetime] = timezone.now

    def shift(delta: timedelta) -> datetime:
        monkeypatch.setattr(timezone, "now", lambda: real() + delta)
        return timezone.now()

    return shift


def _match(a: Any, b: Any, *, rated: bool, timer: int | None = 60) -> Match:
    return services.match_create_seated(player0=a, player1=b, rated=rated, turn_timer=timer)


def _played(match: Match, a: Any, b: Any) -> None:
    """Each seat makes ``GAMES_RATED_MIN_MOVES`` moves of its own first, so a claim then is rated
    (docs/fairplay.md "Limits that make farming slow": a claim earlier is finished unrated)."""
    from games import conf
    from tests.games.test_farming_limits import _move

    _move(match.pk, {0: a, 1: b}, conf.rated_min_moves())


def _code(call: Callable[[], Any]) -> str:
    with pytest.raises(GameError) as refused:
        call()
    return refused.value.code


def _unchanged(match: Match) -> tuple[Any, ...]:
    row = Match.objects.get(pk=match.pk)
    return row.status, row.last_seq, row.winner, row.result_reason


# ------------------------------------------------------------------------------------------- presence


@pytest.mark.django_db
def test_presence_counts_sockets_and_a_dead_process_goes_stale(people: tuple[Any, Any, Any]) -> None:
    alice, bob, _ = people
    match = _match(alice, bob, rated=False, timer=None)
    start = match.started_at
    assert start is not None
    # nobody opened the table: both gone since the start
    assert presence.seats(match, now=start + timedelta(seconds=5)).gone_since == (start, start)
    t = start + timedelta(seconds=10)
    presence.opened(match_id=match.pk, seat=1, now=t)
    presence.opened(match_id=match.pk, seat=1, now=t + timedelta(seconds=1))  # a second tab
    presence.closed(match_id=match.pk, seat=1, now=t + timedelta(seconds=2))
    where = presence.seats(match, now=t + timedelta(seconds=3))
    assert where.gone_since == (start, None)  # one tab still open
    presence.closed(match_id=match.pk, seat=1, now=t + timedelta(seconds=4))
    where = presence.seats(match, now=t + timedelta(seconds=30))
    assert where.gone_since[1] == t + timedelta(seconds=4) and where.gone_for(1) == timedelta(seconds=26)
    assert SeatPresence.objects.get(match=match, seat=1).sockets == 0
    presence.closed(match_id=match.pk, seat=1, now=t + timedelta(seconds=5))  # never below 0
    assert SeatPresence.objects.get(match=match, seat=1).sockets == 0
    # seat 0 opens, heartbeats, then its process dies (no close): here until STALE_AFTER (45 s) passes
    presence.opened(match_id=match.pk, seat=0, now=t)
    presence.heartbeat(match_id=match.pk, seat=0, now=t + timedelta(seconds=20))
    assert presence.seats(match, now=t + timedelta(seconds=65)).gone_since[0] is None
    assert presence.seats(match, now=t + timedelta(seconds=66)).gone_since[0] == t + timedelta(seconds=20)
    # its player reconnects to another process: the stale count restarts at 1
    presence.opened(match_id=match.pk, seat=0, now=t + timedelta(seconds=100))
    assert SeatPresence.objects.get(match=match, seat=0).sockets == 1


# ------------------------------------------------------------------------------------------- claims


@pytest.mark.django_db
@pytest.mark.usefixtures("house_bots")
def test_claim_refusals_change_nothing(people: tuple[Any, Any, Any]) -> None:
    alice, bob, carol = people
    match = _match(alice, bob, rated=True)
    start = match.started_at
    assert start is not None
    presence.opened(match_id=match.pk, seat=0, now=start)
    presence.opened(match_id=match.pk, seat=1, now=start)
    before = _unchanged(match)
    # carol holds no seat
    assert _code(lambda: services.match_claim(match_id=match.pk, user=carol, now=start)) == "not_seated"
    # bob's table is open
    assert _code(lambda: services.match_claim(match_id=match.pk, user=alice, now=start)) == "opponent_present"
    presence.closed(match_id=match.pk, seat=1, now=start + timedelta(seconds=5))
    # gone 59 s of the 60: too early, and the message says 1 s is left
    with pytest.raises(GameError) as early:
        services.match_claim(match_id=match.pk, user=alice, now=start + timedelta(seconds=64))
    assert early.value.code == "claim_too_early"
    assert early.value.message == "your opponent left 59 s ago: you can claim in 1 s"
    assert _unchanged(match) == before
    assert not Playban.objects.exists()
    # a match against a house bot cannot be claimed; an unknown one does not exist
    bot_match = services.match_create_vs_bot(user=carol, level=1, rules_preset="classic", target=100,
                                             rated=False)
    assert _code(lambda: services.match_claim(match_id=bot_match.pk, user=carol)) == "not_between_people"
    assert _code(lambda: services.match_claim(match_id=10**9, user=alice)) == "no_such_match"
    # a table still waiting for its second player
    table = services.table_create(user=carol, rules_preset="classic", target=100, turn_timer=None)
    assert _code(lambda: services.match_claim(match_id=table.pk, user=carol)) == "not_started"


@pytest.mark.django_db
def test_a_casual_match_ends_without_result(people: tuple[Any, Any, Any]) -> None:
    alice, bob, _ = people
    match = _match(alice, bob, rated=False, timer=None)
    start = match.started_at
    assert start is not None
    presence.opened(match_id=match.pk, seat=0, now=start)
    presence.opened(match_id=match.pk, seat=1, now=start)
    presence.closed(match_id=match.pk, seat=1, now=start + timedelta(seconds=10))
    seq = Match.objects.get(pk=match.pk).last_seq
    done = services.match_claim(match_id=match.pk, user=alice, msg_id="c1",
                                now=start + timedelta(seconds=71))
    assert (done.outcome, done.seq, done.last_seq, done.repeat) == ("end", seq + 1, seq + 1, False)
    match.refresh_from_db()
    assert (match.status, match.result_reason, match.winner, match.turn_deadline) == (
        MatchStatus.ABORTED, "abandoned", None, None)
    marker = MatchEvent.objects.get(match=match, seq=seq + 1)
    assert (marker.type, marker.seat, marker.msg_id, marker.payload) == (
        "abandon", 0, "c1", {"why": "left", "seat": 1, "gone_seconds": 61})
    # the resent claim is answered with its outcome; another claim finds the match over
    again = services.match_claim(match_id=match.pk, user=alice, msg_id="c1")
    assert (again.outcome, again.seq, again.repeat) == ("end", seq + 1, True)
    assert _code(lambda: services.match_claim(match_id=match.pk, user=alice, msg_id="c2")) == "match_over"
    assert not Playban.objects.exists() and not RatingChange.objects.exists()  # casual: no playban
    assert not load(match).state.is_over  # the engine log replays to the hand as it was left
    from games.selectors import match_state_payload

    payload = match_state_payload(match=Match.objects.get(pk=match.pk), seat=0)
    assert payload["match"]["abandon"] == {"why": "left", "seat": 1, "seats": None}


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.mark.django_db(transaction=True)
def test_a_rated_claim_wins_is_rated_once_and_bans_the_leaver(
    people: tuple[Any, Any, Any], eager_tasks: None
) -> None:
    alice, bob, _ = people
    match = _match(alice, bob, rated=True)
    _played(match, alice, bob)
    start = match.started_at
    assert start is not None
    presence.opened(match_id=match.pk, seat=0, now=start)
    presence.closed(match_id=match.pk, seat=1, now=start)  # bob never opened it: no row, gone since start
    when = start + timedelta(seconds=60)
    done = services.match_claim(match_id=match.pk, user=alice, msg_id="w1", now=when)
    assert done.outcome == "win"
    match.refresh_from_db()
    assert (match.status, match.winner, match.result_reason) == (MatchStatus.FINISHED, 0, "left")
    types = list(MatchEvent.objects.filter(match=match, seq__gt=done.seq - 1).order_by("seq")
                 .values_list("type", "seat", "auto"))
    assert types[0] == ("left", 0, False) and types[1] == ("resign", 1, True) and types[-1][0] == "match_end"
    assert MatchEvent.objects.get(match=match, seq=done.seq).payload == {"seat": 1, "gone_seconds": 60}
    # the rating task ran once after the commit (eager): 1500 vs 1500 with K 40 is +20 / -20
    changes = {c.player_id: c for c in RatingChange.objects.filter(match=match)}
    a, b = changes[alice.pk], changes[bob.pk]
    assert (a.before, a.after, a.delta, a.k, a.expected, a.won) == (1500.0, 1520.0, 20.0, 40, 0.5, True)
    assert (b.before, b.after, b.delta, b.won) == (1500.0, 1480.0, -20.0, False)
    assert rating_services.match_rate(match_id=match.pk) == []  # exactly once
    assert RatingChange.objects.filter(match=match).count() == 2
    # the leaver's playban: the first within 24 h lasts 5 minutes
    ban = Playban.objects.get()
    assert (ban.user_id, ban.match_id, ban.reason, ban.created_at, ban.ends_at) == (
        bob.pk, match.pk, "abandoned", when, when + timedelta(minutes=5))
    # the replay of a claimed win verifies (stored as the leaver's resignation)
    from replays.selectors import match_record

    assert match_record(match=match)["end"]["winner"] == 0


@pytest.mark.django_db(transaction=True)
def test_a_claim_before_enough_moves_wins_unrated_and_still_bans_the_leaver(
    people: tuple[Any, Any, Any], eager_tasks: None
) -> None:
    """The puppet who leaves at once (docs/fairplay.md "Limits that make farming slow"): the claimer
    wins, the match is not rated (``unrated_why`` ``early_left``), the leaver's playban stands and the
    profile still counts it as a rated match left."""
    alice, bob, _ = people
    match = _match(alice, bob, rated=True)
    start = match.started_at
    assert start is not None
    presence.opened(match_id=match.pk, seat=0, now=start)
    presence.closed(match_id=match.pk, seat=1, now=start)
    when = start + timedelta(seconds=60)
    assert services.match_claim(match_id=match.pk, user=alice, msg_id="w1", now=when).outcome == "win"
    match.refresh_from_db()
    assert (match.status, match.winner, match.result_reason, match.rated, match.unrated_why) == (
        MatchStatus.FINISHED, 0, "left", False, "early_left")
    assert not RatingChange.objects.exists()
    assert rating_services.match_rate(match_id=match.pk) == []
    ban = Playban.objects.get()
    assert (ban.user_id, ban.match_id, ban.reason) == (bob.pk, match.pk, "abandoned")
    counts = playbans.left_count(user_id=bob.pk)
    assert (counts.left, counts.rated) == (1, 1)


@pytest.mark.django_db(transaction=True)
def test_two_claims_at_once_end_the_match_once(people: tuple[Any, Any, Any]) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL")
    alice, bob, _ = people
    match = _match(alice, bob, rated=True)
    start = match.started_at
    assert start is not None
    presence.opened(match_id=match.pk, seat=0, now=start)
    when = start + timedelta(seconds=90)
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def claim(i: int) -> None:
        from django.db import connections

        try:
            barrier.wait()
            outcomes.append(services.match_claim(match_id=match.pk, user=alice, msg_id=f"x{i}",
                                                 now=when).outcome)
        except GameError as exc:
            outcomes.append(exc.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["match_over"] * 3 + ["win"]
    assert Playban.objects.filter(user=bob).count() == 1
    assert MatchEvent.objects.filter(match=match, type="left").count() == 1


# ---------------------------------------------------------------------------------- the server ends it


@pytest.mark.django_db
@pytest.mark.parametrize("rated", [True, False])
def test_a_bot_account_never_leaves_the_table(people: tuple[Any, Any, Any], rated: bool) -> None:
    """A BOT account plays over HTTP, never on the table's socket (docs/bot-api.md): its seat is never
    gone, so its opponent gets no ``opponent_gone``, no claim and no sweep ends the match; its absence
    is left to the turn timer."""
    alice, bot, _ = people
    type(bot).objects.filter(pk=bot.pk).update(bot_account=True)
    match = _match(alice, bot, rated=rated, timer=30)
    start = match.started_at
    assert start is not None
    presence.opened(match_id=match.pk, seat=0, now=start)
    for minutes in (2, 11, 60 * 25):
        now = start + timedelta(minutes=minutes)
        presence.heartbeat(match_id=match.pk, seat=0, now=now)
        assert presence.seats(match, now=now).gone_since == (None, None)
        assert presence.opponent_gone_payload(match, 0, now=now) == {
            "type": "opponent_gone", "match_id": match.pk, "gone": False, "seconds": 0, "claim_in": 0,
            "claim": "win" if rated else "end"}
        before = _unchanged(match)
        with pytest.raises(GameError) as refused:
            services.match_claim(match_id=match.pk, user=alice, now=now)
        assert refused.value.code == "opponent_present"
        assert services.match_absent_ids(now=now) == []
        assert services.match_sweep_absent(now=now) == 0
        assert services.match_end_absent(match_id=match.pk, now=now) is False
        assert _unchanged(match) == before
    # both gone long ago (the person too): still no sweep; the turn timer ends it
    late = start + timedelta(days=3)
    assert services.match_absent_ids(now=late) == [] and services.match_sweep_absent(now=late) == 0
    assert Match.objects.get(pk=match.pk).status == MatchStatus.ACTIVE


@pytest.mark.django_db
def test_the_server_ends_a_match_both_players_left(people: tuple[Any, Any, Any]) -> None:
    alice, bob, carol = people
    rated = _match(alice, bob, rated=True, timer=600)
    casual = _match(alice, carol, rated=False, timer=None)
    start = max(m.started_at for m in (rated, casual) if m.started_at is not None)
    for m in (rated, casual):
        presence.opened(match_id=m.pk, seat=0, now=start)
        presence.opened(match_id=m.pk, seat=1, now=start)
        presence.closed(match_id=m.pk, seat=0, now=start + timedelta(seconds=30))
        presence.closed(match_id=m.pk, seat=1, now=start + timedelta(seconds=40))
    # 9 min 59 s after the later of the two left: not yet
    almost = start + timedelta(seconds=40 + 599)
    assert services.match_absent_ids(now=almost) == []
    assert services.match_sweep_absent(now=almost) == 0
    due = start + timedelta(seconds=40 + 600)
    assert services.match_absent_ids(now=due) == sorted([rated.pk, casual.pk])
    assert services.match_sweep_absent(now=due) == 2
    for m in (rated, casual):
        m.refresh_from_db()
        assert (m.status, m.result_reason, m.winner) == (MatchStatus.ABORTED, "abandoned", None)
        marker = MatchEvent.objects.get(match=m, seq=m.last_seq)
        assert (marker.type, marker.seat) == ("abandon", None)
        assert marker.payload == {"why": "gone", "seats": [0, 1]}
    # idempotent: again, or a racing sweep, changes nothing
    assert services.match_sweep_absent(now=due) == 0
    assert services.match_end_absent(match_id=rated.pk, now=due) is False
    # the rated one earned both players a playban; the casual one none
    assert sorted(Playban.objects.values_list("user_id", "match_id", "reason")) == sorted(
        [(alice.pk, rated.pk, "abandoned"), (bob.pk, rated.pk, "abandoned")])
    assert not RatingChange.objects.exists()


@pytest.mark.django_db
def test_the_server_ends_a_match_one_player_left_for_a_day(people: tuple[Any, Any, Any]) -> None:
    alice, bob, _ = people
    match = _match(alice, bob, rated=False, timer=None)
    start = match.started_at
    assert start is not None
    presence.opened(match_id=match.pk, seat=0, now=start)  # alice stays (heartbeats below)
    for hour in range(1, 25):
        presence.heartbeat(match_id=match.pk, seat=0, now=start + timedelta(hours=hour))
    # bob never came: gone since the start; alice is here
    assert services.match_end_absent(match_id=match.pk, now=start + timedelta(hours=23, minutes=59)) is False
    assert services.match_sweep_absent(now=start + timedelta(hours=24)) == 1
    match.refresh_from_db()
    assert match.status == MatchStatus.ABORTED
    assert MatchEvent.objects.get(match=match, seq=match.last_seq).payload == {"why": "gone", "seats": [1]}


@pytest.mark.django_db
def test_the_beat_task_ends_absent_matches(people: tuple[Any, Any, Any],
                                           later: Callable[[timedelta], datetime]) -> None:
    alice, bob, _ = people
    match = _match(alice, bob, rated=False, timer=None)
    assert tasks.end_absent_matches() == 0
    later(timedelta(minutes=10, seconds=31))  # nobody ever opened it; the worker waits 30 s more
    assert tasks.end_absent_matches() == 1
    assert Match.objects.get(pk=match.pk).status == MatchStatus.ABORTED


@pytest.mark.django_db
def test_timing_out_three_turns_loses_and_earns_a_timeouts_playban(
    people: tuple[Any, Any, Any], later: Callable[[timedelta], datetime]
) -> None:
    alice, bob, _ = people
    match = _match(alice, bob, rated=True, timer=30)
    shift = timedelta(0)
    for _ in range(200):
        match.refresh_from_db()
        if match.status != MatchStatus.ACTIVE:
            break
        live = load(match)
        seat = live.state.current_player
        assert seat is not None
        if seat == 0:  # alice plays her safe move herself: only bob's turns time out
            action = services.safe_moves(live, 0)[0]
            services.match_apply_action(match_id=match.pk, user=alice, action_text=str(action),
                                        client_seq=match.last_seq, msg_id=f"a{match.last_seq}")
        else:
            shift += timedelta(seconds=31)
            later(shift)
            assert services.match_expire_turn(match_id=match.pk) is not None
    assert (match.status, match.winner, match.result_reason) == (MatchStatus.FINISHED, 0, "timeout")
    ban = Playban.objects.get()
    assert (ban.user_id, ban.match_id, ban.reason) == (bob.pk, match.pk, "timeouts")
    assert ban.ends_at - ban.created_at == timedelta(minutes=5)


# ------------------------------------------------------------------------------------------- playbans


@pytest.mark.django_db
def test_playban_lengths_escalate_within_24_hours(people: tuple[Any, Any, Any]) -> None:
    alice, bob, _ = people
    matches = [_match(alice, bob, rated=True) for _ in range(6)]
    t0 = timezone.now()
    # (hours after t0, length): each earlier one within 24 h makes the next longer: 5 min, 15 min, 1 h,
    # 24 h, 24 h; at 29 h the last one before (4 h) is 25 h old: a first offence again, 5 min
    plan = [(0, timedelta(minutes=5)), (1, timedelta(minutes=15)), (2, timedelta(hours=1)),
            (3, timedelta(hours=24)), (4, timedelta(hours=24)), (29, timedelta(minutes=5))]
    for match, (hours, length) in zip(matches, plan, strict=True):
        now = t0 + timedelta(hours=hours)
        ban = playbans.record(user_id=bob.pk, match=match, reason="abandoned", now=now)
        assert (ban.created_at, ban.ends_at - now) == (now, length), hours
    # at 28 h 59 min the ban of the 4 h offence (24 h long) is in force; playbans.active names it
    assert playbans.active(user=bob, now=t0 + timedelta(hours=27, minutes=59)).match_id == matches[4].pk
    assert playbans.length(earlier=0) == timedelta(minutes=5)
    assert playbans.length(earlier=7) == timedelta(hours=24)


@pytest.mark.django_db
def test_recording_a_playban_twice_keeps_one_row(people: tuple[Any, Any, Any]) -> None:
    alice, bob, _ = people
    match = _match(alice, bob, rated=True)
    now = timezone.now()
    first = playbans.record(user_id=bob.pk, match=match, reason="abandoned", now=now)
    second = playbans.record(user_id=bob.pk, match=match, reason="timeouts", now=now + timedelta(hours=1))
    assert second.pk == first.pk and second.ends_at == now + timedelta(minutes=5)
    assert Playban.objects.count() == 1


@pytest.mark.django_db
def test_a_playban_message_counts_the_rated_matches_left_and_words_the_wait(
        people: tuple[Any, Any, Any]) -> None:
    """The refusal names the latest offence, how many rated matches were left in 24 h (from the second
    on) and the wait in minutes or hours, with singular and plural right in both languages."""
    from django.utils import translation

    alice, bob, _ = people
    matches = [_match(alice, bob, rated=True) for _ in range(4)]
    t0 = timezone.now() - timedelta(hours=3, minutes=1)
    for hours, (match, reason) in enumerate(zip(matches, ["abandoned", "abandoned", "abandoned", "timeouts"],
                                                strict=True)):
        playbans.record(user_id=bob.pk, match=match, reason=reason, now=t0 + timedelta(hours=hours))
    # the 4th, at t0 + 3 h (a minute ago), lasts 24 h: 23 h 59 min left
    shown = playbans.notice(user=bob)
    assert shown is not None and (shown.reason, shown.left, shown.minutes) == ("timeouts", 4, 23 * 60 + 59)
    assert shown.message == ("you let the turn timer run out in a rated match (4 rated matches left in the"
                             " last 24 hours): you can pair again in 23 hours 59 minutes")
    with translation.override("pt-br"):
        assert playbans.notice(user=bob).message == (  # type: ignore[union-attr]
            "você deixou o tempo da jogada acabar numa partida valendo rating (4 partidas valendo rating"
            " abandonadas nas últimas 24 horas): você poderá procurar adversário de novo em 23 horas e"
            " 59 minutos")
    with translation.override("pt-br"):
        assert [playbans.wait_text(s) for s in (1, 60, 61, 3600, 3660, 7200 + 120)] == [
            "1 minuto", "1 minuto", "2 minutos", "1 hora", "1 hora e 1 minuto", "2 horas e 2 minutos"]
    assert [playbans.wait_text(s) for s in (1, 61, 3600, 3660)] == [
        "1 minute", "2 minutes", "1 hour", "1 hour 1 minute"]


@pytest.mark.django_db
def test_a_playban_refuses_pairing_with_its_reason(people: tuple[Any, Any, Any]) -> None:
    from django.utils import translation

    alice, bob, _ = people
    match = _match(alice, bob, rated=True)
    now = timezone.now()
    playbans.record(user_id=bob.pk, match=match, reason="abandoned", now=now - timedelta(minutes=1))
    with pytest.raises(GameError) as refused:
        busy.check_free(user=bob, rated=True)
    assert (refused.value.code, refused.value.message) == (
        "playban", "you left a rated match: you can pair again in 4 minutes")
    with translation.override("pt-br"):  # the same refusal, said in the reader's language
        assert said(refused.value) == ("você abandonou uma partida valendo rating: você poderá procurar"
                                       " adversário de novo em 4 minutos")
    shown = playbans.notice(user=bob, now=now)
    assert shown is not None and (shown.reason, shown.minutes, shown.left, shown.match_id) == (
        "abandoned", 4, 1, match.pk)
    with translation.override("pt-br"):
        notice = playbans.notice(user=bob, now=now)
        assert notice is not None and notice.reason_text == "abandonou uma partida valendo rating"
        assert notice.message == ("você abandonou uma partida valendo rating: você poderá procurar adversário"
                                  " de novo em 4 minutos")
    assert playbans.notice(user=alice, now=now) is None
    from django.template.loader import render_to_string

    html = render_to_string("lobby/_playban.html", {"playban": playbans.notice(user=bob, now=now)})
    assert 'data-reason="abandoned" data-minutes="4"' in html
    assert "you left a rated match: you can pair again in 4 minutes" in html
    assert render_to_string("lobby/_playban.html", {"playban": None}).strip() == ""


@pytest.mark.django_db
def test_the_profile_counts_left_rated_matches(people: tuple[Any, Any, Any]) -> None:
    alice, bob, carol = people
    left = _match(alice, bob, rated=True)
    start = left.started_at
    assert start is not None
    presence.opened(match_id=left.pk, seat=0, now=start)
    services.match_claim(match_id=left.pk, user=alice, now=start + timedelta(seconds=61))
    played = _match(bob, carol, rated=True)
    services.match_resign(match_id=played.pk, user=carol)  # nobody moved: an abort, not over as played
    finished = _match(bob, carol, rated=True)
    Match.objects.filter(pk=finished.pk).update(status=MatchStatus.FINISHED, winner=0, result_reason="target")
    _match(bob, carol, rated=True)  # in play: not counted
    _match(bob, carol, rated=False)  # casual: not counted
    counts = playbans.left_count(user_id=bob.pk)
    assert (counts.left, counts.rated) == (1, 2)
    assert (playbans.left_count(user_id=alice.pk).left, playbans.left_count(user_id=alice.pk).rated) == (0, 1)
    page = Client().get("/u/bob/")
    assert page.status_code == 200
    assert "left 1 of 2 rated matches" in page.content.decode()
    page = Client(HTTP_ACCEPT_LANGUAGE="pt-br").get("/u/alice/")
    assert "abandonou 0 de 1 partida valendo rating" in page.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_claimed_win_is_shown_as_the_opponent_left_everywhere(
    people: tuple[Any, Any, Any], eager_tasks: None
) -> None:
    """After a claimed win over a player who left, every match list says so, from each side, en and
    pt-BR (My matches, the profiles' last rated matches, the home page), never as a resignation; the
    replay's viewer data says ``left`` (the end card and the header word it)."""
    import json

    from django.urls import reverse

    from ratings.selectors import profile_url
    from replays.selectors import replay_build

    alice, bob, _ = people
    match = _match(alice, bob, rated=True)
    _played(match, alice, bob)
    start = match.started_at
    assert start is not None
    presence.opened(match_id=match.pk, seat=0, now=start)
    presence.closed(match_id=match.pk, seat=1, now=start)
    services.match_claim(match_id=match.pk, user=alice, msg_id="w1", now=start + timedelta(seconds=60))

    def seen(user: Any, url: str, language: str) -> str:
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        client.force_login(user)
        page = client.get(url).content.decode()
        assert "resignation" not in page and "desistência" not in page
        return page

    notes = {("en", True): "the opponent left", ("en", False): "left the table",
             ("pt-BR", True): "o adversário saiu", ("pt-BR", False): "saiu da mesa"}
    for language in ("en", "pt-BR"):
        for user, won in ((alice, True), (bob, False)):
            note = f'data-testid="end-note">({notes[language, won]})</span>'
            assert note in seen(user, reverse("games:my_matches"), language), (language, won)
            assert note in seen(user, profile_url(user.username), language), (language, won)
            assert note in seen(user, "/", language), (language, won)
    match.refresh_from_db()
    assert json.loads(replay_build(match=match).json)["match"]["reason"] == "left"
