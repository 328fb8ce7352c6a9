"""Site pages outside the games app."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from accounts.selectors import house_bots_list


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Home page: play a bot (levels listed), play a friend, recent matches."""
    return render(request, "web/home.html", {"bots": list(house_bots_list())})
