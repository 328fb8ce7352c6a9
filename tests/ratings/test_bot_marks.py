"""BOT marks (docs/bot-api.md: a BOT account is marked BOT wherever its name shows): the ``bot_badge``
filter, the profile page, the table's state payload (``games.payloads.player``'s ``bot_account``, drawn
by ``felt_view.playerBadges``), the public API's player objects; and a person's "accept challenges
from BOT accounts" preference, saved where "let others challenge me" is."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from lobby.models import LobbyPreference
from tests.factories import UserFactory
from web.templatetags.names import bot_badge, user_name

pytestmark = pytest.mark.django_db

BADGE = ('<span class="bot-badge" title="BOT account: a program playing through the bot API">BOT</span>')


@pytest.fixture
def robo() -> Any:
    user = UserFactory(username="robo")
    user.bot_account = True
    user.save(update_fields=["bot_account"])
    return user


def _client(user: Any, language: str | None = None) -> Client:
    client = Client(headers={"accept-language": language}) if language else Client()
    client.force_login(user)
    return client


def test_bot_badge_filter(robo: Any) -> None:
    person = UserFactory(username="person")
    assert bot_badge(robo) == " " + BADGE
    assert bot_badge(person) == "" and bot_badge(None) == "" and bot_badge({"bot_account": False}) == ""
    assert bot_badge({"bot_account": True}) == " " + BADGE and bot_badge(True) == " " + BADGE
    assert user_name(robo) == '<span class="player-name" title="robo">robo</span> ' + BADGE
    assert user_name(person) == '<span class="player-name" title="person">person</span>'


def test_profile_marks_a_bot_account_and_offers_the_challenge(robo: Any) -> None:
    viewer = UserFactory(username="viewer")
    html = _client(viewer).get("/u/robo/").content.decode()
    assert '<h1><span class="player-name" title="robo">robo</span> ' + BADGE in html
    assert 'data-testid="challenge-box"' in html  # people challenge a BOT from its profile as usual
    plain = _client(viewer).get("/u/viewer/").content.decode()
    assert 'class="bot-badge"' not in plain


def test_table_payload_carries_bot_account(robo: Any) -> None:
    from games.selectors import match_state_payload
    from games.services import match_create_seated

    person = UserFactory(username="person")
    # A BOT account plays through the bot API only (no friend table): seated as a challenge seats it.
    match = match_create_seated(player0=robo, player1=person, rated=False)
    for seat in (0, 1):
        players = match_state_payload(match=match, seat=seat, full=True)["match"]["players"]
        assert [(p["name"], p["bot_account"]) for p in players] == [("robo", True), ("person", False)]


def test_api_player_objects(robo: Any) -> None:
    body = Client().get("/api/v1/players/robo/").json()
    assert (body["bot_account"], body["is_bot"], body["rank"]) == (True, False, None)
    assert Client().get("/api/v1/bots/").status_code == 200


@pytest.mark.parametrize("posted, stored, message", [
    ({"accepts_challenges": "1", "accepts_bot_challenges": "1"}, (True, True),
     "Others may challenge you now, BOT accounts too."),
    ({"accepts_challenges": "1"}, (True, False), "Others may challenge you now."),
    ({"accepts_bot_challenges": "1"}, (False, False), "Nobody can challenge you now."),
])
def test_accept_bot_challenges_preference(posted: dict[str, str], stored: tuple[bool, bool],
                                          message: str) -> None:
    person = UserFactory(username="person")
    client = _client(person)
    page = client.get("/u/person/").content.decode()
    assert 'data-testid="accepts-bot-challenges"' in page and 'name="accepts_bot_challenges" value="1" ' \
        'data-testid' in page  # off by default: not checked
    response = client.post(reverse("lobby:challenge_preference"), posted, follow=True)
    pref = LobbyPreference.objects.get(user=person)
    assert (pref.accepts_challenges, pref.accepts_bot_challenges) == stored
    assert message in response.content.decode()
    again = client.get("/u/person/").content.decode()
    assert ('name="accepts_bot_challenges" value="1" checked' in again) is stored[1]
    pt = _client(person, "pt-br").get("/u/person/").content.decode()
    assert "Aceitar desafios de contas de robô" in pt


def test_a_bot_account_is_not_offered_the_preference(robo: Any) -> None:
    page = _client(robo).get("/u/robo/").content.decode()
    assert 'data-testid="accepts-challenges"' in page
    assert 'data-testid="accepts-bot-challenges"' not in page


def test_profile_match_list_marks_a_bot_account_opponent(robo: Any) -> None:
    from games.models import Match, MatchStatus
    from ratings.models import PlayerRating, RatingChange

    person = UserFactory(username="person")
    other = UserFactory(username="other")
    for opponent, before in ((robo, 1500.0), (other, 1510.0)):
        match = Match.objects.create(rules={}, player0=person, player1=opponent, status=MatchStatus.FINISHED,
                                     rated=True, winner=0, scores=[100, 0])
        RatingChange.objects.create(match=match, player=person, opponent=opponent, before=before,
                                    after=before + 10, delta=10, k=20, expected=0.5, opponent_rating=1500,
                                    won=True)
    PlayerRating.objects.create(user=person, rating=1520, peak=1520, rated_matches=2, wins=2, losses=0)
    html = _client(person).get("/u/person/").content.decode()
    cells = re.findall(r'<td class="opponent">(.*?)<span class="narrow-only', html, re.S)
    marks = [("robo" in c, "other" in c, BADGE in c) for c in cells]
    assert marks == [(False, True, False), (True, False, True)]  # newest first
