"""The upgrade to a BOT account (docs/bot-api.md "Tokens and BOT accounts"): ``POST
/api/v1/bot/account/upgrade/`` and the tokens page's button (``botapi.page_views.upgrade``) both call
:func:`bot_upgrade`, so one rule decides."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from accounts.models import User
from botapi.errors import BotApiError
from games.models import Match, MatchStatus


def _rated_against_person(user_id: int) -> bool:
    """Whether ``user_id`` finished a rated match against a person (the other seat not a house bot)."""
    return Match.objects.filter(
        Q(player0_id=user_id, player1__is_bot=False) | Q(player1_id=user_id, player0__is_bot=False),
        rated=True, status=MatchStatus.FINISHED,
    ).exists()


def _in_rated_match(user_id: int) -> bool:
    """Whether ``user_id`` is seated in a rated match not over yet (waiting or in play)."""
    return Match.objects.filter(
        Q(player0_id=user_id) | Q(player1_id=user_id),
        rated=True, status__in=(MatchStatus.WAITING, MatchStatus.ACTIVE),
    ).exists()


def is_fresh(user: User) -> bool:
    """Whether ``user`` (a member, not a BOT account yet) may become a BOT account now (two queries)."""
    return not _rated_against_person(user.pk) and not _in_rated_match(user.pk)


def bot_upgrade(user: User) -> User:
    """Make ``user`` a BOT account, for good, and return it. A BOT account stays one: calling again
    changes nothing (the same answer).

    :raises BotApiError: ``not_fresh`` (400): a guest or house bot, an account that has played a rated
        match against a person, or one seated in a rated match now (a BOT account's rating is the BOT
        ranking's: a person's rated history must not move there).
    """
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)  # two clicks, or the page and the API
        if locked.bot_account:
            return locked
        if locked.is_guest or locked.is_bot:
            raise BotApiError("not_fresh", "only a member's account can become a BOT account")
        if _rated_against_person(locked.pk):
            raise BotApiError("not_fresh", "this account has played rated matches against people: "
                                           "make a new account for your bot")
        if _in_rated_match(locked.pk):
            raise BotApiError("not_fresh", "finish your rated match first")
        locked.bot_account = True
        locked.save(update_fields=["bot_account"])
    user.bot_account = True
    return locked
