"""Live notices over WebSockets: a tournament's page hears every committed step; the site-wide banner
socket is per user and refuses anonymous visitors."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from tests.games.wsclient import ORIGIN, session_cookie
from tournaments import live, services
from tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db(transaction=True)


async def open_socket(path: str, user: Any | None) -> tuple[WebsocketCommunicator, bool, Any]:
    from config.asgi import application

    headers = [(b"origin", ORIGIN), (b"host", b"testserver")]
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", cookie.encode()))
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await comm.connect()
    return comm, connected, code


async def test_page_socket_hears_a_join_after_its_commit(members: list[Any]) -> None:
    tournament = await database_sync_to_async(Tournament.objects.create)(
        name_en="Cup", name_pt="Copa", status=TournamentStatus.OPEN, max_players=8,
        starts_at=dt.datetime.now(dt.UTC) + dt.timedelta(hours=1),
    )
    comm, connected, _ = await open_socket(f"/ws/tournaments/{tournament.pk}/", None)
    assert connected  # anyone may watch a tournament's page
    try:
        await database_sync_to_async(services.tournament_join)(tournament_id=tournament.pk, user=members[0])
        message = json.loads(await comm.receive_from())
        assert message == {"type": "changed", "tournament": tournament.pk}
        await comm.send_to(text_data="ignored")  # the socket only pushes
        assert await comm.receive_nothing(timeout=0.3)
    finally:
        await comm.disconnect()


async def test_banner_socket_is_per_user_and_refuses_anonymous(members: list[Any]) -> None:
    _anonymous, connected, code = await open_socket("/ws/tournaments/me/", None)
    assert not connected and code == 4401
    comm, connected, _ = await open_socket("/ws/tournaments/me/", members[0])
    other, other_connected, _ = await open_socket("/ws/tournaments/me/", members[1])
    assert connected and other_connected
    try:
        def notify() -> None:
            from django.db import transaction

            with transaction.atomic():
                live.round_started(77, [members[0].pk])

        await database_sync_to_async(notify)()
        assert json.loads(await comm.receive_from()) == {"type": "changed", "tournament": 77}
        assert await other.receive_nothing(timeout=0.3)  # nothing for another player
    finally:
        await comm.disconnect()
        await other.disconnect()
