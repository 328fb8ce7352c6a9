"""Abandoned matches (issue 13): a casual bot match left alone for 24 hours ends as abandoned (status
``aborted``, ``result_reason`` ``abandoned``, no winner) by an idempotent beat task; its player can end it
from "My matches"; a friend table whose two players are both away ends abandoned instead of one of them
"winning on time". Time is moved by patching ``django.utils.timezone.now`` (event rows are append-only).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services, tasks
from games.live import load
from games.models import Match, MatchEvent, MatchStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> Callable[[timedelta], None]:
    """``later(delta)``: from now on the clock reads ``delta`` ahead."""
    real: Callable[[], datetime] = timezone.now

    def shift(delta: timedelta) -> None:
        monkeypatch.setattr(timezone, "now", lambda: real() + delta)

    return shift


def _types(match: Match) -> list[str]:
    return list(MatchEvent.objects.filter(match=match).order_by("seq").values_list("type", flat=True))


def test_a_casual_bot_match_without_a_move_for_24_hours_is_abandoned_once(
    alice: Any, bob: Any, house_bots: Any, seeded_decks: list[int], later: Callable[[timedelta], None]
) -> None:
    casual = services.match_create_vs_bot(
        user=alice, level=2, rules_preset="classic", target=100, rated=False
    )
    friend = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.table_join(user=bob, token=friend.invite_token or "")
    assert tasks.abandon_idle_matches() == 0  # just played
    later(timedelta(hours=23, minutes=59))
    assert tasks.abandon_idle_matches() == 0
    later(timedelta(hours=24, minutes=1))
    seq_before = Match.objects.get(pk=casual.pk).last_seq
    assert tasks.abandon_idle_matches() == 1  # the friend table is no casual bot match
    casual.refresh_from_db()
    assert (casual.status, casual.result_reason, casual.winner) == (
        MatchStatus.ABORTED, "abandoned", None,
    )
    assert casual.last_seq == seq_before + 1 and _types(casual)[-1] == "abandon"
    assert MatchEvent.objects.get(match=casual, seq=casual.last_seq).payload == {"why": "idle"}
    assert casual.finished_at is not None and casual.turn_deadline is None
    assert Match.objects.get(pk=friend.pk).status == MatchStatus.ACTIVE
    # idempotent: a second sweep (or a racing one) changes nothing
    assert tasks.abandon_idle_matches() == 0
    assert services.match_abandon(match_id=casual.pk) is False
    assert Match.objects.get(pk=casual.pk).last_seq == casual.last_seq
    # the stored engine log still replays, to the hand as it was left
    assert not load(casual).state.is_over
    # no more moves
    with pytest.raises(services.GameError) as refused:
        services.match_resign(match_id=casual.pk, user=alice)
    assert refused.value.code == "match_over"


def test_the_player_ends_a_casual_match_from_my_matches(
    alice: Any, bob: Any, house_bots: Any, seeded_decks: list[int]
) -> None:
    casual = services.match_create_vs_bot(
        user=alice, level=1, rules_preset="classic", target=100, rated=False
    )
    timed = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=30)
    services.table_join(user=bob, token=timed.invite_token or "")
    client = Client()
    client.force_login(alice)
    page = client.get(reverse("games:my_matches")).content.decode()
    assert page.count('data-testid="end-match"') == 1
    assert reverse("games:match_end_casual", args=[casual.pk]) in page
    # someone else cannot end it; a friend table cannot be ended (resign instead)
    stranger = Client()
    stranger.force_login(bob)
    stranger.post(reverse("games:match_end_casual", args=[casual.pk]))
    assert Match.objects.get(pk=casual.pk).status == MatchStatus.ACTIVE
    with pytest.raises(services.GameError) as refused:
        services.match_abandon(match_id=timed.pk, user=alice)
    assert refused.value.code == "not_casual"
    assert client.get(reverse("games:match_end_casual", args=[casual.pk])).status_code == 405
    response = client.post(reverse("games:match_end_casual", args=[casual.pk]))
    assert response.status_code == 302 and response.url == reverse("games:my_matches")
    casual.refresh_from_db()
    assert (casual.status, casual.result_reason, casual.winner) == (MatchStatus.ABORTED, "abandoned", None)
    assert MatchEvent.objects.get(match=casual, seq=casual.last_seq).payload == {"why": "player"}
    client.cookies["django_language"] = "pt-br"
    page = client.get(reverse("games:my_matches")).content.decode()
    assert "Abandonada" in page and "sem vencedor, não vale rating" in page
    assert 'data-testid="end-match"' not in page


def _expire(match: Match) -> int | None:
    Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    return services.match_expire_turn(match_id=match.pk)


def test_a_friend_table_whose_players_are_both_away_ends_abandoned_not_won_on_time(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    """Nobody acts: the timer plays for both in turn; at the 3rd timer move in a row of one player the
    other's last 2 turns were timer moves too, so the match ends abandoned without a winner."""
    match = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=15)
    services.table_join(user=bob, token=match.invite_token or "")
    for _ in range(4):  # pass, pass, then a draw and discard each
        assert _expire(match) is not None
        match.refresh_from_db()
        assert match.status == MatchStatus.ACTIVE
    assert match.timeout_strikes == [2, 2]
    assert _expire(match) is not None
    match.refresh_from_db()
    assert (match.status, match.result_reason, match.winner) == (MatchStatus.ABORTED, "abandoned", None)
    assert "timeout" not in _types(match) and _types(match)[-1] == "abandon"
    assert match.turn_deadline is None
    assert services.match_expire_turn(match_id=match.pk) is None
