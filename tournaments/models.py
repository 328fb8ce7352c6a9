"""Tournament schedules, tournaments, their players, rounds and pairings.

A :class:`TournamentSchedule` (edited in the admin) makes one :class:`Tournament` per start time
(unique ``(schedule, starts_at)``); a tournament's life is ``scheduled`` -> ``open`` (registration) ->
``running`` (rounds) -> ``finished``, or ``cancelled`` when nobody (no person) joined. Each step is
its own task (``tournaments.tasks``) guarded by a row lock and this status.
"""

from __future__ import annotations

import math

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from engine.rules import PRESETS

DAYS = "0123456"
"""Days of the week as digits, Monday 0 .. Sunday 6 (``datetime.weekday()``)."""

MAX_AUTO_ROUNDS = 7
"""Cap of the default number of rounds, ``ceil(log2(players)) + 1``."""


def default_rounds(players: int, cap: int = MAX_AUTO_ROUNDS) -> int:
    """``ceil(log2(players)) + 1`` capped at ``cap`` (at least 1): enough rounds for a clear winner."""
    return max(1, min(cap, math.ceil(math.log2(max(players, 2))) + 1))


def validate_days(value: str) -> None:
    if not value or any(c not in DAYS for c in value) or len(set(value)) != len(value):
        raise ValidationError(_("Days of the week: digits 0 (Monday) to 6 (Sunday), each at most once."))


class Frequency(models.TextChoices):
    DAILY = "daily", _("daily, at the time of day")
    HOURLY = "hourly", _("hourly, at the minute of the time of day")


class TournamentSchedule(models.Model):
    """When tournaments happen and how they are played.

    - ``name_en`` / ``name_pt``: shown in the reader's language.
    - ``frequency`` + ``time_of_day`` (UTC) + ``days_of_week`` (digits 0=Monday..6): the start times.
    - ``rules_preset`` (engine preset), ``match_target`` points, ``turn_timer_seconds`` per action.
    - ``rounds``: fixed number of rounds, or null for ``ceil(log2(players)) + 1`` capped at ``max_rounds``.
    - ``min_players``: house bots fill the field up to it; ``max_players``: registration closes there.
    """

    name_en = models.CharField(_("name (English)"), max_length=80)
    name_pt = models.CharField(_("name (Portuguese)"), max_length=80)
    frequency = models.CharField(_("frequency"), max_length=10, choices=Frequency.choices,
                                 default=Frequency.DAILY)
    time_of_day = models.TimeField(_("time of day (UTC)"))
    days_of_week = models.CharField(_("days of the week"), max_length=7, default=DAYS,
                                    validators=[validate_days],
                                    help_text=_("Digits 0 (Monday) to 6 (Sunday), e.g. 0123456."))
    rules_preset = models.CharField(_("rule preset"), max_length=40, default="classic")
    match_target = models.PositiveSmallIntegerField(_("match target"), default=50,
                                                    choices=[(50, "50"), (100, "100")])
    turn_timer_seconds = models.PositiveSmallIntegerField(
        _("turn timer (s)"), default=30, validators=[MinValueValidator(15), MaxValueValidator(600)]
    )
    rounds = models.PositiveSmallIntegerField(_("rounds"), null=True, blank=True,
                                              validators=[MinValueValidator(1), MaxValueValidator(15)],
                                              help_text=_("Empty: ceil(log2(players)) + 1, capped."))
    max_rounds = models.PositiveSmallIntegerField(_("most rounds (automatic)"), default=MAX_AUTO_ROUNDS,
                                                  validators=[MinValueValidator(1), MaxValueValidator(15)])
    min_players = models.PositiveSmallIntegerField(_("minimum field"), default=8,
                                                   validators=[MinValueValidator(2), MaxValueValidator(256)])
    max_players = models.PositiveSmallIntegerField(_("maximum field"), default=64,
                                                   validators=[MinValueValidator(2), MaxValueValidator(1000)])
    enabled = models.BooleanField(_("enabled"), default=True)

    class Meta:
        ordering = ("time_of_day", "id")
        constraints = [
            models.CheckConstraint(condition=Q(min_players__lte=models.F("max_players")),
                                   name="tournaments_schedule_min_le_max"),
            models.CheckConstraint(condition=Q(turn_timer_seconds__gte=15, turn_timer_seconds__lte=600),
                                   name="tournaments_schedule_timer_range"),
        ]

    def __str__(self) -> str:
        return self.name_en

    @property
    def name(self) -> str:
        return self.name_pt if (get_language() or "en").lower().startswith("pt") else self.name_en

    def clean(self) -> None:
        if self.rules_preset not in PRESETS:
            raise ValidationError({"rules_preset": _("Unknown rule preset.")})
        if self.min_players and self.max_players and self.min_players > self.max_players:
            raise ValidationError({"max_players": _("The maximum field is below the minimum.")})


class TournamentFormat(models.TextChoices):
    SWISS = "swiss", _("Swiss")
    ARENA = "arena", _("Arena")


class TournamentAccess(models.TextChoices):
    PUBLIC = "public", _("open to all")
    CLUB = "club", _("club members only")
    CODE = "code", _("with an entry code")


class TournamentStatus(models.TextChoices):
    SCHEDULED = "scheduled", _("scheduled")
    OPEN = "open", _("registration open")
    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")
    CANCELLED = "cancelled", _("cancelled")


class Tournament(models.Model):
    """One event. Settings are copied from the schedule at creation (editing a schedule changes only
    tournaments created afterwards). ``rounds`` is fixed at the start (null before); ``current_round``
    is 0 before round 1. ``simulation_seed`` is null for every real tournament; ``manage.py
    tournament_simulate`` sets it, and each of its matches is then seeded from it (round, board) so
    the whole tournament is reproducible (``games.services`` "Seeded matches"). ``is_simulation``: made
    by ``tournament_simulate`` (True for every row it creates): left off the public lists, the home page
    and the API's list unless asked for (``selectors``); its own page still opens, with a badge."""

    schedule = models.ForeignKey(TournamentSchedule, on_delete=models.PROTECT, related_name="tournaments",
                                 null=True, blank=True)
    name_en = models.CharField(_("name (English)"), max_length=80)
    name_pt = models.CharField(_("name (Portuguese)"), max_length=80)
    starts_at = models.DateTimeField(_("starts at"))
    status = models.CharField(_("status"), max_length=10, choices=TournamentStatus.choices,
                              default=TournamentStatus.SCHEDULED)
    rules_preset = models.CharField(_("rule preset"), max_length=40, default="classic")
    match_target = models.PositiveSmallIntegerField(_("match target"), default=50)
    turn_timer_seconds = models.PositiveSmallIntegerField(_("turn timer (s)"), default=30)
    fixed_rounds = models.PositiveSmallIntegerField(_("fixed rounds"), null=True, blank=True)
    max_rounds = models.PositiveSmallIntegerField(_("most rounds (automatic)"), default=MAX_AUTO_ROUNDS)
    min_players = models.PositiveSmallIntegerField(_("minimum field"), default=8)
    max_players = models.PositiveSmallIntegerField(_("maximum field"), default=64)
    rounds = models.PositiveSmallIntegerField(_("rounds"), null=True, blank=True)
    current_round = models.PositiveSmallIntegerField(_("current round"), default=0)
    winner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="tournaments_won")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    simulation_seed = models.BigIntegerField(_("simulation seed"), null=True, blank=True, editable=False)
    is_simulation = models.BooleanField(_("simulation"), default=False, editable=False)
    recomputed_at = models.DateTimeField(_("standings recomputed"), null=True, blank=True, editable=False,
                                         help_text=_("after a player's fair-play closure (docs/fairplay.md)"))
    # Events people make (issue 26, docs/tournaments.md "Events people make"). A scheduled daily event
    # has schedule set, created_by and club null, format Swiss, access public, rated, bots allowed.
    format = models.CharField(_("format"), max_length=10, choices=TournamentFormat.choices,
                              default=TournamentFormat.SWISS)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="tournaments_created")
    club = models.ForeignKey("clubs.Club", on_delete=models.PROTECT, null=True, blank=True,
                             related_name="tournaments")
    description = models.TextField(_("description"), max_length=1000, blank=True)
    access = models.CharField(_("who may join"), max_length=10, choices=TournamentAccess.choices,
                              default=TournamentAccess.PUBLIC)
    entry_code = models.CharField(_("entry code"), max_length=40, blank=True)
    rated = models.BooleanField(_("rated"), default=True)
    rating_min = models.PositiveSmallIntegerField(_("lowest rating"), null=True, blank=True)
    rating_max = models.PositiveSmallIntegerField(_("highest rating"), null=True, blank=True)
    bots_allowed = models.BooleanField(_("house bots allowed"), default=True)
    # BOT accounts (outside programs, docs/bot-api.md) register only where the organiser allows them.
    bot_accounts_allowed = models.BooleanField(_("BOT accounts allowed"), default=False)
    duration_minutes = models.PositiveSmallIntegerField(_("duration (minutes)"), null=True, blank=True,
                                                        help_text=_("Arena: how long pairing goes on"))
    ends_at = models.DateTimeField(_("ends at"), null=True, blank=True,
                                   help_text=_("Arena: starts_at + duration; no new pairing after it"))
    cancelled_note = models.CharField(_("why it was cancelled"), max_length=300, blank=True)
    edited_at = models.DateTimeField(_("last edited"), null=True, blank=True)

    class Meta:
        ordering = ("starts_at", "id")
        constraints = [
            models.UniqueConstraint(fields=("schedule", "starts_at"), name="tournaments_one_per_start"),
            models.CheckConstraint(
                condition=Q(rating_min__isnull=True) | Q(rating_max__isnull=True)
                | Q(rating_min__lte=models.F("rating_max")),
                name="tournaments_rating_range_ordered"),
            models.CheckConstraint(condition=~Q(format="arena") | Q(ends_at__isnull=False),
                                   name="tournaments_arena_has_end"),
            models.CheckConstraint(condition=~Q(access="club") | Q(club__isnull=False),
                                   name="tournaments_club_access_has_club"),
            models.CheckConstraint(condition=~Q(access="code") | ~Q(entry_code=""),
                                   name="tournaments_code_access_has_code"),
        ]
        indexes = [models.Index(fields=("status", "starts_at"), name="tournaments_status_start_idx")]

    def __str__(self) -> str:
        return f"{self.name_en} {self.starts_at:%Y-%m-%d %H:%M}Z"

    @property
    def name(self) -> str:
        return self.name_pt if (get_language() or "en").lower().startswith("pt") else self.name_en


class Registration(models.Model):
    """A player in a tournament. ``rating`` is fixed at the start (pairing and the last tie-break);
    ``withdrawn``: never paired again, keeps its points; ``no_shows``: consecutive no-show forfeits
    (2 withdraw the player)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="registrations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                             related_name="tournament_registrations")
    rating = models.FloatField(_("rating at the start"), null=True, blank=True)
    rating_after = models.FloatField(_("rating at the end"), null=True, blank=True)
    withdrawn = models.BooleanField(_("withdrawn"), default=False)
    withdrawn_by_organiser = models.BooleanField(_("withdrawn by the organiser"), default=False)
    no_shows = models.PositiveSmallIntegerField(_("consecutive no-shows"), default=0)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    # Arena (docs/tournaments.md "Arena"): the running score (match points plus streak bonuses), the
    # current run of wins, the game in play (null: free), when the player became free (the wave pairs
    # the longest waiting first), the last opponent (never met twice in a row), paused (out of the queue).
    arena_score = models.PositiveIntegerField(_("Arena points"), default=0)
    arena_streak = models.PositiveSmallIntegerField(_("wins in a row"), default=0)
    arena_game = models.ForeignKey("ArenaGame", on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    waiting_since = models.DateTimeField(_("waiting since"), null=True, blank=True)
    last_opponent = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                      blank=True, related_name="+")
    paused = models.BooleanField(_("paused"), default=False)

    class Meta:
        ordering = ("joined_at", "id")
        constraints = [
            models.UniqueConstraint(fields=("tournament", "user"), name="tournaments_register_once"),
        ]


class RoundStatus(models.TextChoices):
    PLAYING = "playing", _("playing")
    FINISHED = "finished", _("finished")


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField(_("round"))
    status = models.CharField(_("status"), max_length=10, choices=RoundStatus.choices,
                              default=RoundStatus.PLAYING)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ("tournament", "number")
        constraints = [
            models.UniqueConstraint(fields=("tournament", "number"), name="tournaments_round_once"),
        ]


class Pairing(models.Model):
    """One board of a round: ``player0`` v ``player1`` in ``match``, or a bye (``player1`` and
    ``match`` null). Once the match ends: ``points`` ``[p0, p1]`` (1 win / 0 loss; a bye [1, 0]),
    ``hand_points`` the match's final score ``[p0, p1]``, ``forfeit`` for a no-show."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="pairings")
    board = models.PositiveSmallIntegerField(_("board"))
    player0 = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    player1 = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                null=True, blank=True)
    match = models.OneToOneField("games.Match", on_delete=models.PROTECT, null=True, blank=True,
                                 related_name="tournament_pairing")
    points = models.JSONField(_("points"), null=True, blank=True)
    hand_points = models.JSONField(_("hand points"), null=True, blank=True)
    forfeit = models.BooleanField(_("no-show forfeit"), default=False)

    class Meta:
        ordering = ("round", "board")
        constraints = [
            models.UniqueConstraint(fields=("round", "board"), name="tournaments_board_once"),
            models.UniqueConstraint(fields=("round", "player0"), name="tournaments_round_seat0_once"),
            models.UniqueConstraint(fields=("round", "player1"), name="tournaments_round_seat1_once"),
            models.CheckConstraint(condition=Q(player1__isnull=False) | Q(match__isnull=True),
                                   name="tournaments_bye_has_no_match"),
        ]

    @property
    def is_bye(self) -> bool:
        return self.player1_id is None

    @property
    def done(self) -> bool:
        return self.points is not None


class ForbiddenPairing(models.Model):
    """Two registered players a Swiss event must never pair (an organiser's choice, lila #6779: family
    members, team mates). Stored once per pair, ``player_a`` the lower id."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="forbidden_pairings")
    player_a = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    player_b = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ("tournament", "player_a", "player_b")
        constraints = [
            models.UniqueConstraint(fields=("tournament", "player_a", "player_b"),
                                    name="tournaments_forbidden_once"),
            models.CheckConstraint(condition=Q(player_a__lt=models.F("player_b")),
                                   name="tournaments_forbidden_ordered"),
        ]


class ArenaGame(models.Model):
    """One match of an Arena event. ``points`` ``[p0, p1]`` once it ends (match points plus the streak
    bonus each earned: docs/tournaments.md "Arena"); ``streak`` ``[bool, bool]``: the seat was on a
    streak (two wins in a row before this match), so a win scored double."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="arena_games")
    player0 = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    player1 = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    match = models.OneToOneField("games.Match", on_delete=models.PROTECT, null=True, blank=True,
                                 related_name="arena_game")
    wave = models.PositiveIntegerField(_("pairing wave"), default=0)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    winner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="+")
    points = models.JSONField(_("points"), null=True, blank=True)
    streak = models.JSONField(_("on a streak"), null=True, blank=True)
    hand_points = models.JSONField(_("hand points"), null=True, blank=True)

    class Meta:
        ordering = ("tournament", "started_at", "id")
        constraints = [
            models.CheckConstraint(condition=~Q(player0=models.F("player1")),
                                   name="tournaments_arena_two_players"),
        ]
        indexes = [models.Index(fields=("tournament", "finished_at"), name="tournaments_arena_open_idx")]


class Reminder(models.Model):
    """A member's "remind me" for one event: a browser notification and an on-site notice
    ``REMIND_BEFORE`` before the start (``sent_at`` set once, under a row lock: a beat firing twice
    sends nothing twice)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="tournament_reminders")
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="reminders")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)

    class Meta:
        ordering = ("tournament", "id")
        constraints = [
            models.UniqueConstraint(fields=("user", "tournament"), name="tournaments_remind_once"),
        ]


class NoticeKind(models.TextChoices):
    STARTING = "starting", _("starting soon")
    ROUND = "round", _("round started")
    CANCELLED = "cancelled", _("cancelled")
    EDITED = "edited", _("changed by the organiser")


class TournamentNotice(models.Model):
    """An on-site notice for one member about one event (shown on the next page until read; pushed live
    when a page is open). Unique per (user, tournament, kind, round): a retried task makes none twice
    (``round`` is 0 when the kind has no round; an edit notice's ``round`` counts the edits)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="tournament_notices")
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(_("kind"), max_length=10, choices=NoticeKind.choices)
    round = models.PositiveIntegerField(_("round"), default=0)
    text = models.CharField(_("text"), max_length=400, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    seen_at = models.DateTimeField(_("seen"), null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(fields=("user", "tournament", "kind", "round"),
                                    name="tournaments_notice_once"),
        ]
        indexes = [models.Index(fields=("user", "seen_at"), name="tournaments_notice_unseen_idx")]
