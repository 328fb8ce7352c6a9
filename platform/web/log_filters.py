"""Logging filters (used by ``LOGGING`` in config/settings/logs.py)."""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import unquote_plus

# One ``name=value`` pair of a query string inside any text: after ``?``, ``&`` or ``;``, up to the next
# separator, quote or blank (a logged URL sits in quotes in ``<ASGIRequest: GET '...'>``). The separators
# may be percent-encoded (``%3Btoken%3D...``: Django's request repr re-encodes a path's ``;`` and ``=``).
_SEP = r"(?:[&;]|%26|%3[bB])"
_QUERY_PAIR = re.compile(
    rf"(?P<lead>\?|%3[fF]|{_SEP})"
    rf"(?P<name>(?:(?!%3[dD]|{_SEP})[^=#\s'\"<>])+)"
    r"(?P<eq>=|%3[dD])"
    rf"(?P<value>(?:(?!{_SEP})[^#\s'\"<>])*)"
)
SECRET_PARAMETERS = frozenset({"token"})
"""Query parameters whose values are secrets (a private replay's or watch link's ``?token=``)."""
REDACTED = "[redacted]"


def redact_query_secrets(text: str) -> str:
    """``text`` with the value of every query parameter named ``token`` (any case, even percent-encoded
    as ``%74oken``: Django decodes names; its ``;``, ``&``, ``?`` and ``=`` too: ``%3Btoken%3D...``)
    replaced by ``[redacted]``; everything else unchanged.

    >>> redact_query_secrets("GET /replay/7/?a=1&token=s3cret 200")
    'GET /replay/7/?a=1&token=[redacted] 200'
    """
    if "=" not in text and "%3d" not in text.lower():
        return text

    def redact(m: re.Match[str]) -> str:
        if unquote_plus(m["name"]).strip().lower() in SECRET_PARAMETERS:
            return f"{m['lead']}{m['name']}{m['eq']}{REDACTED}"
        return m[0]

    return _QUERY_PAIR.sub(redact, text)


# A friend table's invite link ``/t/<token>/`` (games.urls ``join``): the token is the whole secret. The
# path's first segment only: at the start of the text, after a blank, quote, bracket, ``=`` or ``,``, or
# after a URL's ``scheme://host`` (``/static/t/x`` and ``/replay/t/`` are left alone). Django and Daphne
# log the decoded path, so ``/%74/<token>/`` arrives here as ``/t/<token>/``; ``/t//<token>/`` (Django routes
# it nowhere, but the token is a link's) and an encoded ``/t%2F<token>`` are redacted too.
_JOIN_PATH = re.compile(
    r"(?P<lead>(?:^|(?<=[\s'\"(\[=,]))"  # the start, or after a blank, quote, bracket, = or ,
    r"(?:[a-z][a-z0-9+.-]*://[^/\s'\"<>]+)?"  # a URL's scheme://host[:port], if any
    r"/+t(?:/|%2[fF])+)(?P<token>(?:(?!%2[fF])[^/?#\s'\"<>])+)",  # extra or encoded slashes too
    re.IGNORECASE,
)


def redact_path_secrets(text: str) -> str:
    """``text`` with the token of every invite path ``/t/<token>/`` replaced by ``[redacted]``.

    >>> redact_path_secrets("GET /t/Zx9_k-Q2/ 200")
    'GET /t/[redacted]/ 200'
    """
    if "/t" not in text and "/T" not in text:
        return text
    return _JOIN_PATH.sub(lambda m: f"{m['lead']}{REDACTED}", text)


def redact_secrets(text: str) -> str:
    """``text`` without a private link's secret: :func:`redact_query_secrets` (``?token=``) and
    :func:`redact_path_secrets` (``/t/<token>/``)."""
    return redact_path_secrets(redact_query_secrets(text))


# LogRecord attributes that are not ``extra`` fields (those the JSON formatter prints as they are).
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class RedactSecrets(logging.Filter):
    """No record shows a private link's token: the message, and every ``extra`` field (``django.request``
    records carry ``request``, whose text is ``<ASGIRequest: GET '/replay/7/?token=...'>``), get
    :func:`redact_secrets` (``?token=`` and ``/t/<token>/``). A request object is replaced by its
    redacted text (no handler of ours needs the object; the JSON formatter printed its ``repr`` anyway)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format/args pair: the handler reports it; never raise into the caller
            return True
        redacted = redact_secrets(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        for name, value in list(vars(record).items()):
            if name in _STANDARD or name.startswith("_"):
                continue
            text = _text_of(value)
            if text is not None:
                clean = redact_secrets(text)
                if clean != text or not isinstance(value, str):
                    setattr(record, name, clean)
        return True


def _text_of(value: Any) -> str | None:
    """The text a log field shows for ``value`` when it may hold a URL (a string or a request), else None."""
    if isinstance(value, str):
        return value
    from django.http import HttpRequest

    if isinstance(value, HttpRequest):
        return repr(value)
    return None


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


class UnavailableWithoutTraceback(logging.Filter):
    """A 503 because the database cannot be reached (``web.views.server_error``) is logged as one line:
    Django's "Service Unavailable: /path" plus the driver's first line (``OperationalError: connection
    failed: ...``), without the traceback, which during an outage would be the same 60 lines on every
    request and says nothing the line does not. Other records are unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) != 503 or not record.exc_info:
            return True
        from web.unavailable import database_unavailable, describe

        exc = record.exc_info[1]
        if exc is None or not database_unavailable(exc):
            return True
        cause = exc.__cause__ or exc
        try:
            message = record.getMessage()
        except Exception:  # a bad format/args pair: the handler reports it
            return True
        record.msg, record.args = f"{message} ({describe(cause)})", None
        record.exc_info = None
        record.exc_text = None
        return True


class ContextIds(logging.Filter):
    """Puts ``request_id`` and ``match_id`` (``web.log_context``; None when not set) on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        from web.log_context import current_request_id, match_id

        # A record made with extra={"request_id": ...} (web.access_log) keeps its own.
        if getattr(record, "request_id", None) is None:
            record.request_id = current_request_id()
        # A record made with extra={"match_id": ...} keeps its own.
        if getattr(record, "match_id", None) is None:
            record.match_id = match_id.get()
        return True
