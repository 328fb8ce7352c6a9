"""``SightingMiddleware`` (``config.settings.base.MIDDLEWARE``, after authentication): records a member's
sighting when they open a match's table page, and sets the device cookie a sighting made
(``fairplay.sightings``; docs/fairplay.md "Privacy: sightings").

Cheap by construction: it does nothing unless the response is a table page served 200 (``games:table``)
or a sighting of this request (the log-in's, ``fairplay.sighting_receivers``) made a new device id; it
never reads the session or the user on any other request.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from fairplay import sightings

SIGHTED_VIEWS = frozenset({"games:table"})
"""The views whose successful GET counts as "opened a match"."""


class SightingMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        if (match is not None and match.view_name in SIGHTED_VIEWS and request.method == "GET"
                and response.status_code == 200):
            sightings.seen(request, request.user)
        sightings.set_device_cookie(request, response)
        return response
