"""The ASGI stack of ``config.asgi``: origin validation, session auth on WebSockets, routing to games.

``config.asgi`` is imported inside the tests, never at module level: ``AllowedHostsOriginValidator``
captures ``settings.ALLOWED_HOSTS`` when the module is imported, and importing it at collection time
(before pytest-django adds ``testserver``) would make other tests' ``testserver`` origins fail.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import User
from config.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)
PATH = "/ws/match/999999/"


def headers(origin: bytes | None, cookie: str = "") -> list[tuple[bytes, bytes]]:
    result = [(b"host", b"127.0.0.1:8000")]
    if origin is not None:
        result.append((b"origin", origin))
    if cookie:
        result.append((b"cookie", cookie.encode()))
    return result


def test_games_socket_route_is_mounted_before_the_catch_all() -> None:
    assert [pattern.name for pattern in websocket_urlpatterns] == ["match_ws", "unknown_ws"]


@pytest.mark.parametrize("origin", [b"http://evil.example", b"http://127.0.0.1.evil.example:8000", None])
async def test_foreign_or_missing_origin_is_refused_before_the_consumer(origin: bytes | None) -> None:
    from config.asgi import application

    communicator = WebsocketCommunicator(application, PATH, headers=headers(origin))
    connected, _ = await communicator.connect()
    assert connected is False
    await communicator.disconnect()


async def test_same_origin_anonymous_reaches_consumer_as_anonymous() -> None:
    from config.asgi import application

    communicator = WebsocketCommunicator(application, PATH, headers=headers(b"http://127.0.0.1:8000"))
    connected, _ = await communicator.connect()
    assert connected is True
    message = await communicator.receive_json_from()
    assert (message["type"], message["code"]) == ("error", "not_authenticated")
    assert (await communicator.receive_output())["code"] == 4401
    await communicator.disconnect()


async def test_session_cookie_authenticates_the_socket() -> None:
    def login_cookie() -> str:
        client = Client()
        client.force_login(User.objects.create_user("ana", password="x"))
        return f"sessionid={client.cookies['sessionid'].value}"

    from config.asgi import application

    cookie = await sync_to_async(login_cookie)()
    communicator = WebsocketCommunicator(application, PATH, headers=headers(b"http://127.0.0.1:8000", cookie))
    connected, _ = await communicator.connect()
    assert connected is True
    message = await communicator.receive_json_from()
    # Past the authentication check: the consumer knew who we are and looked the match up.
    assert (message["type"], message["code"]) == ("error", "no_such_match")
    await communicator.disconnect()
