"""A member's log-in counts as a sighting (``fairplay.sightings``): connected in ``FairplayConfig.ready``
to ``django.contrib.auth.signals.user_logged_in`` (sent by every ``login()``: the log-in page, sign-up,
a guest's conversion). The device cookie it may create is set on the response by
``fairplay.middleware.SightingMiddleware``."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from fairplay import sightings


def on_logged_in(sender: Any, request: HttpRequest | None = None, user: Any = None, **kwargs: Any) -> None:
    """Record ``user``'s network and device (members only). A log-in that came from no network (no
    ``REMOTE_ADDR``: Django's test client's ``force_login`` and ``login``, a shell) records nothing: it
    would only add a device id no browser holds."""
    if request is not None and user is not None and "REMOTE_ADDR" in request.META:
        sightings.seen(request, user)
