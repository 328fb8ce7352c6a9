"""Reading a bot API stream in a test: :func:`open_stream` GETs it with Django's ``AsyncClient`` and
returns a :class:`Stream` whose lines a task reads as they come (``streaming_content``, asynchronously)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from django.core.exceptions import SynchronousOnlyOperation
from django.test import AsyncClient

from tests.browser_waits import SOCKET_WAIT_S

WAIT = max(30.0, SOCKET_WAIT_S)
"""Seconds a test waits for a line it expects (generous: a loaded 2-core machine)."""


class Stream:
    """The lines of one streaming response: ``await line()`` (bytes, blank lines included),
    ``await obj()`` (the next JSON line, blank ones skipped), ``ended`` once the response is over."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.blank = 0
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        buffer = b""
        try:
            async for chunk in self.response.streaming_content:
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    await self.lines.put(line)
        except SynchronousOnlyOperation:
            # Django's test client closes a finished async stream synchronously (response.close() in
            # the event loop: request_finished's receivers close this thread's database connection and
            # refuse to). The ASGI handler calls it through sync_to_async; the stream itself is over.
            pass
        finally:
            await self.lines.put(None)

    async def line(self, timeout: float = WAIT) -> bytes | None:
        """The next line (without its newline), or None once the stream has ended."""
        return await asyncio.wait_for(self.lines.get(), timeout)

    async def obj(self, timeout: float = WAIT) -> dict[str, Any] | None:
        """The next JSON line (blank keep-alive lines counted in ``blank`` and skipped), None at the end."""
        while True:
            line = await self.line(timeout)
            if line is None:
                return None
            if not line.strip():
                self.blank += 1
                continue
            return dict(json.loads(line))

    async def until(self, predicate: Any, timeout: float = WAIT) -> dict[str, Any]:
        """The first JSON line for which ``predicate(line)`` holds (earlier ones dropped)."""
        while True:
            obj = await self.obj(timeout)
            assert obj is not None, "the stream ended first"
            if predicate(obj):
                return obj

    async def rest(self, timeout: float = WAIT) -> list[dict[str, Any]]:
        """Every JSON line until the stream ends."""
        out = []
        while (obj := await self.obj(timeout)) is not None:
            out.append(obj)
        return out

    async def close(self) -> None:
        """The client goes away: the reading task is cancelled (which cancels the server's generator)."""
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def open_stream(path: str, token: str | None) -> tuple[Any, Stream | None]:
    """GET ``path`` with ``token``: (the response, its :class:`Stream` when it streams, else None)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = await AsyncClient().get(path, headers=headers)
    return response, (Stream(response) if response.streaming else None)
