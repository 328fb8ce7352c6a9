"""A tiny HTTP client for the bot API (docs/bot-api.md), over the standard library only.

:class:`Connection` sends ``Authorization: Bearer <token>`` on every request to paths under
``/api/v1/bot/``; answers are JSON objects, errors ``{"error": code, "message": text}`` raised as
:class:`ApiError`. :meth:`Connection.stream` reads one of the two ndjson streams line by line.

    >>> conn = Connection("http://127.0.0.1:8000", "gin_...")          # doctest: +SKIP
    >>> conn.get_json("account/")["bot"]                                # doctest: +SKIP
    True
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Generator
from http.client import HTTPException, HTTPResponse
from typing import Any

log = logging.getLogger("botclient.http")

API_PREFIX = "/api/v1/bot/"
"""Every path of protocol v1 is under this prefix (docs/bot-api.md)."""

RETRIED_429 = frozenset(("throttled", "move_in_flight"))
"""The 429 codes a request is sent again for (``too_many_streams`` is not: another reader holds it)."""


class ApiError(Exception):
    """An error answer: ``status`` (HTTP status, 0 when the server never answered), ``code`` (the
    protocol's code, e.g. ``stale_seq``, ``bad_token``), ``message`` (the server's text) and
    ``retry_after`` (seconds, from the ``Retry-After`` header; ``None`` without one)."""

    def __init__(self, status: int, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


class StreamGone(Exception):
    """A stream stopped: nothing arrived (not even a keep-alive line) within the idle timeout, or the
    connection broke mid-stream. Open it again."""


def _retry_after(value: str | None) -> float | None:
    """The ``Retry-After`` header in seconds (delta-seconds form only); ``None`` if absent or unreadable."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _error_of(status: int, body: bytes, retry_after: str | None) -> ApiError:
    """The :class:`ApiError` of an error answer: its JSON ``error`` / ``message`` when present, else
    ``http_<status>`` and the start of the body."""
    code, message = f"http_{status}", body[:200].decode("utf-8", "replace")
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        code = data["error"]
        message = str(data.get("message", ""))
    return ApiError(status, code, message, _retry_after(retry_after))


class Connection:
    """The site at ``base_url`` (``http://127.0.0.1:8000``) seen with one API token.

    - ``timeout``: seconds a plain request may take (connect and answer).
    - ``idle_timeout``: seconds a stream may stay silent before :class:`StreamGone` (the server sends a
      blank keep-alive line every 7 s; 30 s of silence means the connection is gone).
    - ``retries``: how many times a request is sent again after a 429 ``throttled`` /
      ``move_in_flight`` (waiting ``Retry-After``, else ``backoff``) or a connection error (waiting
      ``backoff`` doubled each time, at most ``max_backoff``). ``sleep`` is ``time.sleep`` (tests
      pass their own).

    :raises ValueError: ``base_url`` is not an http(s) URL.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        timeout: float = 10.0,
        *,
        idle_timeout: float = 30.0,
        retries: int = 5,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if urllib.parse.urlsplit(base_url).scheme not in ("http", "https"):
            raise ValueError(f"the site's URL starts with http:// or https://, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.sleep = sleep

    def url(self, path: str) -> str:
        """The full URL of ``path``: relative to ``/api/v1/bot/`` (``"account/"``) unless it starts
        with ``/``."""
        return self.base_url + (path if path.startswith("/") else API_PREFIX + path)

    def _open(self, method: str, path: str, body: dict[str, Any] | None, timeout: float) -> HTTPResponse:
        """One request; the open response of a 2xx answer.

        :raises ApiError: an error answer.
        :raises OSError: the connection failed (``urllib.error.URLError`` and socket errors).
        """
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url(path), data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept", "application/json, application/x-ndjson")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            response: HTTPResponse = urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            with exc:
                raise _error_of(exc.code, exc.read(), exc.headers.get("Retry-After")) from None
        return response

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send ``method path`` with the JSON ``body``; the answer's JSON object (``{}`` for an empty
        answer). Retries as the class docstring says.

        :raises ApiError: an error answer not retried, or still failing after ``retries`` tries; a
            connection that keeps failing is ``ApiError(0, "unreachable", why)``.
        """
        delay = self.backoff
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                with self._open(method, path, body, self.timeout) as response:
                    raw = response.read()
            except ApiError as exc:
                if exc.status != 429 or exc.code not in RETRIED_429 or last:
                    raise
                wait = exc.retry_after if exc.retry_after is not None else delay
                log.info("%s %s: %s, again in %.2f s", method, path, exc.code, wait)
            except (OSError, HTTPException) as exc:
                if last:
                    raise ApiError(0, "unreachable", f"{method} {self.url(path)}: {exc}") from exc
                wait = delay
                log.warning("%s %s: %s, again in %.2f s", method, path, exc, wait)
            else:
                if not raw.strip():
                    return {}
                answer = json.loads(raw)
                if not isinstance(answer, dict):
                    raise ApiError(200, "bad_answer", f"expected a JSON object, got {raw[:200]!r}")
                return answer
            self.sleep(wait)
            delay = min(delay * 2, self.max_backoff)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def get_json(self, path: str) -> dict[str, Any]:
        """``GET path`` -> the answer's JSON object (see :meth:`request`)."""
        return self.request("GET", path)

    def post_json(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """``POST path`` with the JSON ``body`` (``{}`` when None) -> the answer (see :meth:`request`)."""
        return self.request("POST", path, {} if body is None else body)

    def stream(
        self, path: str, *, keepalives: bool = False
    ) -> Generator[dict[str, Any] | None, None, None]:
        """The ndjson stream at ``path``: one parsed JSON object per line, blank keep-alive lines
        skipped (yielded as ``None`` when ``keepalives``, so a reader can check its own stop flag).
        Ends when the server ends the stream.

        :raises ApiError: the server refused the stream (``bad_token``, ``not_seated``,
            ``too_many_streams``, ...).
        :raises StreamGone: no line within ``idle_timeout``, a connection error, or a line that is
            not a JSON object (a truncated stream).
        """
        try:
            response = self._open("GET", path, None, self.idle_timeout)
        except (OSError, HTTPException) as exc:
            raise StreamGone(f"GET {self.url(path)}: {exc}") from exc
        with response:
            while True:
                try:
                    line = response.readline()
                except TimeoutError as exc:
                    raise StreamGone(f"{path}: nothing for {self.idle_timeout} s") from exc
                except (OSError, HTTPException) as exc:
                    raise StreamGone(f"{path}: {exc}") from exc
                if not line:
                    return
                if not line.strip():
                    if keepalives:
                        yield None
                    continue
                try:
                    item = json.loads(line)
                except ValueError as exc:
                    raise StreamGone(f"{path}: a broken line {line[:200]!r}") from exc
                if not isinstance(item, dict):
                    raise StreamGone(f"{path}: a line that is not an object: {line[:200]!r}")
                yield item


def quote(text: str) -> str:
    """``text`` safe as one path segment (a username, a slug)."""
    return urllib.parse.quote(text, safe="")
