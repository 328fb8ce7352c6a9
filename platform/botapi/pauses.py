"""Pauses of BOT accounts that time out, and abuse filed to the fair-play queue (docs/bot-api.md "Fair
limits").

- **Timeouts.** A BOT account whose seat the turn timer played (an automatic move, the loss on time, or
  the end of a match both seats let run out: ``games.signals.turn_expired``) in
  ``BOTAPI_TIMEOUTS_TO_PAUSE`` (3) distinct matches within 24 hours is paused: ``User.bot_paused_until``
  = now + ``BOTAPI_PAUSE_MINUTES`` (60). Counted from the match log (``MatchEvent.auto`` rows of the
  account's seat, plus the match that is timing out now), so one match counts once however many of its
  turns the timer played, and a timeout counted twice (a retried task) changes nothing. Only the matches
  since the account's last pause ended count towards the next. People are not paused: they get lobby's
  playbans, which BOT accounts never get (``lobby.playbans.on_match_left``).
- **While paused** a BOT account may not create or accept a challenge, join the pool, or start a
  house-bot match: :func:`check_not_paused` refuses with ``403 bot_paused``.
- **The fair-play queue.** Each pause files a report of the site itself (``fairplay.reporting.
  system_report``, reason ``bot_timeouts``, "BOT paused after repeated timeouts", the matches in its
  comment); a token throttled more than ``BOTAPI_ABUSE_THROTTLES`` (100) times within a clock hour files
  one (reason ``bot_throttle``) the moment it crosses that number (:func:`note_throttled`, called by the
  throttle).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone

from accounts.models import ApiToken, User
from botapi.errors import BotApiError
from fairplay.models import ReportReason
from fairplay.reporting import system_report
from games.models import Match, MatchEvent

TIMEOUTS_TO_PAUSE = 3
"""Default of ``BOTAPI_TIMEOUTS_TO_PAUSE``: distinct matches with a timeout, within :data:`WINDOW`, that
pause a BOT account."""
PAUSE_MINUTES = 60
"""Default of ``BOTAPI_PAUSE_MINUTES``: how long a pause lasts."""
ABUSE_THROTTLES = 100
"""Default of ``BOTAPI_ABUSE_THROTTLES``: throttled requests of one token within a clock hour past which
the token's account is reported to the fair-play queue."""
WINDOW = timedelta(hours=24)
"""How far back timeouts count."""


def timeouts_to_pause() -> int:
    return max(1, int(getattr(settings, "BOTAPI_TIMEOUTS_TO_PAUSE", TIMEOUTS_TO_PAUSE)))


def pause_minutes() -> float:
    return float(getattr(settings, "BOTAPI_PAUSE_MINUTES", PAUSE_MINUTES))


def abuse_throttles() -> int:
    return max(1, int(getattr(settings, "BOTAPI_ABUSE_THROTTLES", ABUSE_THROTTLES)))


def paused_until(user: User, now: datetime | None = None) -> datetime | None:
    """When ``user``'s pause ends, or None when it is not paused at ``now`` (default: the clock)."""
    now = now or timezone.now()
    until = user.bot_paused_until
    return until if until is not None and until > now else None


def check_not_paused(user: User, now: datetime | None = None) -> None:
    """Refuse a paused BOT account: call before creating or accepting a challenge, joining the pool or
    starting a house-bot match. Reads the account's row as stored (a pause made since the request loaded
    it counts).

    :raises BotApiError: ``bot_paused`` (403), the message saying until when (ISO time, UTC).
    """
    now = now or timezone.now()
    stored = User.objects.filter(pk=user.pk).values_list("bot_paused_until", flat=True).first()
    if stored is not None and stored > now:
        raise BotApiError("bot_paused", f"this BOT account is paused after repeated timeouts until "
                                        f"{stored.isoformat()}: no new match before then")


def timed_out_matches(*, user_id: int, since: datetime, now: datetime) -> set[int]:
    """The matches in which the turn timer played for ``user_id``'s seat in ``(since, now]`` (one query:
    the automatic events of the log)."""
    mine = Q(seat=0, match__player0_id=user_id) | Q(seat=1, match__player1_id=user_id)
    return set(MatchEvent.objects.filter(mine, auto=True, created_at__gt=since, created_at__lte=now)
               .values_list("match_id", flat=True).distinct())


def record_timeout(*, user: User, match: Match, now: datetime) -> bool:
    """The turn timer played for BOT account ``user`` in ``match`` at ``now``: pause it when that makes
    :func:`timeouts_to_pause` distinct matches within :data:`WINDOW` (since its last pause ended, if
    later), and file the fair-play report. Already paused: nothing. Returns whether it paused ``user``.
    Call with ``user``'s row locked, inside the timer's transaction."""
    if paused_until(user, now) is not None:
        return False
    since = now - WINDOW
    if user.bot_paused_until is not None and user.bot_paused_until > since:
        since = user.bot_paused_until  # a pause that ended: only the timeouts after it count
    matches = timed_out_matches(user_id=user.pk, since=since, now=now) | {match.pk}
    if len(matches) < timeouts_to_pause():
        return False
    until = now + timedelta(minutes=pause_minutes())
    User.objects.filter(pk=user.pk).update(bot_paused_until=until)
    user.bot_paused_until = until
    listed = ", ".join(str(pk) for pk in sorted(matches))
    system_report(reported=user, reason=ReportReason.BOT_TIMEOUTS, match=match,
                  comment=f"BOT paused after repeated timeouts: the turn timer played for it in "
                          f"{len(matches)} matches within 24 hours (matches {listed}); paused until "
                          f"{until.isoformat()}.")
    return True


def on_turn_expired(sender: Any, *, match: Match, seat: int, user_id: int | None, outcome: str,
                    now: datetime, **kwargs: Any) -> None:
    """``games.signals.turn_expired`` (inside the timer's transaction): count the timeout of a BOT
    account's seat (:func:`record_timeout`); anyone else's is not ours."""
    if user_id is None:
        return
    user = User.objects.select_for_update(no_key=True).filter(pk=user_id, bot_account=True).first()
    if user is not None:
        record_timeout(user=user, match=match, now=now)


def _throttle_key(token_id: int, now: datetime) -> str:
    return f"botapi:throttled:{token_id}:{now:%Y%m%d%H}"


def note_throttled(token: ApiToken, now: datetime | None = None) -> bool:
    """The throttle refused a request of ``token`` (``botapi.throttles``): count it in the cache for this
    clock hour; the request that makes the count pass :func:`abuse_throttles` files one fair-play report
    of the token's account (reason ``bot_throttle``). Returns whether this call filed it."""
    now = now or timezone.now()
    key = _throttle_key(token.pk, now)
    cache.add(key, 0, timeout=3600)
    try:
        count = cache.incr(key)
    except ValueError:  # the key expired between add and incr: this is the hour's first
        cache.set(key, 1, timeout=3600)
        count = 1
    if count != abuse_throttles() + 1:
        return False
    system_report(reported=token.user, reason=ReportReason.BOT_THROTTLED,
                  comment=f"BOT API token {token.prefix}… ({token.name}) throttled more than "
                          f"{abuse_throttles()} times within the hour from {now:%Y-%m-%d %H}:00 UTC.")
    return True
