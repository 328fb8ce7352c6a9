"""Players' Elo ratings and their history (docs/ratings.md).

:class:`PlayerRating` is a member's current rating (one row per member who has played a rated match; no
row = 1500 and no matches). :class:`RatingChange` is one human player's side of one rated match: the
rating history. House bots have no rows: their ratings are fixed (``ratings.selectors.bot_rating``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from ratings.elo import INITIAL_RATING, PROVISIONAL_MATCHES, RATING_FLOOR


class PlayerRating(models.Model):
    """A member's current rating.

    - ``rating``: exact Elo (float, >= 100); ``peak``: the highest rating so far (K = 10 from 2400 on).
    - ``rated_matches`` = ``wins`` + ``losses``; provisional while fewer than 10.
    - ``last_rated_at``: time of the latest rating change (the "last 30 days" board filters on it).
    - ``hidden``: left out of the rankings, their counts and ranks (an account marked or closed for a
      fair-play violation: ``ratings.services.rating_hide``, docs/fairplay.md); the row and its history stay.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="rating"
    )
    rating = models.FloatField(_("rating"), default=INITIAL_RATING)
    peak = models.FloatField(_("peak rating"), default=INITIAL_RATING)
    rated_matches = models.PositiveIntegerField(_("rated matches"), default=0)
    wins = models.PositiveIntegerField(_("wins"), default=0)
    losses = models.PositiveIntegerField(_("losses"), default=0)
    last_rated_at = models.DateTimeField(_("last rated"), null=True, blank=True)
    hidden = models.BooleanField(_("hidden from the rankings"), default=False)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(rating__gte=RATING_FLOOR), name="ratings_rating_floor"),
            models.CheckConstraint(condition=Q(rated_matches=models.F("wins") + models.F("losses")),
                                   name="ratings_rated_matches_sum"),
        ]
        indexes = [
            # The default board (established players by rating) and the rank of one of them.
            # last_rated_at included: the 30-day board walks these too, index-only (its ranks by
            # ROW_NUMBER() read 29 ms of table rows at 47,000 established players, 13 ms without).
            # Hidden players are not on any board (migration 0005): the partial indexes leave them out.
            models.Index(models.F("rating").desc(), "user", name="ratings_established_idx",
                         condition=Q(rated_matches__gte=PROVISIONAL_MATCHES, hidden=False),
                         include=("last_rated_at",)),
            # The board with provisional players shown (partial like it, so ranks inside one Elo point,
            # ``ratings.selectors.ranks_of``, are index-only scans there too).
            models.Index(models.F("rating").desc(), "user", name="ratings_rated_idx",
                         condition=Q(rated_matches__gt=0, hidden=False), include=("last_rated_at",)),
            # "Last 30 days".
            models.Index(fields=("last_rated_at",), name="ratings_last_rated_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.rating:.1f} ({self.rated_matches})"


class RatingChange(models.Model):
    """One human player's rating change from one rated match; unique per (match, player), which makes
    the rating task idempotent.

    - ``before``/``after``/``delta`` in Elo points (exact); ``k``: K-factor used; ``expected``: expected
      score (0..1); ``won``: the match's result for this player.
    - ``opponent``: the other player (a member or a house bot); ``opponent_rating``: their rating used
      (before the match); ``opponent_is_bot`` for the record by opponent type without a join.
    """

    match = models.ForeignKey("games.Match", on_delete=models.CASCADE, related_name="rating_changes")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="rating_changes")
    opponent = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                 related_name="+")
    opponent_is_bot = models.BooleanField(_("opponent is a house bot"), default=False)
    before = models.FloatField(_("rating before"))
    after = models.FloatField(_("rating after"))
    delta = models.FloatField(_("change"))
    k = models.PositiveSmallIntegerField(_("K-factor"))
    expected = models.FloatField(_("expected score"))
    opponent_rating = models.FloatField(_("opponent's rating"))
    won = models.BooleanField(_("won"))
    created_at = models.DateTimeField(_("rated at"), auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(fields=("match", "player"), name="ratings_change_unique_match_player"),
        ]
        indexes = [
            # won and opponent_is_bot included: a profile's record (wins/losses by opponent type) is an
            # index-only count (it read up to 14 ms of scattered table rows for a 1,400-match player).
            models.Index("player", models.F("created_at").desc(), name="ratings_change_history_idx",
                         include=("opponent_is_bot", "won")),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} player {self.player_id}: {self.before:.1f} -> {self.after:.1f}"


class RatingBucket(models.Model):
    """How many rated players have a rating in ``[bucket, bucket + 1)`` Elo points: ``established``
    (10 or more rated matches: the default board) and ``everyone`` (at least one: the board with
    provisional players shown).

    Written only by database triggers on ``ratings_playerrating`` (migration 0003, PostgreSQL and
    SQLite), so every write of a rating (the rating task, the seed command, the admin, a test's
    ``create()``) keeps it exact in the same transaction. A rank is then 1 + the players of the buckets
    above + those ahead inside its own bucket (``ratings.selectors.ranks_of``): about a hundred index
    entries read instead of every player ahead (a count over 47,000 established players took 4 ms; a
    search's 50 ranks by ``ROW_NUMBER()`` over the board 100 ms).
    """

    bucket = models.IntegerField(_("rating bucket"), primary_key=True)
    established = models.IntegerField(_("established players"), default=0)
    everyone = models.IntegerField(_("rated players"), default=0)

    def __str__(self) -> str:
        return f"[{self.bucket}, {self.bucket + 1}): {self.established} / {self.everyone}"


class RatingRefund(models.Model):
    """Elo points given back to ``player`` for rated match ``match``, lost to ``closed``, an account later
    closed for a fair-play violation (docs/fairplay.md "Consequences and refunds"; written only by
    ``ratings.services.closure_refund``).

    - ``points``: Elo points given back (> 0; at most the points lost in ``match``, and the points given
      back for one closed account's matches are at most ``ratings.services.REFUND_CAP`` per player);
    - ``before``/``after``: ``player``'s rating around the refund (exact).

    Unique per (player, match): a retried or concurrent refund task gives each match's points back once.
    """

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="rating_refunds")
    match = models.ForeignKey("games.Match", on_delete=models.CASCADE, related_name="+")
    closed = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    points = models.FloatField(_("points given back"))
    before = models.FloatField(_("rating before"))
    after = models.FloatField(_("rating after"))
    created_at = models.DateTimeField(_("refunded at"), auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(fields=("player", "match"), name="ratings_refund_once"),
            models.CheckConstraint(condition=Q(points__gt=0), name="ratings_refund_positive"),
        ]
        indexes = [models.Index(fields=("player", "-created_at"), name="ratings_refund_player_idx")]

    def __str__(self) -> str:
        return f"refund {self.player_id} match {self.match_id}: +{self.points:.2f}"
