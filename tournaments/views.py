"""Tournament pages: the list, a tournament's page (and its live fragment), join/leave, the banner, and
the entry-code form of private events.

A private event (``tournaments.access``) is answered to anyone who may not see it exactly as an event
that does not exist (404 through ``web.errors.NotFound``), on every path that takes its id.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.throttles import over_rate, too_many
from tournaments import access, selectors, services
from tournaments.errors import TournamentError
from tournaments.models import Tournament, TournamentStatus
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


CODE_GROUP = "tournaments.code"
"""django-ratelimit group of every entry code tried (the form and ``?code=`` links), per client IP."""
# settings.TOURNAMENTS_CODE_RATE, "20/h": enough for a class typing their codes behind one school router,
# far too few to guess a code of 6 characters or more.


def _code_rate(group: str, request: HttpRequest) -> str:
    return str(settings.TOURNAMENTS_CODE_RATE)


def _code_throttled(request: HttpRequest) -> HttpResponse | None:
    """The 429 page when this request's IP has tried too many codes (counting this one), else None."""
    # one count for both methods (django-ratelimit keys its counters by the methods named too)
    retry_after = over_rate(request, group=CODE_GROUP, key="ip", rate=_code_rate, method=("GET", "POST"))
    if retry_after is None:
        return None
    return too_many(request, detail=_("Too many event codes were tried from your network."),
                    retry_after=retry_after)


def _get(request: HttpRequest, tournament_id: int) -> Tournament:
    """The event ``tournament_id`` if this request may see it (``access.may_view`` with the session's
    unlocked codes). :raises NotFound: no such event, or a private one this request may not see (the
    same page: nothing tells them apart)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not access.viewer_may_see(tournament, request.user, request.session):
        raise NotFound()  # the 404 page's own sentence
    return tournament


def _context(request: HttpRequest, tournament: Tournament) -> dict[str, object]:
    registrations = list(tournament.registrations.select_related("user").order_by("-rating", "joined_at"))
    standings = selectors.standings_of(tournament) if tournament.current_round else []
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
    }


@require_GET
def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """An event's page. ``?code=<entry code>`` (the link an organiser shares) unlocks a code event for
    this session and redirects to the page without it (the code stays out of history and referrers);
    a wrong code, like a missing event, is the 404 page. Codes given count against the IP's rate."""
    if "code" in request.GET:
        refused = _code_throttled(request)
        if refused is not None:
            return refused
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is not None and access.code_matches(request.GET.get("code"), tournament):
            access.unlock(request.session, tournament.pk)
            return redirect("tournaments:detail", tournament.pk)
    tournament = _get(request, tournament_id)
    return render(request, "tournaments/detail.html", _context(request, tournament))


@require_GET
def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The live part of a tournament's page (status, pairings, standings), re-fetched on a notice."""
    tournament = _get(request, tournament_id)
    return render(request, "tournaments/_live.html", _context(request, tournament))


def _back(request: HttpRequest, tournament_id: int) -> HttpResponse:
    target = request.POST.get("next", "")
    if target not in (reverse("tournaments:list"), reverse("tournaments:detail", args=[tournament_id])):
        target = reverse("tournaments:detail", args=[tournament_id])  # a tampered "next" goes nowhere else
    return redirect(target)


@require_POST
def tournament_join(request: HttpRequest, tournament_id: int) -> HttpResponse:
    hidden = Tournament.objects.filter(pk=tournament_id).first()
    # (a POST with a "code" goes on: the join service checks that code itself)
    if "code" not in request.POST and (
            hidden is None or not access.viewer_may_see(hidden, request.user, request.session)):
        messages.error(request, ERRORS["no_such_tournament"]())  # a private event unseen: as none at all
        return redirect("tournaments:list")
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


class CodeForm(forms.Form):
    """The entry code of a code event. Django's ``CharField`` strips the spaces around it and refuses a NUL
    character with its own error; the code is then compared exactly (``access.code_matches``)."""

    code = forms.CharField(label=_("Event code"), max_length=access.MAX_CODE_LENGTH,
                           error_messages={"required": _("Type the event's code."),
                                           "max_length": _("No event has a code that long.")})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["code"].widget.attrs.update({"autocomplete": "off", "autocapitalize": "none",
                                                 "spellcheck": "false", "data-testid": "event-code"})


def tournament_code(request: HttpRequest) -> HttpResponse:
    """``/tournaments/code/``: type a code event's entry code, be let in (``access.unlock``) and sent to
    its page. Only events still to come or running are found; two such events with the same code are
    not told apart (the form asks for the organiser's link). Every POST counts against the IP's rate
    (:data:`CODE_GROUP`); the answer to a wrong code says nothing of which events exist."""
    if request.method not in ("GET", "POST"):
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    form = CodeForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        refused = _code_throttled(request)
        if refused is not None:
            return refused
        if form.is_valid():
            found = access.events_with_code(form.cleaned_data["code"])
            if len(found) == 1:
                access.unlock(request.session, found[0].pk)
                messages.success(request, _("Code accepted: you can now see this event and join it."))
                return redirect("tournaments:detail", found[0].pk)
            form.add_error("code", _("No upcoming or running event has that code.") if not found else _(
                "More than one event has that code: open the link the organiser sent you instead."))
    return render(request, "tournaments/code.html", {"form": form}, status=400 if form.errors else 200)
