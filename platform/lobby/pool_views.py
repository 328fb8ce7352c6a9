"""Pages of quick pairing (docs/lobby.md "Pools"): ``/play/`` lists the active pools with their waiting
counts, beside the bot and friend choices; ``/play/pool/<slug>/`` is the waiting screen, whose socket
(``ws/pool/<slug>/``, ``lobby/static/lobby/pool.js``) joins the pool and goes to the table when paired."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from lobby import playbans
from lobby.errors import text
from lobby.labels import pool_label
from lobby.models import EntryStatus, Pool


def _why_not(request: HttpRequest, pool: Pool) -> str | None:
    """Why the reader may not join ``pool`` (shown instead of the button), or None."""
    user: Any = request.user
    if pool.rated and user.is_authenticated and user.is_guest:
        return text("guest_rated")
    return None


@require_GET
def play(request: HttpRequest) -> HttpResponse:
    """The active pools, in admin order, each with its players waiting now (one query), and the reader's
    playban in force, if any (one query: docs/lobby.md "Playbans")."""
    pools = (Pool.objects.filter(active=True)
             .annotate(waiting=Count("entries", filter=Q(entries__status=EntryStatus.WAITING))))
    rows = [{"pool": pool, "label": pool_label(pool), "why_not": _why_not(request, pool)} for pool in pools]
    return render(request, "lobby/play.html", {"rows": rows, "playban": playbans.notice(user=request.user)})


@require_GET
def pool_wait(request: HttpRequest, slug: str) -> HttpResponse:
    """The waiting screen of pool ``slug`` (404 when there is no such active pool). Anyone may open it:
    an anonymous reader gets the log-in / guest choice, a guest on a rated pool the reason."""
    pool = Pool.objects.filter(slug=slug, active=True).first()
    if pool is None:
        raise Http404(text("no_such_pool", slug=slug[:40]))
    return render(request, "lobby/pool_wait.html", {"pool": pool, "label": pool_label(pool),
                                                    "why_not": _why_not(request, pool)})
