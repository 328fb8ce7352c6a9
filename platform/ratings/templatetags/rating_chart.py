"""``{% load rating_chart %}``: the points of a profile's rating history chart as SVG markup.

A profile draws up to 500 points (``ratings.selectors.HISTORY_POINTS``). Rendered by the template
language, each point cost a ``blocktranslate``, a localized date and time and four localized numbers: about
0.3 ms a point, 150 ms a page. Here the translated title is looked up once per page and each point is one
f-string, with the coordinates written in SVG's own number syntax (never the locale's: pt-BR's decimal
comma is not a valid SVG coordinate).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from django import template
from django.utils import dateformat
from django.utils.formats import get_format
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import localtime
from django.utils.translation import gettext

register = template.Library()


@register.simple_tag
def chart_circles(points: Iterable[Mapping[str, Any]]) -> SafeString:
    """One ``<circle class="point won|lost" data-testid="chart-point" data-match data-rating>`` per
    point (``ratings.selectors.profile_get``'s ``chart_points``), with a ``<title>`` naming the match,
    the opponent, the rating before → after (change) and the day (the viewer's language and format;
    the match list below the chart gives the time)."""
    # Same msgid as the template's former blocktranslate, so the catalogue's translation still applies.
    title = gettext("Match %(id)s vs %(opp)s: %(before)s → %(after)s (%(change)s)")
    date_format = get_format("SHORT_DATE_FORMAT")
    days: dict[date, str] = {}  # formatting a date costs ~0.1 ms: once per calendar day, not per point
    parts = []
    for p in points:
        text = escape(title % {"id": p["match_id"], "opp": p["opponent"], "before": p["before"],
                               "after": p["rating"], "change": p["change"]})
        day = localtime(p["at"]).date()
        at = days.get(day)
        if at is None:
            at = days[day] = escape(dateformat.format(day, date_format))
        parts.append(
            f'<circle class="point {"won" if p["won"] else "lost"}" cx="{p["x"]:.1f}" cy="{p["y"]:.1f}" '
            f'r="4" tabindex="0" data-testid="chart-point" data-match="{int(p["match_id"])}" '
            f'data-rating="{int(p["rating"])}"><title>{text} · {at}</title></circle>'
        )
    return mark_safe("".join(parts))  # every interpolated value is escaped or a number
