"""A bare Channels echo consumer: the load test's baseline (``scripts/loadtest``).

Mounted at ``ws/echo/`` only when the setting ``GAMES_ECHO_WS`` is true (environment variable
``GAMES_ECHO_WS=1``): it answers every text frame with the same text, with no authentication, database
or channel layer, so its latency is what Daphne + Channels + the WebSocket framing cost on their own.
"""

from __future__ import annotations

from channels.generic.websocket import AsyncWebsocketConsumer


class EchoConsumer(AsyncWebsocketConsumer):
    """Sends each text frame back unchanged (binary frames too); frames over 4 KiB close the socket."""

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if len(text_data or "") > 4096 or len(bytes_data or b"") > 4096:
            await self.close(code=1009)
            return
        await self.send(text_data=text_data, bytes_data=bytes_data)
