"""The bot API's moves (docs/bot-api.md "Actions", "Fair limits"): ``POST match/<id>/action/``,
``resign/``, ``match/house/``; every refusal carries the engine's (or the socket's) code and leaves the
match exactly as it was; the table socket refuses a BOT account's moves (``bot_api_only``)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from tests.botapi.conftest import BotApi, error_of
from tests.botapi.conftest import pair as _pair

pytestmark = pytest.mark.django_db


def _bot_match(p0: Any, p1: Any, **options: Any) -> Any:
    """A casual match between two BOT accounts with a 120 s timer: nobody moves but the tests."""
    from games import services

    return services.match_create_seated(player0=p0, player1=p1, turn_timer=120, **options)


def _snapshot(match_id: int) -> tuple[Any, ...]:
    """What a refused request must leave unchanged: the row's seq, status, scores, deadline, strikes and
    the number of stored events."""
    from games.models import Match, MatchEvent

    m = Match.objects.get(pk=match_id)
    return (m.last_seq, m.status, list(m.scores), m.turn_deadline, list(m.timeout_strikes), m.winner,
            MatchEvent.objects.filter(match_id=match_id).count())


def _state(match_id: int) -> Any:
    from games.live import load
    from games.models import Match

    return load(Match.objects.get(pk=match_id)).state


def _engine_code(state: Any, text: str, seat: int) -> str | None:
    """The code the engine itself gives ``text`` played by ``seat`` now (None: legal)."""
    from engine.actions import Action
    from engine.errors import EngineError, IllegalActionError

    try:
        action = Action.parse(text)
        state.clone().apply(action, seat)
    except IllegalActionError as exc:
        return str(exc.code)
    except EngineError:
        return "illegal_action"
    return None


@pytest.fixture
def two_bots(make_bot: Callable[..., tuple[Any, str]]) -> tuple[tuple[Any, BotApi], tuple[Any, BotApi]]:
    (robo, t0), (robo2, t1) = _pair(make_bot("robo")), _pair(make_bot("robo2"))
    return (robo, BotApi(t0)), (robo2, BotApi(t1))


def test_every_illegal_post_is_refused_with_the_engines_code_and_changes_nothing(two_bots: Any) -> None:
    """A walk through a match: at each position both seats post the non-card actions and discards and
    knocks of held, unheld and upcard cards; each one the engine refuses comes back 400 with the
    engine's own code and the match unchanged; then the mover plays a legal move (seeded choice)."""
    from engine.cards import card_name

    (robo, api0), (robo2, api1) = two_bots
    match = _bot_match(robo, robo2)
    apis = {0: api0, 1: api1}
    rng = random.Random(27)
    seen: dict[str, int] = {}
    for _step in range(16):
        state = _state(match.pk)
        if state.is_over:
            break
        mover = state.current_player
        for seat in (0, 1):
            view = state.view(seat)
            held = [card_name(c) for c in view.hand]
            upcard = None if view.upcard is None else card_name(view.upcard)
            unheld = next(t for t in ("As", "Kd", "5h", "Tc", "2c") if t not in held and t != upcard)
            cards = {held[0], held[-1], unheld} | ({upcard} if upcard is not None else set())
            candidates = ["take", "pass", "draw stock", "draw discard", "knock", "fold", "discard Zz",
                          *(f"{verb} {card}" for verb in ("discard", "knock") for card in sorted(cards))]
            for text in candidates:
                malformed = text in ("fold", "discard Zz")
                expected = "malformed_action" if malformed else _engine_code(state, text, seat)
                if expected is None:
                    continue
                before = _snapshot(match.pk)
                response = apis[seat].post(f"match/{match.pk}/action/", {"action": text, "seq": before[0]})
                assert error_of(response) == (400, expected), (text, seat, response.json())
                assert _snapshot(match.pk) == before, text
                seen[expected] = seen.get(expected, 0) + 1
        legal = [str(a) for a in state.legal_actions(mover)]
        choice = rng.choice(sorted(legal))
        before = _snapshot(match.pk)
        response = apis[mover].post(f"match/{match.pk}/action/", {"action": choice, "seq": before[0]})
        assert response.status_code == 200, response.json()
        answer = response.json()
        assert answer["seq"] == before[0] + 1 and answer["repeat"] is False
        assert answer["last_seq"] == _snapshot(match.pk)[0] >= answer["seq"]
    assert {"out_of_turn", "wrong_phase", "card_not_held", "malformed_action"} <= set(seen), seen


def test_a_retried_id_is_answered_as_a_repeat_and_applied_once(two_bots: Any) -> None:
    (robo, api0), (robo2, api1) = two_bots
    match = _bot_match(robo, robo2)
    state = _state(match.pk)
    mover = state.current_player
    api = api0 if mover == 0 else api1
    action = str(state.legal_actions(mover)[0])
    first = api.post(f"match/{match.pk}/action/", {"action": action, "seq": match.last_seq, "id": "r-1"})
    assert first.status_code == 200
    after = _snapshot(match.pk)
    again = api.post(f"match/{match.pk}/action/", {"action": action, "seq": match.last_seq, "id": "r-1"})
    assert again.status_code == 200
    assert again.json() == {**first.json(), "repeat": True}
    assert _snapshot(match.pk) == after


def test_stale_and_future_seq_are_refused(two_bots: Any) -> None:
    (robo, api0), (robo2, api1) = two_bots
    match = _bot_match(robo, robo2)
    state = _state(match.pk)
    mover = state.current_player
    api = api0 if mover == 0 else api1
    action = str(state.legal_actions(mover)[0])
    before = _snapshot(match.pk)
    for seq in (before[0] - 1, before[0] + 1, 0):
        response = api.post(f"match/{match.pk}/action/", {"action": action, "seq": seq})
        assert error_of(response) == (400, "stale_seq")
        assert _snapshot(match.pk) == before


@pytest.mark.parametrize(("raw", "content_type", "why"), [
    (b"{not json", "application/json", "not valid JSON"),
    (b"[1, 2]", "application/json", "JSON object"),
    (b'"discard Kc"', "application/json", "JSON object"),
    (b'{"action": "pass", "seq": NaN}', "application/json", "not valid JSON"),
    (b'{"action": "pass", "action": "take", "seq": 1}', "application/json", "not valid JSON"),
    (b'{"action": "pass", "seq": "1"}', "application/json", "'seq' must be an integer"),
    (b'{"action": "pass", "seq": true}', "application/json", "'seq' must be an integer"),
    (b'{"action": "pass", "seq": 1.0}', "application/json", "'seq' must be an integer"),
    (b'{"action": 5, "seq": 1}', "application/json", "'action' must be a string"),
    (b'{"seq": 1}', "application/json", "'action' is missing"),
    (b'{"action": "pass"}', "application/json", "'seq' is missing"),
    (b'{"action": "pass", "seq": -1}', "application/json", "'seq' must be 0.."),
    (b'{"action": "pass\\u0000", "seq": 1}', "application/json", "NUL"),
    (b'{"action": "pass", "seq": 1, "id": "a\\u0000"}', "application/json", "NUL"),
    (b'{"action": "pass", "seq": 1, "x": "\x00"}', "application/json", "NUL"),
    (b'{"action": "pass", "seq": 1, "id": ""}', "application/json", "'id' must be 1 to 64"),
    (('{"action": "pass", "seq": 1, "id": "' + "x" * 65 + '"}').encode(), "application/json",
     "'id' must be 1 to 64"),
    (b"action=pass&seq=1", "application/x-www-form-urlencoded", "Content-Type: application/json"),
    (('{"action": "pass", "seq": 1, "pad": "' + "x" * 4100 + '"}').encode(), "application/json", "over 4096"),
    # past Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB): still the API's JSON refusal, never Django's page
    (b'{"pad": "' + b"x" * 3_000_000 + b'"}', "application/json", "over 4096"),
])
def test_malformed_bodies_are_bad_request_and_change_nothing(
    two_bots: Any, raw: bytes, content_type: str, why: str
) -> None:
    (robo, api0), (robo2, api1) = two_bots
    match = _bot_match(robo, robo2)
    before = _snapshot(match.pk)
    for api in (api0, api1):
        response = api.post(f"match/{match.pk}/action/", raw=raw, content_type=content_type)
        assert error_of(response) == (400, "bad_request"), response.json()
        assert why in response.json()["message"]
    assert _snapshot(match.pk) == before


def test_who_may_post_a_move(two_bots: Any, make_bot: Any, make_token: Any, alice: Any) -> None:
    """Not seated: 403 ``not_seated``; no such match: 404 ``no_such_match``; a member that is not a BOT
    account: 403 ``not_bot``; all change nothing."""
    (robo, api0), (robo2, _api1) = two_bots
    match = _bot_match(robo, robo2)
    state = _state(match.pk)
    action = str(state.legal_actions(state.current_player)[0])
    before = _snapshot(match.pk)
    _third, token = _pair(make_bot("robo3"))
    body = {"action": action, "seq": before[0]}
    assert error_of(BotApi(token).post(f"match/{match.pk}/action/", body)) == (403, "not_seated")
    assert error_of(api0.post(f"match/{match.pk + 1000}/action/", body)) == (404, "no_such_match")
    assert error_of(BotApi(make_token(alice)).post(f"match/{match.pk}/action/", body)) == (403, "not_bot")
    assert _snapshot(match.pk) == before


def test_a_second_move_while_one_is_applied_is_move_in_flight(two_bots: Any) -> None:
    """The lock held (as a first request holds it while its move is applied): the second is 429
    ``move_in_flight`` and applies nothing; the lock gone, the same move is accepted."""
    from django.core.cache import cache

    (robo, api0), (robo2, api1) = two_bots
    match = _bot_match(robo, robo2)
    state = _state(match.pk)
    mover = state.current_player
    user, api = (robo, api0) if mover == 0 else (robo2, api1)
    body = {"action": str(state.legal_actions(mover)[0]), "seq": match.last_seq}
    key = f"botapi:move:{match.pk}:{user.pk}"
    assert cache.add(key, 1, timeout=60)
    before = _snapshot(match.pk)
    assert error_of(api.post(f"match/{match.pk}/action/", body)) == (429, "move_in_flight")
    assert error_of(api.post(f"match/{match.pk}/resign/")) == (429, "move_in_flight")
    assert _snapshot(match.pk) == before
    # the other seat's lock is its own
    other = api1 if mover == 0 else api0
    assert error_of(other.post(f"match/{match.pk}/action/", body)) == (400, "out_of_turn")
    cache.delete(key)
    assert api.post(f"match/{match.pk}/action/", body).status_code == 200
    assert cache.get(key) is None  # released after the answer
    assert _snapshot(match.pk)[0] == before[0] + 1


def test_resign_ends_the_match_and_later_moves_are_match_over(two_bots: Any) -> None:
    from games.models import Match, MatchStatus

    (robo, api0), (robo2, api1) = two_bots
    match = _bot_match(robo, robo2)
    start = match.last_seq
    response = api1.post(f"match/{match.pk}/resign/", {"id": "res-1"})
    assert response.status_code == 200
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.winner == 0 and match.result_reason == "resign"
    # the resignation's event, then the match's end
    assert response.json() == {"seq": start + 1, "last_seq": match.last_seq} and match.last_seq > start + 1
    before = _snapshot(match.pk)
    assert error_of(api0.post(f"match/{match.pk}/action/", {"action": "pass", "seq": before[0]})) == (
        400, "match_over")
    assert error_of(api0.post(f"match/{match.pk}/resign/")) == (400, "match_over")
    assert _snapshot(match.pk) == before
    assert Match.objects.get(pk=match.pk).winner == 0


def test_house_match_has_a_timer_and_the_chosen_settings(make_bot: Any, house_bots: Any) -> None:
    from games.models import Match

    robo, token = _pair(make_bot("robo"))
    api = BotApi(token)
    response = api.post("match/house/", {"level": 2})
    assert response.status_code == 201, response.json()
    got = response.json()["match"]
    match = Match.objects.get(pk=got["id"])
    assert (match.player0_id, match.player1_id, match.bot_level) == (robo.pk, house_bots[1].pk, 2)
    assert match.turn_timer_seconds == 30 and match.rated
    assert got["seat"] == 0 and got["turn_timer"] == 30 and got["rated"] is True and got["target"] == 100
    assert got["opponent"]["house_bot_level"] == 2 and got["opponent"]["bot_account"] is False
    response = api.post("match/house/", {"level": 5, "target": 50, "rated": False, "turn_timer": 120})
    match = Match.objects.get(pk=response.json()["match"]["id"])
    assert (match.turn_timer_seconds, match.rated, match.rules["target"], match.bot_level) == (
        120, False, 50, 5)


@pytest.mark.parametrize(("body", "code"), [
    ({"level": 6}, "bad_settings"), ({"level": 0}, "bad_settings"), ({"level": 3, "turn_timer": 121},
                                                                      "bad_settings"),
    ({"level": 3, "turn_timer": 14}, "bad_settings"), ({"level": 3, "target": 75}, "bad_settings"),
    ({"level": 3, "preset": "nope"}, "bad_settings"), ({"level": "3"}, "bad_request"), ({}, "bad_request"),
    ({"level": 3, "rated": 1}, "bad_request"),
])
def test_house_match_refusals_create_nothing(make_bot: Any, house_bots: Any, body: Any, code: str) -> None:
    from games.models import Match

    _robo, token = _pair(make_bot("robo"))
    assert error_of(BotApi(token).post("match/house/", body)) == (400, code)
    assert Match.objects.count() == 0


def test_a_bot_plays_several_matches_at_once_up_to_the_cap(
    make_bot: Any, house_bots: Any, alice: Any, settings: Any
) -> None:
    """``GAMES_BOT_ACTIVE_MATCHES`` 3: three house matches (rated or not) start, the fourth is refused
    ``match_in_progress``; a person keeps their one rated match."""
    from games import services
    from games.models import Match, MatchStatus

    settings.GAMES_BOT_ACTIVE_MATCHES = 3
    robo, token = _pair(make_bot("robo"))
    api = BotApi(token)
    ids = [api.post("match/house/", {"level": 1, "rated": rated}).json()["match"]["id"] for rated in
           (True, False, True)]
    assert Match.objects.filter(pk__in=ids, status=MatchStatus.ACTIVE).count() == 3
    for rated in (True, False):
        assert error_of(api.post("match/house/", {"level": 1, "rated": rated})) == (400, "match_in_progress")
    assert services.active_rated_match_id(user_id=robo.pk) == ids[0]
    assert Match.objects.count() == 3
    api.post(f"match/{ids[1]}/resign/")
    assert api.post("match/house/", {"level": 1}).status_code == 201
    # a person: one active rated match, also against the BOT
    services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100, one_active=True)
    with pytest.raises(services.MatchInProgress):
        services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100, one_active=True)


@pytest.mark.django_db(transaction=True)
async def test_the_table_socket_refuses_a_bot_accounts_moves(make_bot: Any) -> None:
    from channels.db import database_sync_to_async

    from tests.games.wsclient import connect, recv

    robo = (await database_sync_to_async(make_bot)("robo")).user
    robo2 = (await database_sync_to_async(make_bot)("robo2")).user
    match = await database_sync_to_async(_bot_match)(robo, robo2)
    before = await database_sync_to_async(_snapshot)(match.pk)
    comm, _state_msg = await connect(robo, match.pk)
    try:
        for message in ({"type": "action", "id": "a-1", "seq": before[0], "action": "pass"},
                        {"type": "resign", "id": "a-2"}):
            await comm.send_json_to(message)
            error = await recv(comm)
            assert (error["type"], error["code"], error["id"]) == ("error", "bot_api_only", message["id"])
    finally:
        await comm.disconnect()
    assert await database_sync_to_async(_snapshot)(match.pk) == before


@pytest.mark.parametrize(("add_fails", "logged"), [
    (True, "bot API move lock: cache unavailable (ConnectionError), move allowed"),
    (False, "bot API move lock: cache unavailable (ConnectionError), lock left to expire"),
])
def test_a_cache_outage_lets_the_move_through(
    two_bots: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, add_fails: bool,
    logged: str,
) -> None:
    """The move lock lives in the cache; the cache down (before the move, or only at the release), the
    move is applied all the same (the match row's lock serializes writes) and the failure is logged."""
    import logging

    from botapi import views

    class Down:
        def add(self, *args: Any, **kwargs: Any) -> Any:
            if add_fails:
                raise ConnectionError("cache down")
            return True

        def delete(self, *args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("cache down")

    (robo, api0), (robo2, api1) = two_bots
    match = _bot_match(robo, robo2)
    state = _state(match.pk)
    api = api0 if state.current_player == 0 else api1
    body = {"action": str(state.legal_actions(state.current_player)[0]), "seq": match.last_seq}
    monkeypatch.setattr(views, "cache", Down())
    with caplog.at_level(logging.WARNING, logger="botapi.views"):
        answer = api.post(f"match/{match.pk}/action/", body)
    assert answer.status_code == 200 and answer.json()["seq"] == match.last_seq + 1
    assert _snapshot(match.pk)[0] == match.last_seq + 1
    assert [r.getMessage() for r in caplog.records if "move lock" in r.getMessage()] == [logged]


def test_a_wrong_method_names_the_right_one(make_bot: Any) -> None:
    """``GET`` on a ``POST`` endpoint: 405 ``method_not_allowed`` saying what it takes (not the public
    API's "read-only"), ``Allow`` the same."""
    _robo, token = _pair(make_bot("robo"))
    refused = BotApi(token).get("account/upgrade/")
    assert error_of(refused) == (405, "method_not_allowed")
    assert refused["Allow"] == "POST, OPTIONS"
    assert refused.json()["message"] == "use POST, OPTIONS"


@pytest.mark.parametrize("size", [5_000, 3_000_000])
def test_a_chunked_body_too_big_is_the_apis_refusal(rf: Any, size: int) -> None:
    """A body sent without ``Content-Length`` (chunked) is measured once read: over 4 KB it is
    ``bad_request``, also past Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``, where reading it raises
    Django's ``RequestDataTooBig`` (whose page is HTML, not the API's JSON)."""
    import io

    from rest_framework.request import Request

    from botapi.base import body
    from botapi.errors import BotApiError

    raw = b'{"pad": "' + b"x" * size + b'"}'
    request = rf.post("/api/v1/bot/match/1/action/", data=b"", content_type="application/json")
    request.META.pop("CONTENT_LENGTH", None)
    request._stream = io.BytesIO(raw)  # what a chunked body's reader hands Django
    with pytest.raises(BotApiError) as refused:
        body(Request(request))
    assert (refused.value.code, refused.value.status_code, refused.value.message) == (
        "bad_request", 400, "the body is over 4096 bytes")
