"""Replay pages (thin: parse, authorize, call one selector or service, render).

- ``/replay/<id>/`` (``?hand=3&step=17``, ``?token=...``): the viewer of a finished match.
- ``/replay/<id>.json``: its replay file (docs/replay-format.md); ``?download=1`` as an attachment.
- ``/replay/open/``: open a replay file from disk; it is verified here and shown in the same viewer, one
  hand at a time (``replays.opened``; ``/replay/open/<sha256>/hands/<n>.json`` gives the others);
  limited per IP and per account (README "Limits").
- ``/replay/<id>/visibility/`` (POST, owner): make the replay public or private.
- ``/replay/<id>/analyse/`` (POST, same access as the page): ask for the match's computer analysis
  (docs/analysis.md); JSON with ``Accept: application/json``, else back to the page.
- ``/replay/<id>/analysis.json``: the stored analysis (same access; ``not_analysed`` 404 when none).
- ``/watch/``: the live public matches to watch, highest rated first (``replays.live_list``).
- ``/watch/<id>/``: watch a public match live (third-party view, ``replays.consumers``); a finished
  match redirects to its replay.

Every refusal is a page (or JSON) with a clear message and status 400/403/404/409/422, never a 500.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import throttles
from engine.replay_format import MAX_HANDS, ReplayBudgetError, ReplayVerificationError
from games.forms import bot_level_choices
from games.models import Match, MatchStatus
from games.selectors import match_get
from infra.db_router import primary, replica_reads, settled
from replays import analyses, analysis_limits, live_list, opened, selectors, services, watch
from web.refusals import Link, refusal_page

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Largest replay file the open page reads (a 500-point match is well under 1 MB; docs/replay-format.md)."""

_STATUS = {"no_such_match": 404, "not_finished": 409, "private": 403}


def _refusal_text(code: str) -> str:
    return {
        "no_such_match": _("There is no finished match with this number."),
        "not_finished": _("This match is still being played: its replay opens when it ends."),
        "private": _("This replay is private. Ask one of its players for its link."),
    }[code]


def _page(request: HttpRequest, *, status: int, code: str, message: str, detail: str | None = None,
          watch_url: str | None = None, heading: str | None = None) -> HttpResponse:
    """A replay refusal on the site's refusal page (``web.refusals``), headed "Replay", with the ways on
    of every replay refusal (my matches, open a replay file) and, for a match in play, "Watch it live"."""
    return refusal_page(
        request, status=status, heading=heading or _("Replay"), message=message, code=code, detail=detail,
        action=Link(watch_url, _("Watch it live")) if watch_url else None,
        links=[Link(reverse("games:my_matches"), _("My matches")),
               Link(reverse("replays:open"), _("Open a replay file"))],
    )


def _refused(request: HttpRequest, exc: selectors.ReplayRefused, match_id: int | None = None) -> HttpResponse:
    watch_url = None
    if exc.code == "not_finished" and match_id is not None:
        watch_url = reverse("replays:watch", args=[match_id])
    return _page(request, status=_STATUS[exc.code], code=exc.code, message=_refusal_text(exc.code),
                 watch_url=watch_url)


def _failed(request: HttpRequest, exc: selectors.ReplayFailed) -> HttpResponse:
    return _page(request, status=422, code="failed_verification", heading=_("Replay failed verification"),
                 message=_("This match's record failed verification at event %(n)s.") % {"n": exc.event},
                 detail=exc.reason)


def _start(request: HttpRequest, steps: list[int]) -> tuple[dict[str, int], str | None]:
    """The position asked for by ``?hand=&step=`` (hand 1-based, step 0 = the deal; ``steps``: the
    last step of each hand), or the start and a notice when it does not exist."""
    hands = steps
    raw_hand, raw_step = request.GET.get("hand"), request.GET.get("step")
    if raw_hand is None and raw_step is None:
        return {"hand": 1, "step": 0}, None
    try:
        hand = int(raw_hand) if raw_hand is not None else 1
        step = int(raw_step) if raw_step is not None else 0
    except ValueError:
        return {"hand": 1, "step": 0}, _("That position is not a number: showing the first hand.")
    if not 1 <= hand <= len(hands):
        text = _("This match has no hand %(hand)s (it has %(n)s): showing the first hand.")
        return {"hand": 1, "step": 0}, text % {"hand": hand, "n": len(hands)}
    last = hands[hand - 1]
    if not 0 <= step <= last:
        return {"hand": hand, "step": 0}, _(
            "Hand %(hand)s has no step %(step)s (steps 0 to %(last)s): showing its deal.") % {
            "hand": hand, "step": step, "last": last}
    return {"hand": hand, "step": step}, None


def _viewer(
    request: HttpRequest, built: selectors.Built, extra: dict[str, Any], status: int = 200
) -> HttpResponse:
    start, notice = _start(request, built.steps)
    context = {
        "replay": built, "replay_json": mark_safe(built.json),
        "start": start, "notice": notice,
        "bot_levels": bot_level_choices(get_language() or "en"), **extra,
    }
    return render(request, "replays/replay.html", context, status=status)


def _load(request: HttpRequest, match_id: int) -> Match:
    """The match, read on the primary (infra.db_router: a replay view reads the rest on the read
    replica only once the match is ``settled``, so its players see it as it ended)."""
    match = match_get(match_id=match_id)
    selectors.check_can_watch(match=match, user=request.user, token=selectors.share_token(request.GET),
                              session=request.session)
    assert match is not None
    return match


@require_GET
def replay_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """The replay viewer of a finished match (players, public matches, or with the link's token)."""
    try:
        match = _load(request, match_id)
    except selectors.ReplayRefused as exc:
        return _refused(request, exc, match_id)
    with replica_reads(settled(match.finished_at)):
        return _replay_page(request, match)


def _replay_page(request: HttpRequest, match: Match) -> HttpResponse:
    try:
        data = selectors.replay_build(match=match)
    except selectors.ReplayFailed as exc:
        return _failed(request, exc)
    seated = request.user.is_authenticated and match.seat_of(request.user.pk) is not None
    by_rule = selectors.public_by_rule(match)
    fixed = by_rule or match.private_event  # who may watch is not the owner's choice: no link, no toggle
    access = services.replay_access_ensure(match=match) if seated else selectors.access_get(match)
    token = selectors.share_token(request.GET)
    json_url = reverse("replays:replay_json", args=[match.pk])
    if selectors.token_matches(token, access):
        json_url += f"?token={token}"
    analysis_query = f"?token={token}" if selectors.token_matches(token, access) else ""
    extra = {
        "match": match,
        "json_url": json_url,
        "analysis": analyses.analysis_payload(_analysis_on_primary(match)),
        "analyse_url": reverse("replays:analyse", args=[match.pk]),
        "analysis_ws": f"/ws/analysis/{match.pk}/{analysis_query}",
        "token": token if analysis_query else "",
        "share_url": request.build_absolute_uri(reverse("replays:replay", args=[match.pk]))
        + f"?token={access.token}" if seated and access is not None and not fixed else None,
        "is_owner": request.user.is_authenticated and match.player0_id == request.user.pk and not fixed,
        "public_by_rule": by_rule,
        "private_event": match.private_event,
        "public": selectors.is_public(match, access),
        "made_public": bool(access and access.public),
    }
    return _viewer(request, data, extra)


def _analysis_on_primary(match: Match) -> Any:
    """The analysis, on the primary: one just asked for (the POST redirects here) must show."""
    with primary():
        return analyses.analysis_get(match=match)


@require_GET
def replay_json(request: HttpRequest, match_id: int) -> HttpResponse:
    """The replay file of a finished match (same access as the page); errors as ``{"error", "message"}``."""
    try:
        match = _load(request, match_id)
        with replica_reads(settled(match.finished_at)):
            record = selectors.match_record(match=match)
    except selectors.ReplayRefused as exc:
        return _refused_json(exc)
    except selectors.ReplayFailed as exc:
        body = {"error": "failed_verification", "event": exc.event, "message": str(exc)}
        return JsonResponse(body, status=422)
    response = JsonResponse(record, json_dumps_params={"ensure_ascii": False})
    if request.GET.get("download"):
        response["Content-Disposition"] = f'attachment; filename="gin-rummy-match-{match.pk}.json"'
    return response


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _refused_json(exc: selectors.ReplayRefused) -> JsonResponse:
    return JsonResponse({"error": exc.code, "message": _refusal_text(exc.code)}, status=_STATUS[exc.code])


@require_POST
def replay_analyse(request: HttpRequest, match_id: int) -> HttpResponse:
    """Ask for the computer analysis of a finished match (whoever may watch its replay; a private one
    with the link's ``token`` field). Asking again changes nothing: the analysis is stored once.

    Members only, limited (``replays.analysis_limits``: login_required/members_only 403,
    analysis_in_flight 409, rate_limited 429, analysis_busy 503); a match already analysed, queued or
    running is answered as it is, without a new run and without counting against a limit.

    JSON (``Accept: application/json``): 202 ``replays.analyses.analysis_payload`` (without the result)
    while it is queued or running, 200 once done; refusals ``{"error", "message"}`` 404/403/409 (and
    the limits' ``{"error", "message", "retry_after"}``). Otherwise a redirect to the replay page (a
    refusal is its page)."""
    token = selectors.share_token(request.POST)
    match = match_get(match_id=match_id)
    try:
        selectors.check_can_watch(match=match, user=request.user, token=token, session=request.session)
    except selectors.ReplayRefused as exc:
        return _refused_json(exc) if _wants_json(request) else _refused(request, exc, match_id)
    assert match is not None
    refusal = analysis_limits.check_member(request.user)
    if refusal is not None:
        return _analysis_refused(request, refusal, match.pk, token)
    assert request.user.is_authenticated  # check_member refused anonymous visitors
    analysis = analyses.analysis_get(match=match)
    if analysis is None or analyses.restartable(analysis):  # else: read it, no new run, no limit spent
        with transaction.atomic():
            # one request of this account at a time from the in-flight check to the new row
            get_user_model().objects.select_for_update().filter(pk=request.user.pk).first()
            refusal = analysis_limits.check_start(request, match_id=match.pk)
            if refusal is None:
                analysis, _started = analyses.analysis_request(match=match, user=request.user)
        if refusal is not None:
            return _analysis_refused(request, refusal, match.pk, token)
    assert analysis is not None
    analysis.refresh_from_db()  # an in-process run without a page open has already run
    if _wants_json(request):
        payload = analyses.analysis_payload(analysis, result=False)
        return JsonResponse(payload, status=200 if analysis.status == "done" else 202)
    url = reverse("replays:replay", args=[match.pk]) + (f"?token={token}" if token else "")
    return redirect(url + "#analysis")


def _analysis_refused(request: HttpRequest, refusal: analysis_limits.Refusal, match_id: int,
                      token: str | None) -> HttpResponse:
    """A refused analysis request (``analysis_limits``): JSON ``{"error": code, "message", "retry_after"}``
    with the refusal's status; a page otherwise (the log-in page for ``login_required``, the site's 429
    page for ``rate_limited``, the replay refusal page for the others). ``Retry-After`` on 429/503."""
    if _wants_json(request):
        response: HttpResponse = JsonResponse(
            {"error": refusal.code, "message": refusal.message, "retry_after": refusal.retry_after},
            status=refusal.status)
    elif refusal.code == "login_required":
        page = reverse("replays:replay", args=[match_id]) + (f"?token={token}" if token else "")
        return redirect_to_login(page)
    elif refusal.status == 429:
        response = render(request, "accounts/throttled.html",
                          {"heading": _("Slow down"), "detail": refusal.message, "retry": ""}, status=429)
    else:
        response = _page(request, status=refusal.status, code=refusal.code, message=refusal.message)
    if refusal.retry_after is not None:
        response["Retry-After"] = str(refusal.retry_after)
    if refusal.status >= 500:
        # The cap doing its job, not a fault: one INFO line instead of django.request's ERROR "Service
        # Unavailable" for every refused click (any member could fill the error log; Django skips a
        # response marked as logged, django.utils.log.log_response).
        log.info("analysis of match %s refused: %s", match_id, refusal.code)
        response._has_been_logged = True  # type: ignore[attr-defined]
    return response


@require_GET
def replay_analysis_json(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match's computer analysis (same access as the replay): ``analysis_payload`` with the result
    once done; 404 ``not_analysed`` when nobody asked for it."""
    try:
        match = _load(request, match_id)
    except selectors.ReplayRefused as exc:
        return _refused_json(exc)
    analysis = analyses.analysis_get(match=match)
    if analysis is None:
        return JsonResponse({"error": "not_analysed", "message": _("This match has not been analysed yet.")},
                            status=404)
    return JsonResponse(analyses.analysis_payload(analysis), json_dumps_params={"ensure_ascii": False})


def _open_wait(request: HttpRequest) -> int | None:
    """Count this ``/replay/open/`` POST per IP and, for an account, per account (README "Limits");
    seconds to wait when over either, else None."""
    waits = [throttles.over_rate(request, group="replays.open", key="ip", rate=settings.REPLAYS_OPEN_RATE)]
    if request.user.is_authenticated:
        waits.append(throttles.over_rate(request, group="replays.open.user", key=lambda g, r: str(r.user.pk),
                                         rate=settings.REPLAYS_OPEN_USER_RATE))
    over = [w for w in waits if w is not None]
    return max(over) if over else None


def _open_form(request: HttpRequest, error: str | None = None, status: int = 200) -> HttpResponse:
    return render(request, "replays/open.html", {
        "error": error, "max_mb": MAX_FILE_BYTES // (1024 * 1024), "max_hands": MAX_HANDS,
        "cpu_seconds": f"{settings.REPLAYS_OPEN_CPU_SECONDS:g}",
        "hold_minutes": settings.REPLAYS_OPEN_HOLD_SECONDS // 60,
    }, status=status)


@require_http_methods(["GET", "POST"])
def replay_open(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST (CSRF): a replay file is verified on the server (within its CPU budget) and
    shown in the viewer, one hand at a time (``replays.opened``); a bad file: 400 with the form and the
    reason ("failed verification at event N: ..."), nothing held. Over the per-IP or per-account
    limit: the 429 page with ``Retry-After``, before the file is read."""
    if request.method == "GET":
        return _open_form(request)
    wait = _open_wait(request)
    if wait is not None:
        return throttles.too_many(request, detail=_("Too many replay files were opened from your network "
                                                    "or your account."), retry_after=wait)
    upload = request.FILES.get("file")
    error = None
    if upload is None:
        error = _("Choose a replay file (.json) to open.")
    elif upload.size is None or upload.size > MAX_FILE_BYTES:
        error = _("That file is too large for a replay (at most %(mb)s MB).") % {
            "mb": MAX_FILE_BYTES // (1024 * 1024)}
    if error is None:
        assert upload is not None
        try:
            result = opened.file_open(upload.read())
        except ReplayBudgetError as exc:
            error = _("This replay file takes more than %(seconds)s s of the server's time to verify "
                      "(stopped in hand %(hand)s of %(hands)s): verify it on your computer with "
                      "python -m engine replay verify FILE.") % {
                "seconds": f"{exc.budget:g}", "hand": exc.hand, "hands": exc.hands}
        except ReplayVerificationError as exc:
            error = _("This replay file failed verification at event %(n)s: %(reason)s") % {
                "n": exc.event, "reason": exc.reason}
    if error is not None:
        return _open_form(request, error, status=400)
    name = (upload.name or "") if upload is not None else ""
    hands_url = reverse("replays:open_hand", args=[result.digest, 1]).removesuffix("1.json")
    return _viewer(request, result.built, {"file_name": name[:120], "hands_url": hands_url})


@require_GET
def replay_open_hand(request: HttpRequest, digest: str, number: str) -> HttpResponse:
    """Hand ``number`` of an opened file (``replays.opened.hand_get``) as JSON (``selectors.hand_view``);
    ``{"error", "message"}`` 404 ``not_held`` (open the file again) or ``no_such_hand``, 429 ``throttled``
    with ``Retry-After`` over the per-IP limit."""
    wait = throttles.over_rate(request, group="replays.open_hand", key="ip",
                               rate=settings.REPLAYS_OPEN_HAND_RATE, method="GET")
    if wait is not None:
        response = JsonResponse({"error": "throttled", "message": _(
            "Too many requests from your network: wait a while and try again.")}, status=429)
        response["Retry-After"] = str(wait)
        return response
    try:
        hand = opened.hand_get(digest, int(number))
    except opened.NotHeld as exc:
        message = (_("This replay file has no such hand.") if exc.code == "no_such_hand"
                   else _("This replay file is no longer held by the server: open it again."))
        return JsonResponse({"error": exc.code, "message": message}, status=404)
    return JsonResponse(hand, json_dumps_params={"ensure_ascii": False, "separators": (",", ":")})


@require_POST
def replay_visibility(request: HttpRequest, match_id: int) -> HttpResponse:
    """The owner makes the match public (``public=1``) or private (``public=0``). A match the user may not
    see (``selectors.may_see``) is answered as one that does not exist, before the form is read."""
    match = match_get(match_id=match_id)
    if match is None or not selectors.may_see(match, request.user, session=request.session):
        return _refused(request, selectors.ReplayRefused("no_such_match", ""), match_id)
    public = request.POST.get("public")
    if public not in ("0", "1"):
        return _page(request, status=400, code="bad_field", message=_("Choose public or private."))
    if match.private_event:
        return _page(request, status=409, code="private_event", message=_(
            "A private event's matches are seen only by its players, its organisers and those it lets in."))
    if selectors.public_by_rule(match):
        return _page(request, status=409, code="public_by_rule",
                     message=_("Rated, tournament and members' bot matches are always public."))
    try:
        services.replay_set_public(match=match, user=request.user, public=public == "1")
    except services.ReplayPermissionError:
        return _page(request, status=403, code="not_owner",
                     message=_("Only the player who created this match can change who may watch it."))
    messages.success(request, _("Anyone can now watch this match.") if public == "1"
                     else _("Only the players and people with its link can now watch this match."))
    return redirect("replays:replay" if match.status == MatchStatus.FINISHED else "games:table", match.pk)


@require_GET
def watch_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """Watch a public match live (the third party's view); a finished one opens its replay."""
    match = match_get(match_id=match_id)
    try:
        selectors.check_can_watch(match=match, user=request.user, token=None, live=True,
                                  session=request.session)
    except selectors.ReplayRefused as exc:
        if exc.code == "private":
            return _page(request, status=403, code="private", message=_(
                "This match is not public: only tournament, rated and public matches can be watched live."))
        if exc.code == "no_such_match":  # the replay's wording speaks of finished matches
            return _page(request, status=404, code="no_such_match", heading=_("Watch a match"),
                         message=_("There is no match with this number to watch."))
        return _refused(request, exc, match_id)
    assert match is not None
    if match.status == MatchStatus.FINISHED:
        return redirect("replays:replay", match.pk)
    return render(request, "replays/watch.html", {
        "match": match, "state": watch.watch_payload(match=match), "ws_path": f"/ws/watch/{match.pk}/",
        "replay_url": reverse("replays:replay", args=[match.pk]),
        "bot_levels": bot_level_choices(get_language() or "en"),
    })


@require_GET
def live_page(request: HttpRequest) -> HttpResponse:
    """The live public matches to watch (``replays.live_list.live_matches``): anyone, no private match."""
    return render(request, "replays/live.html", {"live": live_list.live_matches()})
