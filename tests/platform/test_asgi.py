"""The ASGI stack of ``config.asgi``: origin validation (``config.origins``: scheme, host and port), session
auth on WebSockets, routing to games.

``config.asgi`` is imported inside the tests, never at module level: it runs ``django.setup()``, which
must not happen at collection time.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import User
from config.origins import origin_allowed, parse_origin
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
    names = [pattern.name for pattern in websocket_urlpatterns]
    assert names[0] == "match_ws" and names[-1] == "unknown_ws" and names.count("unknown_ws") == 1


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


def scope(origin: str | None, host: str = "127.0.0.1:8000", **extra: str) -> dict[str, object]:
    hdrs = [(b"host", host.encode())] + [(k.encode(), v.encode()) for k, v in extra.items()]
    if origin is not None:
        hdrs.append((b"origin", origin.encode()))
    return {"type": "websocket", "scheme": "ws", "path": PATH, "headers": hdrs}


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("http://127.0.0.1:8000", True),
        ("HTTP://127.0.0.1:8000", True),
        ("http://127.0.0.1:8000/", True),
        ("http://127.0.0.1:9999", False),  # another port of the same host (issue 8)
        ("http://localhost:1234", False),
        ("https://127.0.0.1", False),
        ("https://127.0.0.1:8000", False),  # the same host and port over another scheme
        ("http://127.0.0.1", False),  # port 80
        ("http://localhost:8000", False),  # an allowed host, but not the one the socket was opened at
        ("http://127.0.0.1:8000.evil.example", False),
        ("http://user@127.0.0.1:8000", False),
        ("http://127.0.0.1:8000/page", False),
        ("ws://127.0.0.1:8000", False),
        ("null", False),
        ("", False),
        (None, False),
    ],
)
def test_origin_must_be_the_served_origin(origin: str | None, allowed: bool) -> None:
    assert origin_allowed(scope(origin)) is allowed


def test_default_ports_are_filled_in() -> None:
    assert parse_origin("http://a.example") == ("http", "a.example", 80)
    assert parse_origin("https://A.example:443") == ("https", "a.example", 443)
    assert parse_origin("https://a.example:99999") is None
    assert origin_allowed(scope("http://gin.test", host="gin.test:80")) is False  # not in ALLOWED_HOSTS
    assert origin_allowed({**scope("https://127.0.0.1", host="127.0.0.1"), "scheme": "wss"}) is True


def test_a_host_outside_allowed_hosts_serves_no_origin(settings: object) -> None:
    assert origin_allowed(scope("http://evil.example", host="evil.example")) is False


def test_csrf_trusted_origins_are_accepted_exactly(settings: object) -> None:
    settings.CSRF_TRUSTED_ORIGINS = ["https://gin.example", "https://*.sub.example"]  # type: ignore[attr-defined]
    assert origin_allowed(scope("https://gin.example")) is True
    assert origin_allowed(scope("https://gin.example:443")) is True
    assert origin_allowed(scope("https://a.sub.example")) is True
    assert origin_allowed(scope("https://a.b.sub.example")) is True
    assert origin_allowed(scope("http://gin.example")) is False
    assert origin_allowed(scope("https://gin.example:8443")) is False
    assert origin_allowed(scope("https://evilgin.example")) is False
    assert origin_allowed(scope("https://sub.example.evil")) is False
    assert origin_allowed(scope("http://a.sub.example")) is False


def test_scheme_behind_the_proxy_comes_from_the_trusted_header(settings: object) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")  # type: ignore[attr-defined]
    settings.ALLOWED_HOSTS = ["gin.example"]  # type: ignore[attr-defined]
    behind = {"x-forwarded-proto": "https"}
    assert origin_allowed(scope("https://gin.example", host="gin.example", **behind)) is True
    assert origin_allowed(scope("http://gin.example", host="gin.example", **behind)) is False
    assert origin_allowed(scope("http://gin.example", host="gin.example")) is True
    assert origin_allowed(scope("https://gin.example", host="gin.example")) is False
    assert origin_allowed(scope("http://gin.example", host="gin.example", **{"x-forwarded-proto": "http"}))


def test_the_entry_point_freezes_the_start_up_heap_and_raises_the_collector_thresholds():
    """``config.gc_tuning``: a Daphne's 150,000-odd start-up objects are out of every collection (a full
    one took 85-150 ms with them in), and young collections come after 50,000 allocations, not 700."""
    import gc

    import config.asgi  # noqa: F401  (tunes on import, after the application is built)
    from config.gc_tuning import tune_for_live_play

    assert gc.get_threshold() == (50_000, 20, 100)
    assert gc.get_freeze_count() > 50_000  # Django, Channels, the apps and the engine
    frozen = gc.get_freeze_count()
    late = [object()]  # a container made after the freeze is collected as usual ...
    assert any(obj is late for obj in gc.get_objects())
    tune_for_live_play()  # ... until the next freeze, which only adds what was made since
    assert gc.get_freeze_count() > frozen
    assert not any(obj is late for obj in gc.get_objects())
