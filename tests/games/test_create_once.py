"""Creating a bot match or a friend table is idempotent per form submission: the create forms carry a
one-time token, and a repeat of one submission (double click, resubmit) redirects to the match the first
created instead of creating another."""

from __future__ import annotations

import re
import threading
import uuid
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Match

pytestmark = pytest.mark.django_db
TOKEN = re.compile(r'<input type="hidden" name="submission" value="([0-9a-f-]{36})"')


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _token(page: str) -> str:
    found = TOKEN.findall(page)
    assert len(found) == 2, found  # one per form: bot and friend
    return found[0]


BOT = {"level": "2", "preset": "classic", "target": "100"}
FRIEND = {"preset": "classic", "target": "50", "turn_timer": ""}


def test_each_blank_form_page_draws_new_tokens(alice: Any, house_bots: list[Any]) -> None:
    client = _client(alice)
    first = TOKEN.findall(client.get(reverse("games:new_bot_match")).content.decode())
    second = TOKEN.findall(client.get(reverse("games:new_friend_table")).content.decode())
    assert len(set(first + second)) == 4


@pytest.mark.parametrize(("url", "data"), [("games:new_bot_match", BOT), ("games:new_friend_table", FRIEND)])
def test_a_double_submit_creates_one_match_and_both_go_to_it(
    alice: Any, house_bots: list[Any], url: str, data: dict[str, str]
) -> None:
    client = _client(alice)
    token = _token(client.get(reverse(url)).content.decode())
    first = client.post(reverse(url), {**data, "submission": token})
    second = client.post(reverse(url), {**data, "submission": token})
    match = Match.objects.get()
    assert first.status_code == second.status_code == 302
    assert first.url == second.url == reverse("games:table", args=[match.pk])
    assert match.submission == uuid.UUID(token)
    # A new form (new token) is a new match (once a rated bot match in progress ends: test_one_rated_match).
    services.match_resign(match_id=match.pk, user=alice)
    again = client.post(reverse(url), {**data, "submission": str(uuid.uuid4())})
    assert again.status_code == 302 and Match.objects.count() == 2


def test_an_invalid_first_submit_keeps_the_token_and_the_fixed_one_creates(
    alice: Any, house_bots: list[Any]
) -> None:
    client = _client(alice)
    token = str(uuid.uuid4())
    bad = client.post(reverse("games:new_bot_match"), {**BOT, "level": "9", "submission": token})
    assert bad.status_code == 400 and token in bad.content.decode()
    assert client.post(reverse("games:new_bot_match"), {**BOT, "submission": token}).status_code == 302
    assert Match.objects.count() == 1


def test_another_players_token_does_not_reach_their_match(
    alice: Any, bob: Any, house_bots: list[Any]
) -> None:
    token = str(uuid.uuid4())
    _client(alice).post(reverse("games:new_bot_match"), {**BOT, "submission": token})
    response = _client(bob).post(reverse("games:new_bot_match"), {**BOT, "submission": token})
    bobs = Match.objects.get(player0=bob)
    assert response.url == reverse("games:table", args=[bobs.pk])
    assert Match.objects.count() == 2


def test_a_post_without_a_token_still_creates(alice: Any, house_bots: list[Any]) -> None:
    client = _client(alice)
    assert client.post(reverse("games:new_bot_match"), BOT).status_code == 302
    services.match_resign(match_id=Match.objects.get().pk, user=alice)  # one rated match at a time
    assert client.post(reverse("games:new_bot_match"), BOT).status_code == 302
    assert Match.objects.count() == 2


def test_a_bad_token_is_a_form_error(alice: Any, house_bots: list[Any]) -> None:
    response = _client(alice).post(reverse("games:new_bot_match"), {**BOT, "submission": "not-a-uuid"})
    assert response.status_code == 400 and "submission" in response.context["form"].errors
    assert not Match.objects.exists()


def test_the_play_again_form_of_a_table_carries_a_token(alice: Any, house_bots: list[Any]) -> None:
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    page = _client(alice).get(reverse("games:table", args=[match.pk])).content.decode()
    form = page[page.index('id="play-again-form"'):]
    form = form[: form.index("</form>")]
    assert re.search(r'name="submission" value="[0-9a-f-]{36}"', form)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["bot", "friend"])
def test_racing_submits_of_one_token_create_one_match(alice: Any, house_bots: list[Any], kind: str) -> None:
    """Two requests at once (as a double click sends them), each in its own database transaction."""
    token = uuid.uuid4()
    barrier = threading.Barrier(2)
    results: list[int] = []
    errors: list[BaseException] = []

    def submit() -> None:
        try:
            barrier.wait(timeout=10)
            if kind == "bot":
                match = services.match_create_vs_bot(
                    user=alice, level=1, rules_preset="classic", target=100, submission=token
                )
            else:
                match = services.table_create(
                    user=alice, rules_preset="classic", target=100, turn_timer=None, submission=token
                )
            results.append(match.pk)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(results) == 2 and results[0] == results[1]
    assert list(Match.objects.values_list("pk", flat=True)) == [results[0]]
