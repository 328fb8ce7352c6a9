"""The pace of bot-vs-bot matches (issue 22): ``GAMES_BOT_VS_BOT_DELAY`` seconds between two moves
(games/conf.py, docs/protocol.md "Server moves"), so a tournament's bot boards can be watched live. The
tests' autouse fixture sets it to 0 (engine speed); these tests use the shipped default (1.5 s) and look
at the countdown the Celery driver is given, without waiting for it."""

from __future__ import annotations

from typing import Any

import pytest

from games import conf, selectors, services, tasks
from games.models import Match


@pytest.fixture
def countdowns(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int | None, float]]:
    """The Celery driver, its tasks captured (never run): ``(match_id, expected_seq, countdown)``."""
    settings.GAMES_SERVER_MOVES_IN_PROCESS = False
    sent: list[tuple[int, int | None, float]] = []

    def send(kwargs: dict[str, Any], countdown: float = 0.0, **_: Any) -> None:
        sent.append((kwargs["match_id"], kwargs["expected_seq"], countdown))

    monkeypatch.setattr(tasks.play_server_moves, "apply_async", send)
    return sent


def test_a_bot_vs_bot_move_is_due_after_the_shipped_delay(
    house_bots: Any, seeded_decks: list[int], settings: Any, countdowns: list[tuple[int, int | None, float]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    del settings.GAMES_BOT_VS_BOT_DELAY  # the shipped default
    assert conf.bot_vs_bot_delay() == conf.DEFAULT_BOT_VS_BOT_DELAY == 1.5
    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create_bot_vs_bot(bot0=house_bots[0], bot1=house_bots[1], target=50)
    match.refresh_from_db()
    # the first move is queued 1.5 s ahead, not played
    assert len(countdowns) == 1
    (match_id, seq, countdown), = countdowns
    assert (match_id, seq, match.status) == (match.pk, match.last_seq, "active")
    assert 1.0 < countdown <= 1.5  # 1.5 s minus the ms (a loaded machine: some 100 ms) since it was stored
    # when it is due the driver plays exactly one move, then queues the next 1.5 s ahead
    Match.objects.filter(pk=match.pk).update(server_move_at=match.server_move_at.replace(year=2000))
    countdowns.clear()
    assert services.match_play_server_moves(match_id=match.pk, expected_seq=seq) == 1
    after = Match.objects.get(pk=match.pk)
    assert after.last_seq == seq + 1 and after.status == "active"
    assert [(m, s) for m, s, _ in countdowns] == [(match.pk, seq + 1)]
    assert 1.0 < countdowns[0][2] <= 1.5


def test_a_bot_reply_to_a_person_does_not_get_the_bot_vs_bot_delay(
    alice: Any, house_bots: Any, seeded_decks: list[int], settings: Any,
    countdowns: list[tuple[int, int | None, float]], django_capture_on_commit_callbacks: Any,
) -> None:
    from tests.games.wsclient import choose

    del settings.GAMES_BOT_VS_BOT_DELAY  # 1.5 s for bot-vs-bot matches; the bot's own pause is 0 here
    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100,
                                             rated=False)
    services.match_play_server_moves(match_id=match.pk)  # a bot dealt to act first moves now (0 s pause)
    match.refresh_from_db()
    assert match.server_move_at is None  # alice to act
    while match.server_move_at is None:  # alice plays until the bot is to act
        countdowns.clear()
        state = selectors.match_state_payload(match=match, seat=0)["hand"]
        with django_capture_on_commit_callbacks(execute=True):
            services.match_apply_action(match_id=match.pk, user=alice, action_text=choose(state),
                                        client_seq=match.last_seq, msg_id=f"m{match.last_seq}")
        match.refresh_from_db()
    assert countdowns == [(match.pk, match.last_seq, 0.0)]
