"""Pages of quick pairing (docs/lobby.md "Pools"): ``/play/`` lists the active pools with their waiting
counts, beside the bot and friend choices; ``/play/pool/<slug>/`` is the waiting screen, whose socket
(``ws/pool/<slug>/``, ``lobby/static/lobby/pool.js``) joins the pool and goes to the table when paired."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games.services import GameError
from lobby import busy, playbans
from lobby.errors import said, text
from lobby.labels import pool_label
from lobby.models import EntryStatus, Pool

SHOWN_REFUSALS = ("guest_rated", "account_marked", "playban", "match_in_progress")
"""The refusals of ``busy.check_free`` that /play/ shows by disabling a pool's Join (the others, such as
``already_waiting``, are the waiting screen's to say)."""


def _why_not(request: HttpRequest, pool: Pool) -> str | None:
    """Why the reader may not join ``pool`` (shown instead of the button), or None."""
    user: Any = request.user
    if pool.rated and user.is_authenticated and user.is_guest:
        return text("guest_rated")
    return None


def _refusal(user: Any, *, rated: bool) -> GameError | None:
    """``busy.check_free``'s refusal of ``user`` joining a pool (``rated`` or not) that /play/ shows
    (:data:`SHOWN_REFUSALS`), or None: the page disables Join by the server's own rule."""
    if not getattr(user, "is_authenticated", False):
        return None
    try:
        busy.check_free(user=user, rated=rated)
    except GameError as exc:
        return exc if exc.code in SHOWN_REFUSALS else None
    return None


@require_GET
def play(request: HttpRequest) -> HttpResponse:
    """The active pools, in admin order, each with its players waiting now (one query), the reader's
    playban in force, if any (docs/lobby.md "Playbans"), and their active rated match, if any.

    A pool's Join is disabled when ``busy.check_free`` would refuse the reader (checked once for rated
    pools, once for casual ones): ``guest_rated``, ``playban`` (the notice says why) or
    ``match_in_progress`` (the notice links to the match). The server still refuses a join the same way.
    """
    pools = (Pool.objects.filter(active=True, bots_only=False)  # the BOT pool is not people's
             .annotate(waiting=Count("entries", filter=Q(entries__status=EntryStatus.WAITING))))
    refusals = {rated: _refusal(request.user, rated=rated) for rated in (True, False)}
    rows = []
    for pool in pools:
        refused = refusals[pool.rated]
        why = _why_not(request, pool)
        if why is None and refused is not None and refused.code != "playban":
            why = said(refused)  # the playban's sentence is in the notice above the pools
        rows.append({"pool": pool, "label": pool_label(pool), "why_not": why,
                     "disabled": refused is not None or why is not None})
    match_id = next((getattr(r, "params", {}).get("match_id") for r in refusals.values()
                     if r is not None and r.code == "match_in_progress"), None)
    return render(request, "lobby/play.html", {
        "rows": rows, "playban": playbans.notice(user=request.user), "match_in_progress": match_id,
    })


@require_GET
def pool_wait(request: HttpRequest, slug: str) -> HttpResponse:
    """The waiting screen of pool ``slug`` (404 when there is no such active pool, or it is the BOT
    pool: BOT accounts join it over the bot API). Anyone may open it: an anonymous reader gets the
    log-in / guest choice, a guest on a rated pool the reason."""
    pool = Pool.objects.filter(slug=slug, active=True, bots_only=False).first()
    if pool is None:
        raise Http404(text("no_such_pool", slug=slug[:40]))
    return render(request, "lobby/pool_wait.html", {"pool": pool, "label": pool_label(pool),
                                                    "why_not": _why_not(request, pool)})
