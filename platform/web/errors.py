"""Refusals whose message is meant for the reader: the site's error pages show it.

A view that raises plain ``Http404`` gets the generic 404 page in production: its message may be
internal (Django's "No Match matches the given query.", the resolver's "Tried these URL patterns"),
so it is never shown. A view that raises :class:`NotFound` with a translated sentence gets that
sentence on the 404 page (``web.views.page_not_found``, ``handler404``); with DEBUG on, Django's debug
page shows it as before.
"""

from __future__ import annotations

from django.http import Http404


class NotFound(Http404):
    """404 with a reason for the reader (already translated, e.g. ``_("No such player.")``): shown on
    the site's 404 page under its heading."""
