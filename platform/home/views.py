"""The home page: the site's front door, composed of what the apps below show (``home.numbers``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from accounts.selectors import house_bots_list
from games.forms import bot_level_choices
from home import live
from home.numbers import home_get


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Home page, the site's front door: the live numbers (players online, matches in play, players
    waiting per pool, a live match to watch; kept live by ``ws/home/``), one-click quick pairing, the
    next tournament, the top 10, play a bot or a friend; for a member their rating and last matches
    (``home.numbers.home_get``)."""
    context = home_get(user=request.user, live=live.fresh_numbers())  # the socket's read, if fresh
    return render(request, "home/home.html", {"bots": list(house_bots_list()), **context,
                                              "bot_levels": bot_level_choices(get_language() or "en")})
