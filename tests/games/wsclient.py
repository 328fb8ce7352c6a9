"""Helpers for WebSocket tests: connect through the real ASGI stack (origin check, session auth) with a
logged-in session cookie, receive JSON with a timeout, and a simple player that picks good moves.

Every communicator made by :func:`connect` must be disconnected (``await comm.disconnect()``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from tests.browser_waits import SOCKET_WAIT_S

ORIGIN = b"http://testserver"


def session_cookie(user: Any) -> str:
    """A session cookie header value for ``user`` (sync: run in a thread from async code)."""
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


Message = dict[str, Any]


async def connect(
    user: Any | None, match_id: int, *, expect_state: bool = True
) -> tuple[WebsocketCommunicator, Message]:
    """Open ``ws/match/<id>/`` as ``user`` (None = anonymous); returns the communicator and the first
    message (a ``state`` when ``expect_state``)."""
    from config.asgi import application

    headers = [(b"origin", ORIGIN), (b"host", b"testserver")]
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", cookie.encode()))
    comm = WebsocketCommunicator(application, f"/ws/match/{match_id}/", headers=headers)
    connected, _ = await comm.connect()
    assert connected
    first = await recv(comm)
    if expect_state:
        assert first["type"] == "state", first
    return comm, first


async def connect_mover(users: dict[int, Any], match_id: int) -> tuple[WebsocketCommunicator, Message, int]:
    """Open ``ws/match/<id>/`` as the player to act (``users``: seat -> user, seat 0 looks first); returns
    the communicator, its first ``state`` and that player's seat."""
    probe, state = await connect(users[0], match_id)
    await probe.disconnect()
    mover = state["hand"]["to_act"]
    comm, state = await connect(users[mover], match_id)
    return comm, state, mover


async def recv(comm: WebsocketCommunicator, timeout: float = SOCKET_WAIT_S) -> dict[str, Any]:
    """The next JSON message."""
    return json.loads(await comm.receive_from(timeout=timeout))


async def send(comm: WebsocketCommunicator, message: Any) -> None:
    """Send ``message`` as JSON text (a ``str`` is sent as is)."""
    await comm.send_to(text_data=message if isinstance(message, str) else json.dumps(message))


async def recv_until(
    comm: WebsocketCommunicator, kind: str, timeout: float = SOCKET_WAIT_S
) -> tuple[Message, list[Message]]:
    """Receive until a message of ``type`` ``kind``; returns it and every message seen (it included)."""
    seen = []
    while True:
        msg = await recv(comm, timeout)
        seen.append(msg)
        if msg["type"] == kind:
            return msg, seen


async def recv_state(comm: WebsocketCommunicator, seq: int, timeout: float = SOCKET_WAIT_S) -> Message:
    """Receive ``state`` messages until the one at ``seq`` (earlier ones may still be on their way)."""
    while True:
        state, _ = await recv_until(comm, "state", timeout)
        if state["seq"] == seq:
            return state


async def drain(
    comm: WebsocketCommunicator, settle: float = 0.1, until: Callable[[list[Message]], bool] | None = None
) -> list[Message]:
    """Every message already on its way (until ``settle`` seconds pass without one).

    ``until(seen)``: first receive until it holds, each message waited for up to ``SOCKET_WAIT_S`` (what
    the test knows will come: on a busy machine it can come later than any settle), then those still on
    their way. Without it, a message slower than ``settle`` is missed (and met by the next receive)."""
    seen = []
    if until is not None:
        while not until(seen):
            seen.append(await recv(comm))
    while not await comm.receive_nothing(timeout=settle):
        seen.append(await recv(comm))
    return seen


def choose(hand: dict[str, Any]) -> str:
    """A decent move from a ``state.hand`` payload: knock at the least deadwood when legal, pass the
    upcard, draw the stock, else discard the card leaving the least deadwood."""
    legal = hand["legal_actions"]
    knocks = [a for a in legal if a.startswith("knock")]
    if knocks:
        if "knock" in knocks:
            return "knock"
        after = hand["deadwood_if_discarded"]
        return min(knocks, key=lambda a: after[a.split()[1]])
    if "pass" in legal:
        return "pass"
    if "draw stock" in legal:
        return "draw stock"
    discards = [a for a in legal if a.startswith("discard")]
    after = hand["deadwood_if_discarded"]
    return min(discards, key=lambda a: (after[a.split()[1]], a))



def is_due(seat: int, state: dict[str, Any], acted: set[tuple[int, int]]) -> bool:
    """Whether ``seat`` owes a move for its latest ``state``: the match is active, it is that seat's turn
    and it has not answered this seq yet (``acted`` holds the (seat, seq) pairs answered)."""
    hand = state["hand"]
    return (
        state["match"]["status"] == "active" and bool(hand) and hand["your_turn"]
        and (seat, state["seq"]) not in acted
    )


def due_move(seat: int, state: dict[str, Any], acted: set[tuple[int, int]]) -> dict[str, Any] | None:
    """The ``action`` message (without ``id``) ``seat`` owes for ``state`` (see :func:`is_due`), recorded
    in ``acted`` so it is sent once per seq; None when nothing is owed."""
    if not is_due(seat, state, acted):
        return None
    acted.add((seat, state["seq"]))
    return {"type": "action", "action": choose(state["hand"]), "seq": state["seq"]}


class Held:
    """What a table client holds between ``state`` frames (docs/protocol.md "state", protocol 2), as the
    table's script merges them: a frame without ``match.rules`` keeps the rules held, a frame without
    ``last_hand`` keeps the last hand held (the one numbered ``last_hand_no``), a ``hand`` with
    ``moves_from`` k has the moves from index k on (the ones before: those held of that hand).
    ``state`` is the latest merged, whole state."""

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None
        self.rules: Any = None
        self.last_hand: Any = None
        self.holds_last_hand = False

    def merge(self, frame: dict[str, Any]) -> bool:
        """Merge a ``state`` frame; False (and nothing changed) when it leaves out something this client
        does not hold: the table then sends ``sync``."""
        match = dict(frame["match"])
        if "rules" in match:
            rules = match["rules"]
        elif self.rules is not None:
            rules = match["rules"] = self.rules
        else:
            return False
        if "last_hand" in frame:
            last = frame["last_hand"]
        elif self.holds_last_hand and self.last_hand is not None \
                and self.last_hand.get("number") == frame.get("last_hand_no"):
            last = self.last_hand
        else:
            return False
        hand = frame.get("hand")
        if hand is not None and "moves_from" in hand:
            before = (self.state or {}).get("hand")
            start = hand["moves_from"]
            if before is None or before["number"] != hand["number"] or len(before["moves"]) < start:
                return False
            hand = {k: v for k, v in hand.items() if k != "moves_from"}
            hand["moves"] = before["moves"][:start] + hand["moves"]
        self.rules, self.last_hand, self.holds_last_hand = rules, last, True
        self.state = {**frame, "match": match, "hand": hand, "last_hand": last}
        return True
