"""The bot API in the OpenAPI schema (``botapi.schema``): the two ndjson streams, their line objects, the
``BotToken`` bearer scheme on every ``/api/v1/bot/`` operation and its refusals, the action's body."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from botapi import schema as bot_schema

pytestmark = pytest.mark.django_db

EVENTS = "/api/v1/bot/stream/events/"
MATCH = "/api/v1/bot/match/{id}/stream/"


@pytest.fixture
def schema(client: Client) -> dict[str, Any]:
    response = client.get("/api/schema/")
    assert response.status_code == 200
    return response.json()


def resolve(schema: dict[str, Any], ref: dict[str, str]) -> dict[str, Any]:
    name = ref["$ref"].removeprefix("#/components/schemas/")
    return schema["components"]["schemas"][name]


def test_the_streams_answer_ndjson_one_of_their_line_objects(schema: dict[str, Any]) -> None:
    lines = {}
    for path in (EVENTS, MATCH):
        operation = schema["paths"][path]["get"]
        assert list(operation["responses"]["200"]["content"]) == ["application/x-ndjson"]
        body = operation["responses"]["200"]["content"]["application/x-ndjson"]["schema"]
        assert body["discriminator"]["propertyName"] == "type"
        types = {}
        for ref in body["oneOf"]:
            line = resolve(schema, ref)
            (kind,) = line["properties"]["type"]["enum"]
            assert "type" in line["required"]
            types[kind] = ref["$ref"]
        assert body["discriminator"]["mapping"] == types
        lines[path] = sorted(types)
    assert lines == {EVENTS: ["challenge", "challengeClosed", "matchFinish", "matchStart"],
                     MATCH: ["matchFull", "state"]}
    assert [p["name"] for p in schema["paths"][MATCH]["get"]["parameters"]] == ["id"]


def test_the_match_stream_lines_carry_the_documented_fields(schema: dict[str, Any]) -> None:
    full = schema["components"]["schemas"]["MatchFull"]
    assert sorted(full["required"]) == sorted(
        ["type", "v", "id", "seat", "players", "rated", "target", "turn_timer", "rules", "state"])
    assert full["properties"]["v"]["enum"] == [1]
    state = schema["components"]["schemas"]["StateLine"]
    assert sorted(state["required"]) == sorted(
        ["type", "seq", "status", "scores", "hand_number", "to_move", "turn_deadline", "winner",
         "result_reason", "view", "last_hand"])
    view = schema["components"]["schemas"]["BotView"]
    for field in ("hand", "discard_pile", "upcard", "stock_size", "opponent_hand_size", "opponent_known",
                  "history", "legal_actions", "phase", "knock_limit", "scores"):
        assert field in view["required"], field
    assert view["properties"]["phase"]["enum"] == ["offer_nondealer", "offer_dealer", "draw", "discard",
                                                   "ended"]
    challenge = schema["components"]["schemas"]["BotChallenge"]
    direction = challenge["properties"]["direction"]
    # an enum a DRF view's answer names too (ChallengeAnswer) becomes a component of its own
    direction = resolve(schema, direction) if "$ref" in direction else direction
    assert direction["enum"] == ["in", "out"]
    assert challenge["properties"]["challenger"] == {"$ref": "#/components/schemas/BotPlayer"}


def test_the_view_phases_are_the_engines() -> None:
    from engine.phase import Phase

    assert bot_schema.View().fields["phase"].choices == {p.value: p.value for p in Phase}


def test_every_bot_operation_needs_the_bearer_token_and_documents_its_refusals(
        schema: dict[str, Any]) -> None:
    assert schema["components"]["securitySchemes"]["BotToken"] == {
        "type": "http", "scheme": "bearer", "bearerFormat": "gin_ + 40 characters",
        "description": bot_schema.SECURITY_SCHEME["description"]}
    operations = [(path, method, op) for path, item in schema["paths"].items() for method, op in item.items()
                  if path.startswith("/api/v1/bot/")]
    assert {(path, method) for path, method, _ in operations} >= {(EVENTS, "get"), (MATCH, "get")}
    for path, method, op in operations:
        assert op["security"] == [{"BotToken": []}], (path, method)
        for status in ("401", "403", "429"):
            assert status in op["responses"], (path, method, status)
        assert op["responses"]["401"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/BotError"}


def test_the_public_operations_stay_without_security(schema: dict[str, Any]) -> None:
    public = [op for path, item in schema["paths"].items() for op in item.values()
              if not path.startswith("/api/v1/bot/")]
    assert len(public) == 15 and all("security" not in op for op in public)


def test_the_action_body_and_its_answer() -> None:
    """The serializers the action view names in its ``extend_schema``, as drf-spectacular maps them."""
    from botapi.schema import ActionAnswer, ActionRequest, _components

    (request_ref, answer_ref), components = _components([ActionRequest, ActionAnswer])
    schemas = components["schemas"]
    request = schemas[request_ref["$ref"].rsplit("/", 1)[1]]
    assert sorted(request["required"]) == ["action", "seq"]
    assert request["properties"]["action"]["type"] == "string"
    assert request["properties"]["action"]["maxLength"] == 32
    assert request["properties"]["seq"] == {"type": "integer", "minimum": 0,
                                            "description": request["properties"]["seq"]["description"]}
    assert request["properties"]["id"]["maxLength"] == 64
    answer = schemas[answer_ref["$ref"].rsplit("/", 1)[1]]
    assert sorted(answer["required"]) == ["last_seq", "repeat", "seq"]
    assert answer["properties"]["repeat"]["type"] == "boolean"
    assert ActionRequest(data={"action": "discard Kc", "seq": 12}).is_valid()
    assert not ActionRequest(data={"action": "discard Kc", "seq": -1}).is_valid()


def test_the_schema_is_valid_openapi(schema: dict[str, Any]) -> None:
    from drf_spectacular.validation import validate_schema

    validate_schema(schema)
