"""A private match that a stranger may not see is answered exactly as a match that does not exist, whatever
its state (issue 20, finding 7: the API answered 409 for a live private match, 403 for a finished one and
404 otherwise, and the analysis socket ``not_finished``: a scan of ids found every live private match).

Every path that takes a match id is walked as a stranger (anonymous, and a member who plays neither
match) with three ids: a live private match (an unrated friend match in play), a finished private match
(a guest's bot match) and an id no match has. Each path must give the three the same status and the
same body, apart from the id itself and the per-response CSRF mask (random, and the same for any id).
The players still get their specific answers (409 while live, the replay once finished).
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from django.test import Client

from games import services
from games.models import Match
from tests.games.wsclient import ORIGIN, recv, session_cookie

# (method, path, form data, extra headers); {id} is the match id
HTTP_PATHS: list[tuple[str, str, dict[str, str], dict[str, str]]] = [
    ("GET", "/api/v1/matches/{id}/replay/", {}, {}),
    ("GET", "/api/v1/matches/{id}/replay/?token=wrong", {}, {}),
    ("GET", "/replay/{id}/", {}, {}),
    ("GET", "/replay/{id}/?token=wrong&hand=2", {}, {}),
    ("GET", "/replay/{id}.json", {}, {}),
    ("GET", "/replay/{id}.json?download=1", {}, {}),
    ("GET", "/replay/{id}/analysis.json", {}, {}),
    ("POST", "/replay/{id}/analyse/", {}, {"HTTP_ACCEPT": "application/json"}),
    ("POST", "/replay/{id}/analyse/", {"token": "wrong"}, {}),
    ("POST", "/replay/{id}/visibility/", {"public": "1"}, {}),
    ("POST", "/replay/{id}/visibility/", {"public": "x"}, {}),
    ("GET", "/watch/{id}/", {}, {}),
    ("GET", "/match/{id}/", {}, {}),
    ("GET", "/match/{id}/hands/1/verify.json", {}, {}),
    ("GET", "/ratings/match/{id}.json", {}, {}),
    ("POST", "/match/{id}/end/", {}, {}),
]

SOCKET_PATHS = ["/ws/watch/{id}/", "/ws/analysis/{id}/", "/ws/analysis/{id}/?token=wrong", "/ws/match/{id}/"]

_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


def normalized(text: str, path: str, match_id: int) -> str:
    """``text`` with the CSRF field's per-response mask replaced, and the id where a page names it: the
    requested ``path`` (the language form's and the log-in page's ``next``) and "no match <id>"."""
    text = _CSRF.sub('name="csrfmiddlewaretoken"', text)
    for shown in (path, html.escape(path)):
        text = text.replace(shown, "<PATH>")
    return text.replace(f"no match {match_id}", "no match <ID>")


def answer(client: Client, method: str, path: str, data: dict[str, str], extra: dict[str, str],
           match_id: int) -> tuple[int, str, str]:
    """(status, content type, normalized body); a redirect is followed (the message lands on the next
    page), so its target page is compared too."""
    url = path.format(id=match_id)
    cache.clear()  # request limits (counted in the cache) must not make the ids' answers differ
    got = client.get(url, **extra) if method == "GET" else client.post(url, data, **extra)
    if got.status_code == 302:
        got = client.get(got["Location"])
    return got.status_code, got["Content-Type"], normalized(got.content.decode(), url, match_id)


def private_matches(alice: Any, bob: Any, guest: Any) -> tuple[Match, Match, int]:
    """A live private match (alice's unrated friend table, bob joined), a finished private one (the
    guest's bot match) and an id no match has."""
    from tests.replays.test_analysis import short_finished

    live = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None, rated=False)
    services.table_join(user=bob, token=live.invite_token)
    live = Match.objects.get(pk=live.pk)
    finished = short_finished(guest)
    assert live.status == "active" and live.first_dealer is not None and finished.status == "finished"
    missing = max(Match.objects.values_list("pk", flat=True)) + 1000
    return live, finished, missing


@pytest.mark.django_db
def test_every_http_path_answers_a_stranger_as_if_the_private_match_did_not_exist(
    house_bots: Any, seeded_decks: Any, alice: Any, bob: Any, guest: Any, django_user_model: Any
) -> None:
    live, finished, missing = private_matches(alice, bob, guest)
    carol = django_user_model.objects.create_user(username="carol")
    member = Client()
    member.force_login(carol)
    for name, client in (("anonymous", Client()), ("carol", member)):
        for method, path, data, extra in HTTP_PATHS:
            answers = [answer(client, method, path, data, extra, m) for m in (live.pk, finished.pk, missing)]
            assert answers[0] == answers[1] == answers[2], (name, method, path, [a[:2] for a in answers])
            # nothing that only a live or a private match would get
            status, _, text = answers[0]
            assert status not in (409, 422) and "not_finished" not in text and "private" not in text, (
                name, path, answers[0][:2])
    # the replay paths answer 404 (not 403/409) as they do for an id with no match
    api = Client().get(f"/api/v1/matches/{live.pk}/replay/")
    assert api.status_code == 404 and api.json() == {
        "error": "no_such_match", "message": "there is no finished match with this id"}
    assert Client().get(f"/watch/{finished.pk}/").status_code == 404
    assert member.get(f"/match/{live.pk}/").status_code == 404
    # those who may see the match still get their own answers
    players = Client()
    players.force_login(alice)
    assert players.get(f"/api/v1/matches/{live.pk}/replay/").status_code == 409
    assert players.get(f"/replay/{live.pk}/").status_code == 409
    assert players.get(f"/match/{live.pk}/").status_code == 200
    assert players.get(f"/watch/{live.pk}/").status_code == 403  # private: not watched live, even by players
    from replays.services import replay_access_ensure

    token = replay_access_ensure(match=finished).token
    assert Client().get(f"/api/v1/matches/{finished.pk}/replay/?token={token}").status_code == 200
    assert Client().get(f"/replay/{finished.pk}/?token={token}").status_code == 200
    # a public match's existence is no secret: a stranger at its table is told it is not theirs
    public = services.match_create_vs_bot(user=bob, level=1, rules_preset="classic", target=100)
    assert member.get(f"/match/{public.pk}/").status_code == 403
    assert member.get(f"/api/v1/matches/{public.pk}/replay/").status_code == 409


async def socket_answer(path: str, cookie: str | None) -> tuple[dict[str, Any], Any]:
    """The first message and the close of a socket at ``path`` (``cookie``: a session, or anonymous)."""
    from config.asgi import application

    headers = [(b"origin", ORIGIN), (b"host", b"testserver")]
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect()
    assert connected
    first = await recv(comm)
    closed = await comm.receive_output()
    await comm.disconnect()
    return first, closed


@pytest.mark.django_db(transaction=True)
async def test_every_socket_refuses_a_stranger_as_if_the_private_match_did_not_exist(
    house_bots: Any, seeded_decks: Any, alice: Any, bob: Any, guest: Any, django_user_model: Any
) -> None:
    live, finished, missing = await database_sync_to_async(private_matches)(alice, bob, guest)
    carol = await database_sync_to_async(django_user_model.objects.create_user)(username="carol")
    cookies = {"anonymous": None, "carol": await database_sync_to_async(session_cookie)(carol)}
    for name, cookie in cookies.items():
        for path in SOCKET_PATHS:
            answers = []
            for match_id in (live.pk, finished.pk, missing):
                first, closed = await socket_answer(path.format(id=match_id), cookie)
                answers.append((normalized(repr(first), path.format(id=match_id), match_id), closed))
            assert answers[0] == answers[1] == answers[2], (name, path, answers)
            first_text, closed = answers[0]
            if not (name == "anonymous" and path.startswith("/ws/match/")):  # anonymous: log in first
                assert closed == {"type": "websocket.close", "code": 4404}, (name, path, answers[0])
                assert "no_such_match" in first_text
    # its players: the analysis socket tells them it is still in play
    first, closed = await socket_answer(f"/ws/analysis/{live.pk}/",
                                        await database_sync_to_async(session_cookie)(bob))
    assert first["code"] == "not_finished" and closed["code"] == 4409
