"""Logging (one console handler: plain lines, or JSON in production) and request ids (django-guid)."""

from __future__ import annotations

import os

from config.settings.environment import PROFILE

# One console handler. Every record carries ``request_id`` (the request's X-Request-ID: django-guid, see
# below) and ``match_id`` (web.log_context: the match a view, WebSocket consumer or task works on; None
# otherwise). Embedded profile: plain lines. Production profile (or LOG_FORMAT=json): one JSON object per
# line (python-json-logger): time, level, logger, message, request_id, match_id, and exc_info when set.
LOG_FORMAT = os.environ.get("LOG_FORMAT") or ("json" if PROFILE == "production" else "plain")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        # One record, one line: the message's control characters escaped (web.log_format).
        "plain": {
            "()": "web.log_format.PlainFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s: %(message)s",
        },
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(levelname)s %(name)s %(message)s %(request_id)s %(match_id)s",
            "rename_fields": {"levelname": "level", "name": "logger"},
            "timestamp": "time",  # ISO 8601, UTC
        },
    },
    "filters": {
        "client_error_one_line": {"()": "web.log_filters.ClientErrorWithoutTraceback"},
        "unavailable_one_line": {"()": "web.log_filters.UnavailableWithoutTraceback"},
        "context_ids": {"()": "web.log_filters.ContextIds"},
        "redact_secrets": {"()": "web.log_filters.RedactSecrets"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler", "formatter": "json" if LOG_FORMAT == "json" else "plain",
            "filters": ["client_error_one_line", "unavailable_one_line", "context_ids", "redact_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # Django's own default gives "django" a console handler (with DEBUG) and mail_admins: with the root
    # handler that printed each record twice. One path: propagate to root only.
    "loggers": {
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        # django-guid says at INFO, on every request, whether the header came: only its warnings.
        "django_guid": {"level": "WARNING"},
    },
}

# --- request ids (django-guid) --------------------------------------------------------------------------
# An incoming X-Request-ID is kept (lower-cased) when it is 32 hex digits, with or without a UUID's dashes
# (nginx's $request_id is one; web.middleware.RequestIdHeaderMiddleware), else a new one is made; either
# way the response echoes it. First middleware (after that header's check), so every later record of the
# request carries it (the CORS expose list is config.settings.api's, not django-guid's).
DJANGO_GUID = {
    "GUID_HEADER_NAME": "X-Request-ID", "VALIDATE_GUID": True, "RETURN_HEADER": True, "EXPOSE_HEADER": False,
}
