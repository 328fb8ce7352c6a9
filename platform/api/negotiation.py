"""Content negotiation honouring ``q=0`` (RFC 9110 12.5.1: "not acceptable"), and the schema's ``?format=``.

DRF's default orders the ``Accept`` entries by precedence but ignores their weights, so
``Accept: application/json;q=0`` still got JSON. Here an entry with ``q=0`` is dropped from the list and
excludes every renderer it matches (``*/*;q=0`` all of them), unless another entry names that renderer's
media type exactly with a weight above 0. Nothing acceptable left: ``406 not_acceptable``.
"""

from __future__ import annotations

from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.utils.mediatypes import _MediaType


def _weight(token: str) -> float:
    """The ``q`` of one ``Accept`` entry (1 when absent or unreadable, as DRF reads it)."""
    for param in token.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                return float(value.strip())
            except ValueError:
                return 1.0
    return 1.0


class WeightedNegotiation(DefaultContentNegotiation):
    def get_accept_list(self, request: Any) -> list[str]:
        tokens: list[str] = super().get_accept_list(request)
        return [token for token in tokens if _weight(token) > 0]

    def select_renderer(self, request: Any, renderers: Any, format_suffix: Any = None) -> Any:
        tokens: list[str] = super().get_accept_list(request)
        refused = [_MediaType(t) for t in tokens if _weight(t) <= 0]
        if refused:
            named = {_MediaType(t).full_type for t in tokens if _weight(t) > 0}
            renderers = [
                r for r in renderers
                if r.media_type in named or not any(_MediaType(r.media_type).match(z) for z in refused)
            ]
        return super().select_renderer(request, renderers, format_suffix)


class FormatChoice(WeightedNegotiation):
    """The schema's negotiation (``/api/schema/``): ``?format=`` naming one of the view's renderers
    (``json``, ``yaml``) chooses it; any other value is ignored like any unknown parameter (the
    ``Accept`` header decides). DRF's own override (``URL_FORMAT_OVERRIDE``) is off: it answered an
    unknown format with a 404."""

    def select_renderer(self, request: Any, renderers: Any, format_suffix: Any = None) -> Any:
        asked = request.query_params.get("format")
        if format_suffix is None and asked in {r.format for r in renderers}:
            renderers = [r for r in renderers if r.format == asked]
        return super().select_renderer(request, renderers, format_suffix)
