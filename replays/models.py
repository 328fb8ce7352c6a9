"""Who may open a match's replay beyond its two players, and the computer analyses of finished
matches (docs/replay-format.md, docs/analysis.md; issue 12).

The replay itself is never stored: it is rebuilt from the match's event log (``games.MatchEvent``).
An analysis is stored once per (match, analysis version): ``engine.analysis`` is deterministic for a
record and its settings, so rerunning it would only repeat the work.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import F, Q
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


class AnalysisStatus(models.TextChoices):
    """``queued`` (asked for, waiting for a worker) -> ``running`` -> ``done`` | ``failed``."""

    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    DONE = "done", _("done")
    FAILED = "failed", _("failed")


class MatchAnalysis(models.Model):
    """The computer analysis of one finished match at one ``version`` (``engine.analysis.ANALYSIS_VERSION``).

    - ``status``: :class:`AnalysisStatus`; ``done`` of ``total`` decisions judged so far (the progress);
      ``result``: ``engine.analysis.analyse``'s JSON once done; ``error``: why it failed.
    - ``run``: the token of the run that holds the row (a run that lost it, presumed dead and taken over
      by another, stores nothing); ``updated_at`` is its heartbeat (each progress report touches it).
    - ``requested_by``: who clicked "Analyse" first (null for anonymous visitors of a public replay).
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="analyses")
    version = models.PositiveSmallIntegerField(_("analysis version"))
    status = models.CharField(_("status"), max_length=8, choices=AnalysisStatus.choices,
                              default=AnalysisStatus.QUEUED)
    done = models.PositiveIntegerField(_("decisions judged"), default=0)
    total = models.PositiveIntegerField(_("decisions"), default=0)
    result = models.JSONField(_("result"), null=True, blank=True)
    error = models.CharField(_("error"), max_length=300, blank=True)
    run = models.CharField(max_length=32, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                     blank=True, related_name="+")
    created_at = models.DateTimeField(_("requested"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("match", "version"), name="replays_analysis_once_per_version"),
            models.CheckConstraint(condition=Q(done__lte=F("total")), name="replays_analysis_done_le_total"),
        ]

    def __str__(self) -> str:
        return f"analysis v{self.version} of match {self.match_id} ({self.status}, {self.done}/{self.total})"
