"""One rule for a private replay's token on every path (issue 20, item 10: the API trimmed the token, so
``?token=<token>%20`` opened the replay there while ``/replay/<id>.json`` refused it; an empty or a
65-character token was a 400 in the API and a refusal on the page).

The token is read by ``replays.selectors.share_token`` (one value, exactly as sent) and compared by
``check_can_watch``: the same query strings give the same answer on the API, the replay file, the replay
page, the analysis file and the analysis socket; only the exact token opens the replay.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from replays.services import replay_access_ensure
from tests.games.wsclient import recv
from tests.replays.test_analysis import analysis_socket
from tests.replays.test_private_unseen import socket_answer
from tests.replays.test_views import play_friend_match


def queries(token: str) -> dict[str, bool]:
    """Query strings -> whether they give the token (True: the replay opens)."""
    return {
        f"token={token}": True,
        f"token={quote(token)}&hand=1": True,
        f"token={token}%20": False,  # the case: a trailing space
        f"token=%20{token}": False,
        f"token={token}+": False,  # "+" is a space in a query string
        f"token={token}%0A": False,
        f"token={token}%00": False,
        f"token={token.upper() if token.upper() != token else token.lower()}": False,
        f"token={token[:-1]}": False,
        f"token={token}x": False,
        "token=" + "t" * 65: False,
        "token=": False,
        "token": False,
        f"token={token}&token={token}": False,  # given twice: which one was meant?
        f"token=x&token={token}": False,
        f"Token={token}": False,
        "": False,
    }


@pytest.mark.django_db
def test_the_api_and_the_replay_pages_read_the_token_alike(
    alice: Any, bob: Any, seeded_decks: Any, django_user_model: Any
) -> None:
    match = play_friend_match(alice, bob, rated=False)
    token = replay_access_ensure(match=match).token
    paths = {
        "api": f"/api/v1/matches/{match.pk}/replay/",
        "file": f"/replay/{match.pk}.json",
        "page": f"/replay/{match.pk}/",
        "analysis": f"/replay/{match.pk}/analysis.json",
    }
    client = Client()
    for query, opens in queries(token).items():
        got = {name: client.get(f"{path}?{query}").status_code for name, path in paths.items()}
        if "%00" in query:  # a NUL is refused before anything is looked up (web.middleware), on every path
            assert got == {name: 400 for name in paths}, (query, got)
        elif opens:
            # the analysis file: the replay's access, then 404 not_analysed (nobody asked for one)
            assert got == {"api": 200, "file": 200, "page": 200, "analysis": 404}, (query, got)
            assert client.get(paths["analysis"] + f"?{query}").json()["error"] == "not_analysed"
            api, file = (client.get(paths[name] + f"?{query}").json() for name in ("api", "file"))
            assert api == file and api["match"]["id"] == match.pk
        else:
            assert got == {name: 404 for name in paths}, (query, got)
            assert client.get(paths["api"] + f"?{query}").json()["error"] == "no_such_match", query
    # the analyse form sends the token as a field: the same rule (asked by a member who plays neither
    # seat: analyses are for members, docs/analysis.md)
    client.force_login(django_user_model.objects.create_user(username="carol", password="pw-carol-42"))
    for value, opens in ((token, True), (token + " ", False), (" " + token, False), ("", False)):
        answer = client.post(f"/replay/{match.pk}/analyse/", {"token": value}, HTTP_ACCEPT="application/json")
        assert (answer.status_code in (200, 202)) == opens, (value, answer.status_code)


@pytest.mark.django_db(transaction=True)
async def test_the_analysis_socket_reads_the_token_alike(alice: Any, bob: Any, seeded_decks: Any) -> None:
    def make() -> tuple[int, str]:
        match = play_friend_match(alice, bob, rated=False)
        return match.pk, replay_access_ensure(match=match).token

    match_id, token = await database_sync_to_async(make)()
    for query, opens in queries(token).items():
        if opens:
            comm = await analysis_socket(match_id, None, f"?{query}")
            first = await recv(comm)
            await comm.disconnect()
            assert first["type"] == "analysis" and first["status"] == "none", (query, first)
        else:
            first, closed = await socket_answer(f"/ws/analysis/{match_id}/?{query}", None)
            assert (first.get("code"), closed["code"]) == ("no_such_match", 4404), (query, first, closed)
