"""Form fields the site's pages share, read as strictly as the API reads its query strings."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from web.digits import ASCII_DIGITS, MAX_DIGITS


class WholeNumberField(forms.IntegerField):
    """A whole number written in ASCII digits ``[0-9]+`` only (``web.digits``), then the field's own
    bounds. Django's ``IntegerField`` reads through ``int()``, which takes Arabic-Indic or full-width
    digits, ``_`` and blanks (a trial's ``turn_timer=٣٠`` opened a table with a 30 s timer).

    :raises ValidationError: ``invalid`` for anything but digits; ``max_value`` for a number longer
        than :data:`web.digits.MAX_DIGITS` digits (never converted).
    """

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        text = str(value)
        if not ASCII_DIGITS.fullmatch(text):
            message = _("Enter a whole number written with the digits 0-9.")
            raise forms.ValidationError(message, code="invalid")
        if len(text.lstrip("0")) > MAX_DIGITS:
            raise forms.ValidationError(_("This number is too large."), code="max_value")
        return int(text)
