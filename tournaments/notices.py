"""Reminders and on-site notices of events (issue 26, docs/tournaments.md "Calendar and reminders").

- :func:`reminder_toggle`: a member's "remind me" on an event still to come (on / off).
- :func:`reminders_send` (beat ``tournaments.tasks.remind``, every 30 s): for each unsent
  :class:`~tournaments.models.Reminder` of an event starting within :data:`REMIND_BEFORE`, one
  ``starting`` :class:`~tournaments.models.TournamentNotice` and a live push, then ``sent_at``: under row
  locks (``select_for_update(skip_locked)``) and the notice's unique constraint, so a beat firing twice, a
  retried task or two workers send nothing twice.
- :func:`round_notices` (from ``live.round_started``): a ``round`` notice for each person seated in a
  Swiss round; the unique (user, tournament, kind, round) makes a retried pairing step harmless.
- :func:`unseen_of` / :func:`notice_dismiss`: what every signed-in page shows (stale ``round`` and
  ``starting`` notices left out), and "dismiss".

The push is a ``{"type": "tournament_notice", "id": <notice id>}`` payload on the member's notices socket
(``push.groups.notice_group``, lobby's ``ws/notices/`` on every page); the page then fetches
``/tournaments/notices.json`` for the texts in its own language. A lost push loses nothing: the notice row
is shown on the next page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from push.groups import notice_group
from push.send import send_on_commit
from tournaments.models import (
    NoticeKind,
    Reminder,
    Tournament,
    TournamentFormat,
    TournamentNotice,
    TournamentStatus,
)

REMIND_BEFORE = timedelta(minutes=5)
"""How long before an event's start its reminders are sent."""

UPCOMING = (TournamentStatus.SCHEDULED, TournamentStatus.OPEN)
"""An event in one of these statuses has not started: a reminder of it may be set and sent."""


class ReminderRefused(Exception):
    """``code``: ``not_member`` (anonymous, guest or bot), ``no_such_tournament``, ``started`` (running,
    finished or cancelled: nothing left to remind of)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _push(notices: Iterable[TournamentNotice]) -> None:
    send_on_commit([(notice_group(n.user_id), {"type": "notice.push",
                                               "payload": {"type": "tournament_notice", "id": n.pk}})
                    for n in notices])


def reminder_toggle(*, user: User, tournament: Tournament) -> bool:
    """Set ``user``'s reminder of ``tournament`` if there is none, remove it if there is; True when it is
    now set. ``tournament`` must be one the user may see (the view checks ``access.may_view``).

    :raises ReminderRefused: ``not_member`` for a guest or bot, ``started`` once the event is no longer
        upcoming (nothing is changed).
    """
    if not user.is_authenticated or user.is_guest or user.is_bot:
        raise ReminderRefused("not_member")
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        if locked is None:
            raise ReminderRefused("no_such_tournament")
        if locked.status not in UPCOMING:
            raise ReminderRefused("started")
        deleted, _rows = Reminder.objects.filter(user=user, tournament=locked).delete()
        if deleted:
            return False
        # The event's row lock serialises two clicks of one member; the unique constraint stays the
        # last word (get_or_create answers the row another transaction made meanwhile).
        Reminder.objects.get_or_create(user=user, tournament=locked)
        return True


def reminders_send(*, now: datetime | None = None) -> int:
    """Send every reminder due at ``now`` (UTC; default: the clock): unsent, of an upcoming event that
    starts before ``now + REMIND_BEFORE``. Returns how many were sent by this call (0 when another run
    holds or already sent them). A reminder of an event that started or was cancelled without it being
    sent is marked sent without a notice (a late "starting soon" helps nobody)."""
    now = now or timezone.now()
    with transaction.atomic():
        due = list(Reminder.objects.select_for_update(skip_locked=True, of=("self",))
                   .filter(sent_at__isnull=True, tournament__starts_at__lte=now + REMIND_BEFORE)
                   .select_related("tournament").order_by("id")[:500])
        if not due:
            return 0
        live = [r for r in due if r.tournament.status in UPCOMING and r.tournament.starts_at > now]
        pairs = Q(pk__in=[])
        for r in live:
            pairs |= Q(user_id=r.user_id, tournament_id=r.tournament_id)
        kind = Q(kind=NoticeKind.STARTING, round=0)
        before = set(TournamentNotice.objects.filter(kind & pairs).values_list("user_id", "tournament_id"))
        fresh = [r for r in live if (r.user_id, r.tournament_id) not in before]
        TournamentNotice.objects.bulk_create(
            [TournamentNotice(user_id=r.user_id, tournament_id=r.tournament_id, kind=NoticeKind.STARTING,
                              round=0) for r in fresh],
            ignore_conflicts=True)  # the locks make a conflict impossible; the constraint is the last word
        Reminder.objects.filter(pk__in=[r.pk for r in due]).update(sent_at=now)
        if fresh:
            new = Q(pk__in=[])
            for r in fresh:
                new |= Q(user_id=r.user_id, tournament_id=r.tournament_id)
            _push(TournamentNotice.objects.filter(kind & new))
        return len(fresh)


def round_notices(tournament_id: int, user_ids: Iterable[int]) -> None:
    """A ``round`` notice (and its push after the commit) for each person among ``user_ids`` seated in
    ``tournament_id``'s current round (house bots get none). Run inside the pairing's transaction: the
    unique constraint makes a retried step add nothing (and push nothing new)."""
    number = Tournament.objects.filter(pk=tournament_id).values_list("current_round", flat=True).first()
    if not number:
        return
    people = list(User.objects.filter(pk__in=set(user_ids), is_bot=False).values_list("pk", flat=True))
    if not people:
        return
    before = set(TournamentNotice.objects.filter(tournament_id=tournament_id, kind=NoticeKind.ROUND,
                                                 round=number).values_list("user_id", flat=True))
    TournamentNotice.objects.bulk_create(
        [TournamentNotice(user_id=u, tournament_id=tournament_id, kind=NoticeKind.ROUND, round=number)
         for u in people if u not in before], ignore_conflicts=True)
    _push(TournamentNotice.objects.filter(tournament_id=tournament_id, kind=NoticeKind.ROUND, round=number,
                                          user_id__in=[u for u in people if u not in before]))


def unseen_of(user: User, *, limit: int = 5) -> QuerySet[TournamentNotice]:
    """``user``'s unseen notices that still mean something, newest first, with their events loaded (one
    query: the staleness test is an ``EXISTS`` subquery). Left out, though unseen:

    - a ``round`` notice once a newer one (a higher ``round``) exists for the same member and event, or
      once the event is no longer running ("your match is ready" for a match long over);
    - a ``starting`` notice once the event is no longer scheduled or open.

    ``cancelled`` and ``edited`` notices stay until dismissed."""
    newer = TournamentNotice.objects.filter(
        user_id=OuterRef("user_id"), tournament_id=OuterRef("tournament_id"), kind=NoticeKind.ROUND,
        round__gt=OuterRef("round"))
    stale = (Q(kind=NoticeKind.ROUND) & (~Q(tournament__status=TournamentStatus.RUNNING) | Q(Exists(newer)))
             | Q(kind=NoticeKind.STARTING) & ~Q(tournament__status__in=UPCOMING))
    return (TournamentNotice.objects.filter(user_id=user.pk, seen_at__isnull=True).exclude(stale)
            .select_related("tournament").order_by("-created_at", "-id")[:limit])


EDITED_FIELDS: dict[str, Callable[[], str]] = {
    "starts_at": lambda: _("start time"),
    "format": lambda: _("format"),
    "fixed_rounds": lambda: _("rounds"),
    "duration_minutes": lambda: _("duration"),
    "rules_preset": lambda: _("rules"),
    "match_target": lambda: _("match target"),
    "turn_timer_seconds": lambda: _("turn timer"),
    "rated": lambda: _("rated or casual"),
    "rating_min": lambda: _("lowest rating"),
    "rating_max": lambda: _("highest rating"),
    "access": lambda: _("who may join"),
    "bots_allowed": lambda: _("house bots"),
    "bot_accounts_allowed": lambda: _("BOT accounts"),
}
"""The words of an ``edited`` notice for each of ``organise.NOTICE_FIELDS`` (the column names its ``text``
lists, comma-separated), in the active language."""


def edited_words(text: str) -> str:
    """``"starts_at,fixed_rounds"`` -> ``"start time, rounds"`` (pt-BR: ``"horário de início, rodadas"``),
    in the stored order; a name without words (none is stored today) is left out rather than shown raw."""
    return ", ".join(EDITED_FIELDS[name]() for name in text.split(",") if name in EDITED_FIELDS)


def notice_text(notice: TournamentNotice) -> str:
    """The sentence of ``notice`` in the active language. ``edited``: the changed fields in words
    (:func:`edited_words`); ``cancelled``: the organiser's note after the sentence when there is one."""
    name = notice.tournament.name
    if notice.kind == NoticeKind.STARTING:
        return _("“%(name)s” starts in a few minutes.") % {"name": name}
    if notice.kind == NoticeKind.ROUND and notice.tournament.format == TournamentFormat.ARENA:
        # An Arena has no rounds: its notice counts the pairing waves, which mean nothing to a player.
        return _("Your next match in “%(name)s” is ready.") % {"name": name}
    if notice.kind == NoticeKind.ROUND:
        return _("Round %(round)s of “%(name)s” is paired: your match is ready.") % {
            "round": notice.round, "name": name}
    if notice.kind == NoticeKind.CANCELLED:
        if notice.text:
            return _("“%(name)s” was cancelled. The organiser says: %(note)s") % {"name": name,
                                                                                   "note": notice.text}
        return _("“%(name)s” was cancelled.") % {"name": name}
    words = edited_words(notice.text)
    if words:
        return _("“%(name)s” was changed by its organiser: %(fields)s.") % {"name": name, "fields": words}
    return _("“%(name)s” was changed by its organiser.") % {"name": name}


def notice_dismiss(*, user: User, notice_id: int, now: datetime | None = None) -> bool:
    """Mark ``user``'s notice ``notice_id`` seen; False when there is no such unseen notice of theirs
    (someone else's id changes nothing)."""
    return bool(TournamentNotice.objects.filter(pk=notice_id, user_id=user.pk, seen_at__isnull=True)
                .update(seen_at=now or timezone.now()))
