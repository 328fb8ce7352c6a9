"""The assistance signal (docs/fairplay.md "Assistance signal"): the framework-free arithmetic by worked
examples (fairplay.assistance), a seeded rated match analysed end to end through the Celery task
(fairplay.tasks.assistance_match: one SeatSignal per person seat, exact counts, idempotent), the player's four
assistance columns, and the sampling hook on games.signals.match_finished (deterministic sample, every
match of a reported player, only finished rated matches, never a bot's seat)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from fairplay import assistance, assistance_runs, receivers, tasks
from fairplay.assistance import Band, Figure
from fairplay.models import PlayerSignal, Report, ReportPlace, ReportReason, ReportStatus, SeatSignal
from games.models import Match
from tests.fixtures import alice, bob, house_bots, short_lived_connections

__all__ = ["alice", "bob", "house_bots", "short_lived_connections"]

SEED = 2025


# --------------------------------------------------------------------------------------------- arithmetic


def test_z_score_worked_example() -> None:
    # band 4: mean 0.70, spread 0.05; 100 decisions at 0.80:
    # sd = sqrt(0.05**2 + 0.7 * 0.3 / 100) = sqrt(0.0025 + 0.0021) = sqrt(0.0046) = 0.067823
    # z = (0.80 - 0.70) / 0.067823 = 1.4744
    band = Band(4, 0.70, 0.05, 1.0)
    assert assistance.z_score(Figure(100, 0.80, 1.0, 5), band) == pytest.approx(0.1 / math.sqrt(0.0046))
    assert round(assistance.z_score(Figure(100, 0.80, 1.0, 5), band) or 0, 4) == 1.4744
    # 400 decisions at the same rate: sd = sqrt(0.0025 + 0.000525) = 0.055, z = 1.8182 (more evidence)
    assert round(assistance.z_score(Figure(400, 0.80, 1.0, 20), band) or 0, 4) == 1.8182
    # below the band's mean: negative; too few decisions (99 < MIN_DECISIONS = 100): no figure
    assert round(assistance.z_score(Figure(100, 0.60, 1.0, 5), band) or 0, 4) == -1.4744
    assert assistance.MIN_DECISIONS == 100 and assistance.z_score(Figure(99, 1.0, 0.0, 2), band) is None
    assert assistance.z_score(Figure(0, None, None, 0), band, least=0) is None


def test_band_lookup_is_the_nearest_calibrated_level() -> None:
    # levels' Elo 924.2, 1322.6, 1500, 1539.2 (bands 1-4); level 5 (1671.1) has no band of its own
    assert [assistance.band_of(r).level for r in (100.0, 1123.0, 1124.0, 1411.0, 1412.0, 1519.0, 1520.0,
                                                 3000.0)] == [1, 1, 2, 2, 3, 3, 4, 4]
    # midpoint 1123.4 between 924.2 and 1322.6; 1411.3 between 1322.6 and 1500; 1519.6 between 1500 and 1539.2
    assert assistance.band_of(1500.0, {3: 1500.0, 4: 1600.0}).level == 3
    assert assistance.band_of(1550.0, {3: 1500.0, 4: 1600.0}).level == 3  # a tie goes to the lower level
    with pytest.raises(ValueError, match="no rating band"):
        assistance.band_of(1500.0, {5: 1600.0})


def test_rolling_figure_sums_the_newest_window() -> None:
    tallies = [(10, 7, 5.0), (20, 12, 30.0), (99, 99, 0.0)]  # newest first
    assert assistance.rolling(tallies, window=2) == Figure(30, 19 / 30, 35.0 / 30, 2)
    assert assistance.rolling(tallies, window=20) == Figure(129, 118 / 129, 35.0 / 129, 3)
    assert assistance.rolling([], window=20) == Figure(0, None, None, 0)
    assert assistance.rolling([(0, 0, 0.0)]) == Figure(0, None, None, 1)
    for bad in ([(5, 6, 0.0)], [(-1, 0, 0.0)], [(5, 1, -0.5)]):
        with pytest.raises(ValueError, match="a tally needs"):
            assistance.rolling(bad)
    with pytest.raises(ValueError, match="window"):
        assistance.rolling(tallies, window=0)


def test_spread_and_sample_are_deterministic() -> None:
    assert assistance.spread(3, 5) == [0, 1, 2]
    assert assistance.spread(10, 4) == [0, 2, 5, 7]
    assert assistance.spread(0, 1) == []
    with pytest.raises(ValueError):
        assistance.spread(3, 0)
    # the sample: a hash of the id, the same in every process (hand-checked list at 25%)
    assert [m for m in range(1, 21) if assistance.in_sample(m, 0.25)] == [1, 8, 16, 19]
    assert not any(assistance.in_sample(m, 0.0) for m in range(1, 200))
    assert all(assistance.in_sample(m, 1.0) for m in range(1, 200))
    share = sum(assistance.in_sample(m, 0.1) for m in range(1, 10001)) / 10000
    assert 0.09 < share < 0.11
    with pytest.raises(ValueError, match="sample rate"):
        assistance.in_sample(1, 1.5)
    # salted (the site passes its secret key): another, as evenly spread, sample
    assert [m for m in range(1, 21) if assistance.in_sample(m, 0.25, "secret")] == [4, 8, 11, 20]


# --------------------------------------------------------------------------------------------- end to end


@pytest.fixture
def few(settings: Any) -> None:
    """Short analyses: at most 10 discard decisions judged a seat, 8 worlds each."""
    settings.FAIRPLAY_ASSISTANCE_DECISIONS = 10
    settings.FAIRPLAY_ASSISTANCE_WORLDS = 8


def rated_between(player0: Any, player1: Any, seed: int = SEED) -> Match:
    """A seeded rated match (target 50) between two people, played to its end by tests.games.play."""
    from games import services
    from tests.games.play import play_until

    match = services.match_create_seated(player0=player0, player1=player1, target=50, rated=True,
                                         simulation_seed=seed)
    return play_until(match.pk, {0: player0, 1: player1})


def rows(match: Match) -> list[tuple[int, int, int, int, float, str]]:
    return [(s.seat, s.player_id, s.decisions, s.agreed, s.loss, s.why)
            for s in SeatSignal.objects.filter(match=match).order_by("seat")]


@pytest.mark.django_db
def test_a_match_is_analysed_once_per_seat_through_the_task(alice: Any, bob: Any, few: None) -> None:
    match = rated_between(alice, bob)
    assert match.status == "finished" and match.rated and match.bot_seats == []
    assert tasks.assistance_match(match.pk) == 2
    # the seeded match: of the draws and 10 discards judged a seat, 5 are contested (level 4 and level 5
    # differ) for each; alice played 2 of them as level 5 would, bob 3; expected points lost on them
    first = rows(match)
    assert first == [(0, alice.pk, 5, 2, 38.75, "sample"), (1, bob.pk, 5, 3, 40.875, "sample")]
    # where each played a contested decision as level 5 would: (hand, step), two for alice, three for bob
    flagged = [s.flagged for s in SeatSignal.objects.filter(match=match).order_by("seat")]
    assert flagged == [[[1, 6], [3, 14]], [[1, 4], [1, 28], [3, 16]]]
    # cross-checked on the engine: at each of them the move played is level 5's and not level 4's
    from engine.analysis import positions
    from engine.bots.ladder import make_bot
    from replays.selectors import match_record

    at = {(p.hand, p.step): p for p in positions(match_record(match=match))}
    for seat, places in enumerate(flagged):
        for hand, step in places:
            pos = at[(hand, step)]
            seed = assistance.level5_seed(pos.view)
            assert pos.seat == seat and pos.view.player == seat
            assert make_bot(5, seed).choose(pos.view) == pos.action != make_bot(4, seed).choose(pos.view)
    assert all(s.version == assistance.METHOD_VERSION for s in SeatSignal.objects.all())
    # again (a re-delivered task, or the same match reported later): nothing judged again, the same rows
    assert tasks.assistance_match(match.pk, "reported") == 2
    assert rows(match) == first and SeatSignal.objects.count() == 2
    # the players' assistance columns: one match, 5 decisions (under 100: no z-score yet)
    signal = PlayerSignal.objects.get(user=alice)
    assert (signal.decisions, signal.agreement, signal.loss_per_decision, signal.assistance_z) == (
        5, 0.4, 7.75, None)
    assert PlayerSignal.objects.get(user=bob).agreement == 0.6


@pytest.mark.django_db
def test_the_refresh_writes_the_assistance_columns_only(alice: Any, bob: Any) -> None:
    match = Match.objects.create(rules={}, player0=alice, player1=bob, status="finished", rated=True)
    PlayerSignal.objects.create(user=alice, strength=7.5, reasons=[{"signal": "pair", "value": 1}],
                                open_reports=2)
    # 120 decisions at 0.9 in band 3 (alice is unrated: 1500): z = (0.9 - mean) / sd
    SeatSignal.objects.create(match=match, seat=0, player=alice, decisions=120, agreed=108, loss=60.0)
    signal = assistance_runs.player_refresh(user_id=alice.pk)
    # band 3: mean 0.134, spread 0.12: sd = sqrt(0.0144 + 0.134 * 0.866 / 120) = 0.123964,
    # z = (0.9 - 0.134) / 0.123964 = 6.179
    assert assistance.BANDS[3] == Band(3, 0.134, 0.12, 2.36)
    assert (signal.decisions, signal.agreement, signal.loss_per_decision) == (120, 0.9, 0.5)
    assert signal.assistance_z == 6.179
    signal.refresh_from_db()
    assert (signal.strength, signal.reasons, signal.open_reports) == (
        7.5, [{"signal": "pair", "value": 1}], 2)


@pytest.mark.django_db
def test_a_bot_seat_is_never_given_a_signal(alice: Any, house_bots: Any, few: None) -> None:
    from games import services
    from tests.games.play import play_until

    bot = next(u for u in house_bots if u.bot_level == 1)
    match = services.match_create_seated(player0=bot, player1=alice, target=50, rated=True,
                                         simulation_seed=SEED)
    match = play_until(match.pk, {1: alice})
    assert match.rated and match.bot_seats == [0] and assistance_runs.person_seats(match) == [1]
    assert tasks.assistance_match(match.pk) == 1
    assert [(s.seat, s.player_id) for s in SeatSignal.objects.all()] == [(1, alice.pk)]
    assert not PlayerSignal.objects.filter(user=bot).exists()
    two = services.match_create_seated(player0=house_bots[0], player1=house_bots[1], target=50, rated=True)
    assert not two.rated and assistance_runs.person_seats(two) == []
    assert not assistance_runs.eligible(two)


# --------------------------------------------------------------------------------------------- sampling


class Enqueued:
    """Stands for ``fairplay.tasks.assistance_match``: records ``delay`` calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, str]] = []

    def delay(self, match_id: int, why: str) -> None:
        self.calls.append((match_id, why))


@pytest.fixture
def enqueued(monkeypatch: pytest.MonkeyPatch) -> Enqueued:
    spy = Enqueued()
    monkeypatch.setattr(receivers, "assistance_match", spy)
    monkeypatch.setattr(tasks, "assistance_match", spy)
    return spy


def finish(match: Match, capture: Any) -> None:
    with capture(execute=True):
        receivers.sample_finished(None, match_id=match.pk, rated=match.rated)


@pytest.mark.django_db
def test_the_sample_is_deterministic_and_reported_players_always_analysed(
    alice: Any, bob: Any, house_bots: Any, settings: Any, enqueued: Enqueued,
    django_capture_on_commit_callbacks: Any,
) -> None:
    match = rated_between(alice, bob)
    settings.FAIRPLAY_SAMPLE_RATE = 0.0
    finish(match, django_capture_on_commit_callbacks)
    assert enqueued.calls == []
    settings.FAIRPLAY_SAMPLE_RATE = 1.0
    finish(match, django_capture_on_commit_callbacks)
    assert enqueued.calls == [(match.pk, "sample")]
    settings.FAIRPLAY_SAMPLE_RATE = 0.25  # the same answer on every call: the hash of the id decides
    for _ in range(3):
        finish(match, django_capture_on_commit_callbacks)
    salted = assistance.in_sample(match.pk, 0.25, settings.SECRET_KEY)
    expected = [(match.pk, "sample")] * 3 if salted else []
    assert enqueued.calls[1:] == expected
    # an open report against either player: always analysed, whatever the sample
    enqueued.calls.clear()
    settings.FAIRPLAY_SAMPLE_RATE = 0.0
    carol = type(alice).objects.create_user(username="carol")
    report = Report.objects.create(reporter=carol, reported=bob, reason=ReportReason.ASSISTANCE,
                                   place=ReportPlace.PROFILE)
    finish(match, django_capture_on_commit_callbacks)
    assert enqueued.calls == [(match.pk, "reported")]
    report.status = ReportStatus.DISMISSED  # a dismissed report no longer counts
    report.save()
    finish(match, django_capture_on_commit_callbacks)
    assert enqueued.calls == [(match.pk, "reported")]


@pytest.mark.django_db
def test_only_finished_rated_matches_with_a_person_are_analysed(
    alice: Any, bob: Any, house_bots: Any, settings: Any, enqueued: Enqueued,
    django_capture_on_commit_callbacks: Any, few: None,
) -> None:
    from games import services

    settings.FAIRPLAY_SAMPLE_RATE = 1.0
    casual = rated_between(alice, bob, seed=SEED)
    casual.rated = False  # as an unrated match between the same two
    casual.save(update_fields=["rated"])
    finish(casual, django_capture_on_commit_callbacks)
    assert enqueued.calls == [] and assistance_runs.why_analyse(casual) is None
    assert tasks.run_match(match_id=casual.pk) == [] and not SeatSignal.objects.exists()
    active = services.match_create_seated(player0=alice, player1=bob, target=50, rated=True)
    assert assistance_runs.why_analyse(active) is None and tasks.run_match(match_id=active.pk) == []
    assert tasks.run_match(match_id=10 ** 9) == []  # no such match


@pytest.mark.django_db
def test_a_report_analyses_the_reported_players_backlog(
    alice: Any, bob: Any, enqueued: Enqueued,
) -> None:
    older = Match.objects.create(rules={}, player0=alice, player1=bob, status="finished", rated=True)
    newer = Match.objects.create(rules={}, player0=bob, player1=alice, status="finished", rated=True)
    Match.objects.create(rules={}, player0=alice, player1=bob, status="finished", rated=False)
    Match.objects.create(rules={}, player0=alice, player1=bob, status="active", rated=True)
    done = Match.objects.create(rules={}, player0=alice, player1=bob, status="finished", rated=True)
    SeatSignal.objects.create(match=done, seat=0, player=alice, decisions=1, agreed=1, loss=0.0)
    from django.utils import timezone

    now = timezone.now()
    Match.objects.filter(pk=older.pk).update(finished_at=now - timezone.timedelta(hours=2))
    Match.objects.filter(pk=newer.pk).update(finished_at=now)
    assert tasks.assistance_reported(alice.pk) == 2
    assert enqueued.calls == [(newer.pk, "reported"), (older.pk, "reported")]


def test_the_modules_worked_examples() -> None:
    import doctest

    failed, tried = doctest.testmod(assistance)
    assert (failed, tried > 0) == (0, True)


def test_the_hook_is_connected_to_match_finished() -> None:
    from games.signals import match_finished

    assert "fairplay.sample_finished" in [entry[0][0] for entry in match_finished.receivers]


@pytest.mark.django_db
def test_a_seat_played_by_level_5_agrees_with_level_5(alice: Any, bob: Any, few: None, settings: Any) -> None:
    """alice's moves are level 5's (its own seed, as a player running the bot would), bob plays the
    plain least-deadwood moves of tests.games.wsclient.choose (target 100, every discard judged)."""
    from engine.bots import make_bot
    from games import selectors, services
    from games.live import rebuild
    from games.models import MatchEvent
    from tests.games.wsclient import choose

    helper = make_bot(5, seed=7)
    match = services.match_create_seated(player0=alice, player1=bob, target=100, rated=True,
                                         simulation_seed=SEED)
    for step in range(3000):
        match = Match.objects.select_related("player0", "player1").get(pk=match.pk)
        if match.status != "active":
            break
        state = rebuild(match, MatchEvent.objects.filter(match=match).order_by("seq")).state
        assert state.hand is not None
        seat = state.hand.current_player
        if seat == 0:
            text = str(helper.choose(state.view(0)))
        else:
            text = choose(selectors.match_state_payload(match=match, seat=1)["hand"])
        services.match_apply_action(match_id=match.pk, user=alice if seat == 0 else bob, action_text=text,
                                    client_seq=match.last_seq, msg_id=f"m{step}")
    assert match.status == "finished"
    settings.FAIRPLAY_ASSISTANCE_DECISIONS = 40  # every discard decision of this short match
    assert tasks.assistance_match(match.pk) == 2
    # alice: 9 of her 15 contested decisions are the analysis's level 5's (a level-5 bot with another seed
    # differs where two moves are close, its posterior sample being another); bob: 2 of his 9. (The
    # expected points lost are the judge's, whose worlds come from the tracker's weights, not from
    # level 5's posterior: by them her contested moves cost more, 6.7 points each against his 4.9.)
    assert rows(match) == [(0, alice.pk, 15, 9, 100.5, "sample"), (1, bob.pk, 9, 2, 44.25, "sample")]


# ------------------------------------------------------------------------------- a report, and its sweep


@pytest.mark.django_db(transaction=True)
def test_a_report_has_the_reported_players_rated_matches_analysed(
        alice: Any, bob: Any, few: None) -> None:
    """A new report (after its commit) analyses the reported player's backlog: the seeded match's two
    seats, the same rows as the sampled run above, marked ``reported``; a repeat of the open report sends
    nothing more."""
    from celery import current_app

    from accounts.models import User
    from fairplay.reporting import report_make

    current_app.conf.task_always_eager = True  # the task runs inside the report's on-commit hook
    try:
        match = rated_between(alice, bob)
        carol = User.objects.create_user("carol", password="pw-123456!x")
        report_make(reporter=carol, reported=alice, reason=ReportReason.ASSISTANCE, comment="",
                    place=ReportPlace.PROFILE)
        assert rows(match) == [(0, alice.pk, 5, 2, 38.75, "reported"), (1, bob.pk, 5, 3, 40.875, "reported")]
        assert assistance_runs.reported_backlog(user_id=alice.pk) == []
    finally:
        current_app.conf.task_always_eager = False


@pytest.mark.django_db(transaction=True)
def test_a_broker_refusing_the_reports_message_keeps_the_report_and_the_sweep_sends_it(
        alice: Any, bob: Any, few: None, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    from accounts.models import User
    from fairplay import reporting

    match = rated_between(alice, bob)
    sent: list[int] = []

    def refused(user_id: int) -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(tasks.assistance_reported, "delay", refused)
    carol = User.objects.create_user("carol", password="pw-123456!x")
    report, created = reporting.report_make(reporter=carol, reported=alice, reason=ReportReason.ASSISTANCE,
                                            comment="", place=ReportPlace.PROFILE)
    assert created and Report.objects.filter(pk=report.pk, status=ReportStatus.OPEN).exists()
    assert SeatSignal.objects.count() == 0
    assert f"user {alice.pk}: could not enqueue the reported player's analysis" in caplog.text
    # The sweep (every 10 minutes) finds the open report's unanalysed match and sends the backlog again.
    monkeypatch.setattr(tasks.assistance_reported, "delay", sent.append)
    assert assistance_runs.reported_backlog(user_id=alice.pk) == [match.pk]
    assert tasks.signals_refresh()["backlogs"] == 1 and sent == [alice.pk]
    # Once analysed, the sweep has nothing to send for it.
    tasks.assistance_match(match.pk, assistance_runs.REPORTED)
    sent.clear()
    assert tasks.signals_refresh()["backlogs"] == 0 and sent == []
