"""Fair play (docs/fairplay.md): what players report, what the site measures, what moderators do.

- :class:`Report`: one player's report of another (reason, optional comment, where it was made).
- :class:`Sighting`: an account seen from a network (IP) or a browser (device cookie), stored only as a
  salted hash (``fairplay.hashing``), so the site can say "same network as X" and nothing more.
- :class:`SeatSignal`: one seat of one analysed rated match: its decisions, how many agreed with level 5,
  the expected points lost (the assistance signal's raw numbers).
- :class:`PlayerSignal`: one player's rolling figures and the strength of the case against them: the
  moderation queue is these rows, strongest first.
- :class:`PairSignal`: two players' figures against each other (collusion, rating transfer).
- :class:`ModerationAction`: every moderator action, with who and why (append-only).

Signals are never shown to other players nor through the public API: only the admin reads these tables.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from fairplay.assistance import method_version


class ReportReason(models.TextChoices):
    ASSISTANCE = "assistance", _("Computer assistance")
    COLLUSION = "collusion", _("Collusion or rating transfer")
    SANDBAGGING = "sandbagging", _("Losing on purpose (sandbagging)")
    ABUSIVE_NAME = "name", _("Offensive username")
    OTHER = "other", _("Other")
    # filed by the site itself (no reporter), for a BOT account (docs/bot-api.md "Fair limits")
    BOT_TIMEOUTS = "bot_timeouts", _("BOT paused after repeated timeouts")
    BOT_THROTTLED = "bot_throttle", _("BOT API token throttled repeatedly")


class ReportPlace(models.TextChoices):
    """Where the report was made from."""

    PROFILE = "profile", _("profile")
    TABLE = "table", _("table")
    REPLAY = "replay", _("replay")
    SYSTEM = "system", _("the site itself")


class ReportStatus(models.TextChoices):
    OPEN = "open", _("open")
    DISMISSED = "dismissed", _("dismissed")
    ACTED = "acted", _("acted on")


class Report(models.Model):
    """A report of ``reported`` by ``reporter`` (null: filed by the site itself, place ``system``:
    ``fairplay.reporting.system_report``). ``match``: the match it was made about (from a table or a
    replay), else null. ``comment``: up to 1000 characters, optional. One open report per (reporter,
    reported, reason): a repeat is acknowledged the same way and stores nothing new."""

    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True,
                                 related_name="reports_made")
    reported = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 related_name="reports_received")
    reason = models.CharField(_("reason"), max_length=12, choices=ReportReason.choices)
    comment = models.TextField(_("comment"), max_length=1000, blank=True)
    place = models.CharField(_("made from"), max_length=8, choices=ReportPlace.choices)
    match = models.ForeignKey("games.Match", on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+")
    status = models.CharField(_("status"), max_length=10, choices=ReportStatus.choices,
                              default=ReportStatus.OPEN)
    handled_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    handled_at = models.DateTimeField(_("handled"), null=True, blank=True)
    created_at = models.DateTimeField(_("reported at"), auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [
            models.CheckConstraint(condition=~Q(reporter=F("reported")), name="fairplay_report_not_self"),
            models.UniqueConstraint(fields=("reporter", "reported", "reason"), condition=Q(status="open"),
                                    name="fairplay_report_one_open"),
        ]
        indexes = [models.Index(fields=("reported", "status"), name="fairplay_report_reported_idx")]

    def __str__(self) -> str:
        return f"report {self.pk}: {self.reporter_id} -> {self.reported_id} ({self.reason})"


class SightingKind(models.TextChoices):
    NETWORK = "ip", _("network (IP address)")
    DEVICE = "device", _("device (browser cookie)")


class Sighting(models.Model):
    """``user`` seen from the network or device whose salted hash is ``digest`` (64 hex characters,
    ``fairplay.hashing``): first and last time, and how many times (one per login or match joined)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(_("kind"), max_length=6, choices=SightingKind.choices)
    digest = models.CharField(_("salted hash"), max_length=64)
    first_seen = models.DateTimeField(_("first seen"), auto_now_add=True)
    last_seen = models.DateTimeField(_("last seen"))
    times = models.PositiveIntegerField(_("times seen"), default=1)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("user", "kind", "digest"), name="fairplay_sighting_unique"),
        ]
        indexes = [models.Index(fields=("kind", "digest"), name="fairplay_sighting_digest_idx")]

    def __str__(self) -> str:
        return f"user {self.user_id} {self.kind} {self.digest[:8]}…"


class SeatSignal(models.Model):
    """One seat of one analysed rated match (the assistance signal's raw numbers).

    - ``decisions``: the seat's decisions judged (``engine.analysis``: forced and automatic moves skipped);
    - ``agreed``: how many of them level 5 would have made too (discards, knock decisions, draws, offers);
    - ``loss``: the expected hand points the seat's choices lost in total against the best option found;
    - ``why``: ``sample`` (the background sample) or ``reported`` (every match of a reported player);
    - ``flagged``: ``[[hand, step], ...]``, the contested decisions the seat played as level 5 would (the
      first ten, ``fairplay.assistance.Tally.flagged``): the moderators open the replay there.
    """

    match = models.ForeignKey("games.Match", on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField(_("seat"))
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    decisions = models.PositiveIntegerField(_("decisions"))
    agreed = models.PositiveIntegerField(_("agreed with level 5"))
    loss = models.FloatField(_("expected points lost"))
    why = models.CharField(_("analysed because"), max_length=10, default="sample")
    flagged = models.JSONField(_("decisions played as level 5"), default=list, blank=True)
    version = models.PositiveSmallIntegerField(_("method version"), default=method_version)
    analysed_at = models.DateTimeField(_("analysed"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("match", "seat"), name="fairplay_seatsignal_unique"),
            models.CheckConstraint(condition=Q(agreed__lte=F("decisions")),
                                   name="fairplay_seatsignal_agreed"),
        ]
        indexes = [models.Index(fields=("player", "-analysed_at"), name="fairplay_seatsignal_player_idx")]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.seat}: {self.agreed}/{self.decisions}"


class PlayerSignal(models.Model):
    """One player's fair-play figures (recomputed by the ``fairplay.signals_refresh`` task) and the
    ``strength`` of the case (0 = nothing to look at; the queue sorts by it, strongest first).

    ``reasons``: a list of ``{"signal": name, "value": number, "strength": number, "note": text}``, the
    evidence behind ``strength``, strongest first (docs/fairplay.md lists the signals).
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                related_name="fairplay_signal")
    strength = models.FloatField(_("strength"), default=0.0)
    reasons = models.JSONField(_("evidence"), default=list, blank=True)
    decisions = models.PositiveIntegerField(_("decisions analysed"), default=0)
    agreement = models.FloatField(_("agreement with level 5"), null=True, blank=True)
    loss_per_decision = models.FloatField(_("expected points lost per decision"), null=True, blank=True)
    assistance_z = models.FloatField(_("agreement z-score in the rating band"), null=True, blank=True)
    abandoned = models.PositiveIntegerField(_("rated matches abandoned"), default=0)
    early_resigns = models.PositiveIntegerField(_("rated matches resigned early"), default=0)
    drops_before_tournaments = models.PositiveIntegerField(_("rating drops before tournaments"), default=0)
    open_reports = models.PositiveIntegerField(_("open reports"), default=0)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("moderation queue entry")
        verbose_name_plural = _("moderation queue")
        ordering = ("-strength", "user")
        indexes = [models.Index(F("strength").desc(), name="fairplay_player_strength_idx")]

    def __str__(self) -> str:
        return f"user {self.user_id}: {self.strength:.2f}"


class PairSignal(models.Model):
    """Two players' rated matches against each other (``low`` has the smaller user id).

    - ``matches``: their rated matches against each other (in the window); ``share_low``/``share_high``:
      that count over each one's rated matches (0..1);
    - ``transferred``: Elo points ``high`` gained from ``low`` in them, net (negative: the other way);
    - ``resign_share``: the share of those matches ended by a resignation; ``high_deadwood_knocks``: the
      share of their hands ended by a knock with high deadwood (docs/fairplay.md);
    - ``overlap``: the share of their sessions (days played) they played each other;
    - ``same_network`` / ``same_device``: a sighting hash in common.
    """

    low = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    high = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    matches = models.PositiveIntegerField(_("rated matches together"), default=0)
    share_low = models.FloatField(_("share of the first's rated matches"), default=0.0)
    share_high = models.FloatField(_("share of the second's rated matches"), default=0.0)
    transferred = models.FloatField(_("Elo points transferred"), default=0.0)
    resign_share = models.FloatField(_("share ended by resignation"), default=0.0)
    high_deadwood_knocks = models.FloatField(_("share of hands knocked with high deadwood"), default=0.0)
    overlap = models.FloatField(_("session overlap"), default=0.0)
    same_network = models.BooleanField(_("same network"), default=False)
    same_device = models.BooleanField(_("same device"), default=False)
    strength = models.FloatField(_("strength"), default=0.0)
    reasons = models.JSONField(_("evidence"), default=list, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ("-strength", "low", "high")
        constraints = [
            models.UniqueConstraint(fields=("low", "high"), name="fairplay_pair_unique"),
            models.CheckConstraint(condition=Q(low__lt=F("high")), name="fairplay_pair_ordered"),
        ]
        indexes = [models.Index(F("strength").desc(), name="fairplay_pair_strength_idx")]

    def __str__(self) -> str:
        return f"pair {self.low_id}/{self.high_id}: {self.strength:.2f}"


class ActionKind(models.TextChoices):
    WARN = "warn", _("warn")
    MARK = "mark", _("mark")
    UNMARK = "unmark", _("clear the mark")
    CLOSE = "close", _("close")
    RENAME = "rename", _("force a rename")
    DISMISS = "dismiss", _("dismiss reports")


class ModerationAction(models.Model):
    """One moderator action on ``target``: who (``moderator``; null once that account is deleted), what
    (``kind``), why (``reason``, required), and ``details`` (JSON: the old and new name of a rename, the
    refunds a closure made, the reports it handled). Rows are never edited."""

    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                  related_name="+")
    target = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(_("action"), max_length=8, choices=ActionKind.choices)
    reason = models.TextField(_("why"), max_length=2000)
    details = models.JSONField(_("details"), default=dict, blank=True)
    created_at = models.DateTimeField(_("at"), auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [models.CheckConstraint(condition=~Q(reason=""), name="fairplay_action_has_reason")]
        # The moderators' permission (group "fair-play moderators", migration 0003): the queue's pages
        # and every action of fairplay.services from the admin.
        permissions = [("moderate", "Can see the moderation queue and act on accounts")]

    def __str__(self) -> str:
        return f"{self.kind} {self.target_id} by {self.moderator_id}"


class Notice(models.Model):
    """A moderator's warning to ``user``, shown once on the next page it loads (``fairplay.notices``):
    a fixed sentence, and ``message`` when the moderator wrote one for the player (the action's
    ``reason`` is the moderators' own note and is never shown). ``seen_at``: when it was shown (null:
    not yet)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    action = models.OneToOneField(ModerationAction, on_delete=models.CASCADE, related_name="notice")
    message = models.TextField(_("message to the player"), max_length=1000, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    seen_at = models.DateTimeField(_("seen"), null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=("user",), condition=Q(seen_at__isnull=True),
                                name="fairplay_notice_unseen_idx")]

    def __str__(self) -> str:
        return f"notice {self.pk} to {self.user_id}"
