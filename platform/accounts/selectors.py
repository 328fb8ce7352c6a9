"""Account reads."""

from __future__ import annotations

from django.db.models import QuerySet, Value
from django.db.models.functions import Lower

from accounts.models import User
from accounts.services import house_bot_username


def house_bot_get(*, level: int) -> User:
    """The house bot of ``level`` (1..5).

    :raises ValueError: if ``level`` is not in 1..5.
    :raises User.DoesNotExist: if ``ensure_house_bots`` has not run.
    """
    return User.objects.get(username=house_bot_username(level), is_bot=True)


def house_bots_list() -> QuerySet[User]:
    """All bot accounts, weakest first."""
    return User.objects.filter(is_bot=True).order_by("bot_level")


def player_get(*, username: str) -> User | None:
    """The member or house bot named ``username`` ignoring case (usernames are unique ignoring case), or
    None: unknown, a guest (guests have no public page), or a name no account can have (over 150
    characters). The name is first NFKC-normalised as sign-up stores it (Django's
    ``normalize_username``: typed ``ǅemal``, U+01C5, finds ``Džemal``); "ignoring case" is the
    database's (PostgreSQL folds any letter, SQLite ASCII letters only), as in the unique constraint."""
    username = User.normalize_username(username)
    if len(username) > 150:
        return None
    # lower(username) = lower(name): the unique index's own expression, so an index lookup (Django's
    # iexact, UPPER(username) = UPPER(name), read all 100,000 members: ~15 ms a profile page).
    return (User.objects.alias(username_lower=Lower("username"))
            .filter(username_lower=Lower(Value(username)), is_guest=False).order_by().first())
