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
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from accounts.throttles import over_rate, too_many
from clubs.models import Club
from tournaments import access, arena_play, calendar, notices, results, selectors, services, trf
from tournaments.errors import TournamentError
from tournaments.models import Registration, Reminder, Tournament, TournamentFormat, TournamentStatus
from web.errors import NotFound

ERRORS = {
    "not_authenticated": lambda: _("Log in or sign up to join a tournament."),
    "guest": lambda: _("Guests cannot join tournaments: sign up (your matches stay yours)."),
    "started": lambda: _("This tournament has already started: registration is closed."),
    "full": lambda: _("This tournament is full."),
    "cancelled": lambda: _("This tournament was cancelled."),
    "no_such_tournament": lambda: _("There is no such tournament."),
    "club_only": lambda: _("This event is for its club's members only."),
    "code": lambda: _("This event needs its entry code: the code is missing or wrong."),
    "rating_low": lambda: _("Your rating is below this event's lowest rating."),
    "rating_high": lambda: _("Your rating is above this event's highest rating."),
    "bot_accounts_not_allowed": lambda: _("This tournament does not accept BOT accounts."),
}
LEAVE_ERRORS = {"started": lambda: _("This tournament has started: you can no longer leave it.")}


@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    """The calendar (``tournaments.calendar``): running, finished today and the next 7 days by UTC day,
    filtered by the query string; a bad filter is named on the page (status 400) and left out."""
    now = timezone.now()
    member = request.user if request.user.is_authenticated else None
    filters = calendar.read_filters(dict(request.GET.lists()), user=member)
    codes = sorted(access.unlocked(request.session))
    shown = calendar.calendar(now=now, user=member, codes=codes, filters=filters)
    registered = {t.pk for day in shown.days for t in day[1] if getattr(t, "registered", False)}
    return render(request, "tournaments/list.html", {
        "calendar": shown, "filters": filters, "registered": registered, "now": now,
        "can_remind": member is not None and not member.is_guest and not member.is_bot,
        "clubs": _clubs_of(member),
    }, status=400 if filters.errors else 200)


def _clubs_of(member: User | None) -> list[Club]:
    """The clubs offered in the filter form: the member's own (none for a visitor)."""
    if member is None:
        return []
    return list(Club.objects.filter(memberships__user_id=member.pk).order_by("name")[:20])


CODE_GROUP = "tournaments.code"
"""django-ratelimit group of every entry code tried (the form and ``?code=`` links), per client IP."""
# settings.TOURNAMENTS_CODE_RATE, "20/h": enough for a class typing their codes behind one school router,
# far too few to guess a code of 6 characters or more.


def _code_rate(group: str, request: HttpRequest) -> str:
    return str(settings.TOURNAMENTS_CODE_RATE)


def code_throttled(request: HttpRequest) -> HttpResponse | None:
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
    tournament = Tournament.objects.filter(pk=tournament_id).select_related("club", "created_by").first()
    if tournament is None or not access.viewer_may_see(tournament, request.user, request.session):
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
        "exportable": results.exportable(tournament), "partial": results.is_partial(tournament),
        **(_arena_context(tournament, registrations, me) if arena else {}),
    }


def _arena_context(tournament: Tournament, registrations: list[Registration],
                   me: Registration | None) -> dict[str, object]:
    """An Arena's live part (``_arena.html``): standings rows, matches in play, whether pairing is over,
    and whether ``me`` waits only because the one other free player is the one they just met."""
    running = tournament.status != TournamentStatus.SCHEDULED and tournament.status != TournamentStatus.OPEN
    over = tournament.ends_at is not None and timezone.now() >= tournament.ends_at
    return {
        "arena_rows": arena_play.arena_rows(tournament) if running else [],
        "arena_games": arena_play.arena_games_in_play(tournament),
        "arena_over": over,
        "arena_only_last_free": (me is not None and tournament.status == TournamentStatus.RUNNING and not over
                                 and arena_play.only_last_opponent_free(registrations, me)),
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
    _get(request, tournament_id)  # a private event this member may not see: the 404 page, as if none
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
    """An event's page. ``?code=<entry code>`` (the link an organiser shares) unlocks a code event for
    this session and redirects to the page without it (the code stays out of history and referrers);
    a wrong code, like a missing event, is the 404 page. Codes given count against the IP's rate."""
    if "code" in request.GET:
        refused = code_throttled(request)
        if refused is not None:
            return refused
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is not None and access.code_matches(request.GET.get("code"), tournament):
            access.unlock(request.session, tournament.pk)
            return redirect("tournaments:detail", tournament.pk)
    tournament = _get(request, tournament_id)
    context = _context(request, tournament)
    member = request.user if request.user.is_authenticated else None
    context["can_remind"] = member is not None and not member.is_guest and not member.is_bot
    tournament.reminded = member is not None and (  # type: ignore[attr-defined]
        Reminder.objects.filter(tournament=tournament, user_id=member.pk).exists())
    return render(request, "tournaments/detail.html", context)


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
        services.tournament_join(tournament_id=tournament_id, user=request.user,
                                 code=request.POST.get("code"),
                                 unlocked=tournament_id in access.unlocked(request.session))
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
        if hidden is not None and arena_play.arena_open_for_join(hidden, timezone.now()):
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
    tournament match in play, or ``{}``: the site-wide "your round k match is ready" banner (an Arena
    match: ``round`` null, "your Arena match is ready")."""
    pairing = selectors.current_pairing_of(user=request.user)
    if pairing is None or pairing.match_id is None:
        game = selectors.current_arena_game_of(user=request.user)
        if game is None or game.match_id is None:
            return JsonResponse({})
        return JsonResponse({
            "round": None, "tournament": game.tournament.name,
            "match_url": reverse("games:table", args=[game.match_id]),
            "tournament_url": reverse("tournaments:detail", args=[game.tournament_id]),
            "text": _("Your Arena match is ready"),
        })
    tournament = pairing.round.tournament
    return JsonResponse({
        "round": pairing.round.number, "tournament": tournament.name,
        "match_url": reverse("games:table", args=[pairing.match_id]),
        "tournament_url": reverse("tournaments:detail", args=[tournament.pk]),
        "text": _("Your round %(round)s match is ready") % {"round": pairing.round.number},
    })


# Results and exports (docs/tournaments.md "Results and exports"). A private event's exports are refused
# as the event itself is (tournaments.access): the same 404 as for an event that does not exist.

def _attachment(body: str, content_type: str, name: str) -> HttpResponse:
    response = HttpResponse(body.encode("utf-8"), content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _exportable(request: HttpRequest, tournament_id: int) -> Tournament:
    tournament = _get(request, tournament_id)
    if not results.exportable(tournament):
        raise NotFound(_("This tournament has no results yet: exports open once its first round starts."))
    return tournament


@require_GET
def results_csv(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings as CSV (``tournaments.results``): Swiss or Arena columns by the event's format."""
    tournament = _exportable(request, tournament_id)
    body = (results.arena_standings_csv(tournament) if tournament.format == TournamentFormat.ARENA
            else results.swiss_standings_csv(tournament))
    return _attachment(body, "text/csv", results.filename(tournament, "standings", "csv"))


@require_GET
def games_csv(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Every match (Swiss: every board, byes included) as CSV, with its replay's absolute URL."""
    tournament = _exportable(request, tournament_id)
    base = request.build_absolute_uri("/").rstrip("/")
    body = (results.arena_games_csv(tournament, base) if tournament.format == TournamentFormat.ARENA
            else results.swiss_games_csv(tournament, base))
    return _attachment(body, "text/csv", results.filename(tournament, "games", "csv"))


@require_GET
def results_trf(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """FIDE TRF-16 of a Swiss event (``tournaments.trf``); an Arena has no TRF (pairing is not by rounds)."""
    tournament = _exportable(request, tournament_id)
    if tournament.format != TournamentFormat.SWISS:
        raise NotFound(_("An Arena event has no TRF file: it is not played in rounds. Use the CSV export."))
    body = trf.write(results.trf_report(tournament))
    return _attachment(body, "text/plain", results.filename(tournament, "results", "trf"))


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


REMIND_ERRORS = {
    "not_member": lambda: _("Log in or sign up to be reminded of an event."),
    "started": lambda: _("This event is no longer upcoming: there is nothing to remind you of."),
    "no_such_tournament": lambda: _("There is no such tournament."),
}


@require_POST
def tournament_remind(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Toggle the member's "remind me" (``notices.reminder_toggle``). JSON ``{"reminded": bool, "text":
    ...}`` for the page's script (``Accept: application/json``), else a redirect back with a message.
    Members only; ``TOURNAMENTS_REMIND_RATE`` per account; a private event the viewer may not see: 404."""
    if not request.user.is_authenticated:
        error = REMIND_ERRORS["not_member"]()
        if _wants_json(request):
            return JsonResponse({"error": "not_member", "text": error}, status=403)
        messages.error(request, error)
        return _back(request, tournament_id)
    tournament = _get(request, tournament_id)
    wait = over_rate(request, group="tournaments.remind", key=lambda g, r: str(r.user.pk),
                     rate=lambda g, r: settings.TOURNAMENTS_REMIND_RATE)
    if wait is not None:
        detail = _("Too many reminders were set or removed from your account: wait a little.")
        if _wants_json(request):
            return JsonResponse({"error": "throttled", "text": detail}, status=429,
                                headers={"Retry-After": str(wait)})
        return too_many(request, detail=detail, retry_after=wait)
    try:
        reminded = notices.reminder_toggle(user=request.user, tournament=tournament)
    except notices.ReminderRefused as exc:
        text = REMIND_ERRORS[exc.code]()
        if _wants_json(request):
            status = 409 if exc.code == "started" else 403
            return JsonResponse({"error": exc.code, "text": text}, status=status)
        messages.error(request, text)
        return _back(request, tournament_id)
    text = (_("We will remind you a few minutes before the start.") if reminded
            else _("The reminder is removed."))
    if _wants_json(request):
        return JsonResponse({"reminded": reminded, "text": text,
                             "label": _("Reminder set") if reminded else _("Remind me")})
    messages.success(request, text)
    return _back(request, tournament_id)


@require_GET
def tournament_ics(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The event as an iCalendar file (``calendar.ics_of``); a private event the viewer may not see: 404."""
    tournament = _get(request, tournament_id)
    url = request.build_absolute_uri(reverse("tournaments:detail", args=[tournament.pk]))
    body = calendar.ics_of(tournament, host=request.get_host(), url=url, now=timezone.now())
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.pk}.ics"'
    return response


@require_GET
def notices_json(request: HttpRequest) -> JsonResponse:
    """``{"notices": [{"id", "text", "url", "dismiss"}, ...]}``: the member's unseen event notices, newest
    first, in the page's language (the site-wide notices' script fetches it on each push); ``{"notices":
    []}`` for a visitor."""
    if not request.user.is_authenticated:
        return JsonResponse({"notices": []})
    return JsonResponse({"notices": [
        {"id": n.pk, "text": notices.notice_text(n),
         "url": reverse("tournaments:detail", args=[n.tournament_id]),
         "dismiss": reverse("tournaments:notice_dismiss", args=[n.pk])}
        for n in notices.unseen_of(request.user)]})


@require_POST
def notice_dismiss(request: HttpRequest, notice_id: int) -> HttpResponse:
    """Mark one of the member's notices seen (someone else's changes nothing); JSON ``{"dismissed":
    bool}`` for the script, else back to the page it was sent from (a same-site path only)."""
    dismissed = request.user.is_authenticated and notices.notice_dismiss(user=request.user,
                                                                         notice_id=notice_id)
    if _wants_json(request):
        return JsonResponse({"dismissed": dismissed})
    target = request.POST.get("next", "")
    if not target.startswith("/") or not url_has_allowed_host_and_scheme(target, allowed_hosts=None):
        target = reverse("tournaments:list")  # only a path of this site
    return redirect(target)


class CodeForm(forms.Form):
    """The entry code of a code event. Django's ``CharField`` strips the spaces around it and refuses a NUL
    character with its own error; the code is then compared exactly (``access.code_matches``)."""

    # Lazy: the class is built once at import, the words are read in each reader's language.
    code = forms.CharField(label=gettext_lazy("Event code"), max_length=access.MAX_CODE_LENGTH,
                           error_messages={"required": gettext_lazy("Type the event's code."),
                                           "max_length": gettext_lazy("No event has a code that long.")})

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
        refused = code_throttled(request)
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
