"""Who has the table of a match between people open (docs/lobby.md "Leaving a match between people").

Measured on the server, in the database, so that every Daphne process and a restart agree: the table's
consumer (``games.consumers.MatchConsumer``) calls :func:`opened` when a socket of a seat connects,
:func:`heartbeat` every ``ratelimit.SLOT_REFRESH`` seconds while it is open and :func:`closed` when it
ends; each writes the seat's :class:`games.models.SeatPresence` row. A seat is *here* when it counts an
open socket seen within :data:`STALE_AFTER`; otherwise it is *gone since* its ``seen_at`` (a process that
died stops its sockets' heartbeats, so its players count as gone from their last heartbeat, at most
``SLOT_REFRESH`` s early). A seat that never opened the table is gone since the match started. A seat
held by a BOT account (``User.bot_account``) is always *here*: it plays over HTTP (its match stream,
docs/bot-api.md), never over the table's socket, so it never "leaves the table"; its absence is left to
the turn timer every match with a BOT account has (docs/bot-api.md "Fair limits").

Timings (settings, seconds):

- ``GAMES_GONE_NOTICE_AFTER`` (:func:`notice_after`, default 10): once the opponent has been gone this
  long, the table is told (the ``opponent_gone`` message, docs/protocol.md).
- ``GAMES_CLAIM_AFTER`` (:func:`claim_after`, default 60): once the opponent has been gone this long, a
  player may claim the win (rated) or end the match without a result (casual): ``services.match_claim``.
- ``GAMES_GONE_END_AFTER`` (:func:`gone_end_after`, default 600): both seats gone this long: the server
  ends the match without a result (``services.match_end_absent``, driven by the sweeps).
- ``GAMES_ONE_GONE_END_AFTER`` (:func:`one_gone_end_after`, default 86,400): one seat gone this long
  while the other stays and never claims: the server ends it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from accounts.models import User
from games import ratelimit
from games.models import Match, SeatPresence

STALE_AFTER = timedelta(seconds=2 * ratelimit.SLOT_REFRESH + 5)
"""A seat whose last heartbeat is older than this is gone, whatever its socket count (its process died:
two heartbeats missed, with 5 s of slack for a busy loop)."""


def claim_after() -> timedelta:
    """``GAMES_CLAIM_AFTER`` (seconds, default 60): how long the opponent must be gone before a claim."""
    return timedelta(seconds=float(getattr(settings, "GAMES_CLAIM_AFTER", 60)))


def notice_after() -> timedelta:
    """``GAMES_GONE_NOTICE_AFTER`` (seconds, default 10): how long the opponent must be gone before the
    table is told (``opponent_gone``): a reload, or two players reaching a new table a second apart, is
    no leave."""
    return timedelta(seconds=float(getattr(settings, "GAMES_GONE_NOTICE_AFTER", 10)))


def gone_end_after() -> timedelta:
    """``GAMES_GONE_END_AFTER`` (seconds, default 600): both seats gone this long ends the match."""
    return timedelta(seconds=float(getattr(settings, "GAMES_GONE_END_AFTER", 600)))


def one_gone_end_after() -> timedelta:
    """``GAMES_ONE_GONE_END_AFTER`` (seconds, default 86,400): one seat gone this long ends the match."""
    return timedelta(seconds=float(getattr(settings, "GAMES_ONE_GONE_END_AFTER", 86_400)))


def between_people(match: Match) -> bool:
    """Whether ``match`` is a match between two people: both seats taken, no house bot."""
    return match.player1_id is not None and not (match.bot_seats or []) and match.bot_level is None


# ------------------------------------------------------------------------------------------- writes


def opened(*, match_id: int, seat: int, now: datetime | None = None) -> None:
    """A socket of ``seat`` connected: count it and mark the seat seen ``now``. A count whose heartbeat
    is stale restarts at 1 (the sockets it counted died with their process)."""
    now = now or timezone.now()
    stale = now - STALE_AFTER
    rows = SeatPresence.objects.filter(match_id=match_id, seat=seat)
    if rows.filter(seen_at__lt=stale).update(sockets=1, seen_at=now):
        return
    if rows.update(sockets=F("sockets") + 1, seen_at=now):
        return
    try:
        with transaction.atomic():
            SeatPresence.objects.create(match_id=match_id, seat=seat, sockets=1, seen_at=now)
    except IntegrityError:  # another socket of the seat created it first
        rows.update(sockets=F("sockets") + 1, seen_at=now)


def heartbeat(*, match_id: int, seat: int, now: datetime | None = None) -> None:
    """A socket of ``seat`` is still open: mark the seat seen ``now`` (and count at least this socket,
    healing a count a race took to 0)."""
    now = now or timezone.now()
    if not SeatPresence.objects.filter(match_id=match_id, seat=seat).update(
            sockets=Greatest(F("sockets"), Value(1)), seen_at=now):
        opened(match_id=match_id, seat=seat, now=now)


def closed(*, match_id: int, seat: int, now: datetime | None = None) -> None:
    """A socket of ``seat`` ended: count it down (never below 0) and mark the seat seen ``now``."""
    now = now or timezone.now()
    SeatPresence.objects.filter(match_id=match_id, seat=seat).update(
        sockets=Greatest(F("sockets") - 1, Value(0)), seen_at=now)


# ------------------------------------------------------------------------------------------- reads


@dataclass(frozen=True, slots=True)
class Seats:
    """Where each seat of one match stands at ``now``: ``gone_since[seat]`` is None (here) or when that
    seat's player was last seen."""

    gone_since: tuple[datetime | None, datetime | None]
    now: datetime

    def gone_for(self, seat: int) -> timedelta | None:
        """How long ``seat`` has been gone, or None when here."""
        since = self.gone_since[seat]
        return None if since is None else max(timedelta(0), self.now - since)


def bot_account_seats(match: Match) -> frozenset[int]:
    """The seats of ``match`` held by a BOT account (``User.bot_account``; one query): never gone."""
    players = {match.player0_id: 0, match.player1_id: 1}
    ids = [pk for pk in players if pk is not None]
    return frozenset(players[pk] for pk in User.objects.filter(pk__in=ids, bot_account=True)
                     .values_list("pk", flat=True))


def seats(match: Match, *, now: datetime | None = None) -> Seats:
    """The presence of both seats of ``match`` at ``now`` (two queries). A BOT account's seat is always
    here (the module's docstring)."""
    now = now or timezone.now()
    rows = {r.seat: r for r in SeatPresence.objects.filter(match_id=match.pk)}
    bots = bot_account_seats(match)
    start = match.started_at or match.created_at or now
    gone: list[datetime | None] = []
    for seat in (0, 1):
        row = rows.get(seat)
        if seat in bots:
            gone.append(None)
        elif row is None:
            gone.append(start)
        elif row.sockets > 0 and row.seen_at >= now - STALE_AFTER:
            gone.append(None)
        else:
            gone.append(max(row.seen_at, start))
    return Seats(gone_since=(gone[0], gone[1]), now=now)


def opponent_gone_payload(match: Match, seat: int, *, now: datetime | None = None) -> dict[str, object]:
    """The ``opponent_gone`` message for the player at ``seat`` (docs/protocol.md "Leaving"):
    ``{"type": "opponent_gone", "match_id", "gone": bool, "seconds": int (gone so far, 0 when here),
    "claim_in": int (seconds until a claim is allowed, 0 = now), "claim": "win" | "end"}``; ``claim``
    says what a claim does (rated: the win; casual: the end without a result)."""
    where = seats(match, now=now)
    gone = where.gone_for(1 - seat)
    wait = claim_after()
    seconds = 0 if gone is None else int(gone.total_seconds())
    claim_in = 0 if gone is None else max(0, int((wait - gone).total_seconds() + 0.999))
    return {"type": "opponent_gone", "match_id": match.pk, "gone": gone is not None, "seconds": seconds,
            "claim_in": claim_in, "claim": "win" if match.rated else "end"}
