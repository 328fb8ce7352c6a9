"""``{% load rating_chart %}``: the points of a profile's rating history chart as SVG markup.

A profile draws up to 500 points (``ratings.selectors.HISTORY_POINTS``). Rendered by the template
language, each point cost a ``blocktranslate``, a localized date and time and four localized numbers: about
0.3 ms a point, 150 ms a page. Here the translated title is looked up once per page, each opponent's name
escaped once, and each point is one f-string of numbers, with the coordinates written in SVG's own
number syntax (never the locale's: pt-BR's decimal comma is not a valid SVG coordinate). The day of each
point is left to the browser (``data-at``, seconds since 1970; ``ratings/chart.js`` appends it to the
hover title in the page's language): a localized date per point was still a third of the page.
"""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from ratings.selectors import ChartPoint

register = template.Library()


@register.simple_tag
def chart_circles(points: Iterable[ChartPoint]) -> SafeString:
    """One ``<circle class="point won|lost" data-testid="chart-point" data-match data-rating data-at>``
    per point (``ratings.selectors.profile_get``'s ``chart_points``), with a ``<title>`` naming the
    match, the opponent and the rating before → after (change), in the viewer's language."""
    # Same msgid as the template's former blocktranslate, so the catalogue's translation still applies.
    title = escape(gettext("Match %(id)s vs %(opp)s: %(before)s → %(after)s (%(change)s)"))
    hidden = escape(gettext("A private event's match: %(before)s → %(after)s (%(change)s)"))
    names: dict[str, str] = {}
    parts = []
    for p in points:
        change = f"{p.change:+d}" if p.change else "0"
        if p.match_id is None:  # a private event's, shown to another than its player: no id, no opponent
            text, match = hidden % {"before": p.before, "after": p.rating, "change": change}, ""
        else:
            name = names.get(p.opponent)
            if name is None:
                name = names[p.opponent] = escape(p.opponent)
            text = title % {"id": p.match_id, "opp": name, "before": p.before, "after": p.rating,
                            "change": change}
            match = f' data-match="{int(p.match_id)}"'
        parts.append(
            f'<circle class="point {"won" if p.won else "lost"}" cx="{p.x:.1f}" cy="{p.y:.1f}" r="4" '
            f'tabindex="0" data-testid="chart-point"{match} '
            f'data-rating="{int(p.rating)}" data-at="{int(p.at)}"><title>{text}</title></circle>'
        )
    return mark_safe("".join(parts))  # every interpolated value is escaped or a number
