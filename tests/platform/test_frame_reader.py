"""web.frame_reader: the frame reading the home and spectator sockets share, on worked examples."""

from __future__ import annotations

from web.frame_reader import Refusal, error_frame, read_object

MAX = 32


def test_a_json_object_is_the_message() -> None:
    assert read_object('{"type": "sync", "n": [1, 2]}', None, max_bytes=MAX) == {"type": "sync", "n": [1, 2]}


def test_a_binary_frame_is_refused_as_not_text_and_a_long_one_as_too_large() -> None:
    assert read_object(None, b'{"type": "sync"}', max_bytes=MAX) == Refusal(
        "bad_json", "send JSON text frames")
    assert read_object(None, b"x" * (MAX + 1), max_bytes=MAX) == Refusal(
        "frame_too_large", "frames are limited to 32 bytes")
    assert read_object(None, None, max_bytes=MAX) == Refusal("bad_json", "send JSON text frames")


def test_a_text_frame_longer_than_the_limit_is_refused_unread() -> None:
    assert read_object("[" * (MAX + 1), None, max_bytes=MAX) == Refusal(
        "frame_too_large", "frames are limited to 32 bytes")
    assert isinstance(read_object("{" + " " * (MAX - 2) + "}", None, max_bytes=MAX), dict)  # exactly MAX


def test_text_that_is_not_strict_json_is_refused_with_the_parsers_reason() -> None:
    duplicate = read_object('{"a": 1, "a": 2}', None, max_bytes=MAX)
    assert isinstance(duplicate, Refusal) and duplicate.code == "bad_json"
    assert duplicate.message.startswith("the frame is not valid JSON: ")
    assert read_object("{", None, max_bytes=MAX) == Refusal("bad_json", "the frame is not valid JSON")


def test_nesting_deeper_than_the_parser_is_refused_not_raised() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert read_object(deep, None, max_bytes=len(deep)) == Refusal("bad_json", "the frame is not valid JSON")


def test_json_that_is_not_an_object_is_refused() -> None:
    for text in ("[]", "1", '"sync"', "null"):
        assert read_object(text, None, max_bytes=MAX) == Refusal(
            "not_an_object", "a message must be a JSON object")


def test_the_error_frame_shape() -> None:
    assert error_frame("watch_full", "full", limit=3) == {
        "type": "error", "code": "watch_full", "message": "full", "id": None, "limit": 3}
