"""The site's user model: people (registered or guest) and the house bots share one table."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from engine.bots.base import LEVELS

BOT_LEVELS = range(1, 6)
"""House bot strengths, 1 (weakest) .. 5 (strongest)."""


class Standing(models.TextChoices):
    """An account's fair-play standing (docs/fairplay.md), set only by a moderator's action
    (``fairplay.services``):

    - ``good``: every account to begin with;
    - ``marked``: may log in and play casual matches, but is hidden from the rankings and refused by
      rated pools, seeks, challenges, rated tables and tournaments;
    - ``closed``: cannot log in (``is_active`` False); its rated matches are kept, its rating history
      frozen and shown as closed, and its recent opponents refunded.
    """

    GOOD = "good", _("in good standing")
    MARKED = "marked", _("marked for a fair-play violation")
    CLOSED = "closed", _("closed for a fair-play violation")


class User(AbstractUser):
    """A player account.

    - ``is_guest``: created by "play as guest"; no usable password. Signing up converts the same row
      (same id), so the guest's matches stay theirs.
    - ``is_bot`` + ``bot_level`` (1..5): a house bot, moved by the server; never logs in. ``bot_level`` is
      set exactly when ``is_bot`` is (database constraint).
    - ``display_name``: shown at the table; ``public_name`` falls back to ``username``.
    - ``username`` is unique ignoring case (database constraint on ``lower(username)``).
    - ``standing``: :class:`Standing` (fair play); ``standing_since``: when it last changed (null: never).
    - ``bot_account``: a BOT account (docs/bot-api.md): a member upgraded with an API token, played by an
      outside program over the bot API; marked BOT everywhere, rated in the BOT ranking. Never a house
      bot nor a guest (database constraints); never changes back. ``bot_paused_until``: a BOT paused
      after repeated timeouts may start no match before that time (null: not paused).
    """

    is_guest = models.BooleanField(_("guest"), default=False)
    is_bot = models.BooleanField(_("bot"), default=False)
    bot_level = models.PositiveSmallIntegerField(_("bot level"), null=True, blank=True)
    display_name = models.CharField(_("display name"), max_length=60, blank=True)
    standing = models.CharField(_("fair-play standing"), max_length=6, choices=Standing.choices,
                                default=Standing.GOOD)
    standing_since = models.DateTimeField(_("standing since"), null=True, blank=True)
    bot_account = models.BooleanField(_("BOT account"), default=False)
    bot_paused_until = models.DateTimeField(_("BOT paused until"), null=True, blank=True)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(is_bot=False, bot_level__isnull=True)
                    | Q(is_bot=True, bot_level__isnull=False, bot_level__gte=1, bot_level__lte=5)
                ),
                name="accounts_user_bot_level_iff_bot",
            ),
            models.CheckConstraint(
                condition=~Q(is_bot=True, is_guest=True), name="accounts_user_bot_not_guest"
            ),
            models.CheckConstraint(
                condition=~Q(bot_account=True, is_bot=True) & ~Q(bot_account=True, is_guest=True),
                name="accounts_user_bot_account_is_member",
            ),
            # "Alice" and "alice" are one name (the sign-up form checks first; this catches its races).
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        ]

    @property
    def in_good_standing(self) -> bool:
        """Whether this account may play rated matches and appear in the rankings (not marked or closed)."""
        return self.standing == Standing.GOOD

    @property
    def public_name(self) -> str:
        """Name shown to other players: ``display_name`` or else ``username``; a house bot's name is
        its level's name (engine ``LEVELS``) in the active language (pt-BR or English)."""
        if self.is_bot and self.bot_level in LEVELS:
            info = LEVELS[self.bot_level]
            name = info.name_pt if (get_language() or "en").lower().startswith("pt") else info.name_en
            label = gettext("Bot %(level)s · %(name)s") % {"level": self.bot_level, "name": name}
            # Extra accounts of one level (bot-3-2, bot-3-3: a tournament field) carry their number.
            number = self.username.removeprefix(f"bot-{self.bot_level}-")
            return f"{label} {number}" if number != self.username and number.isdigit() else label
        return self.display_name or self.username


class ApiToken(models.Model):
    """A personal API token (docs/bot-api.md "Tokens"): shown once at creation, stored as the SHA-256
    of its text (``token_hash``, hex); ``prefix`` (its first characters) names it in lists. ``scopes``:
    a list of :data:`accounts.tokens.SCOPES` codes. Revoked (``revoked_at`` set) tokens stay, unusable,
    so a leaked token's use can be traced; ``last_used_at`` is updated at most once a minute."""

    user = models.ForeignKey("accounts.User", on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=60)
    token_hash = models.CharField(_("token hash"), max_length=64, unique=True, editable=False)
    prefix = models.CharField(_("prefix"), max_length=12, editable=False)
    scopes = models.JSONField(_("scopes"), default=list)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-pk")
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        indexes = [models.Index(fields=("user", "revoked_at"), name="accounts_token_user_live")]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"

    @property
    def is_live(self) -> bool:
        return self.revoked_at is None
