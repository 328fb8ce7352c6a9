"""Free aborts of rated matches (issue 20, finding 6; docs/ratings.md "Aborts"): a member gets
``GAMES_FREE_ABORTS`` (3) aborts per rolling 24 h; past them, resigning before both players have moved is
an ordinary resignation, rated as a loss through the exactly-once path. The counts are on the profile,
the table's resign confirmation says the cost, a tournament's no-show forfeit is never counted, and two
resignations at once cannot both take the last free abort.

Runs on the database of the profile (SQLite by default, PostgreSQL with ``DATABASE_URL``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import aborts
from games import services as games_services
from games.models import Match, MatchEvent, MatchStatus, ResultReason
from ratings.models import RatingChange
from ratings.selectors import rating_get

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[timedelta]]:
    """``django.utils.timezone.now`` moved forward by ``clock[0]`` (the events' ``created_at`` too)."""
    offset = [timedelta(0)]
    real = timezone.now

    def now() -> datetime:
        return real() + offset[0]

    monkeypatch.setattr(timezone, "now", now)
    yield offset


def bot_match(user: Any, level: int = 5) -> Match:
    return games_services.match_create_vs_bot(user=user, level=level, rules_preset="classic", target=100)


def resign(match: Match, user: Any) -> Match:
    games_services.match_resign(match_id=match.pk, user=user, msg_id=f"r-{match.pk}")
    return Match.objects.get(pk=match.pk)


def outcome(match: Match) -> tuple[str, str, int | None]:
    return match.status, match.result_reason, match.winner


ABORTED = (MatchStatus.ABORTED, ResultReason.ABORTED, None)
RESIGNED = (MatchStatus.FINISHED, ResultReason.RESIGN, 1)


def test_the_fourth_abort_in_a_day_is_a_rated_loss(alice: Any, house_bots: list[Any]) -> None:
    for _ in range(3):
        assert outcome(resign(bot_match(alice), alice)) == ABORTED
    assert not RatingChange.objects.exists()
    assert aborts.abort_counts(user_id=alice.pk) == aborts.AbortCounts(recent=3, total=3, free=3)
    fourth = resign(bot_match(alice), alice)
    assert outcome(fourth) == RESIGNED and fourth.rated
    assert not MatchEvent.objects.filter(match=fourth, type="abort").exists()
    # Worked example (docs/ratings.md): Ana at 1500, K = 40, loses to the level-5 bot (fixed 1671):
    # E = 1 / (1 + 10 ** ((1671 - 1500) / 400)) = 0.272028; R' = 1500 + 40 * (0 - 0.272028) = 1489.1189.
    [change] = RatingChange.objects.filter(match=fourth)
    assert (change.player_id, change.before, change.k, change.won) == (alice.pk, 1500.0, 40, False)
    assert change.after == pytest.approx(1489.1188605417678, abs=1e-9)
    assert rating_get(user=alice).rating == pytest.approx(1489.1188605417678, abs=1e-9)
    assert aborts.abort_counts(user_id=alice.pk).recent == 3  # the loss is not an abort


def test_a_resignation_after_both_moved_never_counts_and_bob_has_his_own_aborts(
        alice: Any, bob: Any, house_bots: list[Any], settings: Any) -> None:
    settings.GAMES_FREE_ABORTS = 1
    assert outcome(resign(bot_match(alice), alice)) == ABORTED
    # Bob's abort of a friend table counts for Bob, not for Alice who sat at it.
    table = games_services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    table = games_services.table_join(user=bob, token=table.invite_token)
    assert outcome(resign(table, bob)) == ABORTED
    assert [aborts.abort_counts(user_id=u.pk).recent for u in (alice, bob)] == [1, 1]
    assert outcome(resign(bot_match(alice), alice)) == RESIGNED  # her second: a loss


def test_the_window_rolls(alice: Any, house_bots: list[Any], clock: list[timedelta]) -> None:
    for _ in range(3):
        assert outcome(resign(bot_match(alice), alice)) == ABORTED
    clock[0] = timedelta(hours=23, minutes=59)
    assert outcome(resign(bot_match(alice), alice)) == RESIGNED
    clock[0] = timedelta(hours=24, seconds=1)  # the three aborts are now older than 24 h
    assert aborts.abort_counts(user_id=alice.pk) == aborts.AbortCounts(recent=0, total=3, free=3)
    assert outcome(resign(bot_match(alice), alice)) == ABORTED
    assert aborts.abort_counts(user_id=alice.pk) == aborts.AbortCounts(recent=1, total=4, free=3)


def test_a_tournament_no_show_forfeit_is_never_the_players_abort(alice: Any, bob: Any, settings: Any) -> None:
    settings.GAMES_FREE_ABORTS = 0  # no free abort at all: only the server's forfeit aborts
    match = games_services.match_create_seated(player0=alice, player1=bob, rules_preset="classic",
                                               target=50, turn_timer=30, rated=True)
    games_services.match_resign(match_id=match.pk, user=alice, forfeit=True)
    assert outcome(Match.objects.get(pk=match.pk)) == ABORTED
    assert MatchEvent.objects.get(match=match, type="abort").payload == {"seat": 0, "forfeit": True}
    assert aborts.abort_counts(user_id=alice.pk).total == 0
    other = games_services.match_create_seated(player0=alice, player1=bob, rules_preset="classic",
                                               target=50, turn_timer=30, rated=True)
    assert outcome(resign(other, alice)) == RESIGNED


def test_two_resignations_at_once_cannot_both_take_the_last_free_abort(
        alice: Any, bob: Any, house_bots: list[Any], settings: Any) -> None:
    settings.GAMES_FREE_ABORTS = 1
    matches = [games_services.match_create_seated(player0=alice, player1=bob, rules_preset="classic",
                                                  target=50, turn_timer=30, rated=True) for _ in range(2)]
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def run(match: Match) -> None:
        try:
            barrier.wait(timeout=10)
            games_services.match_resign(match_id=match.pk, user=alice, msg_id="race")
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(m,)) for m in matches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    outcomes = sorted(outcome(Match.objects.get(pk=m.pk)) for m in matches)
    assert outcomes == sorted([ABORTED, RESIGNED])
    assert aborts.abort_counts(user_id=alice.pk).total == 1
    # The other, past the last free abort, is a resignation; between two people before each seat made
    # GAMES_RATED_MIN_MOVES moves it is finished unrated (docs/fairplay.md "Limits that make farming
    # slow"), so the race shows in the abort count and the stored reason, not in a rating change.
    [resigned] = [m for m in Match.objects.filter(pk__in=[m.pk for m in matches])
                  if m.status == MatchStatus.FINISHED]
    assert (resigned.rated, resigned.unrated_why) == (False, "early_resign")
    assert not RatingChange.objects.exists()


@pytest.mark.parametrize(("language", "texts"), [
    ("en", ["Aborted rated matches", "3 in 24 h · 5 in all",
            "3 free aborts per 24 hours; after them, resigning before both players have moved is a "
            "rated loss against a house bot (against a person, a match resigned that early is not rated)."]),
    ("pt-br", ["Partidas valendo rating anuladas", "3 em 24 h · 5 no total",
               "3 anulações grátis a cada 24 horas; depois delas, desistir antes de os dois jogadores "
               "jogarem é uma derrota valendo rating contra um robô da casa (contra uma pessoa, uma partida "
               "desistida tão cedo não vale rating)."]),
])
def test_the_profile_shows_the_aborts(alice: Any, house_bots: list[Any], language: str, texts: list[str],
                                      clock: list[timedelta]) -> None:
    for _ in range(2):
        assert outcome(resign(bot_match(alice), alice)) == ABORTED
    clock[0] = timedelta(hours=25)  # those two are out of the window, three more inside it
    for _ in range(3):
        assert outcome(resign(bot_match(alice), alice)) == ABORTED
    html = Client(headers={"accept-language": language}).get(
        reverse("ratings:profile", args=["alice"])).content.decode()
    start = html.index('data-testid="profile-aborts"')
    card = html[start:html.index("</div>", start)]
    for text in texts:
        assert text in card


def test_the_table_tells_the_free_aborts_left(alice: Any, house_bots: list[Any]) -> None:
    client = Client()
    client.force_login(alice)

    def confirm_box(match: Match) -> str:
        html = client.get(reverse("games:table", args=[match.pk])).content.decode()
        start = html.index('id="resign-confirm"')
        return html[start:html.index(">", start)]

    first = bot_match(alice)
    assert 'data-free-aborts="3" data-free-aborts-left="3"' in confirm_box(first)
    resign(first, alice)
    resign(bot_match(alice), alice)
    third = bot_match(alice)
    assert 'data-free-aborts="3" data-free-aborts-left="1"' in confirm_box(third)
    resign(third, alice)
    assert 'data-free-aborts="3" data-free-aborts-left="0"' in confirm_box(bot_match(alice))
    html = client.get(reverse("games:table", args=[third.pk])).content.decode()
    assert 'data-key="resign_abort_spent">Resign this match? You have used your {n} free aborts' in html
