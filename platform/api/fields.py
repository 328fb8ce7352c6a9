"""Query-string fields read strictly: a value means one thing, written one way (docs/api.md "Errors").

DRF's ``IntegerField`` reads a value with Python's ``int()``, so ``1_0`` was 10, full-width, Arabic-Indic
or mathematical digits (``page=２``) counted, and ``+2`` or `` 1`` (blanks) too; its ``BooleanField``
takes ``yes``, ``1``, ``True``, ``on``... These accept only the documented spellings.
"""

from __future__ import annotations

import re
from typing import Any

from rest_framework import serializers

ASCII_DIGITS = re.compile(r"[0-9]+")
MAX_DIGITS = 18
"""Longer digit strings are refused as too large without converting them (any bound here is smaller)."""


class QueryInteger(serializers.IntegerField):
    """A whole number written in ASCII digits ``[0-9]+`` (leading zeros allowed), then DRF's bounds.

    :raises ValidationError: ``A valid integer is required.`` for anything else; the ``max_value``
        message for more than :data:`MAX_DIGITS` digits.
    """

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not ASCII_DIGITS.fullmatch(data):
            self.fail("invalid")
        if len(data.lstrip("0")) > MAX_DIGITS:
            if self.max_value is not None:
                self.fail("max_value", max_value=self.max_value)
            self.fail("max_string_length")
        return int(super().to_internal_value(data))


class QueryBoolean(serializers.BooleanField):
    """Exactly ``true`` or ``false`` (lower case).

    :raises ValidationError: ``use true or false`` for anything else.
    """

    default_error_messages = {"invalid": "use true or false"}

    def to_internal_value(self, data: Any) -> bool:
        if data == "true":
            return True
        if data == "false":
            return False
        self.fail("invalid")
