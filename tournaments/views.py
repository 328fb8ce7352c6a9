"""Tournament pages: the list, a tournament's page (and its live fragment), join/leave, the banner."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tournaments import arena_play, selectors, services
from tournaments.errors import TournamentError
from tournaments.models import Tournament, TournamentFormat, TournamentStatus
from web.errors import NotFound

ERRORS = {
    "not_authenticated": lambda: _("Log in or sign up to join a tournament."),
    "guest": lambda: _("Guests cannot join tournaments: sign up (your matches stay yours)."),
    "started": lambda: _("This tournament has already started: registration is closed."),
    "full": lambda: _("This tournament is full."),
    "cancelled": lambda: _("This tournament was cancelled."),
    "no_such_tournament": lambda: _("There is no such tournament."),
}
LEAVE_ERRORS = {"started": lambda: _("This tournament has started: you can no longer leave it.")}


@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    mine = set()
    if request.user.is_authenticated:
        mine = set(request.user.tournament_registrations.values_list("tournament_id", flat=True))
    return render(request, "tournaments/list.html", {
        "upcoming": selectors.tournaments_upcoming(now=now, limit=12),
        "running": selectors.tournaments_running(),
        "finished": selectors.tournaments_finished(limit=10),
        "mine": selectors.tournaments_of(user=request.user) if request.user.is_authenticated else [],
        "registered": mine,
        "now": now,
    })


def _get(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound()  # the 404 page's own sentence
    return tournament


def _context(request: HttpRequest, tournament: Tournament) -> dict[str, object]:
    registrations = list(tournament.registrations.select_related("user").order_by("-rating", "joined_at"))
    arena = tournament.format == TournamentFormat.ARENA
    standings = selectors.standings_of(tournament) if tournament.current_round and not arena else []
    pairings = list(selectors.pairings_of(tournament))
    current = [p for p in pairings if p.round.number == tournament.current_round]
    history: dict[int, list[dict[str, object]]] = {}
    for p in pairings:
        if p.points is None:
            continue
        sides = [(p.player0_id, p.player1, 0)] + ([(p.player1_id, p.player0, 1)] if p.player1_id else [])
        for uid, opponent, seat in sides:
            hands = p.hand_points or [0, 0]
            history.setdefault(uid, []).append({
                "round": p.round.number, "opponent": opponent, "points": p.points[seat],
                "hands_for": hands[seat], "hands_against": hands[1 - seat], "bye": p.player1_id is None,
                "forfeit": p.forfeit, "match": p.match_id,
            })
    for row in standings:
        row.registration.history = history.get(row.registration.user_id, [])  # type: ignore[attr-defined]
    me = None
    if request.user.is_authenticated:
        me = next((r for r in registrations if r.user_id == request.user.pk), None)
    return {
        "t": tournament, "registrations": registrations, "standings": standings, "current": current,
        "me": me, "open": tournament.status in (TournamentStatus.SCHEDULED, TournamentStatus.OPEN),
        "full": len(registrations) >= tournament.max_players,
        **(_arena_context(tournament) if arena else {}),
    }


def _arena_context(tournament: Tournament) -> dict[str, object]:
    """An Arena's live part (``_arena.html``): standings rows, matches in play, whether pairing is over."""
    running = tournament.status != TournamentStatus.SCHEDULED and tournament.status != TournamentStatus.OPEN
    return {
        "arena_rows": arena_play.arena_rows(tournament) if running else [],
        "arena_games": arena_play.arena_games_in_play(tournament),
        "arena_over": tournament.ends_at is not None and timezone.now() >= tournament.ends_at,
    }


ARENA_ERRORS = {
    "not_registered": lambda: _("You have not joined this Arena."),
    "not_running": lambda: _("This Arena is not running: there is nothing to pause or resume."),
    "withdrawn": lambda: _("You were withdrawn from this Arena."),
    "not_arena": lambda: _("Only an Arena event has a pause."),
}


def _arena_pause(request: HttpRequest, tournament_id: int, *, paused: bool) -> HttpResponse:
    if not request.user.is_authenticated:
        messages.error(request, ERRORS["not_authenticated"]())
        return _back(request, tournament_id)
    try:
        arena_play.arena_pause(tournament_id=tournament_id, user=request.user, paused=paused)
    except TournamentError as exc:
        message = ARENA_ERRORS.get(exc.code) or ERRORS.get(exc.code)
        messages.error(request, message() if message else exc.message)
        if exc.code == "no_such_tournament":
            return redirect("tournaments:list")
    else:
        messages.success(request, _("Paused: you will not be paired again until you resume.") if paused
                         else _("Back in the queue: you will be paired with the next free player."))
    return _back(request, tournament_id)


@require_POST
def arena_pause(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Leave an Arena's pairing queue (a match in play goes on)."""
    return _arena_pause(request, tournament_id, paused=True)


@require_POST
def arena_resume(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Re-enter an Arena's pairing queue."""
    return _arena_pause(request, tournament_id, paused=False)


@require_GET
def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _get(tournament_id)
    return render(request, "tournaments/detail.html", _context(request, tournament))


@require_GET
def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The live part of a tournament's page (status, pairings, standings), re-fetched on a notice."""
    tournament = _get(tournament_id)
    return render(request, "tournaments/_live.html", _context(request, tournament))


def _back(request: HttpRequest, tournament_id: int) -> HttpResponse:
    target = request.POST.get("next", "")
    if target not in (reverse("tournaments:list"), reverse("tournaments:detail", args=[tournament_id])):
        target = reverse("tournaments:detail", args=[tournament_id])  # a tampered "next" goes nowhere else
    return redirect(target)


@require_POST
def tournament_join(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        services.tournament_join(tournament_id=tournament_id, user=request.user)
    except TournamentError as exc:
        known = ERRORS.get(exc.code)
        if exc.code == "overlap" and exc.other is not None:
            messages.error(request, _(
                "This tournament's time overlaps “%(name)s” (%(start)s UTC), which you have joined: you "
                "play one rated match at a time. Leave that tournament first to join this one."
            ) % {"name": exc.other.name, "start": f"{exc.other.starts_at:%Y-%m-%d %H:%M}"})
        else:
            messages.error(request, known() if known else exc.message)
        if exc.code == "no_such_tournament":
            return redirect("tournaments:list")
    else:
        if arena_play.arena_open_for_join(_get(tournament_id), timezone.now()):
            messages.success(request, _("You are in: you will be paired with the next free player."))
        else:
            messages.success(request, _("You are registered. The tournament starts at the time shown."))
    return _back(request, tournament_id)


@require_POST
def tournament_leave(request: HttpRequest, tournament_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        messages.error(request, ERRORS["not_authenticated"]())
        return _back(request, tournament_id)
    try:
        left = services.tournament_leave(tournament_id=tournament_id, user=request.user)
    except TournamentError as exc:
        message = LEAVE_ERRORS.get(exc.code) or ERRORS.get(exc.code)
        messages.error(request, message() if message else exc.message)
        if exc.code == "no_such_tournament":
            return redirect("tournaments:list")
    else:
        if left:
            messages.success(request, _("You left the tournament."))
        else:
            messages.info(request, _("You were not registered for this tournament."))
    return _back(request, tournament_id)


@require_GET
def banner(request: HttpRequest) -> JsonResponse:
    """``{"match_url": ..., "round": k, "tournament": name, "tournament_url": ...}`` for the user's
    tournament match in play, or ``{}``: the site-wide "your round k match is ready" banner."""
    pairing = selectors.current_pairing_of(user=request.user)
    if pairing is None or pairing.match_id is None:
        return JsonResponse({})
    tournament = pairing.round.tournament
    return JsonResponse({
        "round": pairing.round.number, "tournament": tournament.name,
        "match_url": reverse("games:table", args=[pairing.match_id]),
        "tournament_url": reverse("tournaments:detail", args=[tournament.pk]),
        "text": _("Your round %(round)s match is ready") % {"round": pairing.round.number},
    })
