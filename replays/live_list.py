"""The list of live matches to watch (``/watch/``, issue 22): the public matches in play, highest rated
first, each with its kind (tournament board, quick-pairing pool, rated, casual), score and spectators.

Which matches: ``active``, dealt (``first_dealer`` set), two seats taken, and public by the rule of
``/watch/<id>/`` (``replays.selectors.public_matches_q``: made public, a tournament board, rated, or a
registered member's bot match). A private match is never listed, to anyone (its own players find it
under "My matches"): the list must not tell a stranger that it exists (issue 20). Boards between two
house bots are listed (a tournament fills its field with them, and they play at a watchable pace:
``GAMES_BOT_VS_BOT_DELAY``, docs/protocol.md "Server moves").

Order: the two seats' ratings added up (the same as their mean), highest first (a member's current
rating, 1500 when never rated, a house bot's calibrated Elo: ``ratings.selectors.seat_rating_expr``, the
rule of the home page's live match); ties: the latest started, then the highest id. At most
:data:`LIMIT` rows (the page says how many there are in all).

Cost: two queries (the rows with their players, ratings, tournament and pool; the count) and one cache
round trip for the spectator counts (``replays.audience.counts``), whatever the number of rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import F, OuterRef, QuerySet, Subquery
from django.urls import reverse

from games.models import Match, MatchStatus
from lobby.models import PoolEntry
from ratings import elo
from ratings.selectors import seat_rating_expr
from replays import audience
from replays.selectors import public_matches_q

LIMIT = 50
"""Most rows on ``/watch/`` (the highest rated; the page gives the total)."""


@dataclass(frozen=True, slots=True)
class LiveList:
    """``rows`` (at most ``limit``, see :func:`live_matches`), ``total`` (all the live public matches),
    ``limit``."""

    rows: list[dict[str, Any]]
    total: int
    limit: int

    @property
    def capped(self) -> bool:
        """Whether some live matches are left out (more than ``limit``)."""
        return self.total > len(self.rows)


def live_public_q() -> QuerySet[Match]:
    """The live public matches (module docstring), unordered."""
    return Match.objects.filter(public_matches_q(), status=MatchStatus.ACTIVE, first_dealer__isnull=False,
                                player1__isnull=False)


def live_count() -> int:
    """How many public matches are in play (the home page's "Watch live" link). One query."""
    return live_public_q().count()


def _player(user: Any, rating: float) -> dict[str, Any]:
    return {"name": user.public_name, "rating": elo.shown(rating), "is_bot": user.is_bot,
            "bot_level": user.bot_level if user.is_bot else None, "bot_account": bool(user.bot_account)}


def _kind(match: Match, pool_name: str | None) -> dict[str, Any]:
    """``{"kind": "tournament" | "pool" | "rated" | "casual", "tournament": {"id", "name", "round",
    "board", "url"} | None, "pool": the pool's name | None}``."""
    pairing = getattr(match, "tournament_pairing", None)
    if pairing is not None:
        tournament = pairing.round.tournament
        return {"kind": "tournament", "pool": None, "tournament": {
            "id": tournament.pk, "name": tournament.name, "round": pairing.round.number,
            "board": pairing.board, "url": reverse("tournaments:detail", args=[tournament.pk])}}
    if pool_name is not None:
        return {"kind": "pool", "pool": pool_name, "tournament": None}
    return {"kind": "rated" if match.rated else "casual", "pool": None, "tournament": None}


def live_matches(*, limit: int | None = None) -> LiveList:
    """The live public matches to watch, highest rated first (module docstring), at most ``limit``
    (default :data:`LIMIT`).

    Each row: ``id``, ``url`` (``/watch/<id>/``), ``players`` (seat 0 then 1: ``{"name", "rating"
    (shown, whole points), "is_bot", "bot_level"}``), ``strength`` (the two exact ratings' mean),
    ``kind`` / ``tournament`` / ``pool`` (:func:`_kind`), ``rated``, ``scores`` (``[seat 0, seat 1]``
    points), ``target`` (points), ``spectators`` (open spectator sockets, ``replays.audience``).

    Worked example (tests/replays/test_live_list.py): a rated match of a 1700 and a 1600 member (mean
    1650), a tournament board of the level-4 and level-5 house bots (Elo 1539 and 1671: 1605), a
    never-rated member (1500) against the level-3 bot (1500) come in that order; a casual friend table
    of a 2000 and a 1900 member (private) is not listed; a second 1650 match started later comes first.
    """
    limit = LIMIT if limit is None else limit
    pool = PoolEntry.objects.filter(match_id=OuterRef("pk")).order_by("pk").values("pool__name")[:1]
    matches = list(
        live_public_q()
        .annotate(r0=seat_rating_expr("player0"), r1=seat_rating_expr("player1"))
        .annotate(strength=F("r0") + F("r1"), pool_name=Subquery(pool))
        .select_related("player0", "player1", "tournament_pairing__round__tournament")
        .order_by("-strength", F("started_at").desc(nulls_last=True), "-id")[:limit]
    )
    total = len(matches) if len(matches) < limit else live_count()
    watching = audience.counts(match_ids=[m.pk for m in matches])
    rows = []
    for match in matches:
        rows.append({
            "id": match.pk,
            "url": reverse("replays:watch", args=[match.pk]),
            "players": [_player(match.player0, match.r0), _player(match.player1, match.r1)],
            "strength": match.strength / 2,
            **_kind(match, match.pool_name),
            "rated": match.rated,
            "scores": list(match.scores or [0, 0]),
            "target": (match.rules or {}).get("target"),
            "spectators": watching.get(match.pk, 0),
        })
    return LiveList(rows=rows, total=total, limit=limit)
