"""Account writes: guests, guest-to-member conversion and the house bots (HackSoft-style services)."""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction

from accounts.models import BOT_LEVELS, User
from engine.bots.base import LEVELS

HOUSE_BOT_NAMES = {level: info.name_en for level, info in LEVELS.items()}
"""English display names of the house bots by level, from the engine's bot ladder (usernames are
``bot-<level>``; pages show the name in the reader's language, see ``User.public_name``)."""


class AccountError(ValueError):
    """An account operation was asked for on the wrong kind of user; nothing was changed."""


class UsernameTaken(AccountError):
    """The username was free when the form checked it but another sign-up took it before the save
    (the database's unique constraint caught the race); nothing was changed."""


def _save_claiming_username(user: User) -> None:
    """Save ``user`` in a savepoint; a unique-constraint clash on its username (compared ignoring case)
    becomes ``UsernameTaken``.

    The savepoint keeps the caller's transaction usable after the failed INSERT/UPDATE (PostgreSQL aborts
    the whole transaction otherwise). Any other integrity error is re-raised unchanged.

    :raises UsernameTaken: another row holds ``user.username`` (in any case).
    """
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError as exc:
        if User.objects.filter(username__iexact=user.username).exclude(pk=user.pk).exists():
            raise UsernameTaken(f"username {user.username!r} is already taken") from exc
        raise


def house_bot_username(level: int) -> str:
    """Username of the house bot of ``level`` (1..5), e.g. ``bot-3``.

    :raises ValueError: if ``level`` is not in 1..5.
    """
    if level not in BOT_LEVELS:
        raise ValueError(f"bot level must be 1..5, got {level!r}")
    return f"bot-{level}"


def guest_create() -> User:
    """Create a guest user: username ``guest-<10 hex>``, display name ``Guest <4 digits>``, no password.

    The caller logs it in (``django.contrib.auth.login``).
    """
    while True:
        username = f"guest-{secrets.token_hex(5)}"
        if not User.objects.filter(username=username).exists():
            break
    user = User(username=username, display_name=f"Guest {secrets.randbelow(10_000):04d}", is_guest=True)
    user.set_unusable_password()
    user.save()
    return user


@transaction.atomic
def member_create(*, username: str, password: str, email: str = "") -> User:
    """Create a registered member with a hashed password.

    ``username``/``password`` must already be validated (``SignUpForm`` does it); the validation can
    still lose a race against a simultaneous sign-up with the same username, which this reports.

    :raises UsernameTaken: the username was taken meanwhile (no row created).
    """
    user = User(username=username, email=email)
    user.set_password(password)
    _save_claiming_username(user)
    return user


@transaction.atomic
def guest_convert(*, user: User, username: str, password: str, email: str = "") -> User:
    """Turn a guest into a registered member IN PLACE (same row and id, so its matches stay its own).

    ``username``/``password`` must already be validated (``SignUpForm`` does it). The display name is
    reset to the new username.

    :raises AccountError: if ``user`` is not a guest (members and bots cannot be converted).
    :raises UsernameTaken: the username was taken meanwhile (the guest is left unchanged).
    """
    locked = User.objects.select_for_update().get(pk=user.pk)
    if not locked.is_guest or locked.is_bot:
        raise AccountError("only a guest account can be converted")
    locked.username = username
    locked.email = email
    locked.display_name = ""
    locked.is_guest = False
    locked.set_password(password)
    _save_claiming_username(locked)
    return locked


@transaction.atomic
def house_bots_ensure() -> list[User]:
    """Create or repair the five house bots ``bot-1``..``bot-5``; idempotent.

    Each gets ``is_bot=True``, its ``bot_level``, display name ``Bot <level> · <name>`` and an unusable
    password (bots never log in). Returns them ordered by level.
    """
    bots = []
    for level in BOT_LEVELS:
        bot, _ = User.objects.get_or_create(
            username=house_bot_username(level),
            defaults={"is_bot": True, "bot_level": level},
        )
        wanted = {
            "is_bot": True,
            "bot_level": level,
            "is_guest": False,
            "display_name": f"Bot {level} · {HOUSE_BOT_NAMES[level]}",
        }
        changed = [field for field, value in wanted.items() if getattr(bot, field) != value]
        for field in changed:
            setattr(bot, field, wanted[field])
        if bot.has_usable_password():
            bot.set_unusable_password()
            changed.append("password")
        if changed:
            bot.save(update_fields=changed)
        bots.append(bot)
    return bots


def house_bot_pool(*, level: int, count: int) -> list[User]:
    """At least ``count`` house-bot accounts of ``level``: ``bot-<level>`` then ``bot-<level>-2``,
    ``bot-<level>-3``, ... (created when missing; idempotent, safe against a concurrent call). They share
    the level's strength and fixed Elo and each has its own name (``User.public_name`` adds the
    number). Tournaments seat several bots of one level in one field with these. Returns ``count``
    accounts, ``bot-<level>`` first.

    :raises ValueError: ``level`` not in 1..5 or ``count`` not in 1..500.
    """
    username = house_bot_username(level)
    if not 1 <= count <= 500:
        raise ValueError(f"count must be 1..500, got {count!r}")
    if not User.objects.filter(username=username).exists():
        house_bots_ensure()
    bots = [User.objects.get(username=username)]
    for number in range(2, count + 1):
        name = f"{username}-{number}"
        try:
            with transaction.atomic():
                bot, created = User.objects.get_or_create(
                    username=name,
                    defaults={"is_bot": True, "bot_level": level,
                              "display_name": f"Bot {level} · {HOUSE_BOT_NAMES[level]} {number}"},
                )
                if created:
                    bot.set_unusable_password()
                    bot.save(update_fields=["password"])
        except IntegrityError:  # a concurrent call created it first
            bot = User.objects.get(username=name)
        bots.append(bot)
    return bots
