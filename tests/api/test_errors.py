"""Refusals of the API: JSON bodies with a code, the right status, nothing changed; limits; CORS."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

ENDPOINTS = [
    "/api/v1/bots/",
    "/api/v1/rankings/",
    "/api/v1/tournaments/",
    "/api/v1/players/alice/",
    "/api/v1/players/alice/ratings/",
    "/api/v1/players/alice/matches/",
    "/api/v1/tournaments/1/",
    "/api/v1/tournaments/1/standings/",
    "/api/v1/tournaments/1/rounds/1/pairings/",
    "/api/v1/matches/1/replay/",
    "/api/v1/pools/",
    "/api/v1/lobby/seeks/",
]


def body(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    data: dict[str, Any] = response.json()
    assert isinstance(data["error"], str) and isinstance(data["message"], str)
    return data


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_only_reads(method: str, alice: Any) -> None:
    logged_in = Client(enforce_csrf_checks=True)
    logged_in.force_login(alice)
    for client in (Client(enforce_csrf_checks=True), logged_in):
        for url in ENDPOINTS:
            response = getattr(client, method)(url, data="{}", content_type="application/json")
            assert body(response, 405) == {
                "error": "method_not_allowed",
                "message": "this API is read-only: use GET, HEAD or OPTIONS",
            }
            assert response["Allow"] == "GET, HEAD, OPTIONS"
    assert body(Client().post("/api/v1/nothing/"), 404)["error"] == "not_found"


def test_head_and_options(alice: Any, client: Client) -> None:
    head = client.head("/api/v1/players/alice/")
    assert head.status_code == 200 and head.content == b""
    options = client.options("/api/v1/bots/")
    assert options.status_code == 200 and options.json()["name"] == "Bots"


@pytest.mark.parametrize(
    ("query", "fields"),
    [
        ("page=0", ["page"]),
        ("page=abc", ["page"]),
        ("page=1.5", ["page"]),
        ("limit=0", ["limit"]),
        ("limit=101", ["limit"]),
        ("limit=", ["limit"]),
        ("page=1&page=2", ["page"]),
        ("tab=week", ["tab"]),
        ("provisional=maybe", ["provisional"]),
        ("q=" + "a" * 51, ["q"]),
        ("page=-1&limit=x&tab=", ["limit", "page", "tab"]),
    ],
)
def test_bad_rankings_query(query: str, fields: list[str], client: Client) -> None:
    data = body(client.get(f"/api/v1/rankings/?{query}"), 400)
    assert data["error"] == "bad_query" and sorted(data["fields"]) == fields
    assert data["message"] == f"invalid query parameter(s): {', '.join(fields)}"


def test_bad_filters(alice: Any, client: Client) -> None:
    for url in (
        "/api/v1/tournaments/?status=done",
        "/api/v1/players/alice/matches/?result=draw",
        "/api/v1/players/alice/matches/?opponent=robot",
        "/api/v1/players/alice/matches/?rated=2",
        "/api/v1/players/alice/matches/?tournament=yes-please",
        "/api/v1/players/alice/ratings/?limit=-3",
    ):
        assert body(client.get(url), 400)["error"] == "bad_query", url


def test_nul_and_unknown_addresses(alice: Any, client: Client) -> None:
    assert body(client.get("/api/v1/rankings/?q=a%00b"), 400) == {
        "error": "bad_query",
        "message": "invalid query parameter(s): q",
        "fields": {"q": ["must not contain a NUL character"]},
    }
    assert body(client.get("/api/v1/rankings/?%00=1"), 400)["error"] == "bad_query"
    assert body(client.get("/api/v1/players/al%00ice/"), 404)["error"] == "not_found"
    for url in (
        "/api/",
        "/api/v2/bots/",
        "/api/v1/bots/extra/",
        "/api/v1/tournaments/abc/",
        "/api/v1/tournaments/-1/",
        "/api/v1/tournaments/" + "9" * 19 + "/",
        "/api/v1/matches/" + "9" * 40 + "/replay/",
    ):
        assert body(client.get(url), 404)["error"] == "not_found", url
    # Ids up to 18 digits are looked up (and not found), never a database overflow.
    assert body(client.get("/api/v1/tournaments/" + "9" * 18 + "/"), 404)["error"] == "no_such_tournament"
    assert body(client.get("/api/v1/matches/" + "9" * 18 + "/replay/"), 404)["error"] == "no_such_match"
    big = "/api/v1/tournaments/1/rounds/" + "9" * 18 + "/pairings/"
    assert body(client.get(big), 404)["error"] == "no_such_tournament"


def test_anonymous_limit_per_ip_with_retry_after(settings: Any) -> None:
    settings.API_ANON_RATE = "3/min"
    client = Client(REMOTE_ADDR="203.0.113.5")
    for _ in range(3):
        assert client.get("/api/v1/bots/").status_code == 200
    refused = client.get("/api/v1/bots/", HTTP_X_FORWARDED_FOR="198.51.100.7")  # a forged hop changes nothing
    data = body(refused, 429)
    assert data["error"] == "throttled"
    wait = int(refused["Retry-After"])
    assert 1 <= wait <= 60 and data["message"] == f"too many requests: try again in {wait} s"
    assert body(client.get("/api/v1/tournaments/"), 429)["error"] == "throttled"  # one count for the API
    assert Client(REMOTE_ADDR="203.0.113.6").get("/api/v1/bots/").status_code == 200  # another address
    assert client.get("/healthz").status_code in (200, 503)  # the health check is never limited


def test_logged_in_users_have_their_own_higher_limit(settings: Any, alice: Any, bob: Any) -> None:
    settings.API_ANON_RATE = "1/min"
    settings.API_USER_RATE = "4/min"
    client = Client(REMOTE_ADDR="203.0.113.9")
    client.force_login(alice)
    assert [client.get("/api/v1/bots/").status_code for _ in range(5)] == [200] * 4 + [429]
    other = Client(REMOTE_ADDR="203.0.113.9")  # same address, another account
    other.force_login(bob)
    assert other.get("/api/v1/bots/").status_code == 200
    assert (
        Client(REMOTE_ADDR="203.0.113.9").get("/api/v1/bots/").status_code == 200
    )  # anonymous: its own count


def test_guests_share_their_ip_addresses_anonymous_quota(settings: Any, alice: Any) -> None:
    """Guest accounts are counted as anonymous clients of their IP address (issue 20, finding 8: each
    guest had a member's quota of its own, so 3 guests from one IP made 300 requests a minute against an
    anonymous limit of 60). Two guests and an anonymous client of one address, taking turns, get exactly
    ``API_ANON_RATE`` requests together; then each of them is refused. A member there has their own."""
    from accounts.services import guest_create

    settings.API_ANON_RATE = "7/min"
    settings.API_USER_RATE = "100/min"
    address = "203.0.113.20"
    clients = [Client(REMOTE_ADDR=address) for _ in range(3)]
    for client in clients[1:]:
        client.force_login(guest_create())
    statuses = [clients[i % 3].get("/api/v1/bots/").status_code for i in range(9)]
    assert statuses == [200] * 7 + [429] * 2
    for client in clients:  # all three are over: one count
        refused = client.get("/api/v1/players/alice/")
        assert body(refused, 429)["error"] == "throttled" and int(refused["Retry-After"]) >= 1
    member = Client(REMOTE_ADDR=address)
    member.force_login(alice)
    assert [member.get("/api/v1/bots/").status_code for _ in range(3)] == [200] * 3
    assert Client(REMOTE_ADDR="203.0.113.21").get("/api/v1/bots/").status_code == 200  # another address


def test_cache_outage_lets_requests_through(settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    settings.API_ANON_RATE = "1/min"
    with mock.patch("django.core.cache.cache.get", side_effect=ConnectionError("redis down")):
        assert [Client().get("/api/v1/bots/").status_code for _ in range(3)] == [200, 200, 200]
    assert "cache unavailable (ConnectionError), request allowed" in caplog.text


def test_cors_for_reads_only(client: Client) -> None:
    got = client.get("/api/v1/bots/", HTTP_ORIGIN="https://stats.example")
    assert got["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in got
    assert set(got["Access-Control-Expose-Headers"].split(", ")) == {"Retry-After", "X-Request-ID"}
    preflight = client.options(
        "/api/v1/bots/", HTTP_ORIGIN="https://stats.example", HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET"
    )
    assert preflight.status_code == 200
    assert preflight["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS"
    site = client.get("/", HTTP_ORIGIN="https://stats.example")
    assert "Access-Control-Allow-Origin" not in site  # the site's pages are not shared




def test_request_id_echoed(client: Client) -> None:
    given = "6f1c3e0a9b2d4c8e8f7a6b5c4d3e2f10"
    assert client.get("/api/v1/bots/", HTTP_X_REQUEST_ID=given)["X-Request-ID"] == given
    dashed = "6f1c3e0a-9b2d-4c8e-8f7a-6b5c4d3e2f10"
    assert client.get("/", HTTP_X_REQUEST_ID=dashed)["X-Request-ID"] == dashed
    for bad in ("", "not-an-id", "x" * 300, "<script>"):
        made = client.get("/api/v1/bots/", HTTP_X_REQUEST_ID=bad)["X-Request-ID"]
        assert made != bad and len(made) == 32 and int(made, 16) >= 0
    first, second = (client.get("/api/v1/bots/")["X-Request-ID"] for _ in range(2))
    assert first != second


def test_json_only(client: Client) -> None:
    assert body(client.get("/api/v1/bots/", HTTP_ACCEPT="text/html"), 406)["error"] == "not_acceptable"
    assert client.get("/api/v1/bots/", HTTP_ACCEPT="text/html, */*;q=0.8").status_code == 200


def test_errors_in_english_for_every_reader(client: Client) -> None:
    pt = {"HTTP_ACCEPT_LANGUAGE": "pt-br"}
    assert body(client.get("/api/v1/rankings/?tab=x", **pt), 400)["fields"] == {
        "tab": ['"x" is not a valid choice.']
    }
    assert body(client.delete("/api/v1/bots/", **pt), 405)["message"].startswith("this API is read-only")


@pytest.mark.parametrize("fmt", ["xml", "yaml", "api", "html", "json", "x"])
def test_format_is_an_unknown_parameter_like_any_other(fmt: str, alice: Any, client: Client) -> None:
    """``?format=`` is not DRF's format override here (docs/api.md: unknown parameters are ignored): every
    address answers as without it, JSON (it used to be ``404 {"error": "error", "message": "error"}``)."""
    for url in [*ENDPOINTS[:6], "/api/schema/"]:
        plain, with_format = client.get(url), client.get(url, {"format": fmt})
        assert with_format.status_code == plain.status_code == 200, (url, with_format.content)
        if url == "/api/schema/" and fmt == "yaml":  # the schema's one documented format besides JSON
            assert with_format["Content-Type"].startswith("application/vnd.oai.openapi")
            assert with_format.content.startswith(b"openapi: 3.")
        else:
            assert with_format["Content-Type"].startswith(plain["Content-Type"]), url
            assert with_format.content == plain.content, url
    missing = body(client.get("/api/v1/tournaments/999/", {"format": fmt}), 404)
    assert missing["error"] == "no_such_tournament"


def test_no_error_answer_is_the_generic_error() -> None:
    """Every DRF refusal gets a real code and message: a NotFound (DRF's or Django's Http404) is
    ``not_found``, an exception we never mapped is named after its own code, never ``"error"``."""
    from django.http import Http404
    from rest_framework import exceptions

    from api.errors import api_exception_handler

    class Teapot(exceptions.APIException):
        status_code = 418
        default_code = "teapot"
        default_detail = "I am a teapot"

    answers = {
        name: api_exception_handler(exc, {}).data  # type: ignore[union-attr]
        for name, exc in {
            "http404": Http404("x"),
            "drf404": exceptions.NotFound(),
            "teapot": Teapot(),
            "bare": exceptions.APIException(),
        }.items()
    }
    assert answers["http404"] == answers["drf404"] == {"error": "not_found", "message": "not found"}
    assert answers["teapot"] == {"error": "teapot", "message": "I am a teapot"}
    assert answers["bare"] == {"error": "server_error", "message": "the request could not be answered"}
    assert all(a["error"] != "error" and a["message"] != "error" for a in answers.values())
