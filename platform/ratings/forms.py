"""The rankings page's query string, validated (docs/ratings.md "Pages")."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from ratings.selectors import TABS

MAX_SEARCH = 60
MAX_PAGE = 1_000_000


class RankingsQuery(forms.Form):
    """``tab`` (``all``/``30d``), ``page`` (1..), ``q`` (name prefix, <= 60 characters), ``provisional``
    and ``me`` (``1`` = on). Errors on ``tab``/``page`` are a 404 (no such page); on ``q`` a form error."""

    tab = forms.ChoiceField(choices=[(t, t) for t in TABS], required=False)
    page = forms.IntegerField(min_value=1, max_value=MAX_PAGE, required=False)
    q = forms.CharField(label=_("Search by name"), max_length=MAX_SEARCH, required=False, strip=True)
    provisional = forms.BooleanField(label=_("Show provisional players"), required=False)
    me = forms.BooleanField(required=False)
