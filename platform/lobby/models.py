"""Rows of the lobby (docs/lobby.md).

- :class:`Pool`: a quick-pairing pool, one (target score, turn timer, rated or casual) combination of the
  classic rules; editable in the admin.
- :class:`PoolEntry`: one player's wait in one pool, from join to its end (paired, cancelled, left, a
  house bot instead). At most one *waiting* entry per player, site-wide (a partial unique constraint).
- :class:`Seek`: an open challenge of the lobby, that anyone (within its rating range) may accept.
- :class:`Challenge`: a direct challenge from one member to another (the profile's "Challenge" button).
- :class:`LobbyPreference`: a member's choices: whether others may challenge them directly.
- :class:`Playban`: a wait before the next quick pairing, earned by leaving rated matches.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Pool(models.Model):
    """A quick-pairing pool. Classic rules always; the rest is editable in the admin.

    The rating window of a waiting player is ``window_start + window_growth * seconds waited`` rating
    points either side (lichess's pool matcher widens its window with waiting time too); two players
    may be paired when each is inside the other's window.
    """

    slug = models.SlugField(_("slug"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=60)
    target = models.PositiveSmallIntegerField(_("target score"), default=100)
    turn_timer_seconds = models.PositiveIntegerField(_("turn timer (s)"), default=60)
    rated = models.BooleanField(_("rated"), default=True)
    active = models.BooleanField(_("active"), default=True)
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    window_start = models.PositiveIntegerField(_("rating window at the start (± points)"), default=100)
    window_growth = models.FloatField(_("rating window growth (points per second waited)"), default=10.0)
    # A BOT pool (docs/bot-api.md "Who plays whom"): only BOT accounts enter it, through the bot API;
    # people and their pages never see it. A people's pool refuses BOT accounts.
    bots_only = models.BooleanField(_("BOT accounts only"), default=False)
    bot_after_seconds = models.PositiveSmallIntegerField(
        _("seconds before a house bot replaces a missing opponent (for players who ask)"), default=30)
    # When this pool's latest wave ran (lobby.pools.run_wave): with several Daphne processes, each one's
    # loop skips a pool whose wave another process ran less than lobby.waves.MIN_GAP_SECONDS ago.
    last_wave_at = models.DateTimeField(_("latest wave"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ("position", "pk")
        verbose_name = _("pool")
        verbose_name_plural = _("pools")
        constraints = [
            models.CheckConstraint(condition=Q(target__in=(50, 100)), name="lobby_pool_target"),
            models.CheckConstraint(condition=Q(turn_timer_seconds__gte=15, turn_timer_seconds__lte=600),
                                   name="lobby_pool_timer"),
        ]

    def __str__(self) -> str:
        return self.name


class EntryStatus(models.TextChoices):
    WAITING = "waiting", _("waiting")
    PAIRED = "paired", _("paired")
    BOT = "bot", _("playing a house bot instead")
    CANCELLED = "cancelled", _("cancelled")
    LEFT = "left", _("left (socket gone)")


class PoolEntry(models.Model):
    """One wait of one player in one pool. ``rating`` is the rating shown to the player when they joined
    (provisional or not: a new player is matched by the rating they see)."""

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pool_entries")
    rating = models.FloatField(_("rating when joining"))
    status = models.CharField(_("status"), max_length=10, choices=EntryStatus.choices,
                              default=EntryStatus.WAITING)
    bot_fallback = models.BooleanField(_("a house bot if nobody comes"), default=False)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    disconnected_at = models.DateTimeField(_("socket lost"), null=True, blank=True)
    # The latest sign of life of a waiting socket (join, reconnect, its heartbeat every
    # lobby.pools.HEARTBEAT_SECONDS): an entry whose Daphne process died never got its disconnect.
    seen_at = models.DateTimeField(_("socket last seen"), null=True, blank=True)
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)
    match = models.ForeignKey("games.Match", on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="pool_entries")

    class Meta:
        verbose_name = _("pool entry")
        verbose_name_plural = _("pool entries")
        constraints = [
            models.UniqueConstraint(fields=("user",), condition=Q(status="waiting"),
                                    name="lobby_one_waiting_entry"),
        ]
        indexes = [models.Index(fields=("pool", "status"), name="lobby_entry_pool_status")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.pool_id} ({self.status})"


class SeekStatus(models.TextChoices):
    OPEN = "open", _("open")
    ACCEPTED = "accepted", _("accepted")
    CANCELLED = "cancelled", _("cancelled")
    EXPIRED = "expired", _("expired")


class Seek(models.Model):
    """An open challenge in the lobby. ``rating_min``/``rating_max`` (optional) bound who may accept."""

    creator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seeks")
    preset = models.CharField(_("rules preset"), max_length=40, default="classic")
    target = models.PositiveSmallIntegerField(_("target score"), default=100)
    turn_timer_seconds = models.PositiveIntegerField(_("turn timer (s)"), null=True, blank=True)
    rated = models.BooleanField(_("rated"), default=False)
    rating_min = models.PositiveIntegerField(_("lowest rating"), null=True, blank=True)
    rating_max = models.PositiveIntegerField(_("highest rating"), null=True, blank=True)
    creator_rating = models.FloatField(_("creator's rating"))
    status = models.CharField(_("status"), max_length=10, choices=SeekStatus.choices, default=SeekStatus.OPEN)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    accepted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                    blank=True, related_name="+")
    match = models.ForeignKey("games.Match", on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+")

    class Meta:
        ordering = ("-created_at",)
        verbose_name = _("open challenge")
        verbose_name_plural = _("open challenges")
        constraints = [
            models.UniqueConstraint(fields=("creator",), condition=Q(status="open"),
                                    name="lobby_one_open_seek"),
        ]
        indexes = [models.Index(fields=("status", "expires_at"), name="lobby_seek_status")]


class ChallengeStatus(models.TextChoices):
    OPEN = "open", _("open")
    ACCEPTED = "accepted", _("accepted")
    DECLINED = "declined", _("declined")
    CANCELLED = "cancelled", _("cancelled")
    EXPIRED = "expired", _("expired")


class Challenge(models.Model):
    """A direct challenge from ``challenger`` to ``challenged`` (a profile's "Challenge" button)."""

    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                   related_name="challenges_sent")
    challenged = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                   related_name="challenges_received")
    preset = models.CharField(_("rules preset"), max_length=40, default="classic")
    target = models.PositiveSmallIntegerField(_("target score"), default=100)
    turn_timer_seconds = models.PositiveIntegerField(_("turn timer (s)"), null=True, blank=True)
    rated = models.BooleanField(_("rated"), default=False)
    status = models.CharField(_("status"), max_length=10, choices=ChallengeStatus.choices,
                              default=ChallengeStatus.OPEN)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    answered_at = models.DateTimeField(_("answered"), null=True, blank=True)
    match = models.ForeignKey("games.Match", on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+")

    class Meta:
        ordering = ("-created_at",)
        verbose_name = _("challenge")
        verbose_name_plural = _("challenges")
        constraints = [
            models.UniqueConstraint(fields=("challenger", "challenged"), condition=Q(status="open"),
                                    name="lobby_one_open_challenge_per_pair"),
            models.CheckConstraint(condition=~Q(challenger=models.F("challenged")),
                                   name="lobby_challenge_not_self"),
        ]
        indexes = [models.Index(fields=("challenged", "status"), name="lobby_challenge_to_status")]


class LobbyPreference(models.Model):
    """A member's lobby choices (no row = the defaults)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                related_name="lobby_preference")
    accepts_challenges = models.BooleanField(_("accept direct challenges"), default=True)
    # Off by default: a person chooses to be challenged by programs (docs/bot-api.md "Who plays whom").
    accepts_bot_challenges = models.BooleanField(_("accept challenges from BOT accounts"), default=False)

    class Meta:
        verbose_name = _("lobby preference")
        verbose_name_plural = _("lobby preferences")


class PlaybanReason(models.TextChoices):
    ABANDONED = "abandoned", _("left a rated match")
    TIMEOUTS = "timeouts", _("let the turn timer run out")


class Playban(models.Model):
    """A wait before the next quick pairing (or open challenge), lichess's "playban": earned by leaving a
    rated match (the opponent claimed the win) or losing one on time; each new one within the memory
    period is longer (docs/lobby.md). ``match`` is the match that earned it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="playbans")
    reason = models.CharField(_("reason"), max_length=12, choices=PlaybanReason.choices)
    match = models.ForeignKey("games.Match", on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    ends_at = models.DateTimeField(_("ends"))

    class Meta:
        ordering = ("-created_at",)
        verbose_name = _("playban")
        verbose_name_plural = _("playbans")
        constraints = [
            models.UniqueConstraint(fields=("user", "match"), name="lobby_one_playban_per_match"),
        ]
        indexes = [models.Index(fields=("user", "ends_at"), name="lobby_playban_user_end")]
