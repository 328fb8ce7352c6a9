"""The database down (issue 14, web.unavailable): pages answer 503 (JSON under /api/), sockets an error
frame ``server_unavailable`` and close 4503, each logged as one line; other database errors stay 500s.

"Down" is made as Django would see it: every new connection raises Django's ``OperationalError`` from
psycopg's "connection failed" (what a stopped PostgreSQL gives; scripts/faults ``postgres_restart``
checks the same against a real one)."""

from __future__ import annotations

import io
import logging
import sqlite3
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import DatabaseError, InterfaceError, OperationalError, ProgrammingError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import Client

from tests.games.wsclient import ORIGIN, recv, session_cookie
from tests.ratings.conftest import alice, house_bots, make_member  # noqa: F401  (fixtures)
from web.close_codes import UNAVAILABLE_CLOSE_CODE
from web.unavailable import SOCKET_ERROR, database_unavailable

REFUSED = 'connection failed: connection to server at "127.0.0.1", port 5432 failed: Connection refused'


def as_django(driver: BaseException, kind: type[DatabaseError] = OperationalError) -> DatabaseError:
    """``driver`` as Django's wrapper raises it (``raise <Django class>(...) from driver``)."""
    wrapped = kind(*driver.args)
    wrapped.__cause__ = driver
    return wrapped


@pytest.mark.parametrize(
    ("error", "unavailable"),
    [
        (as_django(psycopg.OperationalError(REFUSED)), True),  # the server is not there
        (as_django(psycopg.OperationalError("server closed the connection unexpectedly")), True),
        (as_django(psycopg.errors.AdminShutdown("terminating connection")), True),  # 57P01: pg_ctl stop
        (as_django(psycopg.errors.CannotConnectNow("the database system is starting up")), True),  # 57P03
        (as_django(psycopg.errors.ConnectionFailure("link lost")), True),  # 08006
        (as_django(psycopg.InterfaceError("the connection is closed"), InterfaceError), True),
        (InterfaceError("connection already closed"), True),
        (as_django(psycopg.errors.DeadlockDetected("deadlock detected")), False),  # 40P01: a bug to see
        (as_django(psycopg.errors.QueryCanceled("statement timeout")), False),  # 57014: not 57P
        (as_django(psycopg.errors.UndefinedTable("no table"), ProgrammingError), False),
        (as_django(sqlite3.OperationalError("database is locked")), True),  # the embedded profile, busy
        (as_django(sqlite3.OperationalError("no such table: games_match")), False),
        (OperationalError("no cause"), False),
        (RuntimeError("boom"), False),
    ],
)
def test_database_unavailable_tells_an_outage_from_a_failing_query(
    error: Exception, unavailable: bool
) -> None:
    assert database_unavailable(error) is unavailable


@pytest.fixture
def database_down(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every query fails as against a stopped PostgreSQL (for the whole test): a new connection cannot
    be made; a connection left open by an earlier test (another thread's) still answers Django's own
    bookkeeping (``close_old_connections``), but no query."""

    def refuse(self: BaseDatabaseWrapper, name: str | None = None) -> None:
        raise as_django(psycopg.OperationalError(REFUSED))

    def connect_if_none(self: BaseDatabaseWrapper) -> None:
        if self.connection is None:
            refuse(self)

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", connect_if_none)
    monkeypatch.setattr(BaseDatabaseWrapper, "_cursor", refuse)  # every query's way in


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """The records of every logger, one ``level logger: message [exc]`` line each, through the console
    handler's filters (settings.LOGGING)."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    import config.asgi  # noqa: F401  (its django.setup() reconfigures logging: before our handler)

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    for name in settings.LOGGING["handlers"]["console"]["filters"]:
        handler.addFilter(import_string(settings.LOGGING["filters"][name]["()"])())
    root = logging.getLogger()
    root.addHandler(handler)
    yield stream
    root.removeHandler(handler)


@pytest.mark.usefixtures("database_down")
def test_pages_answer_503_with_the_database_down(log_stream: io.StringIO) -> None:
    client = Client(raise_request_exception=False)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 503
    assert page["Retry-After"] == "5" and "no-store" in page["Cache-Control"]
    html = page.content.decode()
    assert 'data-testid="error-page"' in html
    assert '<link rel="stylesheet" href="/static/web/site.css">' in html
    assert "<h1>The site is briefly unavailable</h1>" in html
    assert "OperationalError" not in html and "5432" not in html and "Traceback" not in html

    pt = client.get("/", HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert pt.status_code == 503 and "<h1>O site está indisponível por um momento</h1>" in pt.content.decode()

    api = client.get("/api/v1/bots/")
    assert (api.status_code, api["Content-Type"], api["Retry-After"]) == (503, "application/json", "5")
    assert api.json() == {
        "error": "unavailable", "message": "the database cannot be reached: try again shortly"
    }

    lines = [line for line in log_stream.getvalue().splitlines() if line.startswith("ERROR django.request")]
    assert lines == [
        f"ERROR django.request: Service Unavailable: {path} (OperationalError: {REFUSED})"
        for path in ("/", "/", "/api/v1/bots/")
    ]
    assert "Traceback" not in log_stream.getvalue()


def test_other_failures_stay_500s(monkeypatch: pytest.MonkeyPatch, log_stream: io.StringIO) -> None:
    def broken(self: BaseDatabaseWrapper) -> None:
        raise as_django(psycopg.errors.UndefinedTable('relation "x" does not exist'), ProgrammingError)

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", broken)
    client = Client(raise_request_exception=False)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 500 and "<h1>Something went wrong on our side</h1>" in page.content.decode()
    assert "Retry-After" not in page
    api = client.get("/api/v1/bots/")
    assert (api.status_code, api.json()) == (500, {"error": "server_error", "message": "unexpected failure"})
    lines = [line for line in log_stream.getvalue().splitlines() if line.startswith("ERROR django.request")]
    assert lines == [
        "ERROR django.request: Internal Server Error: /",
        "ERROR django.request: Internal Server Error: /api/v1/bots/",
    ]
    assert log_stream.getvalue().count("Traceback (most recent call last)") >= 2  # a bug keeps its traceback


async def assert_refused_unavailable(comm: WebsocketCommunicator) -> None:
    connected, _ = await comm.connect()
    assert connected  # accepted: not an HTTP 500 at the handshake
    assert await recv(comm) == SOCKET_ERROR
    assert await comm.receive_output() == {"type": "websocket.close", "code": UNAVAILABLE_CLOSE_CODE}
    assert await comm.receive_nothing(timeout=0.1)


@pytest.mark.usefixtures("database_down")
async def test_new_socket_with_the_database_down_gets_an_error_frame(log_stream: io.StringIO) -> None:
    from config.asgi import application

    headers = [(b"origin", ORIGIN), (b"host", b"testserver"), (b"cookie", b"sessionid=" + b"k" * 32)]
    # With a session cookie its lookup fails before any consumer runs; without one (the watch page may be
    # opened signed out) the consumer's own lookup fails after its accept.
    for path, sent in (("/ws/match/7/", headers), ("/ws/watch/7/", headers[:2])):
        comm = WebsocketCommunicator(application, path, headers=sent)
        try:
            await assert_refused_unavailable(comm)
        finally:
            await comm.disconnect()
    text = log_stream.getvalue()
    warnings = [line for line in text.splitlines() if line.startswith("WARNING web.unavailable")]
    assert warnings == [
        f"WARNING web.unavailable: socket {path}: database unavailable (OperationalError: {REFUSED}):"
        " error server_unavailable, close 4503"
        for path in ("/ws/match/7/", "/ws/watch/7/")
    ]
    assert "Traceback" not in log_stream.getvalue()


@pytest.mark.django_db(transaction=True)
async def test_table_socket_whose_match_lookup_fails_gets_an_error_frame(
    alice: Any,  # noqa: F811
    house_bots: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Signed in, then the database goes away: the consumer's own lookup, after its accept, fails."""
    from config.asgi import application
    from games import selectors, services

    match = await database_sync_to_async(services.match_create_vs_bot)(
        user=alice, level=1, rules_preset="classic", target=50
    )
    cookie = await database_sync_to_async(session_cookie)(alice)

    def gone(**kwargs: Any) -> None:
        raise as_django(psycopg.OperationalError("server closed the connection unexpectedly"))

    monkeypatch.setattr(selectors, "match_get", gone)
    headers = [(b"origin", ORIGIN), (b"host", b"testserver"), (b"cookie", cookie.encode())]
    comm = WebsocketCommunicator(application, f"/ws/match/{match.pk}/", headers=headers)
    try:
        await assert_refused_unavailable(comm)
    finally:
        await comm.disconnect()


def test_socket_error_is_in_the_protocol() -> None:
    # Daphne's autobahn refuses to send any other close code from an application (it closes with 1011
    # instead): "invalid close code ... (must be 1000 or from [3000, 4999])".
    assert 4000 <= UNAVAILABLE_CLOSE_CODE <= 4999
    from tests.conftest import ROOT

    protocol = (ROOT / "docs/protocol.md").read_text()
    assert f"| `{SOCKET_ERROR['code']}` | {UNAVAILABLE_CLOSE_CODE} |" in protocol
    strings = (ROOT / "games/templates/games/_table_strings.html").read_text()
    assert f'data-key="error_{SOCKET_ERROR["code"]}"' in strings
