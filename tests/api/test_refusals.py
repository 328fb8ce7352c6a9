"""Refusals that happen before any API view runs (too many query parameters, a bad Host header) and the
limits of the schema and docs: JSON answers under /api/ (and /healthz), one WARNING line, no ERROR."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.test import Client

from tests.api.test_errors import body

pytestmark = pytest.mark.django_db

MANY = "&".join(f"p{i}=1" for i in range(1001))  # Django's DATA_UPLOAD_MAX_NUMBER_FIELDS is 1000


def errors_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]


def test_too_many_query_parameters(client: Client, caplog: pytest.LogCaptureFixture) -> None:
    data = body(client.get(f"/api/v1/bots/?{MANY}"), 400)
    assert data == {"error": "bad_query", "message": "too many query parameters (at most 1000)"}
    site = client.get(f"/?{MANY}")
    assert site.status_code == 400 and site["Content-Type"].startswith("text/html")
    assert errors_logged(caplog) == []
    warnings = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "django.request: Bad Request: /api/v1/bots/",
        "django.request: too many query parameters: /",
    ]


@pytest.mark.parametrize("path", ["/api/v1/bots/", "/api/schema/", "/api/nothing/", "/healthz"])
def test_bad_host_header(path: str, caplog: pytest.LogCaptureFixture) -> None:
    data = body(Client(HTTP_HOST="evil.example").get(path), 400)
    assert data == {"error": "bad_host", "message": "this Host header is not served here"}
    assert errors_logged(caplog) == []
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert (warning.name, warning.getMessage()) == ("django.request", f"Bad Request: {path}")


def test_bad_host_on_the_site_keeps_its_page() -> None:
    page = Client(HTTP_HOST="evil.example").get("/")
    assert page.status_code == 400 and page["Content-Type"].startswith("text/html")


def test_throttled_docs_and_schema_answer_json(settings: Any) -> None:
    settings.API_DOCS_ANON_RATE = "2/min"
    client = Client(REMOTE_ADDR="203.0.113.20")
    assert client.get("/api/docs/").status_code == 200
    assert client.get("/api/schema/?format=yaml").status_code == 200
    for url in ("/api/docs/", "/api/schema/?format=yaml", "/api/schema/", "/api/docs/?script="):
        refused = client.get(url)
        data = body(refused, 429)
        assert data["error"] == "throttled" and int(refused["Retry-After"]) >= 1
        assert refused.reason_phrase == "Too Many Requests"


def test_docs_do_not_count_against_the_api_quota(settings: Any) -> None:
    settings.API_ANON_RATE = "2/min"
    client = Client(REMOTE_ADDR="203.0.113.21")
    assert client.get("/api/v1/bots/").status_code == 200
    for _ in range(5):  # the docs page and its schema: their own, higher limit
        assert client.get("/api/docs/").status_code == 200
        assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/v1/bots/").status_code == 200
    assert client.get("/api/v1/bots/").status_code == 429


def test_docs_limit_defaults_are_higher() -> None:
    from django.conf import settings

    def per_minute(rate: str) -> float:
        count, period = rate.split("/")
        return int(count) / {"s": 1 / 60, "m": 1, "h": 60, "d": 1440}[period[0]]

    assert per_minute(settings.API_DOCS_ANON_RATE) > per_minute(settings.API_ANON_RATE)
    assert per_minute(settings.API_DOCS_USER_RATE) > per_minute(settings.API_USER_RATE)


def test_daphne_says_too_many_requests() -> None:
    """Daphne builds the status line with Twisted's reason table, which lacks 429 and 422 ("Unknown
    Status"): config.asgi fills it in."""
    from twisted.web import http

    import config.asgi  # noqa: F401

    assert http.RESPONSES[429] == b"Too Many Requests"
    assert http.RESPONSES[422] == b"Unprocessable Entity"


# ------------------------------------------------------------------------------------ strict query values


@pytest.mark.parametrize(
    "value",
    # 1_0 (int() reads 10), full-width 2, Arabic-Indic 2, math bold 2, blanks, signs, other notations, ²
    ["1_0", "%EF%BC%92", "%D9%A2", "%F0%9D%9F%90", "%201", "1%20", "+2", "-0", "0x2", "2.0", "1e1", "",
     "%C2%B2"],
)
def test_integers_are_ascii_digits_only(value: str, client: Client) -> None:
    for url in ("/api/v1/rankings/", "/api/v1/tournaments/", "/api/v1/players/alice/matches/"):
        data = body(client.get(f"{url}?page={value}"), 400)
        assert data["error"] == "bad_query" and list(data["fields"]) == ["page"], (url, value)


def test_integer_values_still_read(client: Client) -> None:
    assert client.get("/api/v1/rankings/?page=01&limit=007").json()["limit"] == 7
    data = body(client.get("/api/v1/rankings/?page=" + "9" * 40), 400)
    assert data["fields"] == {"page": ["Ensure this value is less than or equal to 1000000."]}


BOOLEAN_PARAMETERS = [
    ("/api/v1/rankings/", ("provisional",)),
    ("/api/v1/players/alice/matches/", ("rated", "tournament")),
    ("/api/v1/tournaments/", ("simulations",)),
]


def test_every_boolean_query_parameter_is_listed_here() -> None:
    """The tests below cover every QueryBoolean of the API: a new one must be added to the list."""
    from api.fields import QueryBoolean
    from api.players import MatchesQuery
    from api.rankings import RankingsQuery
    from api.tournaments import TournamentsQuery

    found = {name for query in (RankingsQuery, MatchesQuery, TournamentsQuery)
             for name, f in query().fields.items() if isinstance(f, QueryBoolean)}
    assert found == {name for _url, names in BOOLEAN_PARAMETERS for name in names}


@pytest.mark.parametrize(
    "value", ["yes", "no", "2", "-1", "01", "True", "FALSE", "on", "t", "%20true", "1%20", ""])
def test_booleans_are_true_false_1_or_0_only(value: str, alice: Any, client: Client) -> None:
    for url, names in BOOLEAN_PARAMETERS:
        data = body(client.get(url + "?" + "&".join(f"{name}={value}" for name in names)), 400)
        assert data["error"] == "bad_query"
        assert data["fields"] == {name: ["use true, false, 1 or 0"] for name in names}, (url, value)


@pytest.mark.parametrize(("on", "off"), [("true", "false"), ("1", "0")])
def test_booleans_read_true_or_1_and_false_or_0_alike(on: str, off: str, alice: Any, client: Client,
                                                      make_member: Any) -> None:
    """Issue 22 item 7: the API refused ``provisional=1`` while the site's own links write ``=1``."""
    from ratings.models import PlayerRating

    newbie = make_member("newbie")
    PlayerRating.objects.create(user=newbie, rating=1600, peak=1600, rated_matches=3, wins=3, losses=0)
    shown = client.get(f"/api/v1/rankings/?provisional={on}").json()
    hidden = client.get(f"/api/v1/rankings/?provisional={off}").json()
    assert [r["username"] for r in shown["results"]] == ["newbie"] and shown["results"][0]["provisional"]
    assert hidden["results"] == []
    assert client.get(f"/api/v1/players/alice/matches/?rated={off}&tournament={on}").status_code == 200
    assert client.get(f"/api/v1/tournaments/?simulations={on}").status_code == 200


def test_nul_in_the_query_names_its_parameter(client: Client) -> None:
    data = body(client.get("/api/v1/rankings/?q=a%00b&page=1"), 400)
    assert data == {
        "error": "bad_query",
        "message": "invalid query parameter(s): q",
        "fields": {"q": ["must not contain a NUL character"]},
    }
    assert body(client.get("/api/v1/rankings/?a%00=1"), 400)["fields"] == {
        "a\x00": ["must not contain a NUL character"]
    }


# ------------------------------------------------------------------------------------ small things


def test_cors_preflight_allows_x_request_id(client: Client) -> None:
    preflight = client.options(
        "/api/v1/bots/",
        HTTP_ORIGIN="https://stats.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="x-request-id",
    )
    assert preflight.status_code == 200
    assert "x-request-id" in preflight["Access-Control-Allow-Headers"].lower().split(", ")


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("6F1C3E0A9B2D4C8E8F7A6B5C4D3E2F10", "6f1c3e0a9b2d4c8e8f7a6b5c4d3e2f10"),
        ("6F1C3E0A-9B2D-4C8E-8F7A-6B5C4D3E2F10", "6f1c3e0a-9b2d-4c8e-8f7a-6b5c4d3e2f10"),
        ("{6f1c3e0a-9b2d-4c8e-8f7a-6b5c4d3e2f10}", None),
        ("urn:uuid:6f1c3e0a-9b2d-4c8e-8f7a-6b5c4d3e2f10", None),
        ("6f1c3e0a9b2d-4c8e8f7a6b5c4d3e2f10", None),
    ],
)
def test_request_id_normalized_or_replaced(given: str, kept: str | None, client: Client) -> None:
    echoed = client.get("/api/v1/bots/", HTTP_X_REQUEST_ID=given)["X-Request-ID"]
    if kept is not None:
        assert echoed == kept
    else:
        assert echoed != given and len(echoed) == 32 and echoed == echoed.lower() and int(echoed, 16) >= 0


def test_request_id_of_a_socket_follows_the_same_rule() -> None:
    from web.log_context import request_id_from

    assert request_id_from("6F1C3E0A9B2D4C8E8F7A6B5C4D3E2F10") == "6f1c3e0a9b2d4c8e8f7a6b5c4d3e2f10"
    assert request_id_from("6f1c3e0a-9b2d-4c8e-8f7a-6b5c4d3e2f10") == "6f1c3e0a-9b2d-4c8e-8f7a-6b5c4d3e2f10"
    made = request_id_from("{6f1c3e0a-9b2d-4c8e-8f7a-6b5c4d3e2f10}")
    assert len(made) == 32 and "6f1c3e0a9b2d" not in made


def test_unknown_parameters_stay_out_of_page_links(seeded: dict[str, Any], client: Client) -> None:
    data = client.get("/api/v1/bots/?limit=2&utm_source=x&evil=%3Cb%3E").json()
    assert data["next"] == "http://testserver/api/v1/bots/?limit=2&page=2"
    board = client.get("/api/v1/rankings/?provisional=true&limit=1&junk=1&tab=all").json()
    assert board["next"] == "http://testserver/api/v1/rankings/?limit=1&page=2&provisional=true&tab=all"


@pytest.mark.parametrize(
    ("accept", "status"),
    [
        ("application/json;q=0", 406),
        ("application/json; q=0.0", 406),
        ("application/json;q=0, */*", 406),
        ("*/*;q=0", 406),
        ("application/json;q=0.1", 200),
        ("text/html;q=0, application/json", 200),
    ],
)
def test_accept_q_zero_refuses(accept: str, status: int, client: Client) -> None:
    response = client.get("/api/v1/bots/", HTTP_ACCEPT=accept)
    assert response.status_code == status, accept
    if status == 406:
        assert body(response, 406)["error"] == "not_acceptable"


def test_spoofed_forwarded_proto_is_ignored(seeded: dict[str, Any], client: Client) -> None:
    from django.conf import settings

    assert getattr(settings, "SECURE_PROXY_SSL_HEADER", None) is None  # TRUST_PROXY_HEADERS unset
    data = client.get("/api/v1/bots/?limit=2", HTTP_X_FORWARDED_PROTO="https").json()
    assert data["next"] == "http://testserver/api/v1/bots/?limit=2&page=2"
