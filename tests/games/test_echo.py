"""The load test's baseline consumer (``games.echo``): echoes frames, and is not mounted by default."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from games.echo import EchoConsumer


@pytest.mark.django_db  # Channels closes stale database connections around every consumer event
async def test_echo_sends_each_frame_back_unchanged() -> None:
    comm = WebsocketCommunicator(EchoConsumer.as_asgi(), "/ws/echo/")
    connected, _ = await comm.connect()
    assert connected
    for text in ('{"type":"action","id":"e1"}', "é" * 100):
        await comm.send_to(text_data=text)
        assert await comm.receive_from() == text
    await comm.send_to(text_data="x" * 4097)
    assert (await comm.receive_output()) == {"type": "websocket.close", "code": 1009}
    await comm.disconnect()


def test_echo_is_not_routed_unless_enabled() -> None:
    from games.routing import websocket_urlpatterns

    assert [p.name for p in websocket_urlpatterns] == ["match_ws"]
