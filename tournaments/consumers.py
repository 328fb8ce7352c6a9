"""Live notices over WebSockets: a tournament's page and the site-wide banner.

``/ws/tournaments/<id>/``: anyone who may see the event may listen (``tournaments.access``: a private
event's players, organisers, club members or code holders in the socket's session); anyone else, like a
socket for an event that does not exist, is closed with 4404 at once. Each ``{"type": "changed"}`` tells
the page to re-fetch its live fragment (``/tournaments/<id>/live/``), rendered by the page's template.
``/ws/tournaments/me/``: a logged-in user's notices ("your round k match is ready"); the page then
fetches ``/tournaments/banner.json``. Clients send nothing; anything sent is ignored.
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async

from push.groups import tournament_banner_group, tournament_group
from tournaments.access import viewer_may_see
from tournaments.models import Tournament
from web.close_codes import NOT_AUTHENTICATED_CLOSE_CODE, NOT_FOUND_CLOSE_CODE
from web.socket_end import EndsCleanly


class _Notices(EndsCleanly):
    """Leaves its group however it ends; an outage is one WARNING line (``web.socket_end``)."""

    group = ""

    async def disconnect(self, code: int) -> None:
        await self.end()

    async def release(self) -> None:
        if self.group and self.channel_layer is not None:
            await self.step("group discard", self.channel_layer.group_discard(self.group, self.channel_name))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return None  # nothing to receive: the socket only pushes notices

    async def tournament_changed(self, event: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps({"type": "changed", "tournament": event.get("tournament")}))


def _may_listen(tournament_id: int, user: Any, session: Any) -> bool:
    """Whether the event exists and this socket's user and session may see it."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    return tournament is not None and user is not None and viewer_may_see(tournament, user, session)


class TournamentConsumer(_Notices):
    async def connect(self) -> None:
        tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        if not await database_sync_to_async(_may_listen)(tournament_id, self.scope.get("user"),
                                                         self.scope.get("session")):
            await self.close(code=NOT_FOUND_CLOSE_CODE)  # as for an event that does not exist
            return
        self.group = tournament_group(tournament_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()


class MyTournamentsConsumer(_Notices):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=NOT_AUTHENTICATED_CLOSE_CODE)
            return
        self.group = tournament_banner_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
