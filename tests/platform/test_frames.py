"""``web.frames.dumps``: the JSON text of every frame the server sends (orjson, json.dumps' fallback)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from web.frames import dumps


def test_a_frame_is_compact_json_with_utf8_text_and_string_keys() -> None:
    frame = {"type": "chat", "text": "Olá, bati!", "seats": {0: "ana", 1: "bo"}, "cards": ("7h", "Kc")}
    assert dumps(frame) == (
        '{"type":"chat","text":"Olá, bati!","seats":{"0":"ana","1":"bo"},"cards":["7h","Kc"]}'
    )


def test_a_lone_surrogate_is_escaped_by_the_fallback_not_lost() -> None:
    text = dumps({"text": "a\ud800b"})
    assert text == '{"text":"a\\ud800b"}'
    assert json.loads(text) == {"text": "a\ud800b"}


def test_an_integer_past_64_bits_is_written_by_the_fallback() -> None:
    assert dumps({"n": 2**70}) == '{"n":1180591620717411303424}'


def test_a_value_no_encoder_knows_is_an_error() -> None:
    with pytest.raises(TypeError):
        dumps({"x": object()})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_a_frame_decodes_to_what_json_dumps_would_have_sent(value: object) -> None:
    assert json.loads(dumps(value)) == json.loads(json.dumps(value))
