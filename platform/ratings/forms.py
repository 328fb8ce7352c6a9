"""The rankings page's query string, validated (docs/ratings.md "Pages")."""

from __future__ import annotations

import unicodedata

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from ratings.selectors import TABS

MAX_SEARCH: int = get_user_model()._meta.get_field("username").max_length or 150
"""Longest search: a whole username (150 characters; display names are at most 60)."""
MAX_PAGE = 1_000_000


class RankingsQuery(forms.Form):
    """``tab`` (``all``/``30d``), ``page`` (1..), ``q`` (name prefix, <= :data:`MAX_SEARCH` characters,
    NFKC-normalised as sign-up stores names), ``provisional`` and ``me`` (``1`` = on). Errors on
    ``tab``/``page`` are a 404 (no such page); on ``q`` a form error."""

    tab = forms.ChoiceField(choices=[(t, t) for t in TABS], required=False)
    page = forms.IntegerField(min_value=1, max_value=MAX_PAGE, required=False)
    q = forms.CharField(label=_("Search by name"), max_length=MAX_SEARCH, required=False, strip=True)
    provisional = forms.BooleanField(label=_("Show provisional players"), required=False)
    me = forms.BooleanField(required=False)

    def clean_q(self) -> str:
        # As accounts' sign-up stores usernames (Django's normalize_username): typed 'ǅemal' finds 'Džemal'.
        return unicodedata.normalize("NFKC", self.cleaned_data["q"])
