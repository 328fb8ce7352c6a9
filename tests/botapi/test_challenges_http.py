"""Challenges over HTTP (docs/bot-api.md "Who plays whom"): a BOT account challenges a person only when
they accept BOT challenges; anyone challenges a BOT; BOT against BOT; house bots refuse; a challenge with
a BOT account always has a turn timer (30 s when none chosen, at most 120); accept, decline, cancel."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.botapi.conftest import BotApi, error_of
from tests.botapi.conftest import pair as _pair

pytestmark = pytest.mark.django_db


def _accepts_bots(user: Any, on: bool = True) -> None:
    from lobby.models import LobbyPreference

    LobbyPreference.objects.update_or_create(user=user, defaults={"accepts_bot_challenges": on})


def test_a_bot_may_not_challenge_a_person_who_does_not_accept_bot_challenges(
    make_bot: Any, alice: Any
) -> None:
    from lobby.models import Challenge

    _robo, token = _pair(make_bot("robo"))
    response = BotApi(token).post("challenge/alice/", {"rated": True})
    assert error_of(response) == (400, "challenge_blocked")
    assert response.json()["message"] == "alice does not accept challenges from BOT accounts"
    _accepts_bots(alice, on=False)
    assert error_of(BotApi(token).post("challenge/alice/")) == (400, "challenge_blocked")
    assert Challenge.objects.count() == 0


def test_a_bot_challenges_a_person_who_accepts_and_the_timer_is_forced(make_bot: Any, alice: Any) -> None:
    from lobby import challenges
    from lobby.models import Challenge

    robo, token = _pair(make_bot("robo"))
    _accepts_bots(alice)
    response = BotApi(token).post("challenge/alice/", {"rated": True, "target": 50})
    assert response.status_code == 201, response.json()
    got = response.json()["challenge"]
    challenge = Challenge.objects.get()
    assert (challenge.challenger_id, challenge.challenged_id, challenge.turn_timer_seconds, challenge.rated,
            challenge.target) == (robo.pk, alice.pk, 30, True, 50)
    assert {k: got[k] for k in ("id", "direction", "preset", "target", "turn_timer", "rated")} == {
        "id": challenge.pk, "direction": "out", "preset": "classic", "target": 50, "turn_timer": 30,
        "rated": True}
    assert got["challenger"]["bot_account"] is True and got["challenged"]["username"] == "alice"
    # ISO 8601 UTC to the millisecond (botapi.objects.iso)
    assert got["expires_at"] == challenge.expires_at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    match = challenges.challenge_accept(user=alice, challenge_id=challenge.pk)
    assert (match.player0_id, match.player1_id, match.turn_timer_seconds, match.rated) == (
        robo.pk, alice.pk, 30, True)


def test_a_person_challenges_a_bot_which_accepts_over_http(make_bot: Any, alice: Any) -> None:
    from lobby import challenges
    from lobby.seeks import Settings

    robo, token = _pair(make_bot("robo"))
    challenge = challenges.challenge_create(challenger=alice, challenged=robo,
                                            choice=Settings("classic", 100, None, False))
    assert challenge.turn_timer_seconds == 30  # a casual challenge, but a BOT is in it: a timer
    response = BotApi(token).post(f"challenge/{challenge.pk}/accept/")
    assert response.status_code == 200, response.json()
    got = response.json()["match"]
    assert (got["seat"], got["turn_timer"], got["rated"], got["opponent"]["username"]) == (
        1, 30, False, "alice")
    again = BotApi(token).post(f"challenge/{challenge.pk}/accept/")
    assert again.json()["match"]["id"] == got["id"]  # the same match, nothing new


def test_bot_against_bot_and_the_timers_bounds(make_bot: Any) -> None:
    from games.models import Match
    from lobby.models import Challenge

    robo, token = _pair(make_bot("robo"))
    robo2, token2 = _pair(make_bot("robo2"))
    assert error_of(BotApi(token).post("challenge/robo2/", {"turn_timer": 300})) == (400, "bad_settings")
    assert error_of(BotApi(token).post("challenge/robo2/", {"turn_timer": 45})) == (400, "bad_settings")
    assert Challenge.objects.count() == 0
    response = BotApi(token).post("challenge/robo2/", {"turn_timer": 120, "rated": True})
    assert response.status_code == 201
    challenge_id = response.json()["challenge"]["id"]
    got = BotApi(token2).post(f"challenge/{challenge_id}/accept/").json()["match"]
    match = Match.objects.get(pk=got["id"])
    assert (match.player0_id, match.player1_id, match.turn_timer_seconds, match.rated) == (
        robo.pk, robo2.pk, 120, True)
    assert got["opponent"]["username"] == "robo" and got["opponent"]["bot_account"] is True


def test_house_bots_unknown_players_and_paused_bots(make_bot: Any, house_bots: Any) -> None:
    from django.utils import timezone

    from lobby.models import Challenge

    robo, token = _pair(make_bot("robo"))
    _robo2, _token2 = _pair(make_bot("robo2"))
    api = BotApi(token)
    assert error_of(api.post(f"challenge/{house_bots[0].username}/")) == (400, "challenge_bot")
    assert error_of(api.post("challenge/nobody-here/")) == (404, "no_such_player")
    assert error_of(api.post("challenge/robo/")) == (400, "challenge_self")
    robo.bot_paused_until = timezone.now() + timedelta(hours=1)
    robo.save(update_fields=["bot_paused_until"])
    assert error_of(api.post("challenge/robo2/")) == (403, "bot_paused")
    assert Challenge.objects.count() == 0


def test_decline_and_cancel_by_the_right_side_only(make_bot: Any) -> None:
    from lobby.models import Challenge, ChallengeStatus

    _robo, token = _pair(make_bot("robo"))
    _robo2, token2 = _pair(make_bot("robo2"))
    challenger, challenged = BotApi(token), BotApi(token2)
    first = challenger.post("challenge/robo2/").json()["challenge"]["id"]
    assert error_of(challenger.post(f"challenge/{first}/decline/")) == (404, "challenge_not_found")
    assert error_of(challenged.post(f"challenge/{first}/cancel/")) == (404, "challenge_not_found")
    assert error_of(challenger.post(f"challenge/{first + 99}/cancel/")) == (404, "challenge_not_found")
    assert Challenge.objects.get(pk=first).status == ChallengeStatus.OPEN
    response = challenged.post(f"challenge/{first}/decline/")
    assert (response.status_code, response.json()) == (200, {"id": first, "status": "declined"})
    assert error_of(challenged.post(f"challenge/{first}/decline/")) == (400, "challenge_answered")
    assert error_of(challenged.post(f"challenge/{first}/accept/")) == (400, "challenge_answered")
    second = challenger.post("challenge/robo2/").json()["challenge"]["id"]
    response = challenger.post(f"challenge/{second}/cancel/")
    assert (response.status_code, response.json()) == (200, {"id": second, "status": "cancelled"})
    assert error_of(challenged.post(f"challenge/{second}/accept/")) == (400, "challenge_withdrawn")
    assert Challenge.objects.get(pk=second).status == ChallengeStatus.CANCELLED


def test_a_bot_playing_a_match_is_still_challenged_until_its_cap(
    make_bot: Any, alice: Any, bob: Any, carol: Any, house_bots: Any, settings: Any
) -> None:
    """A person in a rated match is busy (``challenge_target_busy``); a BOT account only once it plays
    ``GAMES_BOT_ACTIVE_MATCHES`` matches."""
    from games import services
    from lobby import challenges
    from lobby.seeks import Settings

    settings.GAMES_BOT_ACTIVE_MATCHES = 2
    robo, token = _pair(make_bot("robo"))
    casual = Settings("classic", 100, None, False)
    house = services.match_create_vs_bot(user=robo, level=1, rules_preset="classic", target=100,
                                         turn_timer=30, via_api=True)
    first = challenges.challenge_create(challenger=alice, challenged=robo, choice=casual)
    BotApi(token).post(f"challenge/{first.pk}/accept/")  # its second match: at the cap now
    with pytest.raises(services.GameError) as refused:
        challenges.challenge_create(challenger=bob, challenged=robo, choice=casual)
    assert refused.value.code == "challenge_target_busy"
    # at its cap, the BOT itself may not challenge (its own limit); one match fewer, it may
    _accepts_bots(bob)
    assert error_of(BotApi(token).post("challenge/bob/")) == (400, "match_in_progress")
    BotApi(token).post(f"match/{house.pk}/resign/")
    services.match_create_vs_bot(user=bob, level=1, rules_preset="classic", target=100)
    assert error_of(BotApi(token).post("challenge/bob/")) == (400, "challenge_target_busy")  # bob plays
    assert BotApi(token).post("challenge/carol/").json()["error"] == "challenge_blocked"


def test_the_bot_refusal_is_said_in_the_readers_language(make_bot: Any, alice: Any) -> None:
    """A person's page shows the refusal's own sentence (``lobby.errors.said``), in pt-BR too."""
    from django.utils import translation

    from games.services import GameError
    from lobby import challenges
    from lobby.errors import said
    from lobby.seeks import Settings

    robo = make_bot("robo").user
    with pytest.raises(GameError) as refused:
        challenges.challenge_create(challenger=robo, challenged=alice, choice=Settings())
    assert refused.value.code == "challenge_blocked"
    with translation.override("pt-br"):
        assert said(refused.value) == "alice não aceita desafios de contas de robô"
    with translation.override("en"):
        assert said(refused.value) == "alice does not accept challenges from BOT accounts"
