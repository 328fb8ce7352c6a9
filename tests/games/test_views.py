"""HTTP endpoints of the games app: CSRF on every create, form errors, redirects, seat checks, join by
link, the hand verification JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from engine.cards import parse_cards
from engine.deck import deck_commitment
from games import services
from games.models import Match
from tests.games.play import play_until

pytestmark = pytest.mark.django_db


def _client(user: Any | None, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    if user is not None:
        client.force_login(user)
    return client


def _csrf_post(client: Client, url: str, data: dict[str, Any]) -> Any:
    """POST with the CSRF token the page hands out (as a browser would)."""
    client.get(reverse("games:new_bot_match"))
    token = client.cookies["csrftoken"].value
    return client.post(url, {**data, "csrfmiddlewaretoken": token})


def test_url_names() -> None:
    assert reverse("games:new_bot_match") == "/play/bot/"
    assert reverse("games:new_friend_table") == "/play/friend/"
    assert reverse("games:my_matches") == "/matches/"
    assert reverse("games:table", args=[7]) == "/match/7/"
    assert reverse("games:join", args=["abc"]) == "/t/abc/"
    assert reverse("games:hand_verify", args=[7, 2]) == "/match/7/hands/2/verify.json"


def test_create_bot_match_needs_csrf_and_login(alice: Any, house_bots: Any) -> None:
    data = {"level": "3", "preset": "classic", "target": "50"}
    anonymous = _client(None)
    response = anonymous.post(reverse("games:new_bot_match"), data)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client = _client(alice, csrf=True)
    assert client.post(reverse("games:new_bot_match"), data).status_code == 403  # no CSRF token
    assert Match.objects.count() == 0
    response = _csrf_post(client, reverse("games:new_bot_match"), data)
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/match/{match.pk}/"
    assert (match.player0, match.bot_level, match.preset, match.rules["target"]) == (alice, 3, "classic", 50)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"level": "9", "preset": "classic", "target": "50"}, "level"),
        ({"level": "x", "preset": "classic", "target": "50"}, "level"),
        ({"level": "2", "preset": "poker", "target": "50"}, "preset"),
        ({"level": "2", "preset": "classic", "target": "75"}, "target"),
        ({"preset": "classic", "target": "50"}, "level"),
    ],
)
def test_bad_bot_form_fields_are_400_with_errors(
    alice: Any, house_bots: Any, data: dict[str, str], field: str
) -> None:
    response = _client(alice).post(reverse("games:new_bot_match"), data)
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert Match.objects.count() == 0


def test_friend_table_form_and_join_by_link(alice: Any, bob: Any, guest: Any, house_bots: Any) -> None:
    client = _client(alice)
    bad = client.post(
        reverse("games:new_friend_table"), {"preset": "classic", "target": "100", "turn_timer": "5"}
    )
    assert bad.status_code == 400 and "turn_timer" in bad.context["form"].errors
    response = client.post(
        reverse("games:new_friend_table"), {"preset": "hoyle", "target": "100", "turn_timer": ""}
    )
    table = Match.objects.get()
    assert response["Location"] == f"/match/{table.pk}/"
    assert (table.status, table.turn_timer_seconds, table.preset) == ("waiting", None, "hoyle")
    page = client.get(f"/match/{table.pk}/")
    assert page.status_code == 200
    invite = page.context["invite_url"]
    assert invite == f"http://testserver/t/{table.invite_token}/"
    assert (
        page.context["state"]["match"]["invite_url"] == invite
        and page.context["ws_path"] == f"/ws/match/{table.pk}/"
    )
    # the friend (a guest) sees the join page, then joins with a POST carrying the CSRF token
    friend = _client(guest, csrf=True)
    join_url = f"/t/{table.invite_token}/"
    join_page = friend.get(join_url)
    assert (
        join_page.status_code == 200
        and join_page.context["can_join"]
        and join_page.context["host"] == "alice"
    )
    assert friend.post(join_url).status_code == 403
    response = friend.post(join_url, {"csrfmiddlewaretoken": friend.cookies["csrftoken"].value})
    assert response.status_code == 302 and response["Location"] == f"/match/{table.pk}/"
    table.refresh_from_db()
    assert (table.status, table.player1_id, table.last_seq) == ("active", guest.pk, 1)
    assert friend.get(join_url)["Location"] == f"/match/{table.pk}/"  # seated: straight to the table
    # a third person: the table is full
    late = _client(bob).get(join_url)
    assert late.status_code == 409 and late.context["reason"] == "full" and not late.context["can_join"]
    # a stranger at a private table: the answer of a match that does not exist (issue 20, finding 7)
    stranger = _client(bob).get(f"/match/{table.pk}/")
    assert stranger.status_code == 404 and "No such match." in stranger.content.decode()
    assert _client(bob).get(f"/match/{table.pk + 1000}/").status_code == 404
    # at a public one (a member's bot match): the site's styled 403 page, with the reason
    public = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    stranger = _client(bob).get(f"/match/{public.pk}/")
    assert stranger.status_code == 403
    assert "403.html" in [t.name for t in stranger.templates]
    assert "You are not a player of this match." in stranger.content.decode()
    assert _client(bob).get("/t/no-such-token/").status_code == 404


def test_table_page_state_is_the_players_own(alice: Any, house_bots: Any) -> None:
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    page = _client(alice).get(f"/match/{match.pk}/")
    assert page.status_code == 200 and page.context["seat"] == 0
    state = page.context["state"]
    assert state["match"]["you"] == 0 and len(state["hand"]["cards"]) == 10
    assert state["match"]["players"][1]["is_bot"] and state["match"]["players"][1]["bot_level"] == 1
    assert 'id="initial-state"' in page.content.decode()


def test_hand_verify_json_only_for_ended_hands(transactional_db: None, alice: Any, bob: Any) -> None:
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    match = services.table_join(user=bob, token=table.invite_token)
    client = _client(alice)
    assert client.get(f"/match/{match.pk}/hands/1/verify.json").status_code == 404  # in play: secret
    play_until(match.pk, {0: alice, 1: bob}, hands=1)
    response = client.get(f"/match/{match.pk}/hands/1/verify.json")
    assert response.status_code == 200
    data = json.loads(response.content)
    assert data["valid"] is True and data["hand"] == 1 and len(data["deck"]) == 52
    assert deck_commitment(parse_cards(" ".join(data["deck"])), data["salt"]) == data["commitment"]
    assert client.get(f"/match/{match.pk}/hands/2/verify.json").status_code == 404
    assert _client(None).get(f"/match/{match.pk}/hands/1/verify.json").status_code == 302


def test_my_matches_lists_the_users_matches(alice: Any, bob: Any, house_bots: Any) -> None:
    services.match_create_vs_bot(user=alice, level=5, rules_preset="classic", target=100)
    services.table_create(user=bob, rules_preset="classic", target=100, turn_timer=None)
    page = _client(alice).get("/matches/")
    assert page.status_code == 200
    assert [(m["opponent_is_bot"], m["bot_level"], m["result"]) for m in page.context["matches"]] == [
        (True, 5, "in_progress")
    ]


def test_admin_lists_matches_and_their_read_only_log(
    alice: Any, house_bots: Any, django_user_model: Any
) -> None:
    match = services.match_create_vs_bot(user=alice, level=2, rules_preset="classic", target=100)
    admin = django_user_model.objects.create_superuser(
        username="root", email="root@example.com", password=None
    )
    client = _client(admin)
    listing = client.get("/admin/games/match/")
    assert listing.status_code == 200 and f"/admin/games/match/{match.pk}/change/" in listing.content.decode()
    page = client.get(f"/admin/games/match/{match.pk}/change/")
    assert page.status_code == 200 and "deal" in page.content.decode()
    assert client.get("/admin/games/matchevent/").status_code == 200
    assert client.get("/admin/games/matchevent/add/").status_code == 403


@pytest.mark.parametrize(
    ("language", "note"),
    [
        ("en", 'Rated: your rating is 1500; the "you: …%" beside each level is your expected score against'
         " that bot."),
        ("pt-br", "Valendo rating: seu rating é 1500; o “você: …%” ao lado de cada nível é a sua pontuação"
         " esperada contra aquele robô."),
    ],
)
def test_the_bot_pages_rated_note_quotes_no_made_up_percentage(
    alice: Any, house_bots: Any, language: str, note: str
) -> None:
    """The note under the levels explains the "you: N%" tags without a number of its own (it once said
    "you: 42%", a score no bot showed)."""
    from html import unescape

    response = _client(alice).get(reverse("games:new_bot_match"), headers={"accept-language": language})
    page = unescape(response.content.decode())
    start = page.index('data-testid="bot-rated-note">') + len('data-testid="bot-rated-note">')
    assert page[start:page.index("</p>", start)] == note


@pytest.mark.parametrize("url", ["/play/bot/", "/play/friend/"])
def test_the_new_match_page_repeats_no_element_id(alice: Any, house_bots: Any, url: str) -> None:
    """Both create forms are on one page: each form's hidden ``submission`` had ``id_submission``
    (a fresh-clone trial, issue 23); an id names one element."""
    import collections
    import re

    page = _client(alice).get(url).content.decode()
    ids = collections.Counter(re.findall(r'\sid="([^"]+)"', page))
    assert [name for name, count in ids.items() if count > 1] == []
    assert ids["id_bot_submission"] == ids["id_friend_submission"] == 1
