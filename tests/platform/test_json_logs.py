"""Production logs: one JSON object per line with the request id and, for work on a match, its id;
HTTP requests (X-Request-ID honoured when it is a UUID) and the table's WebSocket consumer alike."""

from __future__ import annotations

import io
import json
import logging
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from tests.ratings.conftest import alice, house_bots, make_member  # noqa: F401  (fixtures)

SNIPPET = """
import logging, django
django.setup()
from django_guid import set_guid
from web.log_context import match_id
log = logging.getLogger("games.consumers")
log.info("outside any request")
set_guid("0123456789abcdef0123456789abcdef")
match_id.set(42)
log.warning("match %s: something", 42)
try:
    raise RuntimeError("boom")
except RuntimeError:
    log.exception("failed")
"""


def run(env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", SNIPPET], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return [line for line in done.stderr.splitlines() if "axes" not in line]


def test_production_profile_logs_json_lines(subprocess_env: dict[str, str]) -> None:
    env = {
        **subprocess_env,
        "DATABASE_URL": "postgres://gin@127.0.0.1:5432/gin",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "SECRET_KEY": "x" * 50,
    }
    lines = [line for line in run(env) if not line.startswith(" ")]
    records = [json.loads(line) for line in lines]
    assert [(r["level"], r["logger"], r["message"], r["request_id"], r["match_id"]) for r in records] == [
        ("INFO", "games.consumers", "outside any request", None, None),
        ("WARNING", "games.consumers", "match 42: something", "0123456789abcdef0123456789abcdef", 42),
        ("ERROR", "games.consumers", "failed", "0123456789abcdef0123456789abcdef", 42),
    ]
    assert "RuntimeError: boom" in records[2]["exc_info"]  # the traceback inside the one line
    assert all(r["time"].endswith("+00:00") for r in records)


def test_embedded_profile_keeps_plain_lines(subprocess_env: dict[str, str]) -> None:
    lines = run(subprocess_env)
    assert lines[0].endswith("INFO games.consumers: outside any request")
    assert run({**subprocess_env, "LOG_FORMAT": "json"})[0].startswith("{")


@pytest.fixture
def json_log(settings: Any) -> Iterator[io.StringIO]:
    """The production formatter and filters (from ``settings.LOGGING``) on a handler of the root logger."""
    from django.utils.module_loading import import_string
    from pythonjsonlogger.json import JsonFormatter

    import config.asgi  # noqa: F401  (its django.setup() reconfigures logging: before our handler)

    options = {k: v for k, v in settings.LOGGING["formatters"]["json"].items() if k != "()"}
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter(**options))
    for name in settings.LOGGING["handlers"]["console"]["filters"]:  # the console handler's, in its order
        handler.addFilter(import_string(settings.LOGGING["filters"][name]["()"])())
    root = logging.getLogger()
    root.addHandler(handler)
    yield stream
    root.removeHandler(handler)


def records(stream: io.StringIO, logger: str) -> list[dict[str, Any]]:
    found = [json.loads(line) for line in stream.getvalue().splitlines()]
    return [r for r in found if r["logger"] == logger]


@pytest.mark.django_db
def test_request_records_carry_request_and_match_ids(json_log: io.StringIO) -> None:
    given = "a3d5c7e9f1b2a4c6d8e0f1a2b3c4d5e6"
    client = Client()
    response = client.get("/replay/987654/", HTTP_X_REQUEST_ID=given)
    assert response.status_code == 404 and response["X-Request-ID"] == given
    client.get("/api/v1/matches/987653/replay/", HTTP_X_REQUEST_ID="not a uuid")
    client.get("/no/such/page/")
    first, second, third = records(json_log, "django.request")
    assert (first["message"], first["request_id"], first["match_id"]) == (
        "Not Found: /replay/987654/",
        given,
        987654,
    )
    assert second["match_id"] == 987653 and len(second["request_id"]) == 32 and second["request_id"] != given
    assert third["match_id"] is None and third["request_id"] not in (given, second["request_id"])


@pytest.mark.django_db(transaction=True)
async def test_websocket_consumer_records(
    json_log: io.StringIO,
    alice: Any,  # noqa: F811
    house_bots: Any,  # noqa: F811
    monkeypatch: Any,
) -> None:
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from games import consumers, services
    from tests.games.wsclient import ORIGIN, recv, send, session_cookie

    match = await database_sync_to_async(services.match_create_vs_bot)(
        user=alice, level=1, rules_preset="classic", target=50
    )

    async def broken(self: Any, message: Any) -> None:
        raise RuntimeError("unexpected")

    monkeypatch.setattr(consumers.MatchConsumer, "on_sync", broken)
    cookie = await database_sync_to_async(session_cookie)(alice)
    given = "0f0e0d0c0b0a09080706050403020100"
    headers = [
        (b"origin", ORIGIN),
        (b"host", b"testserver"),
        (b"cookie", cookie.encode()),
        (b"x-request-id", given.encode()),
    ]
    comm = WebsocketCommunicator(application, f"/ws/match/{match.pk}/", headers=headers)
    try:
        connected, _ = await comm.connect()
        assert connected
        assert (await recv(comm))["type"] == "state"
        await send(comm, {"type": "sync", "id": "s1"})
        assert (await recv(comm))["code"] == "server_error"
    finally:
        await comm.disconnect()
    connect, disconnect = records(json_log, "web.access")
    assert (connect["message"], connect["request_id"]) == (f"WSCONNECT /ws/match/{match.pk}/", given)
    assert (disconnect["message"], disconnect["request_id"]) == (f"WSDISCONNECT /ws/match/{match.pk}/", given)
    (failed,) = records(json_log, "games.consumers")
    assert failed["message"].startswith(f"match {match.pk}: failed on")
    assert (failed["request_id"], failed["match_id"]) == (given, match.pk)
    assert "RuntimeError: unexpected" in failed["exc_info"]


def test_celery_tasks_about_a_match_carry_its_id(monkeypatch: Any) -> None:
    from games import services, tasks
    from web.log_context import match_id

    seen: list[int | None] = []

    def played(*, match_id: int, expected_seq: int | None = None) -> int:
        seen.append(current())
        return 0

    current = match_id.get
    monkeypatch.setattr(services, "match_play_server_moves", played)
    tasks.play_server_moves.apply(args=(4242, 7))  # runs here, through Celery's task_prerun signal
    tasks.play_server_moves.apply(kwargs={"match_id": 77})
    assert seen == [4242, 77]
    from web.log_context import bind_task

    bind_task(tasks.sweep_server_moves, (), {})  # a task about no match in particular
    assert match_id.get() is None


# ------------------------------------------------------------------------------------------ secrets


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GET /replay/7/?token=s3cret 200", "GET /replay/7/?token=[redacted] 200"),
        ("/watch/7/?a=1&token=s3cret&b=2", "/watch/7/?a=1&token=[redacted]&b=2"),
        ("<ASGIRequest: GET '/replay/7/?TOKEN=s3cret'>", "<ASGIRequest: GET '/replay/7/?TOKEN=[redacted]'>"),
        ("/replay/7/?%74oken=s3cret#x", "/replay/7/?%74oken=[redacted]#x"),  # Django reads it as token
        ("/replay/7/?tokens=kept&mytoken=kept", "/replay/7/?tokens=kept&mytoken=kept"),
        ("no query token=here", "no query token=here"),
        # Django's request repr percent-encodes a path's ; and = (get_full_path): redacted all the same.
        ("<ASGIRequest: GET '/r/7/%3Btoken%3Ds3cret'>", "<ASGIRequest: GET '/r/7/%3Btoken%3D[redacted]'>"),
        ("/replay/7/;token=s3cret", "/replay/7/;token=[redacted]"),
        ("/r/?a=1%26TOKEN%3ds3cret%26b=2", "/r/?a=1%26TOKEN%3d[redacted]%26b=2"),
        ("/r/?%74oken%3Ds3cret", "/r/?%74oken%3D[redacted]"),
        ("/r/%3Btokens%3Dkept", "/r/%3Btokens%3Dkept"),
    ],
)
def test_redact_query_secrets(text: str, expected: str) -> None:
    from web.log_filters import redact_query_secrets

    assert redact_query_secrets(text) == expected


@pytest.mark.django_db
def test_request_records_never_show_a_token(json_log: io.StringIO) -> None:
    response = Client().get("/replay/987654/?token=s3cretTOKEN&x=1")
    assert response.status_code == 404
    assert "s3cretTOKEN" not in json_log.getvalue()
    (record,) = records(json_log, "django.request")
    assert record["request"] == "<WSGIRequest: GET '/replay/987654/?token=[redacted]&x=1'>"
    logging.getLogger("replays").warning("opened %s", "/replay/5/?token=s3cretTOKEN")
    assert records(json_log, "replays")[0]["message"] == "opened /replay/5/?token=[redacted]"
    # A path's ;token= is re-encoded in the request's repr (%3Btoken%3D...): redacted there too.
    assert Client().get("/replay/987654/;token=s3cretPATH").status_code == 404
    assert "s3cretPATH" not in json_log.getvalue()
    assert records(json_log, "django.request")[1]["request"] == (
        "<WSGIRequest: GET '/replay/987654/%3Btoken%3D[redacted]'>"
    )


@pytest.mark.django_db(transaction=True)
async def test_access_log_one_json_record_per_request(json_log: io.StringIO) -> None:
    from channels.testing import HttpCommunicator

    from config.asgi import application

    comm = HttpCommunicator(
        application, "GET", "/replay/987654/?token=s3cretTOKEN&x=1", headers=[(b"host", b"127.0.0.1")]
    )
    response = await comm.get_response()
    assert response["status"] == 404
    request_id = dict(response["headers"])[b"X-Request-ID"].decode()
    (line,) = records(json_log, "web.access")
    assert line["message"] == "GET /replay/987654/?token=[redacted]&x=1 404"
    assert (line["method"], line["path"]) == ("GET", "/replay/987654/?token=[redacted]&x=1")
    assert line["status_code"] == 404
    assert line["request_id"] == request_id and len(request_id) == 32
    assert line["size"] == len(response["body"]) > 0 and line["duration_ms"] >= 0
    assert "s3cretTOKEN" not in json_log.getvalue()


def test_daphne_runs_without_its_own_access_log() -> None:
    """Daphne's access log (its -v 1 default) writes plain lines with the full URL: off everywhere."""
    from tests.conftest import ROOT

    serve = (ROOT / "scripts/serve").read_text()
    assert serve.count('"$VENV/bin/daphne" -v 0 ') == 2
    unit = (ROOT / "deploy/systemd/gin-daphne@.service").read_text()
    assert "ExecStart=/srv/gin/.venv/bin/daphne -v 0 " in unit


def test_live_daphne_logs_only_json_lines_without_tokens(daphne_server: Any) -> None:
    import urllib.error
    import urllib.request

    given = "5f0e0d0c0b0a09080706050403020100"
    request = urllib.request.Request(
        daphne_server.url + "/replay/987654/?token=s3cretTOKEN", headers={"X-Request-ID": given}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 404
    urllib.request.urlopen(daphne_server.url + "/api/v1/bots/", timeout=10).close()
    daphne_server.stop()
    log = daphne_server.log()
    assert "s3cretTOKEN" not in log
    lines = [json.loads(line) for line in log.splitlines() if line.strip()]  # every line is JSON
    access = [r for r in lines if r["logger"] == "web.access"]
    assert access[0]["message"] == "GET /replay/987654/?token=[redacted] 404"
    assert access[0]["request_id"] == given
    assert access[1]["message"] == "GET /api/v1/bots/ 200" and len(access[1]["request_id"]) == 32


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GET /t/Zx9_k-Q2aB/ 200", "GET /t/[redacted]/ 200"),
        ("Not Found: /t/Zx9_k-Q2aB/", "Not Found: /t/[redacted]/"),
        (
            "<ASGIRequest: POST '/t/Zx9/?token=s3cret'>",
            "<ASGIRequest: POST '/t/[redacted]/?token=[redacted]'>",
        ),
        ("GET /t/Zx9 301", "GET /t/[redacted] 301"),  # before APPEND_SLASH's redirect
        ("link https://gin.example.com/t/Zx9/ sent", "link https://gin.example.com/t/[redacted]/ sent"),
        ("/static/t/kept.svg /replay/t/ /tt/kept/ a/t/kept",) * 2,  # not an invite's path
        # Extra slashes (Django routes none of them, but the token is the one in a link), an encoded one.
        ("GET /t//Zx9_k-Q2aB/ 404", "GET /t//[redacted]/ 404"),
        ("<ASGIRequest: GET '//t///Zx9/'>", "<ASGIRequest: GET '//t///[redacted]/'>"),
        ("GET /t%2FZx9/ 404", "GET /t%2F[redacted]/ 404"),
    ],
)
def test_redact_path_secrets(text: str, expected: str) -> None:
    from web.log_filters import redact_secrets

    assert redact_secrets(text) == expected


@pytest.mark.django_db(transaction=True)
async def test_invite_tokens_never_reach_the_log(json_log: io.StringIO) -> None:
    """A friend invite's /t/<token>/ is redacted like ?token=: in the access line and Django's own."""
    from channels.testing import HttpCommunicator

    from config.asgi import application

    comm = HttpCommunicator(application, "GET", "/t/s3cretINVITEtoken/", headers=[(b"host", b"127.0.0.1")])
    response = await comm.get_response()
    assert response["status"] == 404
    (line,) = records(json_log, "web.access")
    assert (line["message"], line["path"]) == ("GET /t/[redacted]/ 404", "/t/[redacted]/")
    (refused,) = records(json_log, "django.request")
    assert refused["message"] == "Not Found: /t/[redacted]/"
    assert refused["request"] == "<ASGIRequest: GET '/t/[redacted]/'>"
    assert "s3cretINVITE" not in json_log.getvalue()


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),  # nginx's $request_id
        ("0123456789ABCDEF0123456789ABCDEF", "0123456789abcdef0123456789abcdef"),  # lower-cased
        ("01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"),  # a UUID
        ("{01234567-89ab-cdef-0123-456789abcdef}", None),  # braces: replaced
        ("0123456789abcdef" * 4, None),  # oversized (64 hex digits): replaced
        ("a" * 5000, None),  # far oversized
        ("../../etc/passwd", None),
        ("0123456789abcdef0123456789abcdeg", None),  # not hex
    ],
)
@pytest.mark.django_db(transaction=True)
async def test_the_incoming_request_id_is_kept_or_replaced(
    json_log: io.StringIO, sent: str, kept: str | None
) -> None:
    """X-Request-ID (from nginx, deploy/nginx/gin.conf) is the response's, the access line's and every
    record's of the request; one Django would not keep is replaced by a new one (32 hex digits)."""
    from channels.testing import HttpCommunicator

    from config.asgi import application

    headers = [(b"host", b"127.0.0.1"), (b"x-request-id", sent.encode())]
    comm = HttpCommunicator(application, "GET", "/no/such/page/", headers=headers)
    response = await comm.get_response()
    assert response["status"] == 404
    echoed = dict(response["headers"])[b"X-Request-ID"].decode()
    if kept is None:
        assert echoed != sent.lower() and re.fullmatch(r"[0-9a-f]{32}", echoed)
    else:
        assert echoed == kept
    (access,) = records(json_log, "web.access")
    (refused,) = records(json_log, "django.request")
    assert access["request_id"] == refused["request_id"] == echoed


def test_nginx_passes_a_request_id_django_keeps() -> None:
    """gin.conf sends X-Request-ID on both proxied locations: the client's when Django keeps it (the map's
    patterns accept exactly what web.log_context does), else nginx's $request_id; its log names it too."""
    from tests.conftest import ROOT
    from web.log_context import normalized_request_id

    conf = (ROOT / "deploy/nginx/gin.conf").read_text()
    assert conf.count("proxy_set_header X-Request-ID $gin_request_id;") == 2
    assert conf.count("proxy_pass http://gin_daphne;") == 2
    block = re.search(r"map \$http_x_request_id \$gin_request_id \{(.*?)\n\}", conf, re.S)
    assert block is not None
    entries = re.findall(r'^\s*"~([^"]+)"\s+(\S+);', block[1], re.M)
    assert [value for _, value in entries] == ["$http_x_request_id", "$http_x_request_id"]
    assert re.search(r"^\s*default\s+\$request_id;", block[1], re.M)
    samples = [
        "0123456789abcdef0123456789abcdef", "0123456789ABCDEF0123456789abcdef",
        "01234567-89ab-cdef-0123-456789abcdef", "01234567-89AB-CDEF-0123-456789ABCDEF",
        "{01234567-89ab-cdef-0123-456789abcdef}", "0123456789abcdef" * 4, "0123456789abcdef0123456789abcde",
        "0123-4567-89ab-cdef-0123-456789abcdef", "0123456789abcdef0123456789abcdeg", "", "x",
    ]
    for sample in samples:
        nginx_keeps = any(re.search(pattern, sample) for pattern, _ in entries)  # PCRE, as Python's re here
        assert nginx_keeps == (normalized_request_id(sample) is not None), sample
    assert "request_id=$gin_request_id" in conf
    assert "access_log /var/log/nginx/gin.access.log gin_combined;" in conf
    path_map = re.search(r'map \$uri \$gin_logged_path \{\s*"~([^"]+)"\s+"([^"]+)";', conf)
    assert path_map is not None
    pattern, value = path_map[1], path_map[2]
    for path, logged in (("/t/s3cret/", "/t/[redacted]/"), ("/t/s3cret", "/t/[redacted]"), ("/tt/x/", None)):
        m = re.search(pattern.replace("(?<", "(?P<"), path)
        assert (value.replace("$gin_rest", m["gin_rest"] or "") if m else None) == logged


@pytest.fixture
def plain_log(settings: Any) -> Iterator[io.StringIO]:
    """The embedded profile's plain formatter and the console filters (``settings.LOGGING``) on a handler
    of the root logger."""
    from django.utils.module_loading import import_string

    import config.asgi  # noqa: F401  (its django.setup() reconfigures logging: before our handler)

    options = dict(settings.LOGGING["formatters"]["plain"])
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(import_string(options.pop("()"))(**options))
    for name in settings.LOGGING["handlers"]["console"]["filters"]:
        handler.addFilter(import_string(settings.LOGGING["filters"][name]["()"])())
    root = logging.getLogger()
    root.addHandler(handler)
    yield stream
    root.removeHandler(handler)


FORGED = "\n2026-12-01 15:00:00,000 ERROR fake.logger: injected"


@pytest.mark.django_db(transaction=True)
async def test_plain_lines_cannot_be_forged(plain_log: io.StringIO) -> None:
    """A path with ``%0A`` (and a query with ``%0D%0A``, ESC, DEL, C1 and U+2028) stays on its own line in
    the plain log: every control character is escaped, in the access line and Django's own."""
    from channels.testing import HttpCommunicator

    from config.asgi import application

    comm = HttpCommunicator(application, "GET", "/", headers=[(b"host", b"127.0.0.1")])
    # What Daphne passes for /api/v1/players/x%0A2026-...: the decoded path (urllib's parsing, which
    # HttpCommunicator uses, would drop the line feed); the query string as the client sent it.
    comm.scope["path"] = f"/api/v1/players/x{FORGED}/"
    comm.scope["query_string"] = b"q=a%0D%0Ab&r=\r\n\x1b[31m\x7f\xc2\x85"
    response = await comm.get_response()
    assert response["status"] == 404
    lines = plain_log.getvalue().splitlines()
    assert not any(line.startswith("2026-12-01 15:00:00,000") for line in lines), lines
    (access,) = [line for line in lines if " web.access: " in line]
    assert access.endswith(
        " INFO web.access: GET /api/v1/players/x\\n2026-12-01 15:00:00,000 ERROR fake.logger: injected/"
        "?q=a%0D%0Ab&r=\\r\\n\\x1b[31m\\x7f\u00c2\\x85 404"  # the query read as Latin-1
    ), access
    logging.getLogger("accounts").warning("login failed for %s", "bob\u2028x\r\nWARNING forged")
    assert plain_log.getvalue().splitlines()[-1].endswith(
        " WARNING accounts: login failed for bob\\u2028x\\r\\nWARNING forged"
    )


def test_plain_format_keeps_tracebacks_and_accents() -> None:
    from web.log_format import PlainFormatter, escape_controls

    assert escape_controls("Olá, joão\t\x00\x9f ok") == "Olá, joão\\t\\x00\\x9f ok"
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.LogRecord("x", logging.ERROR, "f", 1, "failed %s", ("a\nb",), sys.exc_info())
    text = PlainFormatter("%(levelname)s %(message)s").format(record)
    assert text.splitlines()[0] == "ERROR failed a\\nb"
    assert text.splitlines()[1] == "Traceback (most recent call last):"
    assert record.getMessage() == "failed a\nb"  # the record itself unchanged for other handlers
