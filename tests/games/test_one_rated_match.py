"""One rated match at a time (lichess's rule): a member seated in an active rated match who starts a
rated bot match again (Back, then Start; a second tab; Play again elsewhere) is sent back to the match in
progress with a message, instead of getting a second match whose abandoned turn timer would lose the
first on time. Two racing requests are serialized by a lock on the user's row."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Match, MatchStatus

pytestmark = pytest.mark.django_db
BOT = {"level": "2", "preset": "classic", "target": "100", "rated": "true"}  # the form is casual unless asked


def _client(user: Any, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def _start(client: Client) -> Any:
    return client.post(reverse("games:new_bot_match"), {**BOT, "submission": str(uuid.uuid4())})


@pytest.mark.parametrize(("language", "text"), [
    ("en", "You already have a rated match in progress: here it is."),
    ("pt-br", "Você já tem uma partida valendo rating em andamento: aqui está ela."),
])
def test_starting_again_sends_the_player_back_to_the_match_in_progress(
    alice: Any, house_bots: list[Any], language: str, text: str
) -> None:
    client = _client(alice, language)
    first = _start(client)
    match = Match.objects.get()
    assert first.status_code == 302 and first.url == reverse("games:table", args=[match.pk])
    again = _start(client)  # a new form (new token): Back, then Start the match again
    assert again.status_code == 302 and again.url == reverse("games:table", args=[match.pk])
    assert list(Match.objects.values_list("pk", flat=True)) == [match.pk]
    page = client.get(again.url).content.decode()
    assert text in page


def test_the_form_page_links_to_the_match_in_progress(alice: Any, house_bots: list[Any]) -> None:
    client = _client(alice)
    blank = client.get(reverse("games:new_bot_match")).content.decode()
    assert 'data-testid="match-in-progress"' not in blank
    _start(client)
    match = Match.objects.get()
    page = client.get(reverse("games:new_bot_match")).content.decode()
    notice = page[page.index('data-testid="match-in-progress"'):]
    assert f'href="{reverse("games:table", args=[match.pk])}"' in notice[: notice.index("</p>")]


def test_a_finished_or_aborted_match_no_longer_blocks(alice: Any, house_bots: list[Any]) -> None:
    client = _client(alice)
    _start(client)
    first = Match.objects.get()
    services.match_resign(match_id=first.pk, user=alice)  # before any move: aborted
    first.refresh_from_db()
    assert first.status == MatchStatus.ABORTED
    second = _start(client)
    new = Match.objects.exclude(pk=first.pk).get()
    assert second.url == reverse("games:table", args=[new.pk]) and new.status == MatchStatus.ACTIVE


def test_a_rated_match_against_a_member_in_play_blocks_too(
    alice: Any, bob: Any, house_bots: list[Any]
) -> None:
    friend = services.match_create_seated(player0=bob, player1=alice, rated=True)
    response = _start(_client(alice))
    assert response.url == reverse("games:table", args=[friend.pk])
    assert list(Match.objects.values_list("pk", flat=True)) == [friend.pk]


def test_an_unrated_match_does_not_block_and_a_guest_is_never_blocked(
    alice: Any, guest: Any, house_bots: list[Any]
) -> None:
    services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100, rated=False)
    _start(_client(alice))
    assert Match.objects.filter(player0=alice, rated=True, status=MatchStatus.ACTIVE).count() == 1
    client = _client(guest)
    _start(client)
    _start(client)
    assert Match.objects.filter(player0=guest, rated=False).count() == 2


def test_the_service_refuses_with_the_match_id(alice: Any, house_bots: list[Any]) -> None:
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100,
                                         one_active=True)
    with pytest.raises(services.MatchInProgress) as refused:
        services.match_create_vs_bot(user=alice, level=3, rules_preset="classic", target=50, one_active=True)
    assert refused.value.match_id == match.pk and refused.value.code == "match_in_progress"
    assert Match.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_racing_starts_make_one_match(alice: Any, house_bots: list[Any]) -> None:
    """Two requests at once with different form tokens (two tabs), each in its own transaction: the
    user's row lock serializes them, and the second sees the first's match."""
    barrier = threading.Barrier(2)
    created: list[int] = []
    refused: list[int] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            barrier.wait(timeout=10)
            match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100,
                                                 submission=uuid.uuid4(), one_active=True)
            created.append(match.pk)
        except services.MatchInProgress as exc:
            refused.append(exc.match_id)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=start) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(created) == 1 and refused == created
    assert list(Match.objects.values_list("pk", flat=True)) == created
