"""Pages of the events people make: create (``/tournaments/new/``), edit, cancel, organise (forbidden
pairings, withdrawals, the entry code). Thin: parse with ``tournaments.forms``, call one service of
``tournaments.organise``, render. An event someone does not organise is answered 404 (as if it did not
exist: a private event's existence stays hidden)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import User
from clubs.models import Club
from tournaments import access, organise
from tournaments.errors import TournamentError
from tournaments.forms import (
    ERRORS,
    CancelForm,
    EventForm,
    PlayerPairForm,
    WithdrawForm,
    initial_of,
    show_error,
)
from tournaments.models import (
    ForbiddenPairing,
    Tournament,
    TournamentAccess,
    TournamentFormat,
    TournamentStatus,
)
from tournaments.views import code_throttled
from web.errors import NotFound


def _member(request: HttpRequest) -> User | None:
    """The member who may use these pages, or None (a message says why)."""
    user = request.user
    if not user.is_authenticated:
        return None
    assert isinstance(user, User)
    if user.is_guest or user.is_bot:
        messages.error(request, _("Guests cannot create events: sign up first."))
        return None
    return user


def _organised(request: HttpRequest, tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).select_related("club").first()
    if tournament is None or not access.organises(tournament, request.user):
        raise NotFound()
    return tournament


def _code_tried(request: HttpRequest, tournament: Tournament | None = None) -> HttpResponse | None:
    """The 429 page when a chosen entry code would be one too many tried from this IP, else None.

    A chosen code another event already has is refused (``entry_code_taken``), which tells the organiser
    that the code exists: so each new code chosen here counts against the same per-IP limit as the code
    form (``views.code_throttled``), and the form cannot be used to guess codes faster than the code form.
    """
    chosen = request.POST.get("entry_code", "").strip()
    if request.POST.get("access") != TournamentAccess.CODE or not chosen:
        return None
    if tournament is not None and chosen == tournament.entry_code:
        return None  # the event's own code, unchanged: nothing is tried
    return code_throttled(request)


@login_required
@require_http_methods(["GET", "POST"])
def event_create(request: HttpRequest) -> HttpResponse:
    user = _member(request)
    if user is None:
        return redirect("tournaments:list")
    if request.method == "POST":
        refused = _code_tried(request)
        if refused is not None:
            return refused
        form = EventForm(request.POST, user=user)
        if form.is_valid() and form.event is not None:
            try:
                tournament = organise.event_create(user=user, event=form.event, now=form.now)
            except TournamentError as exc:
                show_error(form, exc)
            else:
                messages.success(request, _("Your event is scheduled. Share its page so players can join."))
                return redirect("tournaments:organise", tournament.pk)
    else:
        initial: dict[str, object] = {}
        slug = request.GET.get("club", "")
        if slug:
            # The club page's "Create an event" (tournaments:create?club=<slug>): its organisers get the
            # club chosen; anyone else is told why the event will be their own (the form has no such club).
            club = Club.objects.filter(slug=slug[:60]).first()
            if club is None:
                messages.error(request,
                               _("There is no club at the address “%(value)s”.") % {"value": slug[:60]})
            elif organise.organises_club(club, user):
                initial.update(club=club.slug, access="club")
            else:
                messages.error(request, ERRORS["club_organiser"][1]())
        form = EventForm(initial=initial, user=user)
    return render(request, "tournaments/event_form.html", {"form": form, "t": None})


@login_required
@require_http_methods(["GET", "POST"])
def event_edit(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _organised(request, tournament_id)
    editable = tournament.status in organise.ACTIVE
    if request.method == "POST":
        refused = _code_tried(request, tournament)
        if refused is not None:
            return refused
        form = EventForm(request.POST, user=request.user, editing=True, club=tournament.club)
        if form.is_valid() and form.event is not None:
            try:
                changed = organise.event_edit(user=request.user, tournament_id=tournament.pk,
                                              event=form.event, now=form.now)
            except TournamentError as exc:
                show_error(form, exc)
            else:
                if changed:
                    messages.success(request, _("Saved. Registered players were told of the changes."))
                else:
                    messages.info(request, _("Nothing changed."))
                return redirect("tournaments:detail", tournament.pk)
    else:
        form = EventForm(initial=initial_of(tournament), user=request.user, editing=True,
                         club=tournament.club)
    # A refused POST (bad input, or the event started or was cancelled meanwhile) answers 400 with the
    # form and its error, as the cancel and organise forms do.
    return render(request, "tournaments/event_form.html", {
        "form": form, "t": tournament, "editable": editable, "cancel_form": CancelForm()},
        status=400 if request.method == "POST" else 200)


@login_required
@require_POST
def event_cancel(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _organised(request, tournament_id)
    form = CancelForm(request.POST)
    if form.is_valid():
        try:
            done = organise.event_cancel(user=request.user, tournament_id=tournament.pk,
                                         note=form.cleaned_data["note"])
        except TournamentError as exc:
            show_error(form, exc)
        else:
            if done:
                messages.success(request, _("The event is cancelled. Its players were told."))
            else:
                messages.info(request, _("This event was already cancelled."))
            return redirect("tournaments:detail", tournament.pk)
    return render(request, "tournaments/event_form.html", {
        "form": EventForm(initial=initial_of(tournament), user=request.user, editing=True,
                          club=tournament.club),
        "t": tournament,
        "editable": tournament.status in organise.ACTIVE, "cancel_form": form}, status=400)


@login_required
@require_http_methods(["GET", "POST"])
def event_organise(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The organiser's page: the entry code and share link, forbidden pairings (Swiss), withdrawals.
    POST ``action``: ``forbid`` (first, second), ``allow`` (pairing id), ``withdraw`` (username)."""
    tournament = _organised(request, tournament_id)
    players = {u for u in tournament.registrations.values_list("user__username", flat=True)}
    pair_form = PlayerPairForm(players=players)
    withdraw_form = WithdrawForm(players=players)
    status = 200
    if request.method == "POST":
        action = request.POST.get("action", "")
        me, tid = request.user, tournament.pk
        try:
            if action == "forbid":
                pair_form = PlayerPairForm(request.POST, players=players)
                if pair_form.is_valid():
                    made = organise.forbidden_pairing_add(
                        user=me, tournament_id=tid, first=pair_form.cleaned_data["first"],
                        second=pair_form.cleaned_data["second"])
                    messages.success(request, _("They will not be paired.") if made
                                     else _("That pair was already forbidden."))
                    return redirect("tournaments:organise", tournament.pk)
            elif action == "allow":
                raw = request.POST.get("pairing", "")
                if raw.isdigit():
                    organise.forbidden_pairing_remove(user=me, tournament_id=tid, pairing_id=int(raw))
                messages.success(request, _("They may be paired again."))
                return redirect("tournaments:organise", tournament.pk)
            elif action == "withdraw":
                withdraw_form = WithdrawForm(request.POST, players=players)
                if withdraw_form.is_valid():
                    outcome = organise.player_withdraw(user=me, tournament_id=tid,
                                                       username=withdraw_form.cleaned_data["username"])
                    messages.success(request, {
                        "removed": _("The player's registration was removed."),
                        "withdrawn": _("The player is withdrawn: never paired again, their points stay."),
                        "already": _("That player was already withdrawn."),
                    }[outcome])
                    return redirect("tournaments:organise", tournament.pk)
            else:
                messages.error(request, _("Unknown action."))
        except TournamentError as exc:
            show_error(pair_form if action == "forbid" else withdraw_form, exc)
        status = 400
    return render(request, "tournaments/organise.html", {
        "t": tournament, "pair_form": pair_form, "withdraw_form": withdraw_form,
        "forbidden": ForbiddenPairing.objects.filter(tournament=tournament).select_related(
            "player_a", "player_b"),
        "registrations": tournament.registrations.select_related("user").order_by("user__username"),
        "swiss": tournament.format == TournamentFormat.SWISS,
        "over": tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED),
        "code_form_url": request.build_absolute_uri(reverse("tournaments:code")),
    }, status=status)

