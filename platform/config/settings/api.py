"""The public read-only API (platform/api, docs/api.md): Django REST framework, its OpenAPI schema
(drf-spectacular), CORS."""

from __future__ import annotations

import os

from corsheaders.defaults import default_headers

# JSON only, GET/HEAD/OPTIONS only, errors {"error": code, "message": ...}; session log-in only counts for
# the per-user limit. Limits: API_ANON_RATE per IP (REMOTE_ADDR: NUM_PROXIES 0 never trusts the client's
# X-Forwarded-For; guests are counted there too), API_USER_RATE per member account, in the default cache
# (api.throttles).
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [],
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttles.AnonThrottle", "api.throttles.UserThrottle"],
    "EXCEPTION_HANDLER": "api.errors.api_exception_handler",
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.WeightedNegotiation",  # Accept's q=0 refuses
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "NUM_PROXIES": 0,
    # No ``?format=`` override: docs/api.md says unknown parameters are ignored, and DRF's override
    # answered ``?format=xml`` with a 404. Only the schema reads it (``api.negotiation.FormatChoice``).
    "URL_FORMAT_OVERRIDE": None,
}
API_ANON_RATE = os.environ.get("API_ANON_RATE", "60/min")
API_USER_RATE = os.environ.get("API_USER_RATE", "240/min")
# The schema and docs page: their own counts (api.throttles.DOCS_THROTTLES), higher than the data's.
API_DOCS_ANON_RATE = os.environ.get("API_DOCS_ANON_RATE", "120/min")
API_DOCS_USER_RATE = os.environ.get("API_DOCS_USER_RATE", "480/min")
SPECTACULAR_SETTINGS = {
    "TITLE": "Gin Rummy API",
    "DESCRIPTION": "Public read-only data of the site: players, ratings, rankings, tournaments, finished "
                   "matches and their replays, house bots, quick-pairing pools and open challenges "
                   "(guide: docs/api.md); and the bot API under /api/v1/bot/, where programs play as BOT "
                   "accounts with a token (guide: docs/bot-api.md, /developers/bots/).",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # <id:...> in api/urls.py: 1 to 18 digits (api.schema.IdConverter).
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}},
    "ENUM_NAME_OVERRIDES": {
        "TournamentStatusEnum": "tournaments.models.TournamentStatus",
        "RoundStatusEnum": "tournaments.models.RoundStatus",
        "MatchStatusEnum": "games.models.MatchStatus",
    },
    "POSTPROCESSING_HOOKS": [
        # botapi.schema.add_bot_api: the bot API's streams and BotToken scheme (docs/bot-api.md); before the
        # error answers (the streams get them too) and no_auth_on_public_operations (which keeps BotToken).
        "drf_spectacular.hooks.postprocess_schema_enums", "botapi.schema.add_bot_api",
        "api.schema.add_error_responses",
        "api.schema.no_nul_in_query", "api.schema.no_auth_on_public_operations",
    ],
}
# CORS: any origin may GET the API, without credentials (cookies are never sent cross-site).
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_EXPOSE_HEADERS = ["Retry-After", "X-Request-ID"]
# A cross-site reader may send its own request id (docs/api.md): the preflight must allow that header.
CORS_ALLOW_HEADERS = [*default_headers, "x-request-id"]
