"""The plain log format (embedded profile, ``LOG_FORMAT=plain``): one record, one line.

A logged value can come from the request (a path with ``%0A``, a query string, a user agent, a referer,
a username): written as it is, its line break would start a line that looks like another record
(``2026-12-01 15:00:00,000 ERROR fake.logger: injected``). :class:`PlainFormatter` escapes every control
character of the message as Django's request logger escapes its arguments. The JSON format needs none of
this: each record is one JSON object, its strings escaped by the JSON encoder.
"""

from __future__ import annotations

import logging
import re

# C0 controls, DEL, C1 controls, and the two Unicode line/paragraph separators some viewers break on.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_controls(text: str) -> str:
    """``text`` with each control character written as an escape (``\\n``, ``\\r``, ``\\t``, ``\\x1b``,
    ``\\x85``, ``\\u2028``); every other character (accents included) unchanged: a line feed becomes
    the two characters backslash and ``n``."""

    def escape(m: re.Match[str]) -> str:
        char = m[0]
        if char in _NAMED:
            return _NAMED[char]
        code = ord(char)
        return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"

    return _CONTROL.sub(escape, text)


class PlainFormatter(logging.Formatter):
    """``logging.Formatter`` whose message part is :func:`escape_controls`'d: a record is one line, whatever
    request-derived text it carries. A traceback (``exc_info``, ``stack_info``), which Python writes and
    the formatter appends after the message, keeps its lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        message = record.message
        record.message = escape_controls(message)
        try:
            return super().formatMessage(record)
        finally:
            record.message = message
