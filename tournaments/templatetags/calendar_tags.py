"""``{% load calendar_tags %}``: ``day|day_heading``, a calendar day's heading in the reader's language:
``Monday, December 7`` in English, ``segunda-feira, 7 de dezembro`` in Portuguese (a translatable
date format, then lower case where the language writes weekdays and months so)."""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils import dateformat
from django.utils.translation import get_language, pgettext

register = template.Library()

LOWER_CASE_LANGUAGES = ("pt",)
"""Languages whose weekday and month names are common nouns, written in lower case mid-sentence
(Django's pt-BR names are capitalised for stand-alone use)."""


@register.filter
def day_heading(day: dt.date) -> str:
    """``day`` as a heading (Django's ``date`` format letters; translators set the order and words)."""
    text = dateformat.format(day, pgettext("calendar day heading (Django date format)", "l, F j"))
    if (get_language() or "en").split("-")[0] in LOWER_CASE_LANGUAGES:
        return text.lower()
    return text
