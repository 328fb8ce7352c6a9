"""Signals of the games app.

``match_finished``: sent AFTER the commit that finished a match (status ``finished``, never for an
aborted one), with ``match_id`` (int) and ``rated`` (bool). Receivers must be quick and must not
raise: ``ratings`` enqueues its rating task here; tournaments may advance a round.
"""

from __future__ import annotations

from django.dispatch import Signal

match_finished = Signal()
