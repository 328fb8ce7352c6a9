"""What the home page shows (HackSoft selectors; the view and the home socket only call these).

- :func:`live_numbers`: the numbers the home socket keeps live (docs/protocol.md "Home socket"): players
  online (``web.presence``), matches in play, players waiting in each active pool, the live match to
  watch. A JSON-ready dict, the same in the page and in the socket's ``home`` message.
- :func:`home_get`: everything the page shows: :func:`live_numbers`, the next tournament, the top 10 of
  the ranking, the quick-pairing pools, and for a member their rating and last finished matches.

Definitions (documented in docs/protocol.md "Home socket"):

- **matches in play**: matches in the ``active`` state with at least one person seated (two house bots
  filling a tournament's boards do not count); bot matches of people count.
- **waiting**: :class:`lobby.models.PoolEntry` rows in the ``waiting`` state, per active pool.
- **live match to watch**: among the public matches in play (``replays.selectors.public_matches_q``,
  the rule of ``/watch/<id>/``) with a person seated, the one whose two seats' ratings add up highest
  (a member's current Elo, 1500 when never rated, a house bot's fixed Elo); ties: the latest started.
"""

from __future__ import annotations

import re
import time
from datetime import datetime
from typing import Any

from django.db.models import Count, F, Q
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Match, MatchStatus
from games.selectors import matches_finished_of
from lobby.labels import pool_label
from lobby.models import EntryStatus, Pool
from ratings import elo
from ratings.selectors import board_page, rating_get, replay_url, seat_rating_expr
from replays.live_list import live_count
from replays.selectors import public_matches_q
from tournaments.models import Tournament
from tournaments.selectors import tournaments_upcoming
from web import presence

TOP = 10
"""Rows of the ranking on the home page (established players only: docs/ratings.md)."""
LAST_MATCHES = 5
"""A member's last finished matches on the home page."""


def pool_url(slug: str) -> str:
    """The waiting screen of pool ``slug`` (``/play/pool/<slug>/``, the lobby's pool pages)."""
    return reverse("lobby:pool_wait", kwargs={"slug": slug})


def _with_people() -> Q:
    """Matches with at least one person seated (not two house bots)."""
    return ~Q(player0__is_bot=True, player1__is_bot=True)


def matches_in_play() -> int:
    """How many matches are in play with a person seated (module docstring)."""
    return Match.objects.filter(_with_people(), status=MatchStatus.ACTIVE).count()


def pools_waiting() -> list[dict[str, Any]]:
    """The active pools in their order: ``slug``, ``name``, ``label`` (``lobby.labels.pool_label`` in the
    active language), ``target`` (points), ``turn_timer_seconds``, ``rated``, ``waiting`` (players waiting
    now), ``url`` (its waiting screen). One query. The BOT pool (``Pool.bots_only``) is not people's:
    never listed."""
    pools = Pool.objects.filter(active=True, bots_only=False).annotate(
        waiting=Count("entries", filter=Q(entries__status=EntryStatus.WAITING))).order_by("position", "pk")
    return [{"slug": p.slug, "name": p.name, "label": pool_label(p), "target": p.target,
             "turn_timer_seconds": p.turn_timer_seconds,
             "rated": p.rated, "waiting": p.waiting, "url": pool_url(p.slug)} for p in pools]


def _seat_rating(seat: int) -> Any:
    """SQL: the rating of ``player<seat>`` (``ratings.selectors.seat_rating_expr``)."""
    return seat_rating_expr(f"player{seat}")


def live_match() -> dict[str, Any] | None:
    """The live match to watch (module docstring), or None: ``id``, ``url`` (``/watch/<id>/``),
    ``players`` (two ``{"name", "rating", "is_bot", "bot_level"}``, seat 0 first; ratings shown rounded;
    a house bot's name in the reader's language is :func:`localized`'s job), ``target``, ``rated``.
    One query, linear in the matches in play: 27 ms of PostgreSQL execution over 2,000 of them (1,000
    public) and 12,000 members (EXPLAIN ANALYZE); the home socket reads it at most once a second for the
    whole site, and the page reuses that read (``home.live.fresh_numbers``)."""
    match = (
        Match.objects.filter(public_matches_q(), _with_people(), status=MatchStatus.ACTIVE,
                             first_dealer__isnull=False, player1__isnull=False)
        .annotate(r0=_seat_rating(0), r1=_seat_rating(1))
        .annotate(strength=F("r0") + F("r1"))
        .select_related("player0", "player1")
        .order_by("-strength", F("started_at").desc(nulls_last=True), "-id")
        .first()
    )
    if match is None or match.player1 is None:
        return None
    return {
        "id": match.pk,
        "url": reverse("replays:watch", args=[match.pk]),
        "players": [_live_player(match.player0, match.r0), _live_player(match.player1, match.r1)],
        "target": (match.rules or {}).get("target"),
        "rated": match.rated,
    }


def _live_player(user: User, rating: float) -> dict[str, Any]:
    return {"name": user.public_name, "rating": elo.shown(rating), "is_bot": user.is_bot,
            "bot_level": user.bot_level if user.is_bot else None, "bot_account": bool(user.bot_account)}


def bot_name(name: str, level: int) -> str:
    """A house bot's public name (level ``level``, ``name`` as another language said it, e.g. "Bot 3 ·
    Standard 2") in the active language: "Robô 3 · Padrão 2" (an extra account's number kept)."""
    number = re.search(r"\s(\d+)$", name)
    username = f"bot-{level}" + (f"-{number.group(1)}" if number else "")
    return User(username=username, is_bot=True, bot_level=level).public_name


def localized(numbers: dict[str, Any]) -> dict[str, Any]:
    """``numbers`` (:func:`live_numbers`, read once for every reader) with the live match's house bots
    named in the active language (the home socket's readers get the same from home.js)."""
    match = numbers.get("live_match")
    if not match:
        return numbers
    players = [{**p, "name": bot_name(p["name"], p["bot_level"])} if p.get("bot_level") else p
               for p in match["players"]]
    return {**numbers, "live_match": {**match, "players": players}}


def live_numbers(*, now: float | None = None, pools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The live numbers (module docstring): ``players_online``, ``matches_in_play``, ``pools`` (each
    ``{"slug", "waiting"}``, from ``pools`` when given, else :func:`pools_waiting`), ``live_match``
    (:func:`live_match`). ``now`` (seconds since 1970; default the clock) is the presence clock. Three
    queries and one cache read."""
    return {
        "players_online": presence.count(now=now if now is not None else time.time()),
        "matches_in_play": matches_in_play(),
        "pools": [{"slug": p["slug"], "waiting": p["waiting"]}
                  for p in (pools if pools is not None else pools_waiting())],
        "live_match": live_match(),
    }


def next_tournament(*, now: datetime) -> Tournament | None:
    """The next tournament to start (scheduled or open, starting at ``now`` or later), with ``players``
    annotated (registrations), or None."""
    return tournaments_upcoming(now=now, limit=1).first()


def top_players() -> list[dict[str, Any]]:
    """The top :data:`TOP` of the all-time ranking (established players only: a provisional rating
    joins the ranking once established, docs/ratings.md): ``ratings.selectors.board_page`` rows."""
    return board_page(tab="all", provisional=False, search="", page=1, per_page=TOP).rows


def last_matches(*, user: User, limit: int = LAST_MATCHES) -> list[dict[str, Any]]:
    """``user``'s last ``limit`` finished matches, newest first: ``id``, ``opponent`` (public name),
    ``won``, ``scores`` (theirs, the opponent's), ``rated``, ``finished_at``, ``replay_url``,
    ``result_reason`` (how it ended: ``{{ m.result_reason|end_note:m.won }}``)."""
    rows = []
    for match in matches_finished_of(user_id=user.pk)[:limit]:
        seat = match.seat_of(user.pk)
        assert seat is not None
        opponent = match.player1 if seat == 0 else match.player0
        scores = list(match.scores or [0, 0])
        rows.append({
            "id": match.pk, "opponent": opponent.public_name if opponent is not None else "?",
            "won": match.winner == seat,
            "scores": (scores[seat], scores[1 - seat]) if len(scores) == 2 else (0, 0),
            "rated": match.rated, "finished_at": match.finished_at, "replay_url": replay_url(match.pk),
            "result_reason": match.result_reason,
        })
    return rows


def home_get(*, user: Any, now: datetime | None = None, live: dict[str, Any] | None = None) -> dict[str, Any]:
    """The home page's context: ``live`` (the given numbers, e.g. the home socket's last read, else
    :func:`live_numbers` now), ``pools`` (:func:`pools_waiting`),
    ``tournament`` (:func:`next_tournament` or None) and ``registered`` (whether ``user`` joined it;
    ``registered_ids``: the same as a set of tournament ids, for ``tournaments/_join.html``),
    ``top`` (:func:`top_players`), and for a member (not a guest) ``me``: ``rating`` (shown),
    ``provisional``, ``rated_matches``, ``matches`` (:func:`last_matches`); else ``me`` None;
    ``live_public``: how many public matches are in play (``replays.live_list.live_count``, the
    ``/watch/`` list's total, house-bot boards included; read with the page, not kept live);
    ``rated_locked``: the reader may not join a rated pool (anonymous, or a guest): its button is shown
    disabled with the reason."""
    now = now or timezone.now()
    pools = pools_waiting()
    if live is None:
        live = live_numbers(now=now.timestamp(), pools=pools)
    live = localized(live)
    tournament = next_tournament(now=now)
    member = user is not None and user.is_authenticated and not user.is_guest and not user.is_bot
    registered = bool(tournament and member and tournament.registrations.filter(user_id=user.pk).exists())
    me = None
    if member:
        rating = rating_get(user=user)
        me = {"rating": rating.shown, "provisional": rating.provisional,
              "rated_matches": rating.rated_matches,
              "matches": last_matches(user=user)}
    return {"live": live, "pools": pools, "tournament": tournament, "registered": registered,
            "registered_ids": {tournament.pk} if registered and tournament is not None else set(),
            "top": top_players(), "me": me, "live_public": live_count(),
            "rated_locked": not (user is not None and user.is_authenticated and not user.is_guest)}
