"""push.schemas: every message type's schema admits a worked example of it and refuses the mistakes a
sender makes (a renamed or extra key, a wrong type, a value that JSON does not carry)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from push.schemas import SCHEMAS, MessageRejected, check

STATE = {"type": "state", "seq": 7, "match": {"id": 3, "status": "active"}, "hand": {"number": 1}}
RATING = {"type": "rating", "match_id": 3, "before": 1500, "after": 1520, "change": "+20", "delta": 20.0,
          "k": 40, "opponent_rating": 1500, "won": True}

EXAMPLES: dict[str, dict[str, Any]] = {
    "match.update": {"type": "match.update", "seq": 7, "state": STATE},
    "chat.message": {"type": "chat.message", "seat": 1, "preset": "gg"},
    "presence.update": {"type": "presence.update"},
    "rematch.update": {"type": "rematch.update"},
    "spectators.update": {"type": "spectators.update", "count": 4},
    "user.session_ended": {"type": "user.session_ended"},
    "rating.update": {"type": "rating.update", "seats": {"0": RATING}},
    "tournament.changed": {"type": "tournament.changed", "tournament": 12},
    "analysis.progress": {"type": "analysis.progress", "status": "running", "done": 5, "total": 40},
    "lobby.changed": {"type": "lobby.changed"},
    "lobby.go": {"type": "lobby.go", "url": "/play/9/"},
    "notice.push": {"type": "notice.push", "payload": {"type": "go", "url": "/play/9/"}},
    "pool.count": {"type": "pool.count", "waiting": 3},
    "pool.left": {"type": "pool.left", "reason": "cancelled"},
    "pool.probe": {"type": "pool.probe"},
    "pool.paired": {"type": "pool.paired", "match": 9, "bot": False,
                    "opponent": {"name": "ana", "rating": 1512}},
    "home.update": {"type": "home.update", "numbers": {"players_online": 3}},
    "bot.match": {"type": "bot.match", "event": "start", "match_id": 9},
}


def test_every_type_has_a_worked_example() -> None:
    assert sorted(EXAMPLES) == sorted(SCHEMAS)


@pytest.mark.parametrize("type_", sorted(EXAMPLES))
def test_the_worked_example_passes(type_: str) -> None:
    check("some_group", EXAMPLES[type_])


def test_the_spectators_notice_has_no_state() -> None:
    check("watch_3", {"type": "match.update", "seq": 7})


@pytest.mark.parametrize(("message", "error"), [
    ({"type": "match.updated", "seq": 1}, "'match.updated' to 'g': no schema for this message type"),
    ({"seq": 1}, "None to 'g': no schema for this message type"),
    ({"type": "chat.message", "seat": 2, "preset": "gg"},
     "'chat.message' to 'g': seat: 2 is not one of [0, 1]"),
    ({"type": "pool.count", "waiting": 3, "pool": 1},
     "'pool.count' to 'g': (the message): Additional properties are not allowed ('pool' was unexpected)"),
    ({"type": "pool.count"}, "'pool.count' to 'g': (the message): 'waiting' is a required property"),
    ({"type": "spectators.update", "count": "many"},
     "'spectators.update' to 'g': count: 'many' is not of type 'integer'"),
    ({"type": "match.update", "seq": 1, "state": {"type": "state", "seq": 1}},
     "'match.update' to 'g': state: 'match' is a required property"),
    ({"type": "rating.update", "seats": {"2": RATING}},
     "'rating.update' to 'g': seats: '2' is not one of ['0', '1']"),
    ({"type": "analysis.progress", "status": "paused", "done": 0, "total": 0},
     "'analysis.progress' to 'g': status: 'paused' is not one of ['queued', 'running', 'done', 'failed']"),
], ids=lambda value: value if isinstance(value, str) else value.get("type", "none"))
def test_a_schema_violation_is_named(message: dict[str, Any], error: str) -> None:
    with pytest.raises(MessageRejected) as caught:
        check("g", message)
    assert str(caught.value).split(" (push.schemas.SCHEMAS: ")[0] == error


def test_what_json_does_not_carry_is_refused() -> None:
    with pytest.raises(MessageRejected, match=r"^'home.update' to 'home' is not JSON: Object of type dat"):
        check("home", {"type": "home.update", "numbers": {"at": datetime(2026, 12, 6, tzinfo=UTC)}})
    with pytest.raises(MessageRejected, match="changes through JSON"):
        check("home", {"type": "home.update", "numbers": {"seats": (0, 1)}})
    with pytest.raises(MessageRejected, match="changes through JSON"):
        check("home", {"type": "home.update", "numbers": {1: "one"}})
