"""Pages of the games app (thin: parse, authorize, call one service or selector, render).

Context of each template: docs/protocol.md "Template context".
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.views import play_as_guest
from engine.roundrobin import read_elo
from engine.rules import PRESETS
from games import selectors, services
from games.forms import BotMatchForm, FriendTableForm, bot_level_choices
from games.models import Match, MatchStatus
from ratings.elo import expected_score, shown
from ratings.selectors import rating_get


def _language() -> str:
    return get_language() or "en"


def _levels_with_elo(user: Any = None) -> list[tuple[int, str, int | None, int | None]]:
    """``[(level, localized name, calibrated Elo or None, expected score % or None), ...]`` for the level
    picker; the Elo comes from the bots' round robin (``python -m engine.roundrobin`` ->
    data/bot_elo.json); the expected score (whole percent) is a member's against that Elo
    (docs/ratings.md), None for a guest."""
    elo = read_elo()
    mine = _my_rating(user)
    return [
        (level, name, elo.get(level),
         None if mine is None or elo.get(level) is None else round(100 * expected_score(mine, elo[level])))
        for level, name in bot_level_choices(_language())
    ]


def _my_rating(user: Any) -> float | None:
    if user is None or not user.is_authenticated or user.is_guest or user.is_bot:
        return None
    return rating_get(user=user).rating


def _form_page(request: HttpRequest, mode: str, form: Any, status: int = 200) -> HttpResponse:
    context = {
        "mode": mode, "form": form,
        "bot_form": form if mode == "bot" else BotMatchForm(language=_language()),
        "friend_form": form if mode == "friend" else FriendTableForm(),
        "bot_levels": _levels_with_elo(request.user), "presets": list(PRESETS),
        "my_rating": None if (mine := _my_rating(request.user)) is None else shown(mine),
    }
    return render(request, "games/new_match.html", context, status=status)


def _create_from_form(
    request: HttpRequest, mode: str, form: Any, create: Callable[[dict[str, Any]], Match]
) -> HttpResponse:
    """A create endpoint's POST: invalid fields or a service refusal (``GameError``) -> 400 with the
    form and its errors; else ``create(cleaned_data)`` and a redirect to the new match's table (a
    repeated ``submission`` token: to the match that submission created)."""
    if not form.is_valid():
        return _form_page(request, mode, form, status=400)
    try:
        match = create(form.cleaned_data)
    except services.GameError as exc:
        form.add_error(None, exc.message)
        return _form_page(request, mode, form, status=400)
    return redirect("games:table", match_id=match.pk)


@login_required
@require_http_methods(["GET", "POST"])
def new_bot_match(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST (CSRF): create a match against the chosen bot, redirect to its table; bad
    fields: 400 with the form and its errors."""
    if request.method == "GET":
        return _form_page(request, "bot", BotMatchForm(language=_language()))
    return _create_from_form(
        request, "bot", BotMatchForm(request.POST, language=_language()),
        lambda data: services.match_create_vs_bot(
            user=request.user, level=data["level"], rules_preset=data["preset"], target=data["target"],
            submission=data["submission"],
        ),
    )


@login_required
@require_http_methods(["GET", "POST"])
def new_friend_table(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST (CSRF): open a private table, redirect to it (the page shows the link)."""
    if request.method == "GET":
        return _form_page(request, "friend", FriendTableForm())
    return _create_from_form(
        request, "friend", FriendTableForm(request.POST),
        lambda data: services.table_create(
            user=request.user, rules_preset=data["preset"], target=data["target"],
            turn_timer=data["turn_timer"], rated=data["rated"], submission=data["submission"],
        ),
    )


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """GET: the join page (or the table, for a player already seated). POST (CSRF, logged in or
    guest): take the free seat and go to the table. A visitor's POST with ``as_guest`` first becomes a
    guest through the accounts' guest view (its rate limit applies), so joining by link is one click."""
    match = Match.objects.select_related("player0", "player1").filter(invite_token=token).first()
    if match is None:
        raise Http404(_("No table with that link."))
    user = request.user
    if request.method == "POST" and not user.is_authenticated and request.POST.get("as_guest"):
        refused = play_as_guest(request)
        if not request.user.is_authenticated:
            return refused  # over the guest rate: its 429 page
        user = request.user
    if user.is_authenticated and match.seat_of(user.pk) is not None:
        return redirect("games:table", match_id=match.pk)
    reason = None
    if match.status in (MatchStatus.FINISHED, MatchStatus.ABORTED):
        reason = "finished"
    elif match.player1_id is not None:
        reason = "full"
    if request.method == "POST" and reason is None and user.is_authenticated:
        try:
            services.table_join(user=user, token=token)
        except services.GameError as exc:
            messages.error(request, exc.message)
        else:
            return redirect("games:table", match_id=match.pk)
    context = {
        "match": match, "host": match.player0.public_name, "token": token, "can_join": reason is None,
        "reason": reason, "needs_login": not user.is_authenticated,
    }
    return render(request, "games/join.html", context, status=200 if reason is None else 409)


def _invite_url(request: HttpRequest, match: Match) -> str | None:
    if match.status != MatchStatus.WAITING or not match.invite_token:
        return None
    return request.build_absolute_uri(reverse("games:join", args=[match.invite_token]))


@login_required
@require_GET
def table(request: HttpRequest, match_id: int) -> HttpResponse:
    """The table page of a seated player (others: 403)."""
    match = selectors.match_get(match_id=match_id)
    if match is None:
        raise Http404(_("No such match."))
    seat = match.seat_of(request.user.pk)
    if seat is None:
        raise PermissionDenied(_("You are not a player of this match."))
    invite_url = _invite_url(request, match) if seat == 0 else None
    context = {
        "match": match,
        "state": selectors.match_state_payload(match=match, seat=seat, invite_url=invite_url),
        "ws_path": f"/ws/match/{match.pk}/",
        "seat": seat,
        "invite_url": invite_url,
        "bot_levels": bot_level_choices(_language()),
        # The "play again" form's one-time token (games.forms.OncePerSubmissionForm).
        "play_again_submission": uuid.uuid4(),
    }
    return render(request, "games/table.html", context)


@login_required
@require_GET
def my_matches(request: HttpRequest) -> HttpResponse:
    """The player's recent matches, newest first."""
    return render(request, "games/my_matches.html",
                  {"matches": selectors.matches_recent_for(user=request.user)})


@login_required
@require_GET
def hand_verify(request: HttpRequest, match_id: int, hand_number: int) -> JsonResponse:
    """Deck order, salt and commitment of an ENDED hand, with ``valid`` (404 while it is in play)."""
    match = selectors.match_get(match_id=match_id)
    if match is None or match.seat_of(request.user.pk) is None:
        raise Http404("no such match")
    reveal = selectors.hand_reveal(match=match, hand_number=hand_number)
    if reveal is None:
        raise Http404("that hand is not over")
    return JsonResponse(reveal)


@login_required
@require_POST
def match_end_casual(request: HttpRequest, match_id: int) -> HttpResponse:
    """POST (CSRF) from "My matches": end the player's casual bot match as abandoned (no winner, not
    rated), then back to "My matches" with a message."""
    try:
        services.match_abandon(match_id=match_id, user=request.user)
    except services.GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The match was ended: abandoned, no winner, not rated."))
    return redirect("games:my_matches")
