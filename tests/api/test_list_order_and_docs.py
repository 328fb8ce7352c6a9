"""Issue 22 item 7: the tournament list's order (what is on, what comes next, what is over) and a public
read-only schema without security requirements (no lock icons, no "Authorize" button on the docs page)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def _tournament(name: str, status: str, hours: float) -> Any:
    from tournaments.models import Tournament

    return Tournament.objects.create(
        name_en=name, name_pt=name, status=status,
        starts_at=dt.datetime.now(dt.UTC) + dt.timedelta(hours=hours),
    )


def test_the_tournament_list_runs_then_upcoming_soonest_first_then_past_latest_first(client: Client) -> None:
    _tournament("far future", "scheduled", 48)
    _tournament("finished long ago", "finished", -48)
    _tournament("next hour", "scheduled", 1)
    _tournament("running since 2h", "running", -2)
    _tournament("open now", "open", 0.2)
    _tournament("cancelled yesterday", "cancelled", -20)
    _tournament("running since 1h", "running", -1)
    _tournament("finished today", "finished", -3)
    _tournament("tomorrow", "scheduled", 24)
    listed = client.get("/api/v1/tournaments/").json()
    assert [t["name"] for t in listed["results"]] == [
        "running since 1h", "running since 2h",
        "open now", "next hour", "tomorrow", "far future",
        "finished today", "cancelled yesterday", "finished long ago",
    ]
    scheduled = client.get("/api/v1/tournaments/", {"status": "scheduled"}).json()
    assert [t["name"] for t in scheduled["results"]] == ["next hour", "tomorrow", "far future"]
    finished = client.get("/api/v1/tournaments/", {"status": "finished"}).json()
    assert [t["name"] for t in finished["results"]] == ["finished today", "finished long ago"]
    # Pages follow the same order.
    second = client.get("/api/v1/tournaments/", {"limit": 4, "page": 2}).json()
    assert [t["name"] for t in second["results"]] == ["tomorrow", "far future", "finished today",
                                                     "cancelled yesterday"]


def test_equal_starts_go_by_id_in_the_groups_direction(client: Client) -> None:
    a, b = _tournament("a", "scheduled", 5), _tournament("b", "scheduled", 5)
    c, d = _tournament("c", "finished", -5), _tournament("d", "finished", -5)
    b.starts_at = a.starts_at
    b.save()
    d.starts_at = c.starts_at
    d.save()
    names = [t["name"] for t in client.get("/api/v1/tournaments/").json()["results"]]
    assert names == ["a", "b", "d", "c"]


def test_the_list_order_is_in_the_schema_description(client: Client) -> None:
    schema = client.get("/api/schema/").json()
    description = schema["paths"]["/api/v1/tournaments/"]["get"]["description"]
    assert "first the running ones (latest start first)" in description
    assert "then the upcoming ones (`open` and `scheduled`, soonest start first)" in description


def test_the_public_operations_have_no_security_and_the_schema_only_the_bot_scheme(client: Client) -> None:
    """The public reads need nothing; the bot API's operations (tests/botapi/test_schema.py) need its
    token, so its ``BotToken`` is the schema's one scheme (no unused ``cookieAuth``)."""
    schema = client.get("/api/schema/").json()
    operations = [(path, method, op) for path, ops in schema["paths"].items() for method, op in ops.items()
                  if not path.startswith("/api/v1/bot/")]
    assert len(operations) == 15
    assert [(path, method) for path, method, op in operations if "security" in op] == []
    assert list(schema["components"]["securitySchemes"]) == ["BotToken"] and "security" not in schema


def test_an_operation_that_requires_authentication_keeps_its_security() -> None:
    from api.schema import no_auth_on_public_operations

    result = {
        "paths": {"/a/": {"get": {"security": [{"cookieAuth": []}, {}]}},
                  "/b/": {"get": {"security": [{"cookieAuth": []}]}}},
        "components": {"securitySchemes": {"cookieAuth": {"type": "apiKey"}}},
    }
    out = no_auth_on_public_operations(result, None, None, True)
    assert "security" not in out["paths"]["/a/"]["get"]
    assert out["paths"]["/b/"]["get"]["security"] == [{"cookieAuth": []}]
    assert out["components"]["securitySchemes"] == {"cookieAuth": {"type": "apiKey"}}
