"""Moderators' actions (docs/fairplay.md "Moderation"): warn, mark, clear the mark, close, force a
rename, dismiss reports. The admin's buttons call these; code and tests may too.

Every action, in one transaction: the target's user row locked (two moderators acting on one account
at once are serialized, and the second sees the first's change), the change made, one
:class:`~fairplay.models.ModerationAction` written (who, what, why, details), and the target's open
reports (all of them, or those named) handled: ``acted`` (``dismissed`` by :func:`reports_dismiss`),
with ``handled_by`` and ``handled_at``.

Every action needs a written ``reason`` (1..2000 characters once stripped); a bad request raises
:class:`ModerationError` and changes nothing.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.models import Standing, User
from accounts.validators import (
    validate_username_not_abusive,
    validate_username_not_reserved,
    validate_username_single_script,
)
from fairplay.models import (
    ActionKind,
    ModerationAction,
    Notice,
    PlayerSignal,
    Report,
    ReportStatus,
)
from ratings import services as ratings_services
from ratings import tasks as ratings_tasks
from tournaments import services as tournaments_services
from web.errors import ApplicationError

log = logging.getLogger(__name__)

REASON_MAX = 2000
"""Longest reason (``ModerationAction.reason``)."""
MESSAGE_MAX = 1000
"""Longest message to a warned player (``Notice.message``)."""
RENAME_PREFIX = "player-"
"""A generated name: this and five digits (``player-12345``)."""


class ModerationError(ApplicationError):
    """A refused moderation request; nothing changed. ``code``: ``no_reason``, ``reason_too_long``,
    ``no_such_user``, ``not_a_member`` (a guest or a house bot), ``self`` (one's own account),
    ``closed`` (the account is closed already), ``not_marked`` (clear a mark that is not there),
    ``already_marked``, ``bad_name``, ``name_taken``, ``message_too_long``, ``no_reports``."""


def notice_cache_key(user_id: int) -> str:
    """Cache key: ``1`` while ``user_id`` may have an unseen warning; ``0`` or absent: none
    (``fairplay.notices``)."""
    return f"fairplay:notice:{user_id}"


# --------------------------------------------------------------------------------------------- helpers


def _reason(reason: str) -> str:
    text = (reason or "").strip()
    if not text:
        raise ModerationError("no_reason", "a moderation action needs a written reason")
    if len(text) > REASON_MAX:
        raise ModerationError("reason_too_long", f"a reason has at most {REASON_MAX} characters")
    return text


def _target(target_id: int, moderator: User | None) -> User:
    """The target's row, locked (FOR NO KEY UPDATE: matches and ratings referring to it are not held)."""
    user = User.objects.select_for_update(no_key=True).filter(pk=target_id).first()
    if user is None:
        raise ModerationError("no_such_user", f"no user {target_id}")
    if user.is_guest or user.is_bot:
        raise ModerationError("not_a_member", "only members' accounts are moderated")
    if moderator is not None and moderator.pk == user.pk:
        raise ModerationError("self", "a moderator does not act on their own account")
    return user


def _handle_reports(target: User, moderator: User | None, status: str,
                    report_ids: Iterable[int] | None) -> list[int]:
    """Mark the target's open reports (``report_ids`` only, if given) ``status``; their ids."""
    reports = Report.objects.filter(reported=target, status=ReportStatus.OPEN)
    if report_ids is not None:
        reports = reports.filter(pk__in=list(report_ids))
    ids = sorted(reports.values_list("pk", flat=True))
    if ids:
        Report.objects.filter(pk__in=ids).update(status=status, handled_by=moderator,
                                                 handled_at=timezone.now())
        left = Report.objects.filter(reported=target, status=ReportStatus.OPEN).count()
        PlayerSignal.objects.filter(user=target).update(open_reports=left)
    return ids


def _log(moderator: User | None, target: User, kind: str, reason: str, details: dict[str, Any],
         handled: list[int]) -> ModerationAction:
    if handled:
        details = {**details, "reports": handled}
    return ModerationAction.objects.create(moderator=moderator, target=target, kind=kind, reason=reason,
                                           details=details)


def _set_standing(user: User, standing: str) -> None:
    user.standing = standing
    user.standing_since = timezone.now()
    user.save(update_fields=["standing", "standing_since"])


# --------------------------------------------------------------------------------------------- actions


@transaction.atomic
def account_warn(*, moderator: User | None, target_id: int, reason: str, message: str = "",
                 report_ids: Iterable[int] | None = None) -> ModerationAction:
    """Warn ``target_id``: it sees a fair-play warning once, on the next page it loads (``message``, up
    to :data:`MESSAGE_MAX` characters, added when given). Its open reports become ``acted``.

    :raises ModerationError: see the class (``closed``: a closed account loads no page).
    """
    why = _reason(reason)
    message = (message or "").strip()
    if len(message) > MESSAGE_MAX:
        raise ModerationError("message_too_long", f"a message has at most {MESSAGE_MAX} characters")
    target = _target(target_id, moderator)
    if target.standing == Standing.CLOSED:
        raise ModerationError("closed", "this account is closed")
    handled = _handle_reports(target, moderator, ReportStatus.ACTED, report_ids)
    action = _log(moderator, target, ActionKind.WARN, why, {"message": message}, handled)
    Notice.objects.create(user=target, action=action, message=message)
    transaction.on_commit(lambda: cache.set(notice_cache_key(target.pk), 1, None))
    return action


@transaction.atomic
def account_mark(*, moderator: User | None, target_id: int, reason: str,
                 report_ids: Iterable[int] | None = None) -> ModerationAction:
    """Mark ``target_id`` (``Standing.MARKED``): hidden from the rankings at once (their counts and
    ranks exact: ``ratings.services.rating_hide``), refused rated play (``games``/``lobby`` read the
    standing) and tournaments, and removed from the tournaments it registered for that have not
    started. Details: ``{"unregistered": [tournament ids]}``.

    :raises ModerationError: see the class (``already_marked``, ``closed``).
    """
    why = _reason(reason)
    tournaments_services.fairplay_lock(user_id=target_id)  # tournaments before the user: one lock order
    target = _target(target_id, moderator)
    if target.standing == Standing.CLOSED:
        raise ModerationError("closed", "this account is closed")
    if target.standing == Standing.MARKED:
        raise ModerationError("already_marked", "this account is marked already")
    _set_standing(target, Standing.MARKED)
    ratings_services.rating_hide(user_id=target.pk, hidden=True)
    removed = tournaments_services.fairplay_remove(user_id=target.pk, closed=False)
    handled = _handle_reports(target, moderator, ReportStatus.ACTED, report_ids)
    return _log(moderator, target, ActionKind.MARK, why, {"unregistered": removed["unregistered"]}, handled)


@transaction.atomic
def account_unmark(*, moderator: User | None, target_id: int, reason: str) -> ModerationAction:
    """Clear ``target_id``'s mark (back to ``Standing.GOOD``): on the rankings again (ranks exact).

    :raises ModerationError: see the class (``not_marked``: good or closed).
    """
    why = _reason(reason)
    target = _target(target_id, moderator)
    if target.standing != Standing.MARKED:
        raise ModerationError("not_marked", "this account is not marked")
    _set_standing(target, Standing.GOOD)
    ratings_services.rating_hide(user_id=target.pk, hidden=False)
    return _log(moderator, target, ActionKind.UNMARK, why, {}, [])


@transaction.atomic
def account_close(*, moderator: User | None, target_id: int, reason: str,
                  report_ids: Iterable[int] | None = None) -> ModerationAction:
    """Close ``target_id`` for a fair-play violation (``Standing.CLOSED``; docs/fairplay.md
    "Consequences and refunds"):

    - ``is_active`` off and the password made unusable: it cannot log in, and every session it has is
      refused on its next request (Django checks the session's password hash and ``is_active``);
    - hidden from the rankings (ranks exact); its rated matches and rating history are kept, frozen
      (``ratings.services`` rates no later match of it);
    - tournaments: registrations not started removed, running ones withdrawn, the standings of those it
      played recomputed and marked (``tournaments.services.fairplay_remove``);
    - after the commit, ``ratings.tasks.refund_closure`` gives its opponents their lost points back.

    Details: ``{"was": previous standing, "unregistered", "withdrawn", "recomputed": [tournament ids]}``.

    :raises ModerationError: see the class (``closed``: closed already).
    """
    why = _reason(reason)
    tournaments_services.fairplay_lock(user_id=target_id)  # tournaments before the user: one lock order
    target = _target(target_id, moderator)
    if target.standing == Standing.CLOSED:
        raise ModerationError("closed", "this account is closed already")
    was = target.standing
    target.is_active = False
    target.set_unusable_password()
    target.save(update_fields=["is_active", "password"])
    _set_standing(target, Standing.CLOSED)
    ratings_services.rating_hide(user_id=target.pk, hidden=True)
    tournaments = tournaments_services.fairplay_remove(user_id=target.pk, closed=True)
    handled = _handle_reports(target, moderator, ReportStatus.ACTED, report_ids)
    action = _log(moderator, target, ActionKind.CLOSE, why, {"was": was, **tournaments}, handled)
    closed_id = target.pk
    transaction.on_commit(lambda: _enqueue_refund(closed_id))
    return action


def _enqueue_refund(closed_id: int) -> None:
    """Send ``ratings.tasks.refund_closure`` (after the closure's commit: the task reads the closed standing).
    A broker failure is logged, not raised: the closure stands, and beat's ``ratings.tasks.sweep_refunds``
    (or :func:`refunds_retry`, by hand) sends it again; the task is idempotent."""
    try:
        ratings_tasks.refund_closure.delay(closed_id)
    except Exception:  # the closure is committed; the refund can be sent again
        log.exception("could not enqueue ratings.tasks.refund_closure for closed account %s", closed_id)


def refunds_retry(*, closed_id: int) -> None:
    """Send ``ratings.tasks.refund_closure`` for closed account ``closed_id`` again (idempotent: refunds
    already made are not made twice)."""
    _enqueue_refund(closed_id)


@transaction.atomic
def account_rename(*, moderator: User | None, target_id: int, reason: str, new_username: str = "",
                   report_ids: Iterable[int] | None = None) -> ModerationAction:
    """Force ``target_id``'s username to ``new_username`` (checked as at sign-up: Django's characters,
    not reserved, no abusive word, one alphabet, free ignoring case), or to a generated ``player-NNNNN``
    when empty; the display name is cleared (it may be the same word). Details: ``{"old": old name,
    "new": new name}``.

    :raises ModerationError: see the class (``bad_name``, ``name_taken``).
    """
    why = _reason(reason)
    target = _target(target_id, moderator)
    new = (new_username or "").strip()
    if new:
        try:
            UnicodeUsernameValidator()(new)
            validate_username_not_reserved(new)
            validate_username_not_abusive(new)
            validate_username_single_script(new)
        except ValidationError as exc:
            why_not = " ".join(exc.messages)
            raise ModerationError("bad_name", f"{new!r} is not a valid username: {why_not}") from exc
        if len(new) > 150:
            raise ModerationError("bad_name", "a username has at most 150 characters")
        if User.objects.filter(username__iexact=new).exclude(pk=target.pk).exists():
            raise ModerationError("name_taken", f"username {new!r} is taken")
    else:
        new = _generated_name()
    old = target.username
    target.username = new
    target.display_name = ""
    target.save(update_fields=["username", "display_name"])
    handled = _handle_reports(target, moderator, ReportStatus.ACTED, report_ids)
    return _log(moderator, target, ActionKind.RENAME, why, {"old": old, "new": new}, handled)


def _generated_name() -> str:
    while True:
        name = f"{RENAME_PREFIX}{secrets.randbelow(100_000):05d}"
        if not User.objects.filter(username__iexact=name).exists():
            return name


@transaction.atomic
def reports_dismiss(*, moderator: User | None, target_id: int, reason: str,
                    report_ids: Iterable[int] | None = None) -> ModerationAction:
    """Dismiss ``target_id``'s open reports (those of ``report_ids`` only, if given): ``dismissed``.

    :raises ModerationError: see the class (``no_reports``: none open among those asked for).
    """
    why = _reason(reason)
    target = _target(target_id, moderator)
    handled = _handle_reports(target, moderator, ReportStatus.DISMISSED, report_ids)
    if not handled:
        raise ModerationError("no_reports", "no open report to dismiss")
    return _log(moderator, target, ActionKind.DISMISS, why, {}, handled)


ACTIONS = {
    ActionKind.WARN: account_warn,
    ActionKind.MARK: account_mark,
    ActionKind.UNMARK: account_unmark,
    ActionKind.CLOSE: account_close,
    ActionKind.RENAME: account_rename,
    ActionKind.DISMISS: reports_dismiss,
}
"""Each action kind's function (the admin's form dispatches through it)."""


# --------------------------------------------------------------------------------------------- notices


def notices_take(*, user_id: int) -> list[Notice]:
    """``user_id``'s unseen warnings, oldest first, marked seen (each is shown once). Idempotent: a
    second call (two pages loaded at once) finds them seen (the rows are locked, SKIP LOCKED)."""
    with transaction.atomic():
        notices = list(Notice.objects.select_for_update(skip_locked=True)
                       .filter(user_id=user_id, seen_at__isnull=True).order_by("created_at", "pk"))
        if notices:
            Notice.objects.filter(pk__in=[n.pk for n in notices]).update(seen_at=timezone.now())
    cache.set(notice_cache_key(user_id), 0, None)
    return notices
