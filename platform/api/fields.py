"""Query-string fields read strictly: a value means one thing, written one way (docs/api.md "Errors").

DRF's ``IntegerField`` reads a value with Python's ``int()``, so ``1_0`` was 10, full-width, Arabic-Indic
or mathematical digits (``page=２``) counted, and ``+2`` or `` 1`` (blanks) too; its ``BooleanField``
takes ``yes``, ``True``, ``on``... These accept only the documented spellings.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from web.digits import ASCII_DIGITS, MAX_DIGITS


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
    """A switch written ``true`` or ``1`` (on), ``false`` or ``0`` (off): lower case, no blanks; the
    site's own links write ``1`` (``/rankings/?provisional=1``) and the form's checkbox too. Every boolean
    query parameter of the API reads this way.

    :raises ValidationError: ``use true, false, 1 or 0`` for anything else (``True``, ``yes``, ``on``,
        ``2``, empty); ``api.base.parse_query`` names the parameter in ``fields``.
    """

    default_error_messages = {"invalid": "use true, false, 1 or 0"}
    ON = ("true", "1")
    OFF = ("false", "0")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # The schema says which values are read (a string parameter, so ``1`` validates against it).
        self.help_text = ((self.help_text or "").rstrip() + " Values: true or 1, false or 0.").strip()

    def to_internal_value(self, data: Any) -> bool:
        if data in self.ON:
            return True
        if data in self.OFF:
            return False
        self.fail("invalid")
