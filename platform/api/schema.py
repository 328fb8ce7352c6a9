"""OpenAPI schema tweaks (drf-spectacular ``POSTPROCESSING_HOOKS`` and the ``id`` path converter)."""

from __future__ import annotations

from typing import Any

MAX_ID_DIGITS = 18
"""An id in a path has 1 to 18 digits (below PostgreSQL's bigint limit): a longer one is no address
(404), never a database overflow error."""


class IdConverter:
    """``<id:name>`` in a path: a database id, 1 to :data:`MAX_ID_DIGITS` digits."""

    regex = f"[0-9]{{1,{MAX_ID_DIGITS}}}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


ID_SCHEMA = {"type": "integer", "minimum": 0, "maximum": 10**MAX_ID_DIGITS - 1}

_ERROR = {"$ref": "#/components/schemas/Error"}
_COMMON = {
    "400": "The query string was refused (`bad_query`, with `fields`).",
    "404": "No such resource (`not_found`, `no_such_player`, `no_such_page`, ...).",
    "406": "The client accepts no JSON (`not_acceptable`).",
    "429": "Too many requests (`throttled`); `Retry-After` says how many seconds to wait.",
    "503": "The database cannot be reached for now (`unavailable`); `Retry-After` says when to try again.",
}


def add_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Every operation documents the errors every API view can answer (400, 404, 406, 429, 503; the 429
    and 503 with their ``Retry-After`` header), all with the ``Error`` body; views add their own (403,
    409, 422). (503: ``web.views.server_error`` while the database is down.)"""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            responses = operation.setdefault("responses", {})
            for status, description in _COMMON.items():
                response = responses.setdefault(
                    status, {"description": description, "content": {"application/json": {"schema": _ERROR}}}
                )
                if status in ("429", "503"):
                    response["headers"] = {
                        "Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait."}
                    }
    return result


NO_NUL_PATTERN = "^[^\\x00]*$"
"""A string without a NUL character (JSON Schema / ECMA regex)."""


def no_nul_in_query(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Every string query parameter says it takes no NUL character: the site refuses any query string
    with one (``web.middleware``: 400 ``bad_query`` under ``/api/``), so a NUL is invalid input, not
    valid data the API would refuse (schemathesis' positive cases sent one to ``token`` once the schema
    grew: its derandomized examples follow the whole schema)."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if parameter.get("in") == "query" and schema.get("type") == "string":
                    schema.setdefault("pattern", NO_NUL_PATTERN)
    return result


def no_auth_on_public_operations(result: dict[str, Any], generator: Any, request: Any,
                                 public: bool) -> dict[str, Any]:
    """Operations that need no authentication carry no ``security``, and with none left the schema has no
    ``securitySchemes``: the docs page (Swagger UI) then shows no lock on them and no "Authorize" button.

    drf-spectacular writes ``security: [{"cookieAuth": []}, {}]`` for every view with DRF's session
    authentication and ``AllowAny`` (the ``{}``: no authentication needed). Every ``/api/v1/`` operation
    is such a public read: the session cookie only widens what two of them show to a logged-in player
    (their own private matches in a player's list, a private replay of theirs), as their descriptions
    say. An operation whose ``security`` lacks ``{}`` (authentication required) keeps it, and the schemes
    it names stay (the bot API's ``BotToken``, ``botapi.schema.add_bot_api``); the others go.
    """
    used: set[str] = set()
    for path in result.get("paths", {}).values():
        for operation in path.values():
            security = operation.get("security")
            if security is None:
                continue
            if {} in security:
                del operation["security"]
            else:
                used.update(name for requirement in security for name in requirement)
    schemes = result.get("components", {}).get("securitySchemes", {})
    for name in set(schemes) - used:  # e.g. cookieAuth once only the bot API's BotToken is required
        del schemes[name]
    if not schemes:
        result.get("components", {}).pop("securitySchemes", None)
    return result
