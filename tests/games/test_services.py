"""Services with real values: creating, joining, playing, repeats (a message id reused by another kind
is refused), resigning, the turn timer, the bot's turn, the append-only log, hand commitments, and
action texts read leniently and stored canonical."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from engine.cards import parse_cards
from engine.deck import deck_commitment, seeded_deck
from engine.match import replay
from engine.melds import deadwood
from engine.rules import RuleSet
from games import selectors, services
from games.live import engine_event, load
from games.models import AppendOnlyError, Match, MatchEvent
from games.services import GameError
from tests.factories import FriendMatchFactory
from tests.games.play import play_until

pytestmark = pytest.mark.django_db(transaction=True)


def _events(match: Match) -> list[MatchEvent]:
    return list(MatchEvent.objects.filter(match=match).order_by("seq"))


def test_create_vs_bot_deals_hand_one_with_a_commitment(
    alice: Any, house_bots: Any, seeded_decks: list[int], bot_waits: None
) -> None:
    match = services.match_create_vs_bot(user=alice, level=4, rules_preset="oklahoma", target=50)
    match.refresh_from_db()
    assert (match.status, match.bot_level, match.preset, match.last_seq) == ("active", 4, "oklahoma", 1)
    assert match.player0 == alice and match.player1.username == "bot-4" and match.player1.is_bot
    rules = RuleSet.from_dict(match.rules)
    assert rules.target == 50 and rules.knock_limit_from_upcard and rules.name == "oklahoma"
    assert match.first_dealer in (0, 1) and match.scores == [0, 0] and match.started_at is not None
    [deal] = _events(match)
    assert deal.seq == 1 and deal.type == "deal" and deal.seat is None
    deck = seeded_deck(1000)
    assert parse_cards(" ".join(deal.payload["deck"])) == deck
    assert len(deal.payload["salt"]) == 32
    assert deal.payload["commitment"] == deck_commitment(deck, deal.payload["salt"])
    payload = selectors.match_state_payload(match=match, seat=0)
    assert payload["hand"]["commitment"] == deal.payload["commitment"]
    assert "salt" not in str(payload) and payload["last_hand"] is None
    # the table preset seats the computer as the first dealer
    table_rules = services.match_create_vs_bot(user=alice, level=1, rules_preset="table", target=100)
    assert table_rules.first_dealer == 1


@pytest.mark.parametrize(
    ("level", "preset", "target"),
    [
        (0, "classic", 100),
        (6, "classic", 100),
        ("3", "classic", 100),
        (3, "gin-deluxe", 100),
        (3, "classic", 75),
    ],
)
def test_create_vs_bot_rejects_bad_fields(
    alice: Any, house_bots: Any, level: Any, preset: str, target: int
) -> None:
    with pytest.raises(GameError) as err:
        services.match_create_vs_bot(user=alice, level=level, rules_preset=preset, target=target)
    assert err.value.code == "bad_field"
    assert Match.objects.count() == 0


def test_create_vs_bot_without_house_bots(alice: Any) -> None:
    with pytest.raises(GameError) as err:
        services.match_create_vs_bot(user=alice, level=2, rules_preset="classic", target=100)
    assert err.value.code == "no_bot" and Match.objects.count() == 0


def test_table_create_join(alice: Any, bob: Any, guest: Any, seeded_decks: list[int]) -> None:
    table = services.table_create(user=alice, rules_preset="brazilian", target=100, turn_timer=45)
    assert (table.status, table.player1, table.last_seq, table.turn_timer_seconds) == ("waiting", None, 0, 45)
    assert len(table.invite_token) >= 30
    assert selectors.match_state_payload(match=table, seat=0, invite_url="http://x/t/1/")["match"][
        "invite_url"
    ]
    for bad in (5, 601, "30"):
        with pytest.raises(GameError) as err:
            services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=bad)
        assert err.value.code == "bad_field"
    with pytest.raises(GameError) as err:
        services.table_join(user=bob, token="nope")
    assert err.value.code == "no_such_match"
    # the creator "joining" changes nothing
    assert services.table_join(user=alice, token=table.invite_token).status == "waiting"
    joined = services.table_join(user=guest, token=table.invite_token)
    joined.refresh_from_db()
    assert (joined.status, joined.player1_id, joined.last_seq) == ("active", guest.pk, 1)
    assert joined.turn_deadline is not None
    assert 44 <= (joined.turn_deadline - timezone.now()).total_seconds() <= 45
    with pytest.raises(GameError) as err:
        services.table_join(user=bob, token=table.invite_token)
    assert err.value.code == "table_full"
    assert services.table_join(user=guest, token=table.invite_token).last_seq == 1


def test_resigning_a_waiting_table_aborts_it(alice: Any, bob: Any) -> None:
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    services.match_resign(match_id=table.pk, user=alice)
    table.refresh_from_db()
    assert table.status == "aborted" and table.last_seq == 0
    with pytest.raises(GameError) as err:
        services.table_join(user=bob, token=table.invite_token)
    assert err.value.code == "match_over"


def _friend_match(alice: Any, bob: Any, timer: int | None = None) -> Match:
    # Casual (unrated): these tests resign at once, which would abort a rated match (docs/ratings.md).
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=timer,
                                  rated=False)
    return services.table_join(user=bob, token=table.invite_token)


def test_apply_action_appends_events_and_answers_repeats(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    match = _friend_match(alice, bob)
    users = {0: alice, 1: bob}
    actor = load(match).state.current_player
    applied = services.match_apply_action(
        match_id=match.pk, user=users[actor], action_text="PASS", client_seq=1, msg_id="a1"
    )
    assert applied == services.Applied(seq=2, last_seq=2, repeat=False)
    row = _events(match)[-1]
    assert (row.seq, row.type, row.seat, row.msg_id, row.payload) == (
        2,
        "action",
        actor,
        "a1",
        {"v": 1, "type": "action", "seat": actor, "action": "pass"},
    )
    again = services.match_apply_action(
        match_id=match.pk, user=users[actor], action_text="pass", client_seq=1, msg_id="a1"
    )
    assert again == services.Applied(seq=2, last_seq=2, repeat=True)
    assert MatchEvent.objects.filter(match=match).count() == 2
    for text, seq, code in (
        ("pass", 1, "stale_seq"),
        ("pass", 2, "out_of_turn"),
        ("take it", 2, "malformed_action"),
    ):
        with pytest.raises(GameError) as err:
            services.match_apply_action(
                match_id=match.pk, user=users[actor], action_text=text, client_seq=seq, msg_id="a2"
            )
        assert err.value.code == code
    with pytest.raises(GameError) as err:
        services.match_apply_action(
            match_id=match.pk,
            user=alice.__class__.objects.create(username="eve"),
            action_text="pass",
            client_seq=2,
            msg_id="a3",
        )
    assert err.value.code == "not_seated"
    match.refresh_from_db()
    assert match.last_seq == 2 and MatchEvent.objects.filter(match=match).count() == 2


def test_hand_end_deals_the_next_hand_in_the_same_write(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    match = _friend_match(alice, bob)
    played = play_until(match.pk, {0: alice, 1: bob}, hands=1)
    rows = _events(played)
    kinds = [r.type for r in rows]
    end = kinds.index("hand_end")
    assert kinds[end + 1] == "deal" and rows[end + 1].payload["hand"] == 2
    ender = rows[end - 1]
    assert ender.type == "action" and ender.msg_id and rows[end].msg_id == "" and rows[end + 1].msg_id == ""
    state = replay(
        RuleSet.from_dict(played.rules), played.first_dealer, [engine_event(r.payload) for r in rows]
    )
    assert list(state.scores) == played.scores == rows[end].payload["scores"]
    # the finished hand is revealed, and verifies; the hand in play is not
    reveal = selectors.hand_reveal(match=played, hand_number=1)
    assert reveal is not None and reveal["valid"] is True and reveal["deck"] == rows[0].payload["deck"]
    assert selectors.hand_reveal(match=played, hand_number=2) is None
    payload = selectors.match_state_payload(match=played, seat=0)
    assert payload["last_hand"]["number"] == 1 and payload["last_hand"]["salt"] == rows[0].payload["salt"]
    assert payload["last_hand"]["result"] == rows[end].payload["result"]
    assert payload["hand"]["number"] == 2 and payload["hand"]["last_action"] is None


def test_whole_match_against_each_bot_level(alice: Any, house_bots: Any, seeded_decks: list[int]) -> None:
    for level in (1, 5):
        match = services.match_create_vs_bot(user=alice, level=level, rules_preset="classic", target=50)
        done = play_until(match.pk, {0: alice})
        assert done.status == "finished" and done.result_reason == "target"
        assert max(done.scores) >= 50 and done.winner == done.scores.index(max(done.scores))
        rows = _events(done)
        assert {r.seat for r in rows if r.type == "action"} == {0, 1}
        rows_after = MatchEvent.objects.filter(match=done).count()
        assert services.match_play_bot_turn(match_id=done.pk) is None
        assert MatchEvent.objects.filter(match=done).count() == rows_after


def test_bot_turn_is_idempotent(
    alice: Any, house_bots: Any, seeded_decks: list[int], bot_waits: None
) -> None:
    match = services.match_create_vs_bot(user=alice, level=3, rules_preset="classic", target=100)
    state = load(match).state
    if state.current_player == 0:
        assert services.match_play_bot_turn(match_id=match.pk) is None
        services.match_apply_action(
            match_id=match.pk, user=alice, action_text="pass", client_seq=1, msg_id="x"
        )
    match.refresh_from_db()
    seq = match.last_seq
    assert services.match_play_bot_turn(match_id=match.pk, expected_seq=seq - 1) is None
    assert services.match_play_bot_turn(match_id=match.pk, expected_seq=seq) == seq + 1
    assert services.match_play_bot_turn(match_id=match.pk, expected_seq=seq) is None
    assert MatchEvent.objects.filter(match=match).count() == seq + 1


def test_resign_mid_match(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = _friend_match(alice, bob)
    applied = services.match_resign(match_id=match.pk, user=bob, msg_id="r")
    match.refresh_from_db()
    assert applied.seq == 2 and match.last_seq == 3
    assert (match.status, match.winner, match.result_reason) == ("finished", 0, "resign")
    assert [r.type for r in _events(match)] == ["deal", "resign", "match_end"]
    assert services.match_resign(match_id=match.pk, user=bob, msg_id="r").repeat
    with pytest.raises(GameError) as err:
        services.match_resign(match_id=match.pk, user=alice, msg_id="r2")
    assert err.value.code == "match_over"


def _expire(match: Match) -> int | None:
    Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    return services.match_expire_turn(match_id=match.pk)


def test_turn_timer_safe_moves_then_loss_on_time(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = _friend_match(alice, bob, timer=30)
    assert services.match_expire_turn(match_id=match.pk) is None  # not yet due
    late = load(match).state.current_player
    # 1st timeout of the non-dealer: pass
    assert _expire(match) == 2
    row = _events(match)[-1]
    assert (row.payload["action"], row.seat, row.auto) == ("pass", late, True)
    match.refresh_from_db()
    assert match.timeout_strikes[late] == 1 and match.turn_deadline > timezone.now()
    # the dealer times out too: pass
    assert _expire(match) == 3
    # 2nd timeout of the non-dealer, in the draw phase: draw stock, then the least-deadwood discard
    match.refresh_from_db()
    hand_before = load(match).state.hand.hands[late]
    assert _expire(match) == 5
    draw, discard = _events(match)[-2:]
    assert draw.payload["action"] == "draw stock" and discard.payload["action"].startswith("discard ")
    eleven = list(hand_before) + parse_cards(draw.payload["card"])
    dropped = parse_cards(discard.payload["action"].split()[1])[0]
    best = min(deadwood([c for c in eleven if c != x]) for x in eleven)
    assert deadwood([c for c in eleven if c != dropped]) == best
    # the other player moves: its strikes reset; then the late player's 3rd timeout loses the match
    match.refresh_from_db()
    other = 1 - late
    assert load(match).state.current_player == other
    services.match_apply_action(
        match_id=match.pk,
        user=(alice, bob)[other],
        action_text="draw stock",
        client_seq=match.last_seq,
        msg_id="o1",
    )
    match.refresh_from_db()
    services.match_apply_action(
        match_id=match.pk,
        user=(alice, bob)[other],
        action_text=f"discard {selectors.match_state_payload(match=match, seat=other)['hand']['cards'][-1]}",
        client_seq=match.last_seq,
        msg_id="o2",
    )
    match.refresh_from_db()
    assert match.timeout_strikes == [2, 0] if late == 0 else match.timeout_strikes == [0, 2]
    last = _expire(match)
    match.refresh_from_db()
    assert last == match.last_seq
    assert (match.status, match.winner, match.result_reason) == ("finished", other, "timeout")
    assert [r.type for r in _events(match)[-3:]] == ["timeout", "resign", "match_end"]
    assert services.match_expire_turn(match_id=match.pk) is None
    # the platform marker does not disturb the replay
    assert load(match).state.is_over


def test_event_log_is_append_only(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = _friend_match(alice, bob)
    row = MatchEvent.objects.get(match=match, seq=1)
    row.payload = {}
    with pytest.raises(AppendOnlyError):
        row.save()
    with pytest.raises(AppendOnlyError):
        row.delete()
    with pytest.raises(AppendOnlyError):
        MatchEvent.objects.filter(match=match).update(type="x")
    with pytest.raises(AppendOnlyError):
        MatchEvent.objects.filter(match=match).delete()
    assert MatchEvent.objects.get(match=match, seq=1).type == "deal"


def test_recent_matches(alice: Any, bob: Any, house_bots: Any, seeded_decks: list[int]) -> None:
    first = _friend_match(alice, bob)
    services.match_resign(match_id=first.pk, user=bob)
    second = services.match_create_vs_bot(user=alice, level=2, rules_preset="hoyle", target=100, rated=False)
    rows = selectors.matches_recent_for(user=alice)
    assert [r["id"] for r in rows] == [second.pk, first.pk]
    assert rows[0] | {"created_at": None} == {
        "id": second.pk,
        "url": f"/match/{second.pk}/",
        "opponent": "Bot 2 · Casual",
        "opponent_is_bot": True,
        "bot_level": 2,
        "preset": "hoyle",
        "target": 100,
        "status": "active",
        "my_score": 0,
        "opponent_score": 0,
        "result": "in_progress",
        "result_reason": None,
        "can_end": True,
        "created_at": None,
        "finished_at": None,
    }
    assert (rows[1]["result"], rows[1]["result_reason"], rows[1]["opponent"]) == ("won", "resign", "bob")
    assert [r["result"] for r in selectors.matches_recent_for(user=bob)] == ["lost"]


def test_expiry_sweep_moves_only_due_matches(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    due = _friend_match(alice, bob, timer=30)
    table = services.table_create(user=bob, rules_preset="classic", target=100, turn_timer=30)
    not_due = services.table_join(user=alice, token=table.invite_token)
    Match.objects.filter(pk=due.pk).update(turn_deadline=timezone.now() - timedelta(seconds=2))
    assert services.match_overdue_ids(grace_seconds=1.0) == [due.pk]
    assert services.match_sweep_server_moves(grace_seconds=1.0) == 1
    assert Match.objects.get(pk=due.pk).last_seq == 2 and Match.objects.get(pk=not_due.pk).last_seq == 1
    assert services.match_sweep_server_moves(grace_seconds=1.0) == 0


def test_state_payload_query_count(
    alice: Any, house_bots: Any, seeded_decks: list[int], django_assert_max_num_queries: Any,
    bot_waits: None,
) -> None:
    """The hot read (every broadcast, for every connected seat): the match with its players and the
    last two deals; the engine state comes from the replay cache."""
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    selectors.match_state_payload(match=selectors.match_get(match_id=match.pk), seat=0)  # warm
    with django_assert_max_num_queries(2):
        fresh = selectors.match_get(match_id=match.pk)
        assert selectors.match_state_payload(match=fresh, seat=0)["seq"] == 1


def test_postgresql_refuses_event_updates_in_the_database(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    from django.db import DatabaseError, connection, transaction

    if connection.vendor != "postgresql":
        pytest.skip("the database-level guard is PostgreSQL only (the model guards are tested above)")
    match = _friend_match(alice, bob)
    for sql in (
        "UPDATE games_matchevent SET type = 'x' WHERE match_id = %s",
        "DELETE FROM games_matchevent WHERE match_id = %s",
    ):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cur,
        ):
            cur.execute(sql, [match.pk])
    assert MatchEvent.objects.filter(match=match, type="deal").count() == 1


def test_id_reused_by_another_kind_is_refused_not_repeated(
    alice: Any, bob: Any, seeded_decks: list[int]
) -> None:
    match = FriendMatchFactory(host=alice, friend=bob, rated=False)
    users = {0: alice, 1: bob}
    actor = load(match).state.current_player
    services.match_apply_action(
        match_id=match.pk, user=users[actor], action_text="pass", client_seq=1, msg_id="same"
    )
    with pytest.raises(GameError) as err:
        services.match_resign(match_id=match.pk, user=users[actor], msg_id="same")
    assert err.value.code == "id_reused"
    match.refresh_from_db()
    assert (match.status, match.last_seq) == ("active", 2)
    # a fresh id resigns; resending that resign is a repeat
    done = services.match_resign(match_id=match.pk, user=users[actor], msg_id="r1")
    again = services.match_resign(match_id=match.pk, user=users[actor], msg_id="r1")
    assert again == services.Applied(seq=done.seq, last_seq=done.last_seq, repeat=True)
    match.refresh_from_db()
    assert (match.status, match.winner, match.result_reason) == ("finished", 1 - actor, "resign")
    # and an action reusing the resign's id is refused too
    with pytest.raises(GameError) as err:
        services.match_apply_action(
            match_id=match.pk, user=users[actor], action_text="pass", client_seq=match.last_seq, msg_id="r1"
        )
    assert err.value.code == "id_reused"


def test_action_text_is_lenient_and_stored_canonical(alice: Any, bob: Any, seeded_decks: list[int]) -> None:
    match = FriendMatchFactory(host=alice, friend=bob, rated=False)
    users = {0: alice, 1: bob}
    first = load(match).state.current_player
    for i, (seat, text) in enumerate(((first, "  Pass "), (1 - first, "PASS"), (first, "draw  Stock"))):
        services.match_apply_action(
            match_id=match.pk, user=users[seat], action_text=text, client_seq=1 + i, msg_id=f"l{i}"
        )
    assert [r.payload["action"] for r in _events(match)[1:]] == ["pass", "pass", "draw stock"]
    hand = selectors.match_state_payload(match=selectors.match_get(match_id=match.pk), seat=first)["hand"]
    card = hand["deadwood_if_discarded"] and sorted(hand["deadwood_if_discarded"])[0]
    services.match_apply_action(
        match_id=match.pk,
        user=users[first],
        action_text=f" DISCARD {card.upper()}",
        client_seq=4,
        msg_id="l3",
    )
    assert _events(match)[-1].payload["action"] == f"discard {card}"
