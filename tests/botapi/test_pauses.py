"""Pauses of BOT accounts that let the turn timer play for them (botapi.pauses; docs/bot-api.md "Fair
limits"): paused after timeouts in 3 distinct matches within 24 h, not after 2, one match counted once
however many of its turns the timer played, ``bot_paused`` while paused, the pause's fair-play report,
the throttled token's report, and no playban for a BOT."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from botapi import pauses
from botapi.errors import BotApiError
from fairplay.models import Report, ReportPlace, ReportReason, ReportStatus
from games import services
from games.live import load
from games.models import Match, MatchStatus
from lobby.models import Playban
from tests.botapi.conftest import error_of, pair
from tests.botapi.pool_fixtures import bot_pool

__all__ = ["bot_pool"]  # fixtures

pytestmark = pytest.mark.django_db


def _expire_bot_turn(match: Match, bot: User) -> None:
    """Let the timer run out until it has played one turn of ``bot``'s seat (the person's turns before it
    too, when it is theirs), or the match ended (both away)."""
    seat = 0 if match.player0_id == bot.pk else 1
    for _ in range(6):
        match.refresh_from_db()
        if match.status != MatchStatus.ACTIVE:
            return
        mover = load(match).state.current_player
        Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
        assert services.match_expire_turn(match_id=match.pk) is not None
        if mover == seat:
            return
    raise AssertionError("the BOT's seat never came to move")


def _timed_match(bot: User, person: User) -> Match:
    return services.match_create_seated(player0=bot, player1=person, turn_timer=30, rated=False)


def _paused(user: User) -> bool:
    user.refresh_from_db()
    return user.bot_paused_until is not None and user.bot_paused_until > timezone.now()


def test_two_matches_do_not_pause_the_third_does_and_files_the_report(
    make_bot: Callable[..., tuple[Any, str]], alice: Any,
) -> None:
    bot, _ = pair(make_bot("robo"))
    first, second, third = (_timed_match(bot, alice) for _ in range(3))
    _expire_bot_turn(first, bot)
    _expire_bot_turn(second, bot)
    assert not _paused(bot) and Report.objects.count() == 0
    before = timezone.now()
    _expire_bot_turn(third, bot)
    assert _paused(bot)
    assert bot.bot_paused_until is not None
    minutes = (bot.bot_paused_until - before).total_seconds() / 60
    assert 60 <= minutes < 61  # BOTAPI_PAUSE_MINUTES
    report = Report.objects.get()
    assert (report.reporter_id, report.reported_id, report.reason, report.place, report.status,
            report.match_id) == (None, bot.pk, ReportReason.BOT_TIMEOUTS, ReportPlace.SYSTEM,
                                 ReportStatus.OPEN, third.pk)
    assert str(ReportReason.BOT_TIMEOUTS.label) == "BOT paused after repeated timeouts"
    assert f"matches {first.pk}, {second.pk}, {third.pk}" in report.comment
    # a further timeout while paused changes nothing
    until = bot.bot_paused_until
    _expire_bot_turn(first, bot)
    bot.refresh_from_db()
    assert bot.bot_paused_until == until and Report.objects.count() == 1


def test_one_match_counts_once_however_many_turns_the_timer_plays(
    make_bot: Callable[..., tuple[Any, str]], alice: Any,
) -> None:
    bot, _ = pair(make_bot("robo"))
    match = _timed_match(bot, alice)
    for _ in range(3):  # three timer moves in one match: the third loses it on time (or both away)
        match.refresh_from_db()
        if match.status != MatchStatus.ACTIVE:
            break
        _expire_bot_turn(match, bot)
    assert pauses.timed_out_matches(user_id=bot.pk, since=timezone.now() - timedelta(hours=24),
                                    now=timezone.now()) == {match.pk}
    assert not _paused(bot) and Report.objects.count() == 0
    second = _timed_match(bot, alice)
    _expire_bot_turn(second, bot)
    assert not _paused(bot)  # two matches


def test_only_the_matches_since_the_last_pause_ended_count(
    make_bot: Callable[..., tuple[Any, str]], alice: Any,
) -> None:
    bot, _ = pair(make_bot("robo"))
    matches = [_timed_match(bot, alice) for _ in range(4)]
    for match in matches[:3]:
        _expire_bot_turn(match, bot)
    assert _paused(bot)
    bot.refresh_from_db()
    assert bot.bot_paused_until is not None
    later = bot.bot_paused_until + timedelta(minutes=1)  # the pause is over; the 3 timeouts are within 24 h
    assert pauses.record_timeout(user=bot, match=matches[3], now=later) is False
    bot.refresh_from_db()
    assert bot.bot_paused_until < later and Report.objects.count() == 1
    # a day later, nothing before counts either: 1 match
    assert pauses.record_timeout(user=bot, match=matches[3], now=later + timedelta(hours=24)) is False


def test_a_person_is_never_paused(alice: Any, bob: Any) -> None:
    matches = [services.match_create_seated(player0=alice, player1=bob, turn_timer=30) for _ in range(3)]
    for match in matches:
        Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
        assert services.match_expire_turn(match_id=match.pk) is not None
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert (alice.bot_paused_until, bob.bot_paused_until) == (None, None) and Report.objects.count() == 0


def test_a_bot_losing_a_rated_match_on_time_gets_no_playban(
    make_bot: Callable[..., tuple[Any, str]], alice: Any,
) -> None:
    bot, _ = pair(make_bot("robo"))
    match = services.match_create_seated(player0=bot, player1=alice, turn_timer=30, rated=True)
    while True:
        match.refresh_from_db()
        if match.status != MatchStatus.ACTIVE:
            break
        _expire_bot_turn(match, bot)
    assert match.result_reason in ("timeout", "abandoned")
    assert not Playban.objects.filter(user=bot).exists()


def test_check_not_paused_and_the_pool_refuse_a_paused_bot(
    make_bot: Callable[..., tuple[Any, str]], bot_api: Any, bot_pool: Any,
) -> None:
    bot, token = pair(make_bot("robo"))
    pauses.check_not_paused(bot)  # not paused: nothing
    until = timezone.now() + timedelta(minutes=30)
    User.objects.filter(pk=bot.pk).update(bot_paused_until=until)
    with pytest.raises(BotApiError) as caught:
        pauses.check_not_paused(bot)  # the row as stored, not the loaded object
    assert (caught.value.code, caught.value.status_code) == ("bot_paused", 403)
    assert until.isoformat() in caught.value.message
    response = bot_api(token).post(f"pool/{bot_pool.slug}/join/")
    assert error_of(response) == (403, "bot_paused")
    User.objects.filter(pk=bot.pk).update(bot_paused_until=timezone.now() - timedelta(seconds=1))
    assert bot_api(token).post(f"pool/{bot_pool.slug}/join/").status_code == 200


def test_a_token_throttled_over_the_limit_is_reported_once(
    make_bot: Callable[..., tuple[Any, str]], settings: Any,
) -> None:
    from accounts.models import ApiToken

    settings.BOTAPI_ABUSE_THROTTLES = 5
    bot, _ = pair(make_bot("robo"))
    token = ApiToken.objects.get(user=bot)
    now = timezone.now().replace(minute=10)
    filed = [pauses.note_throttled(token, now=now + timedelta(seconds=i)) for i in range(8)]
    assert filed == [False] * 5 + [True, False, False]  # the 6th passes 5: one report
    report = Report.objects.get()
    assert (report.reporter_id, report.reported_id, report.reason, report.place) == (
        None, bot.pk, ReportReason.BOT_THROTTLED, ReportPlace.SYSTEM)
    assert token.prefix in report.comment


def test_the_queue_counts_the_sites_report(make_bot: Callable[..., tuple[Any, str]], alice: Any) -> None:
    from fairplay.models import PlayerSignal
    from fairplay.tasks import signals_refresh

    bot, _ = pair(make_bot("robo"))
    for match in [_timed_match(bot, alice) for _ in range(3)]:
        _expire_bot_turn(match, bot)
    signals_refresh()
    row = PlayerSignal.objects.get(user=bot)
    assert row.open_reports == 1 and row.strength > 0
