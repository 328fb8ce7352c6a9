"""Pages of the open challenges (docs/lobby.md "Open challenges"): ``/lobby/`` (the live list and the
create form), and the POSTs that create, accept and cancel (thin: parse, call ``lobby.seeks``, redirect).

A refusal (``GameError``) changes nothing: the create form comes back with a 400 and the reason; an
accept or cancel goes back to ``/lobby/`` with the reason as a message (the list shows it too)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from engine.rules import PRESETS
from games.services import GameError
from lobby import playbans, seeks
from lobby.challenge_forms import SeekForm
from lobby.errors import said, text
from lobby.models import Seek, SeekStatus


def _page(request: HttpRequest, form: SeekForm, status: int = 200) -> HttpResponse:
    user = request.user
    signed_in = user.is_authenticated and not getattr(user, "is_bot", False)
    # signed_in implies is_authenticated; testing it again tells mypy that ``user`` is a User.
    mine = (Seek.objects.filter(creator=user, status=SeekStatus.OPEN).first()
            if signed_in and user.is_authenticated else None)
    return render(request, "lobby/lobby.html", {
        "form": form, "seeks": seeks.seek_rows(viewer=user), "my_seek": mine, "signed_in": signed_in,
        "presets": list(PRESETS), "leave_seconds": int(seeks.leave_seconds()),
        "seek_minutes": int(seeks.seek_minutes()), "lobby_strings": _strings(),
        "playban": playbans.notice(user=user) if signed_in else None,  # as /play/ shows it
        "rating_bounds": seeks.RATING_BOUNDS, "rating_step": seeks.RATING_STEP,  # the form's rule
    }, status=status)


def _strings() -> dict[str, object]:
    """The words ``lobby.js`` draws rows with, in the reader's language."""
    return {
        "presets": {name: render_to_string("games/_preset_name.html", {"name": name}).strip()
                    for name in PRESETS},
        "rated": _("Rated"), "casual": _("Casual"), "accept": _("Accept"), "cancel": _("Cancel"),
        "guest": _("guest"), "reconnecting": _("Connection lost: reconnecting…"),
        # the columns' names (the rows' data-label: shown before each value when the rows stack on a phone)
        "labels": {"rating": _("Rating"), "rules": _("Rules"), "target": _("Target"),
                   "turn_timer": _("Turn timer"), "range": _("Ratings")},
    }


@require_http_methods(["GET", "POST"])
def lobby(request: HttpRequest) -> HttpResponse:
    """GET: the lobby. POST (CSRF, member or guest): open a challenge, back to the lobby (its socket keeps
    the challenge open while the page is open); bad fields or a refusal: 400 with the form."""
    if request.method == "GET":
        return _page(request, SeekForm())
    if not request.user.is_authenticated:
        return redirect(f"/accounts/login/?next={request.path}")
    form = SeekForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        seeks.seek_create(user=request.user, choice=form.settings(),
                          rating_min=form.cleaned_data["rating_min"],
                          rating_max=form.cleaned_data["rating_max"])
    except GameError as exc:
        form.add_error(None, said(exc))
        return _page(request, form, status=400)
    return redirect("lobby:lobby")


@require_POST
def accept(request: HttpRequest, seek_id: int) -> HttpResponse:
    """Accept open challenge ``seek_id``: to the new table; a refusal: back to the lobby with why."""
    if not request.user.is_authenticated:
        messages.error(request, text("not_authenticated"))
        return redirect("lobby:lobby")
    try:
        match = seeks.seek_accept(user=request.user, seek_id=seek_id)
    except GameError as exc:
        messages.error(request, said(exc))
        return redirect("lobby:lobby")
    return redirect("games:table", match_id=match.pk)


@require_POST
def cancel(request: HttpRequest, seek_id: int) -> HttpResponse:
    """Withdraw your open challenge ``seek_id``; back to the lobby."""
    if request.user.is_authenticated:
        try:
            seeks.seek_cancel(user=request.user, seek_id=seek_id)
        except GameError as exc:
            messages.error(request, said(exc))
    return redirect("lobby:lobby")
