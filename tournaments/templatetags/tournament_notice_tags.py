"""``{% load tournament_notice_tags %}``: the site-wide bar of a member's unseen event notices ("starts in a
few minutes", "round k is paired": ``tournaments.notices``). ``web/base.html`` loads it for members, as it
loads lobby's ``challenge_tags`` (docs/architecture.md: a template crossing, not an import).

``{% tournament_notices %}``: the unseen notices (one query), each with a link to its event and a
"dismiss" form, and the script (``tournaments/notices.js``) that refreshes them on each push of the
member's notices socket and shows a browser notification when the member allowed them.
"""

from __future__ import annotations

from typing import Any

from django import template

from tournaments import notices

register = template.Library()


@register.inclusion_tag("tournaments/_notices.html", takes_context=True)
def tournament_notices(context: dict[str, Any]) -> dict[str, Any]:
    user = context.get("user")
    request = context.get("request")
    rows = []
    if user is not None and user.is_authenticated and not user.is_bot:
        rows = [(n, notices.notice_text(n)) for n in notices.unseen_of(user)]
    return {"rows": rows, "csrf_token": context.get("csrf_token"),
            "next": request.get_full_path() if request is not None else "/"}
