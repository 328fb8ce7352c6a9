"""The bot API's two ndjson streams (docs/bot-api.md "The event stream", "The match stream"), read with
Django's ``AsyncClient`` while a match between two BOT accounts is played through ``games.services``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from accounts.tokens import token_revoke
from engine.cards import card_names, parse_cards
from engine.melds import deadwood_after_discards
from games import services
from games.live import load
from games.models import Match
from lobby import challenges
from lobby.seeks import Settings
from push.groups import bot_events_group
from tests.botapi.conftest import Bot
from tests.botapi.streamreader import Stream, open_stream
from tests.factories import UserFactory

# transaction=True: the streams read the database from other threads, and on_commit pushes fire.
pytestmark = pytest.mark.django_db(transaction=True)

in_thread = sync_to_async


def match_path(match_id: int) -> str:
    return reverse("botapi:match_stream", args=[match_id])


EVENTS = "/api/v1/bot/stream/events/"


def choose(view: dict[str, Any]) -> str:
    """A decent move from ``V``: knock at the least deadwood, pass the upcard, draw the stock, else the
    discard that leaves the least deadwood."""
    legal = view["legal_actions"]
    after = deadwood_after_discards(parse_cards(" ".join(view["hand"])))
    named = {card_names([c])[0]: dw for c, dw in after.items()}
    if "knock" in legal:
        return "knock"
    knocks = [a for a in legal if a.startswith("knock ")]
    if knocks:
        return min(knocks, key=lambda a: named[a.split()[1]])
    for simple in ("pass", "draw stock"):
        if simple in legal:
            return simple
    return min((a for a in legal if a.startswith("discard")), key=lambda a: (named[a.split()[1]], a))


def seated(a: Bot, b: Bot, **options: Any) -> Match:
    return services.match_create_seated(player0=a.user, player1=b.user, **options)


def test_the_urls_are_the_documented_paths() -> None:
    assert reverse("botapi:stream_events") == EVENTS
    assert match_path(12) == "/api/v1/bot/match/12/stream/"


async def test_match_stream_plays_a_match_to_its_end(bot_a: Bot, bot_b: Bot) -> None:
    match = await in_thread(seated)(bot_a, bot_b)
    bots = {0: bot_a, 1: bot_b}
    streams: dict[int, Stream] = {}
    for seat in (0, 1):
        response, stream = await open_stream(match_path(match.pk), bots[seat].token)
        assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
        assert stream is not None
        streams[seat] = stream
    live = await in_thread(load)(match)
    for seat in (0, 1):
        full = await streams[seat].obj()
        assert full is not None
        assert {k: full[k] for k in ("type", "v", "id", "seat", "rated", "target", "turn_timer")} == {
            "type": "matchFull", "v": 1, "id": match.pk, "seat": seat, "rated": False, "target": 100,
            "turn_timer": None}
        assert [p["username"] for p in full["players"]] == ["bota", "botb"]
        assert all(p["bot_account"] and p["house_bot_level"] is None for p in full["players"])
        assert full["rules"] == match.rules
        state = full["state"]
        assert state["seq"] == match.last_seq and state["status"] == "active" and state["hand_number"] == 1
        assert state["to_move"] == live.state.current_player
        assert state["view"]["hand"] == card_names(live.state.hand.hands[seat])
        assert state["view"]["player"] == seat
        assert bool(state["view"]["legal_actions"]) == (seat == live.state.current_player)
        assert state["last_hand"] is None and state["winner"] is None

    views = {seat: None for seat in (0, 1)}
    to_move = live.state.current_player
    seq = match.last_seq
    for step in range(40):  # moves of hand 1, each seen by both seats at its seq
        view = (await in_thread(load)(await in_thread(Match.objects.get)(pk=match.pk))).state.view(to_move)
        applied = await in_thread(services.match_apply_action)(
            match_id=match.pk, user=bots[to_move].user, action_text=choose(view.to_dict()), client_seq=seq,
            msg_id=f"m{step}")
        assert applied.last_seq > seq
        seq = applied.last_seq
        for seat in (0, 1):
            line = await streams[seat].until(lambda o, seq=seq: o["type"] == "state" and o["seq"] >= seq)
            assert line["seq"] == seq and line["status"] == "active"
            views[seat] = line["view"]
        to_move = line["to_move"]
        assert to_move is not None and views[to_move]["legal_actions"]
        assert views[1 - to_move]["legal_actions"] == []

    loser = bots[to_move]
    await in_thread(services.match_resign)(match_id=match.pk, user=loser.user, msg_id="resign")
    ended = await in_thread(Match.objects.get)(pk=match.pk)
    for seat in (0, 1):
        last = await streams[seat].until(lambda o: o["type"] == "state" and o["status"] != "active")
        assert last["seq"] == ended.last_seq
        assert (last["status"], last["winner"], last["result_reason"]) == ("finished", 1 - to_move, "resign")
        assert last["view"] is None and last["to_move"] is None and last["turn_deadline"] is None
        assert last["last_hand"]["number"] >= 1 and len(last["last_hand"]["hands"]) == 2
        assert await streams[seat].rest() == []  # the stream ends after the final state


async def test_a_reconnect_starts_with_match_full_at_the_current_seq(bot_a: Bot, bot_b: Bot) -> None:
    match = await in_thread(seated)(bot_a, bot_b)
    _, stream = await open_stream(match_path(match.pk), bot_a.token)
    assert stream is not None
    first = await stream.obj()
    assert first is not None and first["type"] == "matchFull"
    await stream.close()
    seq = match.last_seq
    for step in range(6):  # moves made while no stream is open
        current = await in_thread(Match.objects.select_related("player0", "player1").get)(pk=match.pk)
        state = (await in_thread(load)(current)).state
        seat = state.current_player
        user = bot_a.user if seat == 0 else bot_b.user
        applied = await in_thread(services.match_apply_action)(
            match_id=match.pk, user=user, action_text=choose(state.view(seat).to_dict()), client_seq=seq,
            msg_id=f"r{step}")
        seq = applied.last_seq
    _, again = await open_stream(match_path(match.pk), bot_a.token)
    assert again is not None
    full = await again.obj()
    current = await in_thread(Match.objects.get)(pk=match.pk)
    live = await in_thread(load)(current)
    assert full is not None and full["type"] == "matchFull"
    assert full["state"]["seq"] == seq == current.last_seq
    assert full["state"]["view"] == live.state.view(0).to_dict()
    assert len(full["state"]["view"]["history"]) == len(live.state.hand.history)
    await again.close()


async def test_a_finished_match_streams_its_match_full_and_ends(bot_a: Bot, bot_b: Bot) -> None:
    match = await in_thread(seated)(bot_a, bot_b)
    await in_thread(services.match_resign)(match_id=match.pk, user=bot_b.user, msg_id="x")
    _, stream = await open_stream(match_path(match.pk), bot_a.token)
    assert stream is not None
    lines = await stream.rest()
    assert len(lines) == 1 and lines[0]["type"] == "matchFull"
    state = lines[0]["state"]
    assert (state["status"], state["winner"], state["view"]) == ("finished", 0, None)
    # the hand the resignation ended is shown whole, as at the table
    live = await in_thread(load)(await in_thread(Match.objects.get)(pk=match.pk))
    assert state["last_hand"] == {"number": 1, "result": None,
                                  "hands": [card_names(sorted(h)) for h in live.state.hand.hands]}


async def test_keep_alive_lines_and_a_lost_push_caught_up(bot_a: Bot, bot_b: Bot, settings: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    settings.BOTAPI_KEEPALIVE_SECONDS = 0.2
    match = await in_thread(seated)(bot_a, bot_b)
    _, stream = await open_stream(match_path(match.pk), bot_a.token)
    assert stream is not None
    assert json.loads(await stream.line())["type"] == "matchFull"
    assert await stream.line() == b""  # a keep-alive line
    assert await stream.line() == b""
    # A write whose push is lost: the stream finds the new seq at its next keep-alive.
    from games.services import play
    from push.send import Outcome

    monkeypatch.setattr(play, "broadcast_on_commit", lambda match, live: Outcome())
    current = await in_thread(Match.objects.get)(pk=match.pk)
    state = (await in_thread(load)(current)).state
    seat = state.current_player
    applied = await in_thread(services.match_apply_action)(
        match_id=match.pk, user=(bot_a, bot_b)[seat].user, action_text=choose(state.view(seat).to_dict()),
        client_seq=current.last_seq, msg_id="lost")
    line = await stream.until(lambda o: o["type"] == "state")
    assert line["seq"] == applied.last_seq
    assert stream.blank >= 0
    await stream.close()


async def test_refusals_before_the_stream(make_bot: Any, bot_a: Bot, bot_b: Bot) -> None:
    match = await in_thread(seated)(bot_a, bot_b)
    stranger = await in_thread(make_bot)("botc")
    person = await in_thread(make_bot)("dora", bot=False)
    no_scope = await in_thread(make_bot)("bote", scopes=["challenge:write"])
    revoked = await in_thread(make_bot)("botf")
    from accounts.models import ApiToken

    token = await in_thread(ApiToken.objects.get)(user=revoked.user)
    await in_thread(token_revoke)(user=revoked.user, token_id=token.pk)
    cases = [
        (None, 401, "not_authenticated"),
        ("gin_" + "x" * 40, 401, "bad_token"),
        (revoked.token, 401, "bad_token"),
        (no_scope.token, 403, "missing_scope"),
        (person.token, 403, "not_bot"),
    ]
    for path in (EVENTS, match_path(match.pk)):
        for token_text, status, code in cases:
            response, stream = await open_stream(path, token_text)
            assert stream is None and response.status_code == status, (path, code)
            assert json.loads(response.content)["error"] == code
    for path, token_text, status, code in [
        (match_path(match.pk), stranger.token, 403, "not_seated"),
        (match_path(match.pk + 1000), bot_a.token, 404, "no_such_match"),
    ]:
        response, stream = await open_stream(path, token_text)
        assert stream is None
        assert (response.status_code, json.loads(response.content)["error"]) == (status, code)


async def test_at_most_two_event_streams_per_account(bot_a: Bot, bot_b: Bot) -> None:
    _, one = await open_stream(EVENTS, bot_a.token)
    _, two = await open_stream(EVENTS, bot_a.token)
    assert one is not None and two is not None
    response, three = await open_stream(EVENTS, bot_a.token)
    assert three is None and response.status_code == 429
    assert json.loads(response.content)["error"] == "too_many_streams"
    _, other = await open_stream(EVENTS, bot_b.token)  # another account's count is its own
    assert other is not None
    await one.close()  # the client goes away: its slot is free again
    _, again = await open_stream(EVENTS, bot_a.token)
    assert again is not None
    for stream in (two, other, again):
        await stream.close()


async def test_a_revoked_token_ends_its_stream(bot_a: Bot, bot_b: Bot, settings: Any) -> None:
    settings.BOTAPI_KEEPALIVE_SECONDS = 0.2
    from accounts.models import ApiToken

    _, stream = await open_stream(EVENTS, bot_a.token)
    assert stream is not None
    token = await in_thread(ApiToken.objects.get)(user=bot_a.user)
    await in_thread(token_revoke)(user=bot_a.user, token_id=token.pk)
    assert await stream.rest() == []


def _challenge(challenger: Any, challenged: Any) -> Any:
    return challenges.challenge_create(challenger=challenger, challenged=challenged,
                                       choice=Settings(preset="classic", target=100))


async def test_event_stream_on_connect_then_live(bot_a: Bot, bot_b: Bot) -> None:
    carol = await in_thread(UserFactory)(username="carol")
    made = await in_thread(_challenge)(carol, bot_a.user)  # (before the match: a player is busy then)
    playing = await in_thread(seated)(bot_a, bot_b, turn_timer=30)
    _, stream = await open_stream(EVENTS, bot_a.token)
    assert stream is not None
    start = await stream.obj()
    assert start == {"type": "matchStart", "match": {
        "id": playing.pk, "seat": 0, "opponent": {"username": "botb", "name": bot_b.user.public_name,
                                                  "bot_account": True, "house_bot_level": None,
                                                  "rating": 1500},
        "rated": False, "target": 100, "turn_timer": 30}}
    offered = await stream.obj()
    assert offered is not None and offered["type"] == "challenge"
    c = offered["challenge"]
    assert (c["id"], c["direction"], c["challenger"]["username"], c["challenged"]["username"]) == (
        made.pk, "in", "carol", "bota")
    assert (c["preset"], c["target"], c["turn_timer"], c["rated"]) == ("classic", 100, None, False)
    assert c["expires_at"].endswith("Z")

    # live: the challenge declined, a new one, a match ended, another started
    await in_thread(challenges.challenge_decline)(user=bot_a.user, challenge_id=made.pk)
    assert await stream.obj() == {"type": "challengeClosed", "id": made.pk, "status": "declined"}
    await in_thread(services.match_resign)(match_id=playing.pk, user=bot_b.user, msg_id="r")
    assert await stream.obj() == {"type": "matchFinish", "match": {
        "id": playing.pk, "seat": 0, "status": "finished", "winner": 0, "result_reason": "resign",
        "scores": [0, 0]}}
    again = await in_thread(_challenge)(bot_a.user, carol)  # made by the BOT: direction out
    line = await stream.obj()
    assert line is not None and line["type"] == "challenge"
    assert (line["challenge"]["id"], line["challenge"]["direction"]) == (again.pk, "out")
    second = await in_thread(seated)(bot_b, bot_a)
    line = await stream.obj()
    assert line is not None and line["type"] == "matchStart"
    assert (line["match"]["id"], line["match"]["seat"], line["match"]["opponent"]["username"]) == (
        second.pk, 1, "botb")
    await stream.close()


async def test_event_stream_catches_up_what_a_lost_push_missed(bot_a: Bot, bot_b: Bot, settings: Any,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    settings.BOTAPI_KEEPALIVE_SECONDS = 0.2
    from games import bot_events

    _, stream = await open_stream(EVENTS, bot_a.token)
    assert stream is not None
    monkeypatch.setattr(bot_events, "announce", lambda match, event: None)  # every push of games lost
    match = await in_thread(seated)(bot_a, bot_b)
    line = await stream.obj()
    assert line is not None and (line["type"], line["match"]["id"]) == ("matchStart", match.pk)
    await in_thread(services.match_resign)(match_id=match.pk, user=bot_a.user, msg_id="r")
    line = await stream.obj()
    assert line is not None and (line["type"], line["match"]["id"], line["match"]["winner"]) == (
        "matchFinish", match.pk, 1)
    await stream.close()


def test_games_tells_only_the_bot_accounts_of_a_match(bot_a: Bot, monkeypatch: pytest.MonkeyPatch) -> None:
    from games import bot_events

    sent: list[Any] = []
    monkeypatch.setattr(bot_events, "send_on_commit", sent.extend)
    carol, dan = UserFactory(username="carol"), UserFactory(username="dan")
    people = services.match_create_seated(player0=carol, player1=dan)
    services.match_resign(match_id=people.pk, user=dan, msg_id="r")
    assert sent == []  # no BOT account: nothing
    mixed = services.match_create_seated(player0=carol, player1=bot_a.user)
    services.match_resign(match_id=mixed.pk, user=carol, msg_id="r")
    group = bot_events_group(bot_a.user.pk)
    assert sent == [(group, {"type": "bot.match", "event": "start", "match_id": mixed.pk}),
                    (group, {"type": "bot.match", "event": "finish", "match_id": mixed.pk})]


def test_daphne_serves_the_match_stream_line_by_line(daphne_server_factory: Any, bot_a: Bot,
                                                      bot_b: Bot) -> None:
    import urllib.request

    server = daphne_server_factory(BOTAPI_KEEPALIVE_SECONDS="0.5")
    match = seated(bot_a, bot_b)
    request = urllib.request.Request(f"{server.url}{match_path(match.pk)}", headers=bot_a.headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200 and response.headers["Content-Type"] == "application/x-ndjson"
        full = json.loads(response.readline())
        assert (full["type"], full["seat"], full["state"]["seq"]) == ("matchFull", 0, match.last_seq)
        assert response.readline() == b"\n"  # a keep-alive line, sent on its own
        state = load(match).state
        seat = state.current_player
        applied = services.match_apply_action(
            match_id=match.pk, user=(bot_a, bot_b)[seat].user, action_text=choose(state.view(seat).to_dict()),
            client_seq=match.last_seq, msg_id="d1")
        while (line := response.readline()) == b"\n":
            pass
        moved = json.loads(line)
        assert (moved["type"], moved["seq"]) == ("state", applied.last_seq)


def test_daphne_frees_an_event_stream_when_its_client_goes_away(daphne_server: Any, bot_a: Bot) -> None:
    import time
    import urllib.error
    import urllib.request

    def open_events() -> Any:
        request = urllib.request.Request(f"{daphne_server.url}{EVENTS}", headers=bot_a.headers)
        return urllib.request.urlopen(request, timeout=60)

    first, second = open_events(), open_events()
    with pytest.raises(urllib.error.HTTPError) as refused:
        open_events()
    assert refused.value.code == 429 and json.loads(refused.value.read())["error"] == "too_many_streams"
    first.close()  # the client goes away: Daphne tells Django, whose generator ends and frees the slot
    deadline = time.monotonic() + 60
    while True:
        try:
            third = open_events()
            break
        except urllib.error.HTTPError as exc:
            assert exc.code == 429 and time.monotonic() < deadline, "the slot was never freed"
            time.sleep(0.2)
    assert third.status == 200
    third.close()
    second.close()
