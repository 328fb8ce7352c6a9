"""The site's one refusal page: :func:`refusal_page` renders ``web/refused.html`` (the error pages'
layout: the status, a heading, the reason for the reader, maybe a detail, the ways on).

Two ways in, one page:

- raise ``web.errors.NotFound(_("No such match."))`` (a 404 with its reason for the reader; without
  one, ``NotFound()``, the 404 page's own sentence): ``handler404`` (``web.views.page_not_found``)
  renders it here with the heading "Page not found" (a 404 that is not ours, a mistyped address, gets
  ``404.html``: its message may be internal);
- return ``refusal_page(request, status=409, ...)`` for any other status a view explains (the replays'
  403/409/422, a bad field's 400).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@dataclass(frozen=True)
class Link:
    """A way on from a refusal: ``url`` and its (translated) ``text``."""

    url: str
    text: str


def refusal_page(
    request: HttpRequest, *, status: int, heading: str, message: str, code: str = "",
    detail: str | None = None, action: Link | None = None, links: Sequence[Link] = (),
) -> HttpResponse:
    """``web/refused.html`` with ``status``: ``heading`` (also the page's title), ``message`` (the reason,
    translated), ``code`` (the refusal's machine word, ``data-code`` for scripts and tests), ``detail``
    (a second line, e.g. a verifier's reason), ``action`` (one button, e.g. "Watch it live"), ``links``
    (more ways on, one line). Every refusal page also has the way home."""
    context = {"status": status, "heading": heading, "message": message, "code": code, "detail": detail,
               "action": action, "links": list(links)}
    return render(request, "web/refused.html", context, status=status)
