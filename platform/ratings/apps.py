"""App config for ``ratings``: Elo ratings after rated matches, the rankings and the players' profiles."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    """``ratings`` app. ``ready`` connects the match-finished hook that enqueues the rating task, and
    the answer to the table's question for a seat's ``rating`` message."""

    name = "ratings"
    verbose_name = _("Ratings")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.signals import match_finished, seat_rating_asked
        from ratings import receivers

        match_finished.connect(receivers.enqueue_rating, dispatch_uid="ratings.enqueue_rating")
        seat_rating_asked.connect(receivers.seat_rating, dispatch_uid="ratings.seat_rating")
