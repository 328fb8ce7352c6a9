"""The API's OpenAPI 3 schema (``/api/schema/``, JSON; ``?format=yaml``) and its browsable docs page
(``/api/docs/``: Swagger UI from drf-spectacular-sidecar's self-hosted files, no CDN).

The docs page works under the site's Content-Security-Policy (no inline script or style): its start-up
script is a separate response (drf-spectacular's split view, ``?script=``), its styles a static file.
"""

from __future__ import annotations

from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiJsonRenderer2, OpenApiYamlRenderer
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView


class SchemaView(SpectacularAPIView):
    """The schema: JSON unless YAML is asked for (``?format=yaml`` or ``Accept: application/yaml``)."""

    http_method_names = ["get", "head", "options"]
    renderer_classes = [OpenApiJsonRenderer, OpenApiJsonRenderer2, OpenApiYamlRenderer]


class DocsView(SpectacularSwaggerSplitView):
    """Swagger UI on the schema, in the site's page chrome (pt-BR or English)."""

    http_method_names = ["get", "head", "options"]
    template_name = "api/docs.html"
    url_name = "api:schema"
