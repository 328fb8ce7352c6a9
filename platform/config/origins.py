"""The WebSocket handshake's origin check: scheme, host AND port must be one of the site's own origins.

Channels' ``AllowedHostsOriginValidator`` compared the host only, so a page at ``http://127.0.0.1:9999``,
``http://localhost:1234`` or ``https://127.0.0.1`` could open the table's socket with a victim's session
cookie, read their cards and resign (cross-site WebSocket hijacking, issue 8). The site's origins are
the ones Django's CSRF check accepts for a POST:

- every entry of ``CSRF_TRUSTED_ORIGINS`` (``https://gin.example``, or ``https://*.gin.example`` for
  subdomains), and
- the served origin: the request's scheme (``wss`` -> ``https``; behind a proxy the header named by
  ``SECURE_PROXY_SSL_HEADER``, as Django's ``request.is_secure()`` reads it) with its ``Host`` header,
  provided that host is in ``ALLOWED_HOSTS``.

Ports are compared with the scheme's default filled in (``http://a`` == ``http://a:80``). A handshake
without an ``Origin`` header (or ``Origin: null``) is refused: every browser sends one, so only a
non-browser client lacks it, and such a client can send the right one. Refused handshakes get HTTP 403
before any consumer runs. Settings are read per handshake (tests may change them).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

log = logging.getLogger(__name__)

DEFAULT_PORTS = {"http": 80, "https": 443}


def parse_origin(value: str) -> tuple[str, str, int] | None:
    """``scheme://host[:port]`` as (scheme, lower-case host, port with the default filled in); None for
    anything else (``null``, another scheme, a path, user info, a bad port)."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.username is not None:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else DEFAULT_PORTS[scheme]


def request_scheme(scope: dict[str, Any], headers: dict[bytes, bytes]) -> str:
    """``http`` or ``https`` for the handshake, as Django's ``request.scheme`` would say."""
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        name, secure_value = proxy
        header = name.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")
        value = headers.get(header)
        if value is not None:
            first = value.decode("latin-1").split(",")[0].strip()
            return "https" if first == secure_value else "http"
    return "https" if scope.get("scheme") in ("wss", "https") else "http"


def served_origin(scope: dict[str, Any], headers: dict[bytes, bytes]) -> tuple[str, str, int] | None:
    """The origin the socket was requested at (scheme + ``Host``), or None when the host is not allowed."""
    host = headers.get(b"host", b"").decode("latin-1").strip()
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    return parse_origin(f"{request_scheme(scope, headers)}://{host}")


def trusted(origin: tuple[str, str, int], entries: Iterable[str]) -> bool:
    """Whether ``origin`` is one of the ``CSRF_TRUSTED_ORIGINS`` entries (``*.`` entries match subdomains)."""
    scheme, host, port = origin
    for entry in entries:
        if "://*." in entry:
            entry_scheme, _, rest = entry.partition("://*.")
            wanted = parse_origin(f"{entry_scheme}://{rest}")
            if wanted and wanted[0] == scheme and wanted[2] == port and is_same_domain(host, "." + wanted[1]):
                return True
        elif parse_origin(entry) == origin:
            return True
    return False


def origin_allowed(scope: dict[str, Any]) -> bool:
    """Whether the handshake's ``Origin`` is one of the site's own origins (module docstring)."""
    headers = {name.lower(): value for name, value in scope.get("headers") or []}
    raw = headers.get(b"origin")
    origin = parse_origin(raw.decode("latin-1")) if raw is not None else None
    if origin is None:
        return False
    return origin == served_origin(scope, headers) or trusted(origin, settings.CSRF_TRUSTED_ORIGINS)


class SameOriginValidator:
    """ASGI middleware: refuse (HTTP 403) a WebSocket handshake whose origin is not the site's own."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            headers = dict(scope.get("headers") or [])
            log.warning(
                "websocket %s refused: origin %r is not one of the site's origins (host %r)",
                scope.get("path"), headers.get(b"origin", b"").decode("latin-1")[:100],
                headers.get(b"host", b"").decode("latin-1")[:100],
            )
            # The ignore: a plain ASGI scope here; Channels' stubs want their consumers' TypedDict.
            return await WebsocketDenier()(scope, receive, send)  # type: ignore[arg-type]
        return await self.application(scope, receive, send)
