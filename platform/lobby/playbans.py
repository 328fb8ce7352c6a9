"""Playbans: the wait before the next quick pairing that leaving rated matches earns (docs/lobby.md
"Playbans"; lichess's playban, adapted to matches).

Earned when a RATED match between two people ends because a player left it (``games.signals.match_left``,
sent inside the transaction that ends the match, so the ban commits with the end or not at all):

- ``abandoned``: the opponent claimed the win after the player had been gone ``GAMES_CLAIM_AFTER`` s, or
  the server ended the match because the player was gone (``games.presence``);
- ``timeouts``: the turn timer played ``games.conf.TIMEOUT_STRIKES_TO_LOSE`` (3) of the player's
  turns in a row, which loses the match on time (or ends it without a result when both did).

The length escalates with the player's playbans of the last :data:`MEMORY` (24 h) before this one:
:data:`LADDER` = 5 min, 15 min, 1 h, then 24 h for the 4th and every later one. One playban per player
and match (a unique constraint: recording it twice keeps one row).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_noop, ngettext

from accounts.models import User
from games.models import Match, MatchStatus
from lobby import errors
from lobby.models import Playban, PlaybanReason

MEMORY = timedelta(hours=24)
"""How far back earlier playbans make a new one longer."""
LADDER = (timedelta(minutes=5), timedelta(minutes=15), timedelta(hours=1), timedelta(hours=24))
"""The length of the 1st, 2nd, 3rd and 4th-or-later playban within :data:`MEMORY`."""


def active(*, user: User, now: datetime | None = None) -> Playban | None:
    """The playban of ``user`` in force at ``now`` (started by then, the one ending last), or None."""
    now = now or timezone.now()
    return (Playban.objects.filter(user=user, created_at__lte=now, ends_at__gt=now)
            .order_by("-ends_at").first())


def length(*, earlier: int) -> timedelta:
    """The length of a playban given ``earlier``, the player's playbans created within :data:`MEMORY`
    before it (0 for a first offence)."""
    return LADDER[min(earlier, len(LADDER) - 1)]


def record(*, user_id: int, match: Match, reason: str, now: datetime | None = None) -> Playban:
    """Record ``user_id``'s playban for ``match`` (``reason``: a :class:`PlaybanReason` value) starting
    ``now`` (default ``timezone.now()``) and lasting :func:`length` of their playbans since
    ``now - MEMORY``. Idempotent: a second call for the same player and match returns the first row
    unchanged (the unique (user, match) constraint decides a race).

    Call inside the transaction that ends the match; the player's row is locked first (FOR NO KEY
    UPDATE, the lock ``lobby.busy`` and the games' creates take), so two playbans of one player at once
    count each other.
    """
    now = now or timezone.now()
    User.objects.select_for_update(no_key=True).filter(pk=user_id).values_list("pk").first()
    existing = Playban.objects.filter(user_id=user_id, match=match).first()
    if existing is not None:
        return existing
    earlier = Playban.objects.filter(user_id=user_id, created_at__gt=now - MEMORY,
                                     created_at__lte=now).count()
    try:
        with transaction.atomic():
            ban = Playban.objects.create(user_id=user_id, match=match, reason=reason,
                                         ends_at=now + length(earlier=earlier))
    except IntegrityError:
        return Playban.objects.get(user_id=user_id, match=match)
    if ban.created_at != now:  # auto_now_add read the clock again: the ban starts at the end's ``now``
        Playban.objects.filter(pk=ban.pk).update(created_at=now)
        ban.created_at = now
    return ban


def on_match_left(sender: Any, *, match: Match, seats: list[int], why: str, now: datetime,
                  **kwargs: Any) -> None:
    """``games.signals.match_left`` (inside the ending transaction): a rated match between people ended
    because ``seats`` left it: record each one's playban (``why`` is the reason). A match claimed too
    early to be rated (``unrated_why`` ``early_left``: docs/fairplay.md) was rated when it was left, so
    it counts too. A BOT account gets none (docs/bot-api.md "Fair limits": it is paused instead)."""
    if not match.rated and not match.unrated_why:
        return
    reason = PlaybanReason.TIMEOUTS if why == "timeouts" else PlaybanReason.ABANDONED
    seated = [uid for uid in (match.player_id(seat) for seat in seats) if uid is not None]
    # a BOT account is never playbanned: the bot API pauses it instead (botapi.pauses)
    bots = set(User.objects.filter(pk__in=seated, bot_account=True).values_list("pk", flat=True))
    for user_id in seated:
        if user_id not in bots:
            record(user_id=user_id, match=match, reason=reason, now=now)


# ------------------------------------------------------------------------------------------- reads


REASON_TEXTS: dict[str, str] = {
    PlaybanReason.ABANDONED: gettext_noop("you left a rated match"),
    PlaybanReason.TIMEOUTS: gettext_noop("you let the turn timer run out in a rated match"),
}
"""What the latest offence was, as the refusal starts ("you left a rated match ...")."""


def wait_text(seconds: float) -> str:
    """How long a wait of ``seconds`` is, in the active language, rounded up to the minute (at least one):
    "4 minutes", "1 hour", "23 hours 59 minutes" ("23 horas e 59 minutos")."""
    minutes = max(1, math.ceil(seconds / 60))
    if minutes < 60:
        return ngettext("%(n)d minute", "%(n)d minutes", minutes) % {"n": minutes}
    hours, rest = divmod(minutes, 60)
    hours_text = ngettext("%(n)d hour", "%(n)d hours", hours) % {"n": hours}
    if not rest:
        return hours_text
    return gettext("%(hours)s %(minutes)s") % {
        "hours": hours_text, "minutes": ngettext("%(n)d minute", "%(n)d minutes", rest) % {"n": rest}}


def reason_text(reason: str, left: int) -> str:
    """Why the player waits, in the active language: the latest offence (``reason``, a
    :class:`PlaybanReason` value) and, when ``left`` (their playbans within :data:`MEMORY`, this one
    included) is more than one, how many rated matches they left: "you left a rated match (3 rated
    matches left in the last 24 hours)"."""
    text = gettext(REASON_TEXTS[reason])
    if left > 1:
        text += ngettext(" (%(n)d rated match left in the last 24 hours)",
                         " (%(n)d rated matches left in the last 24 hours)", left) % {"n": left}
    return text


_lazy_reason = lazy(reason_text, str)
_lazy_wait = lazy(wait_text, str)


def refusal_params(*, ban: Playban, now: datetime | None = None) -> dict[str, Any]:
    """The parameters of the ``playban`` refusal (``lobby.errors``: "{reason}: you can pair again in
    {wait}") for ``ban``: ``reason`` and ``wait`` are lazy strings, said in the language active when the
    message is formatted (English for the ``GameError``, the reader's on a page or a socket);
    ``minutes`` (left, rounded up, at least 1) and ``left`` (rated matches left within :data:`MEMORY`)
    are numbers; ``why`` is ``ban.reason``. One query (the count)."""
    now = now or timezone.now()
    seconds = (ban.ends_at - now).total_seconds()
    left = max(1, Playban.objects.filter(user_id=ban.user_id, created_at__gt=now - MEMORY,
                                         created_at__lte=now).count())
    return {"reason": _lazy_reason(ban.reason, left), "wait": _lazy_wait(seconds),
            "minutes": max(1, math.ceil(seconds / 60)), "left": left, "why": ban.reason}


@dataclass(frozen=True, slots=True)
class Notice:
    """A playban as the player is told it: ``reason`` (:class:`PlaybanReason` value), ``reason_text``
    and ``message`` (the refusal's sentence, "you left a rated match (2 rated matches left in the last
    24 hours): you can pair again in 14 minutes"), both in the active language, ``ends_at``, ``minutes``
    left (rounded up, at least 1), ``left`` (rated matches left within :data:`MEMORY`) and ``match_id``.
    A page shows it with ``{% include "lobby/_playban.html" with playban=notice %}``."""

    reason: str
    reason_text: str
    message: str
    ends_at: datetime
    minutes: int
    left: int
    match_id: int | None


def notice(*, user: Any, now: datetime | None = None) -> Notice | None:
    """The playban in force for ``user`` at ``now`` as it is shown (the /play/ page, the lobby, the
    refusal), or None (no playban, or an anonymous user). Two queries."""
    if not getattr(user, "is_authenticated", False):
        return None
    now = now or timezone.now()
    ban = active(user=user, now=now)
    if ban is None:
        return None
    params = refusal_params(ban=ban, now=now)
    # The label is lazy (gettext_lazy): str() translates it into the active language, as gettext did.
    return Notice(reason=ban.reason, reason_text=str(PlaybanReason(ban.reason).label),
                  message=errors.text("playban", **params), ends_at=ban.ends_at,
                  minutes=params["minutes"], left=params["left"], match_id=ban.match_id)


@dataclass(frozen=True, slots=True)
class LeftCount:
    """A profile's "left N of M rated matches against people": ``left`` (N: those that earned the
    player a playban) and ``rated`` (M: their rated matches between people that are over)."""

    left: int
    rated: int


def left_count(*, user_id: int) -> LeftCount:
    """The profile's count for ``user_id`` (one query: a playban is only ever recorded for such a match
    that is over, so N counts M's matches that have one)."""
    banned = Playban.objects.filter(user_id=user_id, match_id=OuterRef("pk"))
    # (a match claimed too early to be rated, ``unrated_why`` ``early_left``, was rated when it was left)
    over = (Match.objects.filter(Q(player0_id=user_id) | Q(player1_id=user_id),
                                 Q(rated=True) | Q(unrated_why="early_left"),
                                 player1__isnull=False, bot_level__isnull=True, bot_seats=[])
            .filter(Q(status=MatchStatus.FINISHED) | Q(status=MatchStatus.ABORTED, result_reason="abandoned"))
            .aggregate(n=Count("pk"), left=Count("pk", filter=Exists(banned))))
    return LeftCount(left=int(over["left"]), rated=int(over["n"]))
