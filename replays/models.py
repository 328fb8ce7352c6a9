"""Who may open a match's replay beyond its two players (docs/replay-format.md, issue 12).

The replay itself is never stored: it is rebuilt from the match's event log (``games.MatchEvent``).
"""

from __future__ import annotations

import secrets

from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Match


def new_token() -> str:
    """A replay link token: 32 URL-safe random bytes (43 characters)."""
    return secrets.token_urlsafe(32)


class ReplayAccess(models.Model):
    """The sharing settings of one match's replay, made on first use.

    - ``token``: anyone with ``/replay/<id>/?token=<token>`` may watch it (a private replay's link).
    - ``public``: the owner (seat 0, who created the match) made it public: anyone may watch it, and
      watch it live at ``/watch/<id>/``.
    """

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="replay_access")
    token = models.CharField(_("replay token"), max_length=43, unique=True, default=new_token)
    public = models.BooleanField(_("public"), default=False)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    def __str__(self) -> str:
        return f"replay access of match {self.match_id} ({'public' if self.public else 'private'})"
