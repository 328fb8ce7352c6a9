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
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.requests import SignedInRequest
from accounts.views import play_as_guest
from engine.cards import card_names, parse_cards
from engine.melds import best_arrangement
from engine.rules import PRESETS
from engine.scoring import score_knock
from games import aborts, chat, conf, selectors, services
from games.forms import BotMatchForm, FriendTableForm, bot_level_choices
from games.models import Match, MatchStatus
from web.errors import NotFound


def _language() -> str:
    return get_language() or "en"


def _form_page(request: HttpRequest, mode: str, form: Any, status: int = 200) -> HttpResponse:
    user: Any = request.user  # signed in: the create views are login_required
    member = user.is_authenticated and not user.is_guest
    context = {
        "mode": mode, "form": form,
        "bot_form": form if mode == "bot" else BotMatchForm(language=_language()),
        "friend_form": form if mode == "friend" else FriendTableForm(),
        "presets": list(PRESETS),
        "rated_turn_timer": conf.RATED_TURN_TIMER,
        # A member's rated match in play: starting another is refused (services.MatchInProgress).
        "active_match_id": services.active_rated_match_id(user_id=user.pk) if member else None,
        # The fair-play limits said before the member submits (docs/fairplay.md): casual only for a
        # marked account; one waiting rated friend table.
        "marked": member and not user.in_good_standing,
        "waiting_table_id": services.waiting_rated_table_id(user_id=user.pk) if member else None,
    }
    return render(request, "games/new_match.html", context, status=status)


def _said(exc: services.GameError) -> str:
    """A service refusal for a page, in the reader's language where the service gives it one (the
    fair-play limits, ``services.RatedRefused``; one rated match at a time), else its message."""
    if isinstance(exc, services.RatedRefused):
        return exc.said()
    if exc.code == "bot_api_only":
        return _("A BOT account plays only through the bot API (/api/v1/bot/), not from the site's pages.")
    if isinstance(exc, services.MatchInProgress):
        return _("You already have a rated match in progress (match %(id)s): finish it (or resign) first."
                 ) % {"id": exc.match_id}
    return exc.message


def _create_from_form(
    request: HttpRequest, mode: str, form: Any, create: Callable[[dict[str, Any]], Match]
) -> HttpResponse:
    """A create endpoint's POST: invalid fields or a service refusal (``GameError``) -> 400 with the
    form and its errors; else ``create(cleaned_data)`` and a redirect to the new match's table (a
    repeated ``submission`` token: to the match that submission created). A rated match already in
    progress (``MatchInProgress``): back to that match's table, with a message saying why (lichess's
    rule: one rated game at a time)."""
    if not form.is_valid():
        return _form_page(request, mode, form, status=400)
    try:
        match = create(form.cleaned_data)
    except services.MatchInProgress as exc:
        messages.warning(request, _("You already have a rated match in progress: here it is. Finish it "
                                    "(or resign) before starting another."))
        return redirect("games:table", match_id=exc.match_id)
    except services.GameError as exc:
        form.add_error(None, _said(exc))
        return _form_page(request, mode, form, status=400)
    return redirect("games:table", match_id=match.pk)


@login_required
@require_http_methods(["GET", "POST"])
def new_bot_match(request: SignedInRequest) -> HttpResponse:
    """GET: the form. POST (CSRF): create a match against the chosen bot, redirect to its table; bad
    fields: 400 with the form and its errors. Casual unless the member chose Rated (``rated``); a
    guest's match is casual whatever was posted (the service ignores a guest's ``rated``)."""
    if request.method == "GET":
        return _form_page(request, "bot", BotMatchForm(language=_language()))
    return _create_from_form(
        request, "bot", BotMatchForm(request.POST, language=_language()),
        lambda data: services.match_create_vs_bot(
            user=request.user, level=data["level"], rules_preset=data["preset"], target=data["target"],
            rated=data["rated"], submission=data["submission"], one_active=True,
        ),
    )


@login_required
@require_http_methods(["GET", "POST"])
def new_friend_table(request: SignedInRequest) -> HttpResponse:
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
        raise NotFound(_("No table with that link."))
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
            messages.error(request, _said(exc))
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
def table(request: SignedInRequest, match_id: int) -> HttpResponse:
    """The table page of a seated player (others: 403 for a public match; a private one is answered as
    a match that does not exist, 404: ``selectors.may_see``)."""
    match = selectors.match_get(match_id=match_id)
    if match is None or not selectors.may_see(match, request.user, request.session):
        raise NotFound(_("No such match."))
    seat = match.seat_of(request.user.pk)
    if seat is None:
        raise PermissionDenied(_("You are not a player of this match."))
    invite_url = _invite_url(request, match) if seat == 0 else None
    context = {
        "match": match,
        "state": selectors.match_state_payload(match=match, seat=seat, invite_url=invite_url, full=True),
        "ws_path": f"/ws/match/{match.pk}/",
        "seat": seat,
        "invite_url": invite_url,
        "bot_levels": bot_level_choices(_language()),
        # The "play again" form's one-time token (games.forms.OncePerSubmissionForm).
        "play_again_submission": uuid.uuid4(),
        # What resigning before both players have moved costs (games.aborts; the resign confirmation).
        # Quick chat's presets in the reader's language (games.chat), between people only
        "chat_presets": (list(chat.preset_texts().items())
                         if not match.bot_seats and match.bot_level is None else []),
        "free_aborts": aborts.free_aborts_per_window(),
        # Moves each seat makes before a resignation rates a match between people (docs/fairplay.md).
        "rated_min_moves": conf.rated_min_moves(),
        "free_aborts_left": (
            aborts.abort_counts(user_id=request.user.pk).free_left
            if match.rated and match.status == MatchStatus.ACTIVE else ""
        ),
        # A tournament board (Swiss or Arena): an abort there still loses the board, and the resign
        # confirmation says so (docs/tournaments.md); one query, at page load only.
        "event_board": match.status == MatchStatus.ACTIVE and selectors.event_of(match) is not None,
    }
    return render(request, "games/table.html", context)


@login_required
@require_GET
def my_matches(request: SignedInRequest) -> HttpResponse:
    """The player's recent matches, newest first."""
    return render(request, "games/my_matches.html",
                  {"matches": selectors.matches_recent_for(user=request.user)})


@login_required
@require_GET
def hand_verify(request: SignedInRequest, match_id: int, hand_number: int) -> JsonResponse:
    """Deck order, salt and commitment of an ENDED hand, with ``valid`` (404 while it is in play)."""
    match = selectors.match_get(match_id=match_id)
    if match is None or match.seat_of(request.user.pk) is None:
        raise NotFound()  # the generic 404: whether the match exists is not told
    reveal = selectors.hand_reveal(match=match, hand_number=hand_number)
    if reveal is None:
        raise NotFound()  # a hand in play, or no such hand: its deck stays secret
    return JsonResponse(reveal)


@login_required
@require_POST
def match_end_casual(request: SignedInRequest, match_id: int) -> HttpResponse:
    """POST (CSRF) from "My matches": end the player's casual bot match as abandoned (no winner, not
    rated), then back to "My matches" with a message."""
    try:
        services.match_abandon(match_id=match_id, user=request.user)
    except services.GameError as exc:
        # not a player: the answer of a match that does not exist (whether it exists is not told)
        messages.error(request, f"no match {match_id}" if exc.code == "not_seated" else exc.message)
    else:
        messages.success(request, _("The match was ended: abandoned, no winner, not rated."))
    return redirect("games:my_matches")


_SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def _card_text(name: str) -> str:
    """A card as the table writes it in words (games/js/cards.js ``cardText``): "Qs" -> "Q♠",
    "Th" -> "10♥"."""
    return ("10" if name[0] == "T" else name[0]) + _SUIT_SYMBOLS[name[1]]


def _rule_examples() -> dict[str, Any]:
    """The rules page's worked examples (seed 003's own), scored by the engine, so the page states
    the numbers the engine enforces: the "Oito!" knock, a gin, the layoff worth 2, the undercut."""
    classic = PRESETS["classic"]
    knock = best_arrangement(parse_cards("5c 6c 7c 9d 9h 9s Ac Ah 2d 4h"))
    gin = best_arrangement(parse_cards("5c 6c 7c 9c 9h 9s 8d 9d Td Jd"))

    def scored(knocker: str, defender: str) -> dict[str, Any]:
        r = score_knock(parse_cards(knocker), parse_cards(defender), classic, knocker=0)
        return {
            "knocker": knocker, "defender": defender, "kind": r.kind, "points": r.points, "bonus": r.bonus,
            "knocker_deadwood": r.knocker_deadwood, "defender_deadwood": r.defender_deadwood,
            "layoffs": " ".join(card_names([x.card for x in r.layoffs])),
            "layoffs_text": " ".join(_card_text(name) for name in card_names([x.card for x in r.layoffs])),
        }

    return {
        "knock_cards": "5c 6c 7c 9d 9h 9s Ac Ah 2d 4h", "knock_deadwood": knock.deadwood,
        "gin_cards": "5c 6c 7c 9c 9h 9s 8d 9d Td Jd", "gin_deadwood": gin.deadwood,
        "gin_bonus": classic.gin_bonus, "undercut_bonus": classic.undercut_bonus,
        "layoff": scored("4h 5h 6h 8d 8h 8s 9s Ts Js Kd", "Tc Td Th 6c 7c 8c 9c Qs 5s 7s"),
        "undercut": scored("4h 5h 6h 3c 3d 3s Td Jd Qd Qc", "9c 9h 9s 7d 8d 9d 3h 7h Kd 5s"),
    }


# Each preset's source (docs/engine.md "Presets and their sources"): the seed document it follows
# (../shared/seeds/, for developers) and how the rules page names that source to a player.
PRESET_SOURCES: dict[str, tuple[str, Any]] = {
    "classic": ("004", gettext_lazy("Classic Gin Rummy, as online game sites play it")),
    "table": ("000", gettext_lazy("A Brazilian online table's “How to play” guide")),
    "brazilian": ("002", gettext_lazy("Brazilian game-site rules (“lenha”, “rebater”)")),
    "oklahoma": ("003 + common practice", gettext_lazy("Oklahoma Gin, a common American variant")),
    "hoyle": ("common practice", gettext_lazy("Hoyle's rules (the classic card-game book)")),
    "two_deck": ("003", gettext_lazy("A Brazilian card-games blog: “Gin Rummy – O Jogo” (2009)")),
}


def preset_sources(names: list[str]) -> list[str]:
    """The rules page's "Source" row: each preset's source as a player knows it, in the active
    language ("" for a preset without one)."""
    return [str(PRESET_SOURCES[name][1]) if name in PRESET_SOURCES else "" for name in names]


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    """``/rules/``: the classic rules with card pictures and worked examples scored by the engine, then
    every preset's options in a table generated from ``engine.rules.PRESETS`` (with its source)."""
    fields = ("deal", "knock_limit", "knock_limit_from_upcard", "knock_limit_from_second_deck", "gin_bonus",
              "big_gin_bonus", "undercut_bonus", "tie_goes_to", "undercut_gin_bonus", "next_dealer",
              "first_dealer", "game_bonus", "hand_bonus", "shutout_bonus", "shutout_doubles", "spade_doubles",
              "stock_floor", "discard_draw_limit")
    labels = {
        "deal": _("Deal"), "knock_limit": _("Knock limit (deadwood points)"),
        "knock_limit_from_upcard": _("Knock limit from the first upcard (ace: gin only)"),
        "knock_limit_from_second_deck": _("Knock limit from a card turned from a second deck"),
        "gin_bonus": _("Gin bonus"), "big_gin_bonus": _("Big gin bonus"),
        "undercut_bonus": _("Undercut bonus"), "tie_goes_to": _("Equal deadwood goes to"),
        "undercut_gin_bonus": _("An undercut without deadwood counts as gin"),
        "next_dealer": _("Next dealer"), "first_dealer": _("First dealer"), "game_bonus": _("Game bonus"),
        "hand_bonus": _("Bonus per hand won"), "shutout_bonus": _("Shutout bonus"),
        "shutout_doubles": _("A shutout doubles the winner's total"),
        "spade_doubles": _("A spade upcard doubles the hand"),
        "stock_floor": _("Dead hand at this many stock cards"),
        "discard_draw_limit": _("Dead hand at the discard after this many draws from the discard pile"),
    }
    words = {
        "upcard": _("10 cards each, one upcard"), "eleven": _("11 to the non-dealer, no upcard"),
        "defender": _("the defender (undercut)"), "knocker": _("the knocker"), "alternate": _("alternates"),
        "loser": _("the loser of the hand"), "winner": _("the winner of the hand"),
        "random": _("drawn at random"),
        "computer": _("the computer (a bot match)"), "cut": _("cut for the high card"),
    }

    def shown(field: str, value: Any) -> str:
        if value is True:
            return "✓"
        if value is False:
            return "—"
        if value is None:
            return _("as gin")
        return str(words.get(value, value)) if isinstance(value, str) else str(value)

    presets = [(name, rules.to_dict()) for name, rules in PRESETS.items()]
    rows = [(labels[field], [shown(field, values[field]) for _name, values in presets]) for field in fields]
    context = {
        "presets": [name for name, _values in presets], "rows": rows, "examples": _rule_examples(),
        "sources": preset_sources([name for name, _values in presets]),
    }
    return render(request, "games/rules.html", context)
