"""Site pages outside the games app."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from accounts.selectors import house_bots_list


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Home page: play a bot (levels listed), play a friend, recent matches."""
    return render(request, "web/home.html", {"bots": list(house_bots_list())})


@require_GET
@cache_control(max_age=86_400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``: temporary redirect (302, cached a day) to the SVG icon ``web/favicon.svg``.

    Pages link the SVG themselves; this answers browsers and tools that ask the fixed path anyway, so it
    is not a 404 in the log. Temporary, so a later hashed static name is picked up.
    """
    return HttpResponseRedirect(static("web/favicon.svg"))
