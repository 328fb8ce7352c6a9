"""Report pages (docs/fairplay.md "Reports"; the rules: ``fairplay.reporting``).

- ``/report/player/<username>/`` (``fairplay:report_player``): from a profile. GET the form; POST (CSRF)
  stores the report and redirects (303) to ``/report/received/``.
- ``/report/match/<id>/`` (``fairplay:report_match``): from a finished match's table (``?from=table``) or
  its replay (``?from=replay``, and ``&token=`` when the replay was opened with its link's token); the
  form asks which of the match's players when the reporter was not one of them.
- ``/report/received/`` (``fairplay:received``): "received", and nothing more: no status, no outcome.

Refusals, nothing stored: anonymous -> the log-in page (302, ``next`` back here); a guest -> 403
``members_only``; an unknown player or a match the reporter may not see -> 404; yourself or a house bot ->
400 (``self``, ``bot``); a match not over -> 409 ``not_finished``; a bot match of one's own -> 400
``nobody``; a bad field -> 400 with the form and the field's error. Every POST of a member counts against
``FAIRPLAY_REPORT_RATE`` per account and ``FAIRPLAY_REPORT_IP_RATE`` per client IP (django-ratelimit's
day windows in the cache, ``accounts.throttles.over_rate``); over either: the 429 page with ``Retry-After``,
before the form is read.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from accounts import throttles
from accounts.requests import SignedInRequest
from accounts.selectors import player_get
from fairplay import reporting
from fairplay.forms import MatchReportForm, ReportForm
from fairplay.models import ReportPlace
from games.selectors import match_get
from web.errors import NotFound
from web.refusals import refusal_page

REPORT_GROUP = "fairplay.report"
REPORT_IP_GROUP = "fairplay.report.ip"


def _refusal(request: HttpRequest, exc: reporting.ReportRefused) -> HttpResponse:
    """The page of a refused report (see the module's docstring for the statuses)."""
    if exc.code == "no_such_match":
        raise NotFound(_("No such match."))
    status, message = {
        "members_only": (403, _("Only members can report a player. Sign up: your matches as a guest stay "
                                "yours.")),
        "self": (400, _("You cannot report yourself.")),
        "bot": (400, _("House bots cannot be reported: the server makes their moves.")),
        "closed": (410, _("This account is closed already: there is nothing more to report.")),
        "not_finished": (409, _("You can report a player of this match once it is over.")),
        "nobody": (400, _("Nobody in this match can be reported: the other player is a house bot.")),
    }[exc.code]
    return refusal_page(request, status=status, heading=_("Report a player"), message=message, code=exc.code)


def _wait(request: HttpRequest) -> int | None:
    """Count this POST per account and per client IP; seconds to wait when over either, else None."""
    waits = [
        throttles.over_rate(request, group=REPORT_GROUP, key=lambda g, r: str(r.user.pk),
                            rate=lambda g, r: settings.FAIRPLAY_REPORT_RATE),
        throttles.over_rate(request, group=REPORT_IP_GROUP, key="ip",
                            rate=lambda g, r: settings.FAIRPLAY_REPORT_IP_RATE),
    ]
    over = [w for w in waits if w is not None]
    return max(over) if over else None


def _gate(request: SignedInRequest) -> HttpResponse | None:
    """The response that ends a signed-in request before its form is read (a guest, over the limit), or
    None."""
    try:
        reporting.check_reporter(request.user)
    except reporting.ReportRefused as exc:
        return _refusal(request, exc)
    if request.method == "POST":
        wait = _wait(request)
        if wait is not None:
            return throttles.too_many(
                request, detail=_("Too many reports were sent from your account or your network today."),
                retry_after=wait)
    return None


def _form_page(request: HttpRequest, form: Any, *, players: list[Any], match: Any = None,
               status: int = 200) -> HttpResponse:
    return render(request, "fairplay/report.html",
                  {"form": form, "players": players, "match": match}, status=status)


def _store(request: SignedInRequest, *, reported: Any, form: ReportForm, place: str, match: Any = None
           ) -> HttpResponse:
    try:
        reporting.report_make(reporter=request.user, reported=reported, reason=form.cleaned_data["reason"],
                              comment=form.cleaned_data["comment"], place=place, match=match)
    except reporting.ReportRefused as exc:
        return _refusal(request, exc)
    response = HttpResponseRedirect(reverse("fairplay:received"))
    response.status_code = 303  # See Other: the browser GETs the page (a reload does not re-send the form)
    return response


@login_required
@require_http_methods(["GET", "POST"])
def report_player(request: SignedInRequest, username: str) -> HttpResponse:
    """Report the member ``username`` from their profile (see the module's docstring)."""
    gate = _gate(request)
    if gate is not None:
        return gate
    reported = player_get(username=username) if "\x00" not in username else None
    if reported is None:
        raise NotFound(_("No such player."))
    try:
        reporting.check_reported(reporter=request.user, reported=reported)
    except reporting.ReportRefused as exc:
        return _refusal(request, exc)
    if request.method == "GET":
        return _form_page(request, ReportForm(), players=[reported])
    form = ReportForm(request.POST)
    if not form.is_valid():
        return _form_page(request, form, players=[reported], status=400)
    return _store(request, reported=reported, form=form, place=ReportPlace.PROFILE)


@login_required
@require_http_methods(["GET", "POST"])
def report_match(request: SignedInRequest, match_id: int) -> HttpResponse:
    """Report a player of the finished match ``match_id`` from its table or its replay (see the module's
    docstring)."""
    gate = _gate(request)
    if gate is not None:
        return gate
    data = request.POST if request.method == "POST" else request.GET
    token = data.get("token") or None
    match = match_get(match_id=match_id)
    try:
        candidates = reporting.match_candidates(match=match, reporter=request.user, token=token)
    except reporting.ReportRefused as exc:
        return _refusal(request, exc)
    if request.method == "GET":
        place = data.get("from") if data.get("from") in (ReportPlace.TABLE, ReportPlace.REPLAY) else "replay"
        form = MatchReportForm(candidates=candidates, initial={"place": place, "token": token or ""})
        return _form_page(request, form, players=candidates, match=match)
    form = MatchReportForm(request.POST, candidates=candidates)
    if not form.is_valid():
        return _form_page(request, form, players=candidates, match=match, status=400)
    reported = next(p for p in candidates if p.pk == form.cleaned_data["reported"])
    return _store(request, reported=reported, form=form, place=form.cleaned_data["place"], match=match)


@require_GET
def received(request: HttpRequest) -> HttpResponse:
    """"Report received", the same page for every report (new or a repeat): nothing about what happens."""
    return render(request, "fairplay/received.html")
