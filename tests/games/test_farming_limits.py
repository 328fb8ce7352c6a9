"""Limits that make farming slow (issue 25; docs/fairplay.md "Limits that make farming slow").

The attack replayed through the services: a member (``farmer``) and a second account of his
(``puppet``) open rated friend tables, each makes one move, then the puppet resigns. On the production
profile six such tables took 1500 -> 1591.45 for the farmer (1611.26 after eight). Now each of those
resignations is finished unrated (``unrated_why`` ``early_resign``), the pair's fourth rated match of
the day is refused (``pair_rated_limit``), one member keeps one waiting rated table and one active rated
match, and a marked account plays casual only.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from accounts.models import Standing
from games import rematch, services
from games.live import load
from games.models import Match, MatchStatus, ResultReason
from ratings.models import PlayerRating, RatingChange
from ratings.services import match_rate

pytestmark = pytest.mark.django_db


def _table(host: Any, *, rated: bool = True) -> Match:
    return services.table_create(user=host, rules_preset="classic", target=100, turn_timer=None, rated=rated)


def _code(call: Any) -> str:
    with pytest.raises(services.GameError) as refused:
        call()
    return refused.value.code


def _move(match_id: int, users: dict[int, Any], moves: int) -> None:
    """Each seat makes ``moves`` moves of its own (a pass or a stock draw, else a discard: never a
    knock), in turn order."""
    made = {0: 0, 1: 0}
    while min(made.values()) < moves:
        match = Match.objects.get(pk=match_id)
        live = load(match)
        seat = live.state.current_player
        assert seat is not None
        legal = [str(a) for a in live.state.legal_actions(seat)]
        action = next((a for a in ("pass", "draw stock") if a in legal),
                      next((a for a in legal if a.startswith("discard")), legal[0]))
        services.match_apply_action(match_id=match_id, user=users[seat], action_text=action,
                                    client_seq=match.last_seq, msg_id=f"m-{seat}-{match.last_seq}")
        made[seat] += 1


def _farm_once(farmer: Any, puppet: Any, moves: int = 1) -> Match:
    """One round of the attack: a rated table of the farmer, the puppet joins, ``moves`` each, the
    puppet resigns; then the ratings app's own write is run on it (``match_rate``)."""
    table = _table(farmer)
    services.table_join(user=puppet, token=table.invite_token)
    _move(table.pk, {0: farmer, 1: puppet}, moves)
    services.match_resign(match_id=table.pk, user=puppet, msg_id=f"resign-{table.pk}")
    match_rate(match_id=table.pk)
    return Match.objects.get(pk=table.pk)


def _rating(user: Any) -> float | None:
    return PlayerRating.objects.filter(user=user).values_list("rating", flat=True).first()


def test_the_farming_replay_moves_no_rating_and_the_fourth_table_is_refused(alice: Any, bob: Any) -> None:
    farmer, puppet = alice, bob
    done = [_farm_once(farmer, puppet) for _ in range(3)]
    for match in done:
        assert (match.status, match.result_reason, match.winner) == (
            MatchStatus.FINISHED, ResultReason.RESIGN, 0)  # the win is kept...
        assert (match.rated, match.unrated_why) == (False, "early_resign")  # ...but it is not rated
    assert not RatingChange.objects.exists()
    assert _rating(farmer) in (None, 1500.0) and _rating(puppet) in (None, 1500.0)
    # The fourth rated table of the pair within 24 hours: the farmer may open it (its guest is unknown
    # yet), the puppet may not take it.
    fourth = _table(farmer)
    with pytest.raises(services.RatedRefused) as refused:
        services.table_join(user=puppet, token=fourth.invite_token)
    assert refused.value.code == "pair_rated_limit"
    assert refused.value.message == ("you and alice have started 3 rated matches against each other in the"
                                     " last 24 hours, the most a day allows: play casual, or rated again"
                                     " tomorrow")
    fourth.refresh_from_db()
    assert (fourth.status, fourth.player1_id) == (MatchStatus.WAITING, None)
    # ...and that waiting table is his one rated table: a fifth and sixth are refused outright.
    assert _code(lambda: _table(farmer)) == "rated_table_waiting"
    # Casual play between them stays open.
    casual = _table(farmer, rated=False)
    services.table_join(user=puppet, token=casual.invite_token)
    assert Match.objects.get(pk=casual.pk).status == MatchStatus.ACTIVE


def test_the_attack_before_the_limits_reproduces_the_measured_transfer(
        alice: Any, bob: Any, settings: Any) -> None:
    """The same replay with the limits switched off (no early-resignation rule, no pair cap): the
    production profile's numbers, worked by the ratings app (1500 -> 1591.45 after six, 1611.26 after
    eight): what the limits above take away."""
    settings.GAMES_RATED_MIN_MOVES = 0
    settings.GAMES_PAIR_RATED_PER_DAY = 1000
    for _ in range(6):
        assert _farm_once(alice, bob).rated
    assert round(_rating(alice) or 0, 2) == 1591.45 and round(_rating(bob) or 0, 2) == 1408.55
    for _ in range(2):
        _farm_once(alice, bob)
    assert round(_rating(alice) or 0, 2) == 1611.26


def test_an_attacker_who_plays_three_moves_each_gets_three_transfers_a_day(alice: Any, bob: Any) -> None:
    """The attack adapted to the move rule (three moves each, then the resignation): the first three
    are rated (1500 -> 1520 -> 1537.71 -> 1553.43, K 40), every later attempt of the day is refused at
    the join, so eight attempts end where three do: 1553.43 (against 1611.26 without the limits)."""
    refused = 0
    for attempt in range(8):
        table = _table(alice)
        try:
            services.table_join(user=bob, token=table.invite_token)
        except services.RatedRefused as exc:
            assert exc.code == "pair_rated_limit"
            refused += 1
            services.match_resign(match_id=table.pk, user=alice)  # closes the waiting table
            continue
        _move(table.pk, {0: alice, 1: bob}, 3)
        services.match_resign(match_id=table.pk, user=bob, msg_id=f"resign-{attempt}")
        match_rate(match_id=table.pk)
        if attempt == 5:
            assert round(_rating(alice) or 0, 2) == 1553.43
    assert refused == 5 and RatingChange.objects.filter(player=alice).count() == 3
    assert round(_rating(alice) or 0, 2) == 1553.43 and round(_rating(bob) or 0, 2) == 1446.57


def test_a_resignation_after_three_moves_each_is_rated(alice: Any, bob: Any) -> None:
    match = _farm_once(alice, bob, moves=3)
    assert (match.rated, match.unrated_why) == (True, "")
    [won] = RatingChange.objects.filter(match=match, player=alice)
    assert won.before == 1500.0 and won.after > 1500.0


def test_an_early_resignation_of_a_seated_match_keeps_its_winner(alice: Any, bob: Any) -> None:
    """A tournament's board (``match_create_seated``) resigned after one move each: finished with its
    winner (the tournament gets its result), not rated."""
    board = services.match_create_seated(player0=alice, player1=bob, rated=True)
    _move(board.pk, {0: alice, 1: bob}, 1)
    services.match_resign(match_id=board.pk, user=alice)
    board.refresh_from_db()
    assert (board.status, board.winner, board.rated, board.unrated_why) == (
        MatchStatus.FINISHED, 1, False, "early_resign")
    assert match_rate(match_id=board.pk) == []


def test_one_waiting_rated_table_and_one_active_rated_match(
        alice: Any, bob: Any, guest: Any, house_bots: list[Any]) -> None:
    from tests.factories import UserFactory

    carol = UserFactory(username="carol")
    first = _table(alice)
    assert _code(lambda: _table(alice)) == "rated_table_waiting"
    assert _table(alice, rated=False).rated is False  # a casual table is never limited
    # Alice sits down at Bob's rated table: now in an active rated match, she may not open another
    # rated table, join another, or start a rated bot match.
    services.match_resign(match_id=first.pk, user=alice)  # her waiting table closed
    bobs = _table(bob)
    services.table_join(user=alice, token=bobs.invite_token)
    assert _code(lambda: _table(alice)) == "match_in_progress"
    carols = _table(carol)
    assert _code(lambda: services.table_join(user=alice, token=carols.invite_token)) == "match_in_progress"
    assert _code(lambda: services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100,
                                                      one_active=True)) == "match_in_progress"
    # A host in a rated match elsewhere: nobody may join that host's rated table.
    carol_busy = services.match_create_vs_bot(user=carol, level=1, rules_preset="classic", target=100)
    assert carol_busy.rated
    dave = UserFactory(username="dave")
    refused = _code(lambda: services.table_join(user=dave, token=carols.invite_token))
    assert refused == "opponent_in_rated_match"
    # A guest joining makes the table casual: no limit applies.
    services.table_join(user=guest, token=carols.invite_token)
    assert Match.objects.get(pk=carols.pk).rated is False


@pytest.mark.django_db(transaction=True)
def test_two_racing_joins_of_two_rated_tables_seat_the_player_once(alice: Any, bob: Any) -> None:
    from tests.factories import UserFactory

    carol = UserFactory(username="carol")
    tables = [_table(bob), _table(carol)]
    barrier = threading.Barrier(2)
    joined: list[int] = []
    refused: list[str] = []
    errors: list[BaseException] = []

    def join(table: Match) -> None:
        try:
            barrier.wait(timeout=10)
            joined.append(services.table_join(user=alice, token=table.invite_token).pk)
        except services.GameError as exc:
            refused.append(exc.code)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=join, args=(t,)) for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(joined) == 1 and refused == ["match_in_progress"]
    assert list(Match.objects.filter(status=MatchStatus.ACTIVE).values_list("pk", flat=True)) == joined


def _finished_friend_match(a: Any, b: Any) -> Match:
    table = _table(a)
    services.table_join(user=b, token=table.invite_token)
    _move(table.pk, {0: a, 1: b}, 3)
    services.match_resign(match_id=table.pk, user=b)
    return Match.objects.get(pk=table.pk)


def test_a_rated_rematch_counts_against_the_pair_cap(alice: Any, bob: Any, settings: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rematch, "is_here", lambda match, seat: True)
    settings.GAMES_PAIR_RATED_PER_DAY = 2
    first = _finished_friend_match(alice, bob)
    rematch.rematch_offer(match_id=first.pk, user=alice)
    done = rematch.rematch_accept(match_id=first.pk, user=bob)
    second = Match.objects.get(pk=done.new_match_id)
    assert second.rated
    _move(second.pk, {0: alice, 1: bob}, 3)
    services.match_resign(match_id=second.pk, user=alice)
    # Two rated matches today: the rematch of the second is refused when offered.
    assert _code(lambda: rematch.rematch_offer(match_id=second.pk, user=bob)) == "pair_rated_limit"


def test_the_rematch_of_an_early_resignation_is_rated_again(alice: Any, bob: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rematch, "is_here", lambda match, seat: True)
    early = _farm_once(alice, bob)
    assert (early.rated, early.unrated_why) == (False, "early_resign")
    rematch.rematch_offer(match_id=early.pk, user=bob)
    done = rematch.rematch_accept(match_id=early.pk, user=alice)
    assert Match.objects.get(pk=done.new_match_id).rated


def _mark(user: Any) -> None:
    type(user).objects.filter(pk=user.pk).update(standing=Standing.MARKED)


def test_a_marked_account_plays_casual_only(alice: Any, bob: Any, house_bots: list[Any],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rematch, "is_here", lambda match, seat: True)
    earlier = _finished_friend_match(alice, bob)
    waiting = _table(bob)
    _mark(alice)  # the request's user object still says "good": the stored standing decides
    with pytest.raises(services.RatedRefused) as refused:
        services.match_create_vs_bot(user=alice, level=2, rules_preset="classic", target=100)
    assert refused.value.code == "account_marked"
    assert refused.value.message == ("your account is under fair-play review: you may play casual matches"
                                     " only (choose Casual)")
    assert _code(lambda: _table(alice)) == "account_marked"
    assert _code(lambda: services.table_join(user=alice, token=waiting.invite_token)) == "account_marked"
    assert _code(lambda: rematch.rematch_offer(match_id=earlier.pk, user=alice)) == "account_marked"
    # Her opponents are told why too.
    assert _code(lambda: rematch.rematch_offer(match_id=earlier.pk, user=bob)) == "opponent_marked"
    marked_table = Match.objects.create(
        rules=waiting.rules, preset="classic", player0=alice, status=MatchStatus.WAITING,
        invite_token="marked-table", turn_timer_seconds=60, scores=[0, 0], timeout_strikes=[0, 0], rated=True)
    assert _code(lambda: services.table_join(user=bob, token=marked_table.invite_token)) == "opponent_marked"
    assert Match.objects.filter(player0=alice, rated=True, status=MatchStatus.ACTIVE).count() == 0
    # Casual play stays open to her.
    bot = services.match_create_vs_bot(user=alice, level=2, rules_preset="classic", target=100, rated=False)
    assert (bot.status, bot.rated) == (MatchStatus.ACTIVE, False)
    casual = _table(alice, rated=False)
    services.table_join(user=bob, token=casual.invite_token)
    assert Match.objects.get(pk=casual.pk).status == MatchStatus.ACTIVE


@pytest.mark.parametrize(("language", "text"), [
    ("en", "your account is under fair-play review: you may play casual matches only (choose Casual)"),
    ("pt-br", "sua conta está em análise de jogo limpo: você só pode jogar partidas casuais (escolha"
              " Casual)"),
])
def test_the_forms_say_the_refusal_in_the_readers_language(
        alice: Any, house_bots: list[Any], language: str, text: str) -> None:
    _mark(alice)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(alice)
    response = client.post(reverse("games:new_friend_table"), {
        "preset": "classic", "target": "100", "turn_timer": "", "rated": "true"})
    assert response.status_code == 400
    assert text in response.content.decode()
    assert not Match.objects.exists()


@pytest.mark.parametrize(("language", "text"), [
    ("en", "you and alice have started 3 rated matches against each other in the last 24 hours, the most a"
           " day allows: play casual, or rated again tomorrow"),
    ("pt-br", "você e alice já começaram 3 partidas valendo rating um contra o outro nas últimas 24 horas, o"
              " máximo permitido por dia: joguem casual, ou valendo rating de novo amanhã"),
])
def test_the_join_page_says_the_pair_cap_in_the_readers_language(
        alice: Any, bob: Any, language: str, text: str) -> None:
    for _ in range(3):
        _farm_once(alice, bob)
    table = _table(alice)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(bob)
    response = client.post(reverse("games:join", args=[table.invite_token]), follow=True)
    assert text in response.content.decode()
    assert Match.objects.get(pk=table.pk).status == MatchStatus.WAITING


def test_the_new_match_page_says_the_limits_before_the_submit(alice: Any, bob: Any) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="pt-br")
    client.force_login(alice)
    blank = client.get(reverse("games:new_friend_table")).content.decode()
    assert 'data-testid="friend-rated-waiting"' not in blank
    assert 'data-testid="friend-rated-marked"' not in blank
    table = _table(alice)
    page = client.get(reverse("games:new_friend_table")).content.decode()
    notice = page[page.index('data-testid="friend-rated-waiting"'):]
    notice = notice[:notice.index("</p>")]
    assert "Sua mesa valendo rating ainda está esperando um amigo" in notice
    assert f'href="{reverse("games:table", args=[table.pk])}"' in notice
    _mark(alice)
    page = client.get(reverse("games:new_bot_match")).content.decode()
    assert ('data-testid="bot-rated-marked">Sua conta está em análise de jogo limpo: você só pode jogar'
            ' partidas casuais.</p>') in page
