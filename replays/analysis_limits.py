"""Who may start a computer analysis, and how many (docs/analysis.md "Limits", README "Limits"; issue 20).

An analysis is seconds to minutes of a background worker's CPU, so starting one is limited; reading an
analysis that exists (done, queued or running) is not, and asking for it again spends nothing. The checks,
in order, each a refusal ``Refusal(code, status, message, retry_after)``:

- ``login_required`` (403; the page redirects to the log-in): anonymous visitors.
- ``members_only`` (403): guest accounts (one click from any IP: no limit would hold them).
- ``analysis_in_flight`` (409): the account already has an analysis of another match queued or running
  (a run lost for ``analysis_runs.STALE_AFTER`` no longer counts). Asking for that same match is not a
  refusal: the view answers its row.
- ``analysis_busy`` (503 + ``Retry-After: REPLAYS_ANALYSIS_BUSY_RETRY_AFTER``):
  ``REPLAYS_ANALYSIS_MAX_ACTIVE`` analyses are queued or running site-wide; try later.
- ``rate_limited`` (429 + ``Retry-After``): over ``REPLAYS_ANALYSIS_USER_RATE`` per account or
  ``REPLAYS_ANALYSIS_IP_RATE`` per client IP (django-ratelimit's fixed windows in the default cache,
  shared by every Daphne process; only requests that start an analysis are counted). A failing cache
  lets the request through (logged), as the accounts throttles do.

The account's row is locked (``SELECT ... FOR UPDATE``) from the in-flight check until the new analysis
row is written, so two requests of one account at once start one analysis. The site-wide cap is read
without a lock: concurrent requests can pass it by at most the number of requests in progress.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django_ratelimit.core import get_usage

from replays.analysis_runs import STALE_AFTER
from replays.models import AnalysisStatus, MatchAnalysis
from web.socket_end import outage

log = logging.getLogger(__name__)

USER_GROUP = "replays.analysis.user"
IP_GROUP = "replays.analysis.ip"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an analysis is not started: ``code`` (the JSON ``error``), the HTTP ``status``, a translated
    ``message`` and ``retry_after`` seconds (429/503 only, else None)."""

    code: str
    status: int
    message: str
    retry_after: int | None = None


def active() -> Any:
    """Analyses queued or running with a live run (a lost one, no progress for ``STALE_AFTER``, is not)."""
    return MatchAnalysis.objects.filter(
        status__in=(AnalysisStatus.QUEUED, AnalysisStatus.RUNNING),
        updated_at__gte=timezone.now() - STALE_AFTER,
    )


def _minutes(seconds: int) -> str:
    minutes = max(1, -(-seconds // 60))
    return ngettext("Try again in %(minutes)d minute.", "Try again in %(minutes)d minutes.", minutes) % {
        "minutes": minutes}


def _usage(request: HttpRequest, *, group: str, key: str, rate: str,
           increment: bool) -> dict[str, Any] | None:
    try:
        return get_usage(request, group=group, key=key, rate=rate, method="POST", increment=increment)
    except Exception as exc:
        if not outage(exc):  # a bug (a bad rate setting...) must not switch the limit off unseen
            raise
        log.warning("throttle %s skipped: cache unreachable: %s", group, exc)  # fails open, as documented
        return None


def check_member(user: Any) -> Refusal | None:
    """``login_required`` or ``members_only``, else None."""
    if user is None or not user.is_authenticated:
        return Refusal("login_required", 403, _("Log in to ask for a computer analysis."))
    if user.is_guest or user.is_bot:
        return Refusal("members_only", 403,
                       _("Computer analyses are for members: sign up (free) to ask for one."))
    return None


def check_start(request: HttpRequest, *, match_id: int) -> Refusal | None:
    """The checks of a request that would start an analysis of ``match_id`` (the caller holds the
    account's row lock, in the transaction that then writes the analysis). Counts the request against
    both rates only when it passes every check."""
    user = request.user
    if active().filter(requested_by=user).exclude(match_id=match_id).exists():
        return Refusal("analysis_in_flight", 409, _(
            "Your analysis of another match is not finished yet: one at a time. Ask again once it is done."))
    if active().count() >= settings.REPLAYS_ANALYSIS_MAX_ACTIVE:
        retry = int(settings.REPLAYS_ANALYSIS_BUSY_RETRY_AFTER)
        busy = _("The analysis service is busy.") + " " + _minutes(retry)
        return Refusal("analysis_busy", 503, busy, retry)
    rates = ((USER_GROUP, "user", settings.REPLAYS_ANALYSIS_USER_RATE),
             (IP_GROUP, "ip", settings.REPLAYS_ANALYSIS_IP_RATE))
    for group, key, rate in rates:  # peek both first: a refused request spends no count
        usage = _usage(request, group=group, key=key, rate=rate, increment=False)
        if usage is not None and usage["count"] >= usage["limit"]:
            retry = max(1, int(usage["time_left"]))
            detail = (_("You asked for too many analyses.") if key == "user"
                      else _("Too many analyses were asked for from your network."))
            return Refusal("rate_limited", 429, detail + " " + _minutes(retry), retry)
    for group, key, rate in rates:
        _usage(request, group=group, key=key, rate=rate, increment=True)
    return None
