"""Pages of the ratings app (thin: validate the query, call selectors, render). docs/ratings.md "Pages"."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET

from accounts.requests import SignedInRequest
from accounts.selectors import player_get
from games.aborts import abort_counts
from games.models import MatchStatus
from games.selectors import match_get
from infra.db_router import replica_reads, replica_view
from ratings import elo, selectors
from ratings.forms import MAX_SEARCH, RankingsQuery
from web import paging
from web.errors import NotFound

SHOWN_PAGE_DIGITS = 12
"""A page number past the last is echoed with at most this many digits (then "…")."""


def _query(tab: str, provisional: bool, q: str = "", page: int | None = None, me: bool = False) -> str:
    """The query string (with its ``?``, or "") of a board view; defaults are left out."""
    params: dict[str, str] = {}
    if tab != "all":
        params["tab"] = tab
    if provisional:
        params["provisional"] = "1"
    if q:
        params["q"] = q
    if page and page > 1:
        params["page"] = str(page)
    if me:
        params["me"] = "1"
    return "?" + urlencode(params) if params else ""


@require_GET
@replica_view  # a board at most the read replica's lag old (infra.db_router)
def rankings(request: HttpRequest) -> HttpResponse:
    """The boards (docs/ratings.md "Pages").

    - An unknown ``tab``: 404 with the reason.
    - ``page`` that is not a whole number from 1 in ASCII digits (``abc``, ``0``, ``-1``, ``２``): 400,
      the board's first page with the error under the search form ("The page must be a whole number
      from 1."). A NUL byte anywhere in the query string never reaches this view: 400 from
      ``web.middleware.RefuseNulMiddleware``.
    - ``page`` past the last page (``?page=999999999``, however long the number): 200, the last page,
      saying "There is no page N on this board: here is the last page." (N cut to 12 digits).
    - A bad search (too long) or switch value (``provisional``/``me`` not 1/0/true/false): 400 with the
      form error, the board unfiltered.
    - A name search that finds nobody with the provisional players hidden, while a provisional player
      has such a name: the page says so, with a link that shows the provisional players.
    """
    form = RankingsQuery(request.GET)
    valid = form.is_valid()
    if "tab" in form.errors:
        raise NotFound(_("Unknown tab: use “all” or “30d”."))
    if "page" in form.errors or "me" in form.errors or "provisional" in form.errors:
        valid = False
    data = form.cleaned_data if valid else {**form.cleaned_data, "q": ""}
    tab = data.get("tab") or "all"
    provisional = bool(data.get("provisional"))
    search = data.get("q") or ""
    page = data.get("page") or 1
    viewer_id = request.user.pk if request.user.is_authenticated else None
    if valid and data.get("me"):
        if viewer_id is None:
            return redirect(f"{reverse('accounts:login')}?{urlencode({'next': request.get_full_path()})}")
        rank, provisional = _my_rank(request, viewer_id, tab, provisional)
        if rank is None:
            return redirect(reverse("ratings:rankings") + _query(tab, provisional))
        page = (rank - 1) // selectors.PER_PAGE + 1
        return redirect(reverse("ratings:rankings") + _query(tab, provisional, page=page) + "#me")
    page_note = None
    try:
        board = selectors.board_page(tab=tab, provisional=provisional, search=search, page=page,
                                     viewer_id=viewer_id)
    except paging.NoSuchPage as past:
        shown = request.GET.get("page", "").lstrip("0") or str(page)
        shown = shown if len(shown) <= SHOWN_PAGE_DIGITS else shown[:SHOWN_PAGE_DIGITS] + "…"
        page_note = _("There is no page %(page)s on this board: here is the last page.") % {"page": shown}
        try:
            board = selectors.board_page(tab=tab, provisional=provisional, search=search,
                                         page=past.last_page, viewer_id=viewer_id)
        except paging.NoSuchPage:  # the 30-day board's count was a minute old: page 1 always exists
            board = selectors.board_page(tab=tab, provisional=provisional, search=search, page=1,
                                         viewer_id=viewer_id)
    page_obj = board.page
    provisional_found = (not provisional and not board.rows
                         and selectors.provisional_match_exists(tab=tab, search=search))
    context = {
        "form": form, "tab": tab, "provisional": provisional, "search": search, "board": board,
        "rows": board.rows, "page_obj": page_obj,
        "prev_url": _query(tab, provisional, search, page_obj.previous_page_number())
        if page_obj.has_previous() else None,
        "next_url": _query(tab, provisional, search, page_obj.next_page_number())
        if page_obj.has_next() else None,
        "tab_urls": {t: reverse("ratings:rankings") + _query(t, provisional, search) for t in selectors.TABS},
        "clear_url": reverse("ratings:rankings") + _query(tab, provisional),
        "toggle_url": reverse("ratings:rankings") + _query(tab, not provisional, search),
        "me_url": reverse("ratings:rankings") + _query(tab, provisional, me=True),
        "bots": selectors.bots_board(),
        "recent_days": selectors.RECENT_DAYS, "max_search": MAX_SEARCH,
        "page_note": page_note, "provisional_found": provisional_found,
    }
    return render(request, "ratings/rankings.html", context, status=200 if valid else 400)


@require_GET
@replica_view
def bot_rankings(request: HttpRequest) -> HttpResponse:
    """The BOT ranking (docs/bot-api.md): BOT accounts by rating, the house bots among them as anchors
    at their fixed Elo (``ratings.selectors.bot_board``). No parameters: the board is short and whole."""
    return render(request, "ratings/bot_rankings.html", {"rows": selectors.bot_board()})


def _my_rank(request: HttpRequest, user_id: int, tab: str, provisional: bool) -> tuple[int | None, bool]:
    """"Jump to my rank": the viewer's rank on board ``tab`` and whether it is the board with the
    provisional players shown. A provisional player hidden from the board gets their rank with them
    shown, and a message saying why (N of 10 rated matches); a player on no board gets a message saying
    why (no rated match yet, none in the last 30 days) and rank None."""
    if getattr(request.user, "is_guest", False):
        messages.info(request, format_html(
            _("Guests' matches are never rated: <a href=\"{url}\">sign up</a> to get a rating and a place on "
              "the boards."), url=reverse("accounts:signup")))
        return None, provisional
    rank = selectors.rank_get(user_id=user_id, tab=tab, provisional=provisional)
    if rank is not None:
        return rank, provisional
    info = selectors.rating_get(user=request.user)  # type: ignore[arg-type]  # a member: checked by me=1
    if info.rated_matches == 0:
        messages.info(request, _("You have no rated match yet: play one (against a bot or a member) to get "
                                 "on the boards."))
        return None, provisional
    if not provisional and info.provisional:
        rank = selectors.rank_get(user_id=user_id, tab=tab, provisional=True)
        if rank is not None:
            messages.info(request, ngettext(
                "You are provisional (%(n)s of %(total)s rated matches), so the board leaves you out: here "
                "is your rank with the provisional players shown.",
                "You are provisional (%(n)s of %(total)s rated matches), so the board leaves you out: here "
                "is your rank with the provisional players shown.",
                info.rated_matches) % {"n": info.rated_matches, "total": elo.PROVISIONAL_MATCHES})
            return rank, True
    messages.info(request, _("You have no rated match in the last %(days)s days, so you are not on this "
                             "board: your rank is on the “All time” tab.") % {"days": selectors.RECENT_DAYS})
    return None, provisional


@require_GET
def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A player's profile; 404 for an unknown user or a guest. The name is looked up as the API does
    (``accounts.selectors.player_get``: NFKC, ignoring case); any other spelling than the stored one
    redirects (302, query string kept) to ``/u/<stored name>/``."""
    if len(username) > 150 or "\x00" in username:
        raise NotFound(_("No such player."))
    user = player_get(username=username)
    if user is None:
        raise NotFound(_("No such player."))
    if user.username != username:
        target = reverse("ratings:profile", args=[user.username])
        query = request.META.get("QUERY_STRING", "")
        return HttpResponseRedirect(f"{target}?{query}" if query else target)
    # Another player's profile may be read on the read replica (infra.db_router); one's own, just after
    # a rating commit, on the primary (read-your-writes).
    is_me = request.user.is_authenticated and request.user.pk == user.pk
    with replica_reads(enabled=not is_me):
        return _profile(request, user)


def _profile(request: HttpRequest, user: Any) -> HttpResponse:
    data = selectors.profile_get(
        user=user, own=request.user.is_authenticated and request.user.pk == user.pk)
    if data is None:
        raise NotFound(_("No such player."))
    # The profile's owner is ``player``: ``user`` is the viewer's (the auth context processor), which the
    # site header reads; passing the owner as ``user`` showed every visitor "logged in" as them.
    context = {key: value for key, value in data.items() if key != "user"}
    context["player"] = data["user"]
    context["is_me"] = request.user.is_authenticated and request.user.pk == data["user"].pk
    # Aborted rated matches (games.aborts; docs/ratings.md "Aborts"): one query, members only.
    context["aborts"] = None if data["is_bot"] else abort_counts(user_id=data["user"].pk)
    # "left N of M rated matches" against people: lobby's {% left_box %} in the template (lobby.playbans).
    return render(request, "ratings/profile.html", context)


@login_required
@require_GET
def match_rating(request: SignedInRequest, match_id: int) -> JsonResponse:
    """The viewer's ``rating`` message for match ``match_id`` (docs/protocol.md ``rating``); 404 while
    it is not rated, when it never will be (``rated`` false; an aborted match also ``aborted`` true), or
    for a non-player."""
    match = match_get(match_id=match_id)
    if match is None or match.seat_of(request.user.pk) is None:
        return JsonResponse({"error": "no such match"}, status=404)
    if match.status == MatchStatus.ABORTED:  # resigned before both players moved: never rated
        return JsonResponse({"error": "aborted: never rated", "rated": False, "aborted": True}, status=404)
    message = selectors.match_rating_get(match_id=match_id, user_id=request.user.pk)
    if message is None:
        return JsonResponse({"error": "not rated" if not match.rated else "not rated yet",
                             "rated": match.rated}, status=404)
    return JsonResponse(message)
