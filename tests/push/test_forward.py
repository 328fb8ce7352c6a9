"""push.forward (sending) and push.views (receiving): the embedded profile's Celery processes post their
pushes to Daphne, which sends them on the in-memory layer that holds the sockets. Refusals change
nothing; the real path (a rating written by another process reaching a table socket on a Daphne with
the in-memory layer) is checked end to end."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.test import Client

from push import send, views
from tests.browser_waits import SOCKET_WAIT_S
from tests.conftest import free_port
from tests.push.test_send import received

TOKEN = "t" * 43
SHAPE = 'the body must be {"messages": [[group, message], ...]} with at least one message'


@pytest.fixture
def member(settings: Any) -> Iterator[tuple[Any, str]]:
    """Forwarding on in this process (as in Daphne), and a channel in the group ``g1``."""
    settings.PUSH_FORWARD_TOKEN = TOKEN
    layer = get_channel_layer()
    name = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)("g1", name)
    yield layer, name


def post(body: Any, token: str = TOKEN, raw: bytes | None = None) -> Any:
    data = raw if raw is not None else json.dumps(body).encode()
    return Client().post("/internal/push/", data=data, content_type="application/json",
                         HTTP_AUTHORIZATION=f"Bearer {token}")


def nothing_queued(layer: Any, name: str) -> bool:
    send.send_now([("g1", {"type": "pool.probe"})])
    return async_to_sync(layer.receive)(name) == {"type": "pool.probe"}


@pytest.mark.django_db
def test_forwarded_messages_reach_the_group_in_order(member: tuple[Any, str]) -> None:
    layer, name = member
    answer = post({"messages": [["g1", {"type": "pool.count", "waiting": 2}],
                                ["g1", {"type": "lobby.changed"}]]})
    assert answer.status_code == 204
    assert received(layer, name, 2) == [
        {"type": "pool.count", "waiting": 2}, {"type": "lobby.changed"}]


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "status", "error"), [
    ({"messages": [["g1", {"type": "pool.count", "waiting": "2"}]]}, 400,
     "'pool.count' to 'g1': waiting: '2' is not of type 'integer'"),
    ({"messages": [["g1", {"type": "pool.count", "waiting": 2}], ["g 1", {"type": "pool.probe"}]]}, 400,
     "messages[1]: 'g 1' is not a group name"),
    ({"messages": []}, 400, SHAPE),
    ({"messages": [["g1"]]}, 400, "messages[0] must be [group, message]"),
    ([1, 2], 400, SHAPE),
])
def test_a_bad_body_is_refused_and_nothing_is_sent(member: tuple[Any, str], body: Any, status: int,
                                                   error: str) -> None:
    layer, name = member
    answer = post(body)
    assert (answer.status_code, answer.json()) == (status, {"error": "bad_messages", "message": error})
    assert nothing_queued(layer, name)  # not even the valid first message of a refused batch


@pytest.mark.django_db
def test_refusals_by_token_body_size_and_when_off(member: tuple[Any, str], settings: Any) -> None:
    layer, name = member
    good = {"messages": [["g1", {"type": "lobby.changed"}]]}
    assert post(good, token="wrong").status_code == 403
    assert post(good, token="").status_code == 403
    answer = post(None, raw=b"\xff\x00{")
    assert answer.status_code == 400 and answer.json()["message"].startswith("the body is not JSON")
    assert post(None, raw=b" " * (views.MAX_BYTES + 1)).status_code == 413
    got = Client().get("/internal/push/")
    assert (got.status_code, got["Allow"], got.json()) == (
        405, "POST", {"error": "method_not_allowed", "message": "only POST"})
    settings.PUSH_FORWARD_TOKEN = ""
    assert post(good, token="").status_code == 404
    assert nothing_queued(layer, name)


@pytest.mark.push_failure
def test_an_unreachable_daphne_is_an_outage(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.PUSH_FORWARD_URL = f"http://127.0.0.1:{free_port()}/internal/push/"
    settings.PUSH_FORWARD_TOKEN = TOKEN
    seen: list[send.Failure] = []
    monkeypatch.setattr(send, "LISTENERS", [seen.append])
    outcome = send.send_now([("g1", {"type": "lobby.changed"})])
    assert outcome.failed and len(seen) == 1 and seen[0].is_outage
    assert isinstance(seen[0].error, ConnectionError)


def test_the_ratings_of_another_process_reach_a_table_on_the_in_memory_layer(
        daphne_server_factory: Any, django_user_model: Any, settings: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded profile's real path: a Daphne with the in-memory layer (no REDIS_URL) holds the
    table socket of a finished rated match; the rating is written in ANOTHER process (this one, as the
    Celery worker) and reaches the socket only through the forward (the table read no rating when it
    opened, and no longer polls)."""
    from websockets.sync.client import connect

    from games import services as games_services
    from ratings import services, tasks
    from tests.games.wsclient import session_cookie
    from tests.ratings.conftest import first_moves

    alice, bob = (django_user_model.objects.create_user(username=name) for name in ("alice", "bob"))
    server = daphne_server_factory(REDIS_URL="", PUSH_FORWARD_TOKEN=TOKEN)
    monkeypatch.setattr(tasks.rate_match, "delay", lambda match_id: None)  # "the worker" is this test
    table = games_services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    match = games_services.table_join(user=bob, token=table.invite_token)
    first_moves(match.pk, {0: alice, 1: bob})
    games_services.match_resign(match_id=match.pk, user=bob)
    with connect(f"{server.ws_url}/ws/match/{match.pk}/", origin=server.url,  # type: ignore[arg-type]
                 additional_headers={"Cookie": session_cookie(alice)}, open_timeout=SOCKET_WAIT_S) as ws:
        first = json.loads(ws.recv(timeout=SOCKET_WAIT_S))
        assert first["type"] == "state" and first["match"]["status"] == "finished"
        settings.PUSH_FORWARD_URL = f"{server.url}/internal/push/"
        settings.PUSH_FORWARD_TOKEN = TOKEN
        assert len(services.match_rate(match_id=match.pk)) == 2
        deadline = time.monotonic() + SOCKET_WAIT_S
        got = []
        while not any(m["type"] == "rating" for m in got):
            assert time.monotonic() < deadline, got
            got.append(json.loads(ws.recv(timeout=SOCKET_WAIT_S)))
    assert [m for m in got if m["type"] == "rating"] == [
        {"type": "rating", "match_id": match.pk, "before": 1500, "after": 1520, "change": "+20",
         "delta": 20.0, "k": 40, "opponent_rating": 1500, "won": True}]
