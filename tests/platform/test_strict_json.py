"""web.strict_json: JSON from clients parsed as RFC 8259 says, with nothing read two ways; and the table
socket's answer to such a frame (fresh-clone trial: a ping id 1e400 came back as Infinity, which is not
JSON, and {"type": "ping", "type": "resign"} resigned the match)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from web.strict_json import StrictJSONError, loads


def test_plain_json_is_read_as_json_reads_it() -> None:
    assert loads('{"type": "action", "seq": 3, "x": [1.5, -2e3, null, true], "s": "\\u00e9"}') == {
        "type": "action", "seq": 3, "x": [1.5, -2000.0, None, True], "s": "é"}


@pytest.mark.parametrize(("text", "error"), [
    ('{"id": NaN}', "NaN is not a number JSON allows"),
    ('{"id": Infinity}', "Infinity is not a number JSON allows"),
    ('[-Infinity]', "-Infinity is not a number JSON allows"),
    ('{"id": 1e400}', "the number 1e400 is out of range"),
    ('{"id": -1e400}', "the number -1e400 is out of range"),
    ('{"type": "ping", "type": "resign"}', "the key 'type' appears twice in one object"),
    ('{"a": {"b": 1, "b": 2}}', "the key 'b' appears twice in one object"),
])
def test_what_a_reader_could_take_two_ways_is_refused(text: str, error: str) -> None:
    with pytest.raises(StrictJSONError) as caught:
        loads(text)
    assert str(caught.value) == error


def test_not_json_is_still_a_value_error() -> None:
    with pytest.raises(ValueError):
        loads("{")


@pytest.mark.django_db(transaction=True)
async def test_the_table_refuses_them_and_applies_nothing(django_user_model: Any) -> None:
    from games import services
    from tests.games.wsclient import connect, recv

    alice, bob = [await database_sync_to_async(django_user_model.objects.create_user)(username=name)
                  for name in ("alice", "bob")]
    table = await database_sync_to_async(services.table_create)(
        user=alice, rules_preset="classic", target=100, turn_timer=None)
    match = await database_sync_to_async(services.table_join)(user=bob, token=table.invite_token)
    comm, state = await connect(alice, match.pk)
    try:
        await comm.send_to(text_data='{"type": "ping", "id": 1e400}')
        assert await recv(comm) == {"type": "error", "code": "bad_json", "id": None, "message":
                                    "the frame is not valid JSON: the number 1e400 is out of range"}
        await comm.send_to(text_data='{"type": "ping", "type": "resign"}')
        reply = await recv(comm)
        assert (reply["code"], reply["message"]) == (
            "bad_json", "the frame is not valid JSON: the key 'type' appears twice in one object")
        await comm.send_to(text_data='{"type": "sync"}')
        synced = await recv(comm)
        assert synced["seq"] == state["seq"] and synced["match"]["status"] == "active"  # nothing applied
    finally:
        await comm.disconnect()
