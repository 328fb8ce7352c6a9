"""The site's refusals: :class:`ApplicationError`, the one base of every app's refused request, and
:class:`NotFound`, a 404 whose message is meant for the reader.

:class:`ApplicationError` (the HackSoft Django styleguide's pattern): a service or selector raises it,
or its app's subclass (``games.services.GameError``, ``tournaments.errors.TournamentError``,
``replays.selectors.ReplayRefused``), with a stable ``code`` and an English ``message``; each caller
says it its own way (an API error body, a WebSocket error frame, a page). It holds no HTTP status: a
refusal means the same thing on a page and on a socket.

A view that raises plain ``Http404`` gets the generic 404 page in production: its message may be
internal (Django's "No Match matches the given query.", the resolver's "Tried these URL patterns"),
so it is never shown. A view that raises :class:`NotFound` with a translated sentence gets that
sentence on the site's refusal page (``web.views.page_not_found``, ``handler404``, ``web.refusals``);
with DEBUG on, Django's debug page shows it as before.
"""

from __future__ import annotations

from django.http import Http404


class ApplicationError(Exception):
    """A refused request; nothing changed. ``code``: a stable machine word (``no_such_match``,
    ``full``, the WebSocket error codes of docs/protocol.md); ``message``: what was refused, in English
    (also ``str(error)``).

    >>> error = ApplicationError("full", "this tournament is full")
    >>> error.code, error.message, str(error)
    ('full', 'this tournament is full', 'this tournament is full')
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class NotFound(Http404):
    """A view's 404, on the site's refusal page (``web.refusals``), with its reason for the reader
    (already translated, e.g. ``_("No such player.")``), or without one (``NotFound()``: the 404 page's
    own sentence, nothing told about what was asked for)."""
