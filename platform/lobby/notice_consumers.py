"""The notices WebSocket, ``ws/notices/`` (docs/protocol.md "Notices socket"): opened by every page of
the site for a member or a guest (``lobby/notices.js``, included by the base template).

On connect: a ``notices`` message ``{"received": [...], "sent": [...]}``, the user's open direct
challenges (``lobby.challenges.payload`` each), then a ``go`` when a challenge of theirs was accepted
while no page of theirs was connected and its table was never opened (``challenges.missed_go``).
Then, pushed after each commit: ``challenge`` (a new challenge to this user), ``challenge_sent`` (one
this user sent, to their other pages), ``challenge_closed`` ``{"id", "status"}`` (accepted, declined,
cancelled or expired: the notice goes; the challenger reads "declined" or "expired" from it) and ``go``
``{"url"}`` (a match of this user started from a challenge or an open challenge: the page goes to the
table).

Frames: ``ping``, ``sync`` (``notices`` again), ``accept`` / ``decline`` ``{"challenge": id}`` (the
challenged player; ``decline`` by the challenger withdraws it). Refusals and malformed frames as on the
lobby socket (``seek_consumers.MemberSocket``): ``{"type": "error", "code", "message", "challenge"}``,
also for a late ``decline`` of a challenge no longer open (``challenge_answered``, ``challenge_withdrawn``,
``challenge_expired``: nothing changes).
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from games.services import GameError
from lobby import challenges
from lobby.seek_consumers import MemberSocket
from push.groups import notice_group

NOTICE_SLOTS = -2
"""Pseudo match id of the notices sockets' slots in ``games.ratelimit``."""


class NoticeConsumer(MemberSocket):
    """``ws/notices/`` (module docstring)."""

    slots = NOTICE_SLOTS
    kinds = ("ping", "sync", "accept", "decline")

    async def opened(self) -> None:
        await self.channel_layer.group_add(notice_group(self.user.pk), self.channel_name)
        await self.send_notices()
        # a go missed between two pages (challenges.missed_go: a BOT account accepts at once)
        url = await self.in_language(challenges.missed_go)(user=self.user)
        if url is not None:
            await self.send_json({"type": "go", "url": url})

    async def closed(self) -> None:
        await self.step("group discard", self.channel_layer.group_discard(
            notice_group(self.user.pk), self.channel_name))

    async def send_notices(self) -> None:
        notices = await self.in_language(challenges.open_for)(user=self.user)
        await self.send_json({"type": "notices", **notices})

    async def on_frame(self, kind: str, message: dict[str, Any]) -> None:
        if kind == "sync":
            await self.send_notices()
            return
        challenge_id = await self.id_field(message, "challenge")
        if challenge_id is None:
            return
        try:
            if kind == "accept":
                match = await self.in_language(challenges.challenge_accept)(user=self.user,
                                                                             challenge_id=challenge_id)
                await self.send_json({"type": "go", "url": reverse("games:table", args=[match.pk])})
            else:
                # strict: a late decline (accepted, expired or withdrawn meanwhile) is answered with
                # why, as an ``error`` frame; it changes nothing
                await self.in_language(challenges.challenge_decline)(user=self.user,
                                                                      challenge_id=challenge_id, strict=True)
        except GameError as exc:
            await self.send_json({**self.error_from(exc), "challenge": challenge_id})

    async def notice_push(self, event: dict[str, Any]) -> None:
        """Group message: forward its ``payload`` (built by ``lobby.challenges`` / ``challenge_push``)."""
        payload = event.get("payload")
        if isinstance(payload, dict):
            await self.send_json(payload)
