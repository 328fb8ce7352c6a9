"""Tokens and scopes of the bot API (docs/bot-api.md "Tokens and BOT accounts"): who is authenticated,
what each scope allows, revocation at once, ``GET account/`` and the upgrade's rules."""

from __future__ import annotations

from typing import Any

import pytest

from tests.botapi.conftest import BotApi, error_of
from tests.botapi.conftest import pair as _pair

pytestmark = pytest.mark.django_db


def test_no_token_a_bad_token_and_a_session_are_refused(alice: Any) -> None:
    from django.test import Client

    assert error_of(BotApi(None).get("account/")) == (401, "not_authenticated")
    assert error_of(BotApi("gin_" + "x" * 40).get("account/")) == (401, "bad_token")
    assert error_of(BotApi("not-a-token").post("account/upgrade/")) == (401, "bad_token")
    basic = BotApi(None)
    basic.headers = {"Authorization": "Basic YWxpY2U6cHc="}
    assert error_of(basic.get("account/")) == (401, "bad_token")
    # a browser's session never authenticates a request of the bot API (no cookie moves a bot)
    client = Client()
    client.force_login(alice)
    response = client.post("/api/v1/bot/account/upgrade/", content_type="application/json")
    assert error_of(response) == (401, "not_authenticated")
    alice.refresh_from_db()
    assert alice.bot_account is False


def test_a_revoked_token_is_refused_at_once(make_bot: Any) -> None:
    from accounts.models import ApiToken
    from accounts.tokens import token_revoke

    robo, token = _pair(make_bot("robo"))
    api = BotApi(token)
    assert api.get("account/").status_code == 200
    token_revoke(user=robo, token_id=ApiToken.objects.get(user=robo).pk)
    assert error_of(api.get("account/")) == (401, "bad_token")
    assert error_of(api.post("match/house/", {"level": 1})) == (401, "bad_token")


def test_account_answers_with_the_tokens_scopes(make_token: Any, alice: Any) -> None:
    api = BotApi(make_token(alice, scopes=["challenge:write"]))
    response = api.get("account/")
    assert response.status_code == 200
    assert response.json() == {"username": "alice", "name": alice.public_name, "bot": False,
                               "paused_until": None, "rating": 1500, "provisional": True,
                               "scopes": ["challenge:write"]}


def test_scopes_gate_each_endpoint(make_bot: Any, make_token: Any, house_bots: Any) -> None:
    """A token without ``bot:play`` cannot move, resign, play a house bot or upgrade; one without
    ``challenge:write`` cannot challenge, accept, decline or cancel (403 ``missing_scope``, nothing
    done)."""
    from games import services
    from games.models import Match
    from lobby.models import Challenge

    robo, _token = _pair(make_bot("robo"))
    robo2, _token2 = _pair(make_bot("robo2"))
    match = services.match_create_seated(player0=robo, player1=robo2, turn_timer=60)
    last_seq = match.last_seq
    no_play = BotApi(make_token(robo, scopes=["challenge:write"], name="c"))
    no_challenge = BotApi(make_token(robo, scopes=["bot:play"], name="p"))
    for path, body in ((f"match/{match.pk}/action/", {"action": "pass", "seq": last_seq}),
                       (f"match/{match.pk}/resign/", None), ("match/house/", {"level": 1}),
                       ("account/upgrade/", None)):
        assert error_of(no_play.post(path, body)) == (403, "missing_scope"), path
    for path in ("challenge/robo2/", "challenge/1/accept/", "challenge/1/decline/", "challenge/1/cancel/"):
        assert error_of(no_challenge.post(path, {})) == (403, "missing_scope"), path
    match.refresh_from_db()
    assert match.last_seq == last_seq and match.status == "active"
    assert Match.objects.count() == 1 and Challenge.objects.count() == 0


def test_upgrade_a_fresh_account_is_idempotent(alice: Any, make_token: Any) -> None:
    api = BotApi(make_token(alice))
    assert error_of(api.post("match/house/", {"level": 1})) == (403, "not_bot")
    for _ in range(2):
        response = api.post("account/upgrade/")
        assert (response.status_code, response.json()) == (200, {"username": "alice", "bot": True})
    alice.refresh_from_db()
    assert alice.bot_account is True
    assert api.get("account/").json()["bot"] is True


def test_upgrade_after_rated_play_against_house_bots_only_is_allowed(
    alice: Any, make_token: Any, house_bots: Any
) -> None:
    from games import services

    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    services.match_resign(match_id=match.pk, user=alice)  # a finished (or aborted) rated match vs a house bot
    assert BotApi(make_token(alice)).post("account/upgrade/").status_code == 200


def test_upgrade_refused_with_an_active_rated_match(alice: Any, make_token: Any, house_bots: Any) -> None:
    from games import services

    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    response = BotApi(make_token(alice)).post("account/upgrade/")
    assert error_of(response) == (400, "not_fresh")
    assert str(match.pk) in response.json()["message"]
    alice.refresh_from_db()
    assert alice.bot_account is False


def test_upgrade_refused_after_a_rated_match_against_a_person(
    alice: Any, bob: Any, make_token: Any, settings: Any
) -> None:
    """A finished rated match against a person (resigned after enough moves to rate): ``not_fresh`` for
    both players; an unrated one leaves them fresh."""
    from games import services
    from games.models import MatchStatus
    from tests.factories import FriendMatchFactory

    settings.GAMES_RATED_MIN_MOVES = 0
    settings.GAMES_FREE_ABORTS = 0
    casual = FriendMatchFactory(host=alice, friend=bob, rated=False)
    services.match_resign(match_id=casual.pk, user=bob)
    rated = FriendMatchFactory(host=alice, friend=bob, rated=True)
    services.match_resign(match_id=rated.pk, user=bob)
    rated.refresh_from_db()
    assert (rated.status, rated.rated) == (MatchStatus.FINISHED, True)
    for user in (alice, bob):
        response = BotApi(make_token(user)).post("account/upgrade/")
        assert error_of(response) == (400, "not_fresh")
        user.refresh_from_db()
        assert user.bot_account is False
