"""The rankings page's query string, validated (docs/ratings.md "Pages")."""

from __future__ import annotations

import unicodedata

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from ratings.selectors import TABS
from web.digits import ASCII_DIGITS, MAX_DIGITS

MAX_SEARCH: int = get_user_model()._meta.get_field("username").max_length or 150
"""Longest search: a whole username (150 characters; display names are at most 60)."""
MAX_PAGE = 1_000_000
SWITCH_ON = ("1", "true")
SWITCH_OFF = ("", "0", "false")


class PageField(forms.CharField):
    """A page number in ASCII digits ``[0-9]+`` from 1 (the API's ``api.fields.QueryInteger`` reading:
    no full-width or Arabic-Indic digits, no sign, blank, ``_`` or decimal point). A number above
    :data:`MAX_PAGE` (however long: never converted past :data:`web.digits.MAX_DIGITS` digits) is read
    as ``MAX_PAGE + 1``: a whole number, but past any board's last page.

    :raises ValidationError: ``invalid`` for anything else, and for 0.
    """

    def to_python(self, value: object) -> int | None:  # type: ignore[override]
        text = super().to_python(value)
        if text is None or text in self.empty_values:  # None is one of them (spelt out for mypy)
            return None
        if not ASCII_DIGITS.fullmatch(text) or not text.lstrip("0"):
            raise forms.ValidationError(_("The page must be a whole number from 1."), code="invalid")
        digits = text.lstrip("0")
        return MAX_PAGE + 1 if len(digits) > MAX_DIGITS else min(int(digits), MAX_PAGE + 1)


class SwitchField(forms.Field):
    """An on/off switch of the query string: ``1`` or ``true`` is on; ``0``, ``false`` or empty (or
    absent) is off, as the form's checkbox (``value="1"``) and the API's ``true``/``false`` write it.

    :raises ValidationError: ``invalid`` for anything else (``yes``, ``on``, ``TRUE``...).
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(required=False, **kwargs)  # type: ignore[arg-type]

    def to_python(self, value: object) -> bool:
        if value is None or value in SWITCH_OFF:
            return False
        if value in SWITCH_ON:
            return True
        raise forms.ValidationError(_("Use 1 or 0 (or true or false)."), code="invalid")


class RankingsQuery(forms.Form):
    """``tab`` (``all``/``30d``), ``page`` (1..), ``q`` (name prefix, <= :data:`MAX_SEARCH` characters,
    NFKC-normalised as sign-up stores names), ``provisional`` and ``me`` (:class:`SwitchField`: ``1``/``true``
    on, ``0``/``false``/empty off). Errors on ``tab``/``page`` are a 404 (no such page); on ``q``,
    ``provisional`` or ``me`` a form error (400)."""

    tab = forms.ChoiceField(choices=[(t, t) for t in TABS], required=False)
    page = PageField(required=False, strip=False)
    q = forms.CharField(label=_("Search by name"), max_length=MAX_SEARCH, required=False, strip=True)
    provisional = SwitchField(label=_("Show provisional players"))
    me = SwitchField()

    def clean_q(self) -> str:
        # As accounts' sign-up stores usernames (Django's normalize_username): typed 'ǅemal' finds 'Džemal'.
        return unicodedata.normalize("NFKC", self.cleaned_data["q"])
