"""Matches and their append-only event log.

A match is exactly "rules + first dealer + events" (docs/engine.md, ``events.py``): the engine state is
rebuilt by replaying the stored events, never pickled. :class:`Match` keeps denormalized columns
(status, scores, winner, ``last_seq``) for listing and locking; :class:`MatchEvent` rows are the truth.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class MatchStatus(models.TextChoices):
    """Lifecycle of a match: ``waiting`` (friend table, seat 1 empty) -> ``active`` -> ``finished``;
    ``aborted`` for a table abandoned before it started, or a match abandoned while in play
    (``result_reason`` ``abandoned``: no winner, never rated; ``services.match_abandon``)."""

    WAITING = "waiting", _("waiting for a player")
    ACTIVE = "active", _("in play")
    FINISHED = "finished", _("finished")
    ABORTED = "aborted", _("aborted")


class ResultReason(models.TextChoices):
    """Why a finished match ended."""

    TARGET = "target", _("reached the target")
    RESIGN = "resign", _("resigned")
    TIMEOUT = "timeout", _("lost on time")
    ABORTED = "aborted", _("aborted before both players moved")
    ABANDONED = "abandoned", _("abandoned")
    LEFT = "left", _("left the match")


class UnratedWhy(models.TextChoices):
    """Why a match that started rated ended unrated (``Match.unrated_why``; "" for every other match)."""

    EARLY_RESIGN = "early_resign", _("resigned before enough moves to be rated")
    EARLY_LEFT = "early_left", _("left before enough moves to be rated")


class Match(models.Model):
    """One match between seat 0 (``player0``, the creator) and seat 1 (``player1``; a house bot user
    in a bot match; null while a friend table waits).

    - ``rules``: ``RuleSet.to_dict()`` (JSON); ``preset``: the preset name it started from.
    - ``first_dealer``: seat (0/1) that dealt hand 1; set when the match starts.
    - ``scores``: ``[seat0, seat1]`` points (final totals with end bonuses once finished).
    - ``winner``: seat or null; ``result_reason``: :class:`ResultReason` or ``""``.
    - ``last_seq``: number of :class:`MatchEvent` rows (the seq of the latest one; 0 = none yet).
    - ``turn_timer_seconds``: seconds per action, null = no timer; ``turn_deadline``: when the player to
      act runs out of time (null without a timer or when nobody is to act).
    - ``timeout_strikes``: ``[seat0, seat1]`` consecutive automatic moves (3 loses on time).
    - ``rated``: the result moves the players' Elo (docs/ratings.md): set at creation, cleared when a
      guest takes the second seat, or when the match ends by a resignation too early to count
      (``unrated_why``); a rated match always has a turn timer.
    - ``unrated_why``: ``""``, or why a match that started rated ended unrated (:class:`UnratedWhy`:
      ``early_resign``, resigned before each seat made ``games.conf.rated_min_moves()`` moves of its
      own; ``early_left``, claimed against a player who left that early; docs/fairplay.md "Limits that
      make farming slow"). Kept so the fair-play signals can count such matches; its ``rated`` is then
      False, so the ratings app never rates it.
    - ``bot_seats``: the seats (0/1, ascending) held by house bots, moved by the server: ``[1]`` in a
      bot match, ``[]`` between two people, ``[0, 1]`` between two bots.
    - ``rematch_of``: the finished friend match whose players agreed to this rematch (null otherwise).
    - ``server_move_at``: when the server's next move is due (a bot's move after its pause, or the
      automatic move at ``turn_deadline``); null when none is pending (a person to act without a timer,
      or the match not active). The on-commit task and the beat sweep of ``games.tasks`` read it.
    - ``simulation_seed``: null for every real match (secure shuffles, ``secrets``). Set only by a
      simulation (``manage.py tournament_simulate``, through ``services.match_create_seated``): the
      match's first dealer, cut, every deal and its bots' choices then come from this seed, so a
      simulated tournament can be replayed exactly (``services`` "Seeded matches").
    - ``first_clock_until`` / ``first_clock_waiting``: the first clock of a tournament board (null /
      ``[]`` for every other match). A seat in ``first_clock_waiting`` has not opened its table yet: a
      turn of that seat gets its ``turn_deadline`` counted from ``first_clock_until`` (the pairing plus
      the grace) rather than from the turn's start, until the seat connects
      (``services.match_seat_arrived``), which starts its clock then and removes it from the list.
    - ``private_event``: played for a private event (a club or code tournament, ``tournaments.access``),
      set at creation (``services.match_create_seated``). Such a match is never public: besides its
      players, only those the event's app vouches for may see it (``signals.private_match_asked``).
    """

    rules = models.JSONField(_("rules"))
    preset = models.CharField(_("preset"), max_length=40, default="classic")
    player0 = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="matches_as_player0"
    )
    player1 = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="matches_as_player1",
        null=True, blank=True,
    )
    bot_level = models.PositiveSmallIntegerField(_("bot level"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=MatchStatus.choices, default=MatchStatus.ACTIVE
    )
    invite_token = models.CharField(_("invite token"), max_length=43, unique=True, null=True, blank=True)
    first_dealer = models.PositiveSmallIntegerField(_("first dealer"), null=True, blank=True)
    scores = models.JSONField(_("scores"), default=list)
    winner = models.PositiveSmallIntegerField(_("winner seat"), null=True, blank=True)
    result_reason = models.CharField(
        _("result reason"), max_length=10, choices=ResultReason.choices, blank=True
    )
    last_seq = models.PositiveIntegerField(_("last event seq"), default=0)
    turn_timer_seconds = models.PositiveIntegerField(_("turn timer (s)"), null=True, blank=True)
    turn_deadline = models.DateTimeField(_("turn deadline"), null=True, blank=True)
    timeout_strikes = models.JSONField(_("consecutive timeouts"), default=list)
    rated = models.BooleanField(_("rated"), default=False)
    unrated_why = models.CharField(_("why not rated"), max_length=20, choices=UnratedWhy.choices, blank=True,
                                   default="")
    # The one-time token of the create form that made this match (None: created another way): a second
    # POST of that form (double click, resubmit) finds this match instead of creating another.
    submission = models.UUIDField(_("form submission"), null=True, blank=True, editable=False)
    bot_seats = models.JSONField(_("bot seats"), default=list, blank=True)
    server_move_at = models.DateTimeField(_("server move due"), null=True, blank=True)
    # The friend match this one is the rematch of (games.rematch). One-to-one: a match has at most one
    # rematch, so two accepts (or a double click) cannot create two.
    rematch_of = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="rematch",
        verbose_name=_("rematch of"),
    )
    simulation_seed = models.BigIntegerField(_("simulation seed"), null=True, blank=True, editable=False)
    first_clock_until = models.DateTimeField(_("first clock starts at the latest"), null=True, blank=True)
    first_clock_waiting = models.JSONField(_("seats whose first clock waits"), default=list, blank=True)
    private_event = models.BooleanField(_("played for a private event"), default=False, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")
        verbose_name_plural = "matches"
        constraints = [
            models.CheckConstraint(
                condition=Q(bot_level__isnull=True) | Q(bot_level__gte=1, bot_level__lte=5),
                name="games_match_bot_level_range",
            ),
            models.CheckConstraint(condition=Q(winner__isnull=True) | Q(winner__in=(0, 1)),
                                   name="games_match_winner_seat"),
            models.CheckConstraint(condition=Q(first_dealer__isnull=True) | Q(first_dealer__in=(0, 1)),
                                   name="games_match_first_dealer_seat"),
            models.UniqueConstraint(fields=("player0", "submission"), name="games_match_one_per_submission"),
        ]
        indexes = [
            models.Index(fields=("status", "turn_deadline"), name="games_match_deadline_idx"),
            # The ratings sweep: finished rated matches, oldest first.
            models.Index(fields=("finished_at",), name="games_match_rated_finished_idx",
                         condition=Q(rated=True, status="finished")),
            models.Index(fields=("status", "server_move_at"), name="games_match_server_move_idx"),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.status})"

    def seat_of(self, user_id: int | None) -> int | None:
        """The seat (0/1) of the user with id ``user_id``, or None when not seated."""
        if user_id is None:
            return None
        if self.player0_id == user_id:
            return 0
        if self.player1_id == user_id:
            return 1
        return None

    @property
    def is_casual(self) -> bool:
        """A match against a house bot without a turn timer: casual (unrated and untimed; a rated
        match always has a turn timer), which its player may end unplayed (``services.match_abandon``)."""
        return not self.rated and self.bot_level is not None and self.turn_timer_seconds is None

    def player_id(self, seat: int) -> int | None:
        """User id at ``seat`` (0/1)."""
        return self.player0_id if seat == 0 else self.player1_id


class SeatPresence(models.Model):
    """Whether the player at ``seat`` of a match between people has its table open (``games.presence``;
    docs/lobby.md "Leaving a match between people").

    - ``sockets``: table sockets of that seat counted open (+1 on connect, -1 on close). A process that
      died never counts its sockets down, so the count alone may stay too high: ``seen_at`` decides then.
    - ``seen_at``: the last time a socket of the seat was known open: its connect, its heartbeat (every
      ``ratelimit.SLOT_REFRESH`` s while open) and its close. A seat is *here* when ``sockets > 0`` and
      ``seen_at`` is younger than ``presence.STALE_AFTER``; otherwise it is *gone since* ``seen_at``.
      No row: the seat never opened the table since the match started (gone since ``started_at``).
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="presence")
    seat = models.PositiveSmallIntegerField(_("seat"))
    sockets = models.IntegerField(_("open sockets"), default=0)
    seen_at = models.DateTimeField(_("last seen"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("match", "seat"), name="games_presence_one_per_seat"),
            models.CheckConstraint(condition=Q(seat__in=(0, 1)), name="games_presence_seat"),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.seat}: {self.sockets} socket(s), seen {self.seen_at}"


class RematchStatus(models.TextChoices):
    """An offer's life: ``open`` until the offerer cancels it, the opponent declines or accepts it."""

    OPEN = "open", _("open")
    CANCELLED = "cancelled", _("cancelled")
    DECLINED = "declined", _("declined")
    ACCEPTED = "accepted", _("accepted")


class RematchOffer(models.Model):
    """One player's offer of a rematch after a friend match (``games.rematch``; docs/protocol.md
    "Rematch"): ``seat`` (0/1) offered it to the other seat. At most one offer per match is ``open``
    (a partial unique constraint); an accepted offer's new match is ``match.rematch``."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rematch_offers")
    seat = models.PositiveSmallIntegerField(_("offered by seat"))
    status = models.CharField(_("status"), max_length=10, choices=RematchStatus.choices,
                              default=RematchStatus.OPEN)
    created_at = models.DateTimeField(_("offered"), auto_now_add=True)
    answered_at = models.DateTimeField(_("answered"), null=True, blank=True)

    class Meta:
        ordering = ("match", "id")
        constraints = [
            models.UniqueConstraint(fields=("match",), condition=Q(status="open"),
                                    name="games_rematch_one_open_offer"),
            models.CheckConstraint(condition=Q(seat__in=(0, 1)), name="games_rematch_offer_seat"),
        ]

    def __str__(self) -> str:
        return f"rematch offer of match {self.match_id} by seat {self.seat} ({self.status})"


class ChatMessage(models.Model):
    """One quick-chat message (``games.chat``; docs/protocol.md "Quick chat"): seat ``seat`` of
    ``match`` sent the preset ``preset`` (an id of ``games.chat.PRESET_IDS``, never free text). Kept for
    moderation (fair play and abuse reports); not a game action: it is no ``MatchEvent``, so replays and
    their verification never see it."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_messages")
    seat = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    preset = models.CharField(_("preset"), max_length=32)
    created_at = models.DateTimeField(_("sent"), auto_now_add=True)

    class Meta:
        ordering = ("match", "id")
        constraints = [
            models.CheckConstraint(condition=Q(seat__in=(0, 1)), name="games_chat_message_seat"),
        ]

    def __str__(self) -> str:
        return f"chat {self.preset} in match {self.match_id} by seat {self.seat}"


class AppendOnlyError(RuntimeError):
    """Raised on any attempt to change or delete a stored match event."""


class MatchEventQuerySet(models.QuerySet["MatchEvent"]):
    """Event rows may be read and inserted only."""

    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("match events are append-only: no update")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("match events are append-only: no delete")


class MatchEvent(models.Model):
    """One event of a match's log, numbered ``seq`` = 1, 2, ... per match. APPEND-ONLY.

    - ``type``: the engine event type (``deal``, ``action``, ``hand_end``, ``resign``, ``match_end``) or
      the platform's ``timeout`` marker (not fed to the engine).
    - ``payload``: the engine's ``events.to_json`` dict; a ``deal`` also holds ``salt`` and ``commitment``
      (the secret salt and the SHA-256 commitment of its deck, see ``engine.deck.deck_commitment``).
    - ``seat``: the seat that caused it (null for derived events); ``msg_id``: the client message id that
      caused it ("" for server-made events); ``auto``: made by the server for a player out of time.
    """

    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField(_("seq"))
    type = models.CharField(_("type"), max_length=16)
    payload = models.JSONField(_("payload"))
    seat = models.PositiveSmallIntegerField(_("seat"), null=True, blank=True)
    msg_id = models.CharField(_("client message id"), max_length=64, blank=True)
    auto = models.BooleanField(_("automatic move"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = MatchEventQuerySet.as_manager()

    class Meta:
        ordering = ("match", "seq")
        constraints = [
            models.UniqueConstraint(fields=("match", "seq"), name="games_matchevent_unique_seq"),
            models.UniqueConstraint(
                fields=("match", "seat", "msg_id"), condition=~Q(msg_id=""),
                name="games_matchevent_unique_msg_id",
            ),
            models.CheckConstraint(condition=Q(seq__gte=1), name="games_matchevent_seq_from_1"),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} #{self.seq} {self.type}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Insert only.

        :raises AppendOnlyError: the row is already stored.
        """
        if not self._state.adding:
            raise AppendOnlyError("match events are append-only: no update")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        """:raises AppendOnlyError: always."""
        raise AppendOnlyError("match events are append-only: no delete")
