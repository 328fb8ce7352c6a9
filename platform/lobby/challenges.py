"""Direct challenges: a profile's "Challenge" button (docs/lobby.md "Direct challenges").

The challenged player gets a live notice on any page (``ws/notices/``, ``lobby.notice_consumers``) with
Accept / Decline and a countdown; unanswered, the challenge expires :func:`challenge_seconds` after it
was made (``challenges_sweep``, driven by the server: ``lobby.challenge_sweep``). Accept starts the match
(the challenger at seat 0) and sends both players to it; Decline tells the challenger.

Settings (read at each call): ``LOBBY_CHALLENGE_SECONDS`` (:data:`CHALLENGE_SECONDS`),
``LOBBY_CHALLENGES_PER_ACCOUNT`` (:data:`CHALLENGES_PER_ACCOUNT`: open challenges one player may have
sent at once).

"Is playing a match" (``challenge_target_busy``): an active rated match, or an active match against a
person (a casual match against a house bot does not count: it can be left at any time).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import conf as game_conf
from games import services as game_services
from games.models import Match, MatchStatus, SeatPresence
from lobby import busy, challenge_push
from lobby.errors import refuse, refuse_as
from lobby.models import Challenge, ChallengeStatus, LobbyPreference, Seek, SeekStatus
from lobby.seeks import Settings, check_settings, lock_users
from push.send import send_on_commit

CHALLENGE_SECONDS = 60.0
CHALLENGES_PER_ACCOUNT = 3


def challenge_seconds() -> float:
    return float(getattr(settings, "LOBBY_CHALLENGE_SECONDS", CHALLENGE_SECONDS))


def challenges_per_account() -> int:
    return int(getattr(settings, "LOBBY_CHALLENGES_PER_ACCOUNT", CHALLENGES_PER_ACCOUNT))


def accepts_challenges(user: User) -> bool:
    """``LobbyPreference.accepts_challenges`` of ``user`` (True without a row)."""
    pref = LobbyPreference.objects.filter(user=user).values_list("accepts_challenges", flat=True).first()
    return True if pref is None else bool(pref)


def set_accepts_challenges(*, user: User, accepts: bool, accepts_bots: bool | None = None) -> None:
    """Store ``user``'s "let others challenge me" and, unless None, "accept challenges from BOT
    accounts"."""
    defaults = {"accepts_challenges": bool(accepts)}
    if accepts_bots is not None:
        defaults["accepts_bot_challenges"] = bool(accepts_bots)
    LobbyPreference.objects.update_or_create(user=user, defaults=defaults)


def accepts_bot_challenges(user: User) -> bool:
    """``LobbyPreference.accepts_bot_challenges`` of ``user`` (False without a row: a person chooses to
    be challenged by programs, docs/bot-api.md "Who plays whom")."""
    pref = (LobbyPreference.objects.filter(user=user).values_list("accepts_bot_challenges", flat=True)
            .first())
    return bool(pref)


def playing_match_id(*, user: User) -> int | None:
    """An active match ``user`` plays that makes them busy (module docstring), or None. A BOT account
    plays several at once: busy only at ``games.conf.bot_active_matches()`` (its oldest then)."""
    if user.bot_account:
        return game_services.active_rated_match_id(user_id=user.pk)
    mine = Match.objects.filter(Q(player0_id=user.pk) | Q(player1_id=user.pk), status=MatchStatus.ACTIVE)
    return mine.filter(Q(rated=True) | Q(bot_seats=[])).order_by("pk").values_list("pk", flat=True).first()


def bot_settings(choice: Settings) -> Settings:
    """``choice`` for a challenge with a BOT account on either side: always a turn timer
    (``games.conf.BOT_TURN_TIMER`` when none was chosen, at most ``BOT_TURN_TIMER_MAX``; docs/bot-api.md
    "Fair limits").

    :raises GameError: ``bad_settings``: a timer over the most."""
    if choice.turn_timer is None:
        return replace(choice, turn_timer=game_conf.BOT_TURN_TIMER)
    if type(choice.turn_timer) is int and choice.turn_timer > game_conf.BOT_TURN_TIMER_MAX:
        raise refuse("bad_settings", detail=f"a match with a BOT account has a turn timer of at most"
                                            f" {game_conf.BOT_TURN_TIMER_MAX} s")
    return choice


def payload(challenge: Challenge) -> dict[str, Any]:
    """A challenge as the notices socket sends it: ``{"id", "challenger", "challenged", "preset",
    "target", "turn_timer", "rated", "expires_at" (ISO 8601), "seconds_left" (whole seconds, from the
    server's clock: the countdown does not trust the browser's clock), "challenger_bot_account",
    "challenged_bot_account" (a BOT account: the notice marks it BOT)}``."""
    left = max(0, int((challenge.expires_at - timezone.now()).total_seconds()))
    return {
        "id": challenge.pk, "challenger": challenge.challenger.public_name,
        "challenged": challenge.challenged.public_name, "preset": challenge.preset,
        "target": challenge.target, "turn_timer": challenge.turn_timer_seconds, "rated": challenge.rated,
        "expires_at": challenge.expires_at.isoformat(), "seconds_left": left,
        "challenger_bot_account": bool(challenge.challenger.bot_account),
        "challenged_bot_account": bool(challenge.challenged.bot_account),
    }


def challenge_create(*, challenger: User, challenged: User, choice: Settings,
                     now: datetime | None = None) -> Challenge:
    """Challenge ``challenged`` to a match with ``choice``; they get a notice at once.

    A BOT account (docs/bot-api.md "Who plays whom") challenges a person only when that person accepts
    BOT challenges (``LobbyPreference.accepts_bot_challenges``), any BOT account always; anyone may
    challenge a BOT account; a challenge with a BOT account on either side always has a turn timer
    (:func:`bot_settings`).

    :raises GameError: ``challenge_self``, ``challenge_bot`` (a house bot), ``challenge_guest``,
        ``challenge_blocked`` (their "let others challenge me" is off; or a BOT account challenges a
        person who does not accept BOT challenges), ``challenge_target_busy``, ``challenge_pending`` (an
        open challenge to them already, also when two requests race), ``challenge_limit``,
        ``bad_settings``, ``busy.check_free``'s codes for ``challenger`` (no playban: a direct
        challenge is between two people who both choose it), and ``busy.check_pair``'s for the two
        (``opponent_marked``, ``pair_rated_limit``: refused at once rather than at the acceptance).
    """
    if challenger.bot_account or challenged.bot_account:
        choice = bot_settings(choice)
    choice = check_settings(choice)
    now = now or timezone.now()
    if challenger.pk == challenged.pk:
        raise refuse("challenge_self")
    if challenged.is_bot:
        raise refuse("challenge_bot")
    if challenged.is_guest:
        raise refuse("challenge_guest")
    if challenger.bot_account and not challenged.bot_account and not accepts_bot_challenges(challenged):
        raise refuse_as("challenge_blocked", "challenge_blocked_bot", name=challenged.public_name)
    with transaction.atomic():
        lock_users(challenger)
        busy.check_free(user=challenger, rated=choice.rated, playban=False)
        if not challenged.is_active or not accepts_challenges(challenged):
            raise refuse("challenge_blocked", name=challenged.public_name)
        if playing_match_id(user=challenged) is not None:
            raise refuse("challenge_target_busy", name=challenged.public_name)
        busy.check_pair(user=challenger, other=challenged, rated=choice.rated)
        open_sent = Challenge.objects.filter(challenger=challenger, status=ChallengeStatus.OPEN,
                                             expires_at__gt=now)
        if open_sent.filter(challenged=challenged).exists():
            raise refuse("challenge_pending", name=challenged.public_name)
        if open_sent.count() >= challenges_per_account():
            raise refuse("challenge_limit", limit=challenges_per_account())
        # A past-due challenge to the same player the sweep has not reached: ended here (the pair's
        # one-open constraint), as the sweep would.
        Challenge.objects.filter(challenger=challenger, challenged=challenged, status=ChallengeStatus.OPEN,
                                 expires_at__lte=now).update(status=ChallengeStatus.EXPIRED)
        try:
            with transaction.atomic():
                challenge = Challenge.objects.create(
                    challenger=challenger, challenged=challenged, preset=choice.preset, target=choice.target,
                    turn_timer_seconds=choice.turn_timer, rated=choice.rated,
                    expires_at=now + timedelta(seconds=challenge_seconds()),
                )
        except IntegrityError:  # lobby_one_open_challenge_per_pair: a second tab's request won
            raise refuse("challenge_pending", name=challenged.public_name) from None
        body = payload(challenge)
        send_on_commit([
            *challenge_push.notice(challenged.pk, {"type": "challenge", "challenge": body}),
            *challenge_push.notice(challenger.pk, {"type": "challenge_sent", "challenge": body}),
        ])
    return challenge


def _locked(challenge_id: int, user: User) -> Challenge:
    challenge = (Challenge.objects.select_for_update(of=("self",)).select_related("challenger", "challenged")
                 .filter(pk=challenge_id).first())
    if challenge is None or user.pk not in (challenge.challenger_id, challenge.challenged_id):
        raise refuse("challenge_not_found")
    return challenge


def _check_open(challenge: Challenge, now: datetime) -> None:
    if challenge.status in (ChallengeStatus.ACCEPTED, ChallengeStatus.DECLINED):
        raise refuse("challenge_answered")
    if challenge.status == ChallengeStatus.CANCELLED:
        raise refuse("challenge_withdrawn")
    if challenge.status == ChallengeStatus.EXPIRED or challenge.expires_at <= now:
        raise refuse("challenge_expired")


def _closed(challenge: Challenge, status: str) -> list[tuple[str, dict[str, Any]]]:
    """The notice to both players that ``challenge`` is no longer open (its box disappears)."""
    body = {"type": "challenge_closed", "id": challenge.pk, "status": status,
            "challenger": challenge.challenger.public_name, "challenged": challenge.challenged.public_name}
    return [*challenge_push.notice(challenge.challenged_id, body),
            *challenge_push.notice(challenge.challenger_id, body)]


def challenge_accept(*, user: User, challenge_id: int, now: datetime | None = None) -> Match:
    """``user`` (the challenged player) accepts: the match starts and both are sent to its table.

    Accepted already (a second tab, a double click): that match again, nothing new (exactly one match
    however many accepts race: they wait on the challenge's row lock). ``user``'s own open seek is
    withdrawn in the same transaction.

    :raises GameError: ``challenge_not_found`` (also not addressed to ``user``), ``challenge_answered``
        (declined), ``challenge_withdrawn``, ``challenge_expired``, ``challenger_busy`` (a rated challenge
        whose challenger started a rated match since), ``busy.check_free``'s codes for ``user`` and
        ``busy.check_pair``'s (``opponent_marked``, ``pair_rated_limit``) for the two.
    """
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _locked(challenge_id, user)
        if challenge.challenged_id != user.pk:
            raise refuse("challenge_not_found")
        if challenge.status == ChallengeStatus.ACCEPTED and challenge.match_id is not None:
            return Match.objects.get(pk=challenge.match_id)
        _check_open(challenge, now)
        lock_users(challenge.challenger, user)
        Seek.objects.filter(creator=user, status=SeekStatus.OPEN).update(status=SeekStatus.CANCELLED)
        busy.check_free(user=user, rated=challenge.rated, playban=False)
        challenger_match = game_services.active_rated_match_id(user_id=challenge.challenger_id)
        if challenge.rated and challenger_match is not None:
            raise refuse("challenger_busy", name=challenge.challenger.public_name)
        busy.check_pair(user=user, other=challenge.challenger, rated=challenge.rated)
        match = game_services.match_create_seated(
            player0=challenge.challenger, player1=user, rules_preset=challenge.preset,
            target=challenge.target, turn_timer=challenge.turn_timer_seconds, rated=challenge.rated,
        )
        challenge.status = ChallengeStatus.ACCEPTED
        challenge.answered_at = now
        challenge.match = match
        challenge.save(update_fields=["status", "answered_at", "match"])
        url = reverse("games:table", args=[match.pk])
        send_on_commit([
            *_closed(challenge, ChallengeStatus.ACCEPTED), *challenge_push.lobby_changed(),
            *challenge_push.go_messages(challenge.challenger_id, url),
            *challenge_push.go_messages(user.pk, url),
        ])
    return match


def challenge_decline(*, user: User, challenge_id: int, now: datetime | None = None,
                      strict: bool = False) -> bool:
    """The challenged ``user`` declines (the challenger is told); or the challenger withdraws it. False
    when it was not open any more (idempotent: nothing changes), or with ``strict`` the reason why
    (a late decline on the notices socket or the no-script form gets an answer, not silence).

    :raises GameError: ``challenge_not_found``; with ``strict``, for a challenge no longer open:
        ``challenge_answered`` (accepted or declined), ``challenge_withdrawn``, ``challenge_expired``."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _locked(challenge_id, user)
        if strict:  # past due counts as expired here too (the sweep may not have reached it yet)
            _check_open(challenge, now)
        if challenge.status != ChallengeStatus.OPEN:
            return False
        status = ChallengeStatus.DECLINED if user.pk == challenge.challenged_id else ChallengeStatus.CANCELLED
        challenge.status = status
        challenge.answered_at = now
        challenge.save(update_fields=["status", "answered_at"])
        send_on_commit(_closed(challenge, status))
    return True


def challenges_sweep(*, now: datetime | None = None, grace_seconds: float = 0.0) -> int:
    """Expire the open challenges past their ``expires_at`` by more than ``grace_seconds`` and tell both
    players; returns how many. Idempotent and safe in several processes at once (the rows are locked,
    SKIP LOCKED, and re-checked: a second run finds nothing)."""
    now = now or timezone.now()
    with transaction.atomic():
        due = list(Challenge.objects.select_for_update(of=("self",), skip_locked=True)
                   .select_related("challenger", "challenged")
                   .filter(status=ChallengeStatus.OPEN,
                           expires_at__lte=now - timedelta(seconds=grace_seconds)))
        if not due:
            return 0
        ended = Challenge.objects.filter(pk__in=[c.pk for c in due], status=ChallengeStatus.OPEN).update(
            status=ChallengeStatus.EXPIRED, answered_at=now)
        send_on_commit([message for c in due
                                       for message in _closed(c, ChallengeStatus.EXPIRED)])
    return ended


def open_for(*, user: User, now: datetime | None = None) -> dict[str, list[dict[str, Any]]]:
    """``{"received": [...], "sent": [...]}``: ``user``'s open challenges (:func:`payload` each)."""
    now = now or timezone.now()
    rows = (Challenge.objects.filter(Q(challenged=user) | Q(challenger=user), status=ChallengeStatus.OPEN,
                                     expires_at__gt=now)
            .select_related("challenger", "challenged").order_by("created_at", "pk"))
    out: dict[str, list[dict[str, Any]]] = {"received": [], "sent": []}
    for challenge in rows:
        out["received" if challenge.challenged_id == user.pk else "sent"].append(payload(challenge))
    return out


def missed_go(*, user: User, now: datetime | None = None) -> str | None:
    """The table URL of the newest match started from a challenge ``user`` sent and the challenged
    accepted within the last :func:`challenge_seconds`, still active, whose table ``user`` has not
    opened yet (no ``SeatPresence`` row of their seat); else None. The notices socket sends it as a
    ``go`` on connect: the ``go`` pushed at the accept reaches only the sockets open then, and a BOT
    account accepts over HTTP the moment its stream shows the challenge, often while the challenger's
    browser is between the challenge form's POST and the next page's socket."""
    now = now or timezone.now()
    opened = SeatPresence.objects.filter(match_id=models.OuterRef("match_id"), seat=0)
    row = (Challenge.objects.filter(challenger=user, status=ChallengeStatus.ACCEPTED, match__isnull=False,
                                    match__status=MatchStatus.ACTIVE, match__player0=user,
                                    answered_at__gte=now - timedelta(seconds=challenge_seconds()))
           .exclude(models.Exists(opened)).order_by("-answered_at", "-pk").values_list("match_id", flat=True)
           .first())
    return None if row is None else reverse("games:table", args=[row])


def profile_url(user: User) -> str:
    return reverse("ratings:profile", args=[user.username])
