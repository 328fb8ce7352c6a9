"""The API's OpenAPI 3 schema (``/api/schema/``, JSON; ``?format=yaml``) and its browsable docs page
(``/api/docs/``: Swagger UI from drf-spectacular-sidecar's self-hosted files, no CDN).

The docs page works under the site's Content-Security-Policy (no inline script or style): its start-up
script is a separate response (drf-spectacular's split view, ``?script=``), its styles a static file.
Both are limited apart from ``/api/v1/`` (``api.throttles.DOCS_THROTTLES``); their errors are JSON.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiJsonRenderer2, OpenApiYamlRenderer
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from api.negotiation import FormatChoice
from api.throttles import DOCS_THROTTLES


class JsonErrors:
    """Errors of a view that renders something else (YAML, HTML) are the API's JSON errors, with
    ``Content-Type: application/json``, whatever format was asked for."""

    def handle_exception(self, exc: Exception) -> Response:
        response: Response = super().handle_exception(exc)  # type: ignore[misc]
        request = self.request  # type: ignore[attr-defined]
        request.accepted_renderer = JSONRenderer()
        request.accepted_media_type = "application/json"
        return response


class SchemaView(JsonErrors, SpectacularAPIView):
    """The schema: JSON unless YAML is asked for (``?format=yaml`` or ``Accept: application/yaml``); any
    other ``?format=`` is ignored."""

    http_method_names = ["get", "head", "options"]
    content_negotiation_class = FormatChoice
    renderer_classes = [OpenApiJsonRenderer, OpenApiJsonRenderer2, OpenApiYamlRenderer]
    throttle_classes: list[Any] = DOCS_THROTTLES


class DocsView(JsonErrors, SpectacularSwaggerSplitView):
    """Swagger UI on the schema, in the site's page chrome (pt-BR or English)."""

    throttle_classes: list[Any] = DOCS_THROTTLES
    http_method_names = ["get", "head", "options"]
    template_name = "api/docs.html"
    url_name = "api:schema"
