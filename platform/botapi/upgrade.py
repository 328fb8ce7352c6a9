"""Turning a member's account into a BOT account (docs/bot-api.md "Tokens and BOT accounts")."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from accounts.models import User
from botapi.errors import BotApiError
from games.models import Match, MatchStatus


def played_people_rated(user: User) -> bool:
    """Whether ``user`` has finished a rated match against a person (any opponent but a house bot; a BOT
    account counts as a person here: its owner chose to rate against it)."""
    return (Match.objects.filter(status=MatchStatus.FINISHED, rated=True)
            .filter(Q(player0=user, player1__is_bot=False) | Q(player1=user, player0__is_bot=False))
            .exists())


def bot_upgrade(user: User) -> User:
    """Make ``user`` a BOT account, for good, and return it (saved). Idempotent: a BOT account stays
    one and nothing changes.

    Only a *fresh* account: never a finished rated match against a person (its rating among people would
    otherwise move into the BOT ranking), and no active rated match now. A guest or a house bot never
    holds a token, so never gets here; refused all the same. The user's row is locked (two requests at
    once: one upgrade).

    :raises BotApiError: ``not_fresh`` (400), ``not_authenticated`` (a guest, a house bot, an inactive
        account)."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.bot_account:
            return locked
        if locked.is_guest or locked.is_bot or not locked.is_active:
            raise BotApiError("not_authenticated", "only a member's account can become a BOT account")
        if played_people_rated(locked):
            raise BotApiError("not_fresh", "this account has played rated matches against members (people or"
                                           " BOT accounts): only a fresh account can become a BOT account"
                                           " (make a new one)")
        active = (Match.objects.filter(Q(player0=locked) | Q(player1=locked), status=MatchStatus.ACTIVE,
                                       rated=True).values_list("pk", flat=True).first())
        if active is not None:
            raise BotApiError("not_fresh", f"finish your rated match {active} first")
        locked.bot_account = True
        locked.save(update_fields=["bot_account"])
    return locked


def is_fresh(user: User) -> bool:
    """Whether ``user`` (a member, not a BOT account yet) may become a BOT account now: :func:`bot_upgrade`'s
    rule, asked before offering the button (the tokens page, ``botapi.templatetags.bot_upgrade_tags``)."""
    if played_people_rated(user):
        return False
    return not Match.objects.filter(Q(player0=user) | Q(player1=user), status=MatchStatus.ACTIVE,
                                    rated=True).exists()
