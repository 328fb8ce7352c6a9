"""``{% load report_tags %}``: the "Report" link of the pages a report is made from (docs/fairplay.md
"Reports"). The profile (``ratings``), the table (``games``) and the replay (``replays``) sit below
``fairplay`` in the layers (docs/architecture.md): their templates show fairplay's link through these
tags, as the profile shows lobby's challenge box, so who sees the link is decided here, once.

- ``{% report_player_link player %}``: on a profile; shown to a signed-in member looking at another
  person's profile (not their own, not a house bot's).
- ``{% report_match_link match "table" %}``: in the table's end-of-match buttons, rendered ``hidden``
  (``games/static/games/js/table.js`` shows it once the match is finished, as it shows the replay link);
  ``{% report_match_link match "replay" token %}`` on the replay page (``token``: the link's token the
  page was opened with, or empty). Shown to a member when the match has someone they could report: a
  person other than them (or a friend table's seat still empty, which only a person can take).

The link is only a way in: ``fairplay.views`` checks everything again.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from fairplay.reporting import is_member

register = template.Library()


def _viewer(context: template.Context) -> Any:
    request = context.get("request")
    return getattr(request, "user", None)


@register.simple_tag(takes_context=True)
def report_player_link(context: template.Context, player: Any) -> SafeString:
    viewer = _viewer(context)
    if not is_member(viewer) or player.is_bot or player.pk == viewer.pk:
        return SafeString("")
    return format_html('<a class="button" href="{}" data-testid="report-link" rel="nofollow">{}</a>',
                       reverse("fairplay:report_player", args=[player.username]), _("Report"))


@register.simple_tag(takes_context=True)
def report_match_link(context: template.Context, match: Any, place: str, token: str = "") -> SafeString:
    viewer = _viewer(context)
    if not is_member(viewer):
        return SafeString("")
    seats = (match.player0, match.player1)
    someone = any(p is not None and not p.is_bot and p.pk != viewer.pk for p in seats)
    empty_friend_seat = match.player1_id is None and not match.bot_seats and match.bot_level is None
    if not (someone or empty_friend_seat):
        return SafeString("")
    query = {"from": place, **({"token": token} if token else {})}
    url = f"{reverse('fairplay:report_match', args=[match.pk])}?{urlencode(query)}"
    if place == "table":
        return format_html('<a class="btn" id="report-link" data-testid="report-link" href="{}" '
                           'rel="nofollow" hidden>{}</a>', url, _("Report a player"))
    return format_html('<a class="btn" data-testid="report-link" href="{}" rel="nofollow">{}</a>',
                       url, _("Report a player"))
