"""Logging filters (used by ``LOGGING`` in config/settings.py)."""

from __future__ import annotations

import logging


class ClientErrorWithoutTraceback(logging.Filter):
    """A refused request (4xx: 403, 404, 400...) is logged as one line, without its traceback.

    Django logs every response from an exception through ``django.request`` with ``exc_info``: for a
    ``PermissionDenied`` or ``Http404`` that is a 40-line traceback of an expected refusal that says
    nothing the line itself does not. Records with ``status_code`` >= 500 (real errors) keep theirs.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True


class ContextIds(logging.Filter):
    """Puts ``request_id`` and ``match_id`` (``web.log_context``; None when not set) on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        from web.log_context import current_request_id, match_id

        record.request_id = current_request_id()
        # A record made with extra={"match_id": ...} keeps its own.
        if getattr(record, "match_id", None) is None:
            record.match_id = match_id.get()
        return True
