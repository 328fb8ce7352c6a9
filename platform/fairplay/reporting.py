"""Reports of players (docs/fairplay.md "Reports"): who may report whom, from which match, and the one
write (:func:`report_make`). The pages are ``fairplay.views``; the form's checks ``fairplay.forms``.

Rules, each refused with its own :class:`ReportRefused` code and nothing stored:

- ``members_only``: only a registered member reports (not a guest; anonymous visitors are sent to log in);
- ``self``: nobody reports themselves (also a database check, ``fairplay_report_not_self``);
- ``bot``: a house bot is not reported (its moves are the server's);
- ``closed``: an account closed for a fair-play violation is not reported again (410: it is gone);
- ``no_such_match``: the match does not exist, or the reporter may not see it (the replay's rule,
  ``replays.selectors.may_see``: its players, anyone when public, the holder of its link's token),
  answered alike so a private match's existence is not told;
- ``not_finished``: a match is reported about once it is over (status ``finished``);
- ``nobody``: the match has no one the reporter could report (a bot match of their own);
- ``not_in_match``: the player named is not one of the match's players.

A repeat of an open report (same reporter, reported and reason) is acknowledged like a new one and stores
nothing (the partial unique constraint ``fairplay_report_one_open`` decides, so two at once store one).

A new report has the reported player's recent rated matches analysed for the assistance signal
(``fairplay.tasks.assistance_reported``, after the commit; docs/fairplay.md "Assistance signal"). The
report is stored first: should the broker refuse the message, the report still stands and
``fairplay.tasks.signals_refresh`` (every 10 minutes) enqueues the backlog of every player with an open
report.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import IntegrityError, transaction

from accounts.models import Standing, User
from fairplay import tasks
from fairplay.models import Report, ReportPlace, ReportStatus
from games.models import Match, MatchStatus
from replays import selectors as replay_selectors
from web.errors import ApplicationError


class ReportRefused(ApplicationError):
    """A report refused before anything is stored: ``code`` as listed in this module's docstring."""


def is_member(user: Any) -> bool:
    """Whether ``user`` is a signed-in registered person (not anonymous, a guest nor a house bot)."""
    return bool(getattr(user, "is_authenticated", False) and not user.is_guest and not user.is_bot)


def check_reporter(user: Any) -> None:
    """:raises ReportRefused: ``members_only`` unless ``user`` is a signed-in member (not a guest or bot)."""
    if not is_member(user):
        raise ReportRefused("members_only", "only members may report a player")


def check_reported(*, reporter: User, reported: User) -> None:
    """:raises ReportRefused: ``self`` (``reported`` is ``reporter``), ``bot`` (a house bot) or ``closed``
    (an account closed for a fair-play violation)."""
    if reported.pk == reporter.pk:
        raise ReportRefused("self", "nobody reports themselves")
    if reported.is_bot:
        raise ReportRefused("bot", "a house bot cannot be reported")
    if reported.standing == Standing.CLOSED:
        raise ReportRefused("closed", "this account is closed already")


def match_candidates(*, match: Match | None, reporter: User, token: str | None) -> list[User]:
    """The players of ``match`` that ``reporter`` (holding the replay link's ``token``, or None) may report
    from it: its people other than the reporter, seat order (one for a player, two for a spectator).

    :raises ReportRefused: ``no_such_match``, ``not_finished`` or ``nobody``.
    """
    if match is None or not replay_selectors.may_see(match, reporter, token):
        raise ReportRefused("no_such_match", "no such match")
    if match.status != MatchStatus.FINISHED:
        raise ReportRefused("not_finished", "the match is not over")
    seated = (match.player0, match.player1)
    people = [p for p in seated if p is not None and not p.is_bot and p.pk != reporter.pk]
    if not people:
        raise ReportRefused("nobody", "nobody in this match can be reported")
    return people


def report_make(*, reporter: User, reported: User, reason: str, comment: str, place: str,
                match: Match | None = None) -> tuple[Report, bool]:
    """Store ``reporter``'s report of ``reported`` (``reason``: a ``ReportReason`` value; ``comment``:
    already checked by ``fairplay.forms``; ``place``: a ``ReportPlace`` value; ``match``: the match it is
    about, when made from a table or a replay). Returns ``(report, created)``: a repeat of an open report
    (same reporter, reported and reason) returns that open report and False, storing nothing.

    :raises ReportRefused: ``members_only``, ``self``, ``bot`` (see :func:`check_reporter`,
        :func:`check_reported`).
    """
    check_reporter(reporter)
    check_reported(reporter=reporter, reported=reported)
    if place == ReportPlace.TABLE and (match is None or match.seat_of(reporter.pk) is None):
        # "from the table" is a player's word: a spectator's (or a forged) "table" is a replay's report
        place = ReportPlace.REPLAY if match is not None else ReportPlace.PROFILE
    open_report = Report.objects.filter(reporter=reporter, reported=reported, reason=reason,
                                        status=ReportStatus.OPEN)
    existing = open_report.first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            report = Report.objects.create(reporter=reporter, reported=reported, reason=reason,
                                           comment=comment, place=place, match=match)
    except IntegrityError:
        # fairplay_report_one_open: a concurrent request stored the same open report first.
        existing = open_report.first()
        if existing is None:
            raise
        return existing, False
    user_id = reported.pk
    transaction.on_commit(lambda: backlog_enqueue(user_id=user_id))
    return report, True


def system_report(*, reported: User, reason: str, comment: str, match: Match | None = None) -> Report:
    """File a report made by the site itself (no reporter, place ``system``) about ``reported`` in the
    moderation queue: ``reason`` a ``ReportReason`` value (``bot_timeouts``: a BOT account paused after
    repeated timeouts, ``bot_throttle``: a BOT's token throttled over and over; docs/bot-api.md "Fair
    limits"), ``comment`` the facts (cut to 1000 characters), ``match`` the match that tipped it, if any.
    Each call files one report (each is an incident of its own). No assistance analysis is queued (a
    BOT is a program: agreeing with level 5 is no evidence); the next ``signals_refresh`` puts the player
    in the queue (an open report, counted as one reporter). Call inside the transaction that decided it."""
    return Report.objects.create(reporter=None, reported=reported, reason=reason, comment=comment[:1000],
                                 place=ReportPlace.SYSTEM, match=match)


log = logging.getLogger(__name__)


def backlog_enqueue(*, user_id: int) -> bool:
    """Enqueue ``fairplay.tasks.assistance_reported(user_id)``; True when sent. A broker error is logged
    and answered False, never raised: it runs after the report's commit, so the report stands and the
    sweep every 10 minutes (``fairplay.tasks.signals_refresh``) sends it again."""
    try:
        tasks.assistance_reported.delay(user_id)
    except Exception:
        log.exception("user %s: could not enqueue the reported player's analysis; the 10-minute sweep will",
                      user_id)
        return False
    return True
