"""The JSON Schema (draft 2020-12) of every message sent on a channel-layer group, by its ``type``.

A message is what a write hands to :mod:`push.send`; the consumer that holds a socket turns it into
that socket's frame (docs/protocol.md lists the frames). The check runs where ``PUSH_CHECK`` is on (the
test suite): each message is first round-tripped through JSON (what the Redis layer and the browser
carry: a tuple, a datetime or a set fails there, not in production), then checked against its schema,
so a new field, a renamed one or a wrong type fails the test that sent it (Zulip's
``zerver/lib/event_schema.py`` does the same for its events).

Framework-free: no Django import; ``jsonschema`` only.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

Schema = dict[str, Any]

_INT = {"type": "integer", "minimum": 0}
_ID = {"type": "integer", "minimum": 1}
_STR = {"type": "string", "minLength": 1}


def _message(type_: str, properties: dict[str, Schema] | None = None, *,
             optional: dict[str, Schema] | None = None) -> Schema:
    """The schema of a message ``{"type": type_, **properties}``: every property of ``properties`` is
    required, those of ``optional`` may be absent, and no other key is allowed."""
    props = {"type": {"const": type_}, **(properties or {}), **(optional or {})}
    return {"type": "object", "properties": props, "required": ["type", *(properties or {})],
            "additionalProperties": False}


STATE: Schema = {
    # games.selectors.match_state_payload (docs/protocol.md "state"); its inner shape is the table's.
    "type": "object",
    "properties": {"type": {"const": "state"}, "seq": _INT, "match": {"type": "object"}},
    "required": ["type", "seq", "match"],
}

RATING: Schema = {
    # ratings.selectors.rating_message (docs/protocol.md "rating")
    "type": "object",
    "properties": {"type": {"const": "rating"}, "match_id": _ID, "before": {"type": "integer"},
                   "after": {"type": "integer"}},
    "required": ["type", "match_id", "before", "after"],
}

NOTICE: Schema = {
    # lobby notices (docs/protocol.md "Notices socket"): forwarded to the browser as they are
    "type": "object", "properties": {"type": _STR}, "required": ["type"],
}

SCHEMAS: dict[str, Schema] = {
    # games: the table
    "match.update": _message("match.update", {"seq": _INT}, optional={"state": STATE}),
    "chat.message": _message("chat.message", {"seat": {"enum": [0, 1]}, "preset": _STR}),
    "presence.update": _message("presence.update"),
    "rematch.update": _message("rematch.update"),
    "spectators.update": _message("spectators.update", {"count": _INT}),
    "user.session_ended": _message("user.session_ended"),
    # ratings
    "rating.update": _message("rating.update", {"seats": {
        "type": "object", "propertyNames": {"enum": ["0", "1"]}, "additionalProperties": RATING}}),
    # tournaments
    "tournament.changed": _message("tournament.changed", {"tournament": _ID}),
    # replays: the computer analysis
    "analysis.progress": _message("analysis.progress", {
        "status": {"enum": ["queued", "running", "done", "failed"]}, "done": _INT, "total": _INT}),
    # lobby: seeks, challenges, notices, pools
    "lobby.changed": _message("lobby.changed"),
    "lobby.go": _message("lobby.go", {"url": _STR}),
    "notice.push": _message("notice.push", {"payload": NOTICE}),
    "pool.count": _message("pool.count", {"waiting": _INT}),
    "pool.left": _message("pool.left", {"reason": _STR}),
    "pool.probe": _message("pool.probe"),
    "pool.paired": _message("pool.paired", {
        "match": _ID, "bot": {"type": "boolean"},
        "opponent": {"type": "object", "properties": {"name": _STR, "rating": {"type": "integer"}},
                     "required": ["name", "rating"], "additionalProperties": False}}),
    # games -> botapi: a match of a BOT account started or ended (the event stream reads the rest)
    "bot.match": _message("bot.match", {"event": {"enum": ["start", "finish"]}, "match_id": _ID}),
    # web: the home page
    "home.update": _message("home.update", {"numbers": {"type": "object"}}),
}
"""Each message type sent on a group, and its schema."""

_VALIDATORS = {type_: Draft202012Validator(schema) for type_, schema in SCHEMAS.items()}


class MessageRejected(ValueError):
    """A message that no schema admits, or that does not survive JSON: a bug in its sender."""


def check(group: str, message: dict[str, Any]) -> None:
    """Round-trip ``message`` through JSON and check it against the schema of its ``type``.

    :raises MessageRejected: not JSON-serialisable, changed by the round trip (a tuple, a non-string key),
        an unknown ``type``, or a schema violation; the text names the group, the type and the first error.
    """
    type_ = message.get("type")
    try:
        carried = json.loads(json.dumps(message))
    except (TypeError, ValueError) as exc:
        raise MessageRejected(f"{type_!r} to {group!r} is not JSON: {exc}") from None
    if carried != message:
        raise MessageRejected(f"{type_!r} to {group!r} changes through JSON (a tuple or a non-string key?)")
    validator = _VALIDATORS.get(type_) if isinstance(type_, str) else None
    if validator is None:
        raise MessageRejected(f"{type_!r} to {group!r}: no schema for this message type "
                              f"(push.schemas.SCHEMAS: {', '.join(sorted(SCHEMAS))})")
    error = next(iter(sorted(validator.iter_errors(carried), key=lambda e: list(e.path))), None)
    if error is not None:
        where = "/".join(str(part) for part in error.path) or "(the message)"
        raise MessageRejected(f"{type_!r} to {group!r}: {where}: {error.message}")
