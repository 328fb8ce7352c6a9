"""Two (or more) actions racing for the same turn: exactly one wins, the rest get ``stale_seq``.

On PostgreSQL (``.ci/run``) the match row lock serializes the writers; on SQLite the IMMEDIATE
transactions do. ``test_without_row_lock_the_seq_guards_carry_the_race`` takes the lock away to show
that the seq checks alone (unique (match, seq) and the compare-and-swap on ``last_seq``) still let
exactly one write through.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from games import services
from games.live import load
from games.models import Match, MatchEvent
from games.services import Applied, GameError
from tests.racing import race

pytestmark = pytest.mark.django_db(transaction=True)


def _friend_match(alice: Any, bob: Any) -> Match:
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    return services.table_join(user=bob, token=table.invite_token)


def _race(match: Match, user: Any, actions: list[str]) -> list[Applied | str]:
    """Each of ``actions`` played at seq 1 by ``user`` in its own thread, all released together."""
    return race([
        functools.partial(services.match_apply_action, match_id=match.pk, user=user, action_text=action,
                          client_seq=1, msg_id=f"race-{i}")
        for i, action in enumerate(actions)
    ])


def test_racing_actions_exactly_one_wins(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = _friend_match(alice, bob)
    actor = load(match).state.current_player
    user = (alice, bob)[actor]
    results = _race(match, user, ["pass", "take", "pass", "take", "pass", "take"])
    winners = [r for r in results if isinstance(r, Applied)]
    assert len(winners) == 1 and winners[0].seq == 2
    assert sorted(r for r in results if isinstance(r, str)) == ["stale_seq"] * 5
    match.refresh_from_db()
    rows = list(MatchEvent.objects.filter(match=match).order_by("seq"))
    assert match.last_seq == 2 and [r.seq for r in rows] == [1, 2]
    winner_index = results.index(winners[0])
    assert rows[1].msg_id == f"race-{winner_index}"
    assert rows[1].payload["action"] == ["pass", "take"][winner_index % 2]


def test_without_row_lock_the_seq_guards_carry_the_race(
    alice: Any, bob: Any, seeded_decks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    match = _friend_match(alice, bob)
    actor = load(match).state.current_player
    user = (alice, bob)[actor]
    stale = Match.objects.get(pk=match.pk)  # read before the winning write, as an unlocked reader would
    first = services.match_apply_action(
        match_id=match.pk, user=user, action_text="take", client_seq=1, msg_id="w"
    )
    assert first.seq == 2
    monkeypatch.setattr(services.play, "locked_match",
                        lambda match_id: Match.objects.get(pk=stale.pk) and stale)
    with pytest.raises(GameError) as err:
        services.match_apply_action(
            match_id=match.pk, user=user, action_text="pass", client_seq=1, msg_id="l"
        )
    assert err.value.code == "stale_seq"
    match.refresh_from_db()
    assert match.last_seq == 2 and MatchEvent.objects.filter(match=match).count() == 2
    # and the CAS alone (no unique-seq clash) also refuses: last_seq moved under the writer
    stale2 = Match.objects.get(pk=match.pk)
    stale2.last_seq = 1
    with pytest.raises(Exception) as exc_info:
        services.play.save_cas(stale2, 1)
    assert "concurrently" in str(exc_info.value)
    match.refresh_from_db()
    assert match.last_seq == 2
