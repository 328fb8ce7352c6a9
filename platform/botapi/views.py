"""The bot API's account and match endpoints (docs/bot-api.md "Endpoints"): ``GET account/``,
``POST account/upgrade/``, ``POST match/<id>/action/``, ``POST match/<id>/resign/``, ``POST match/house/``.

Thin: read the body strictly (``botapi.base.body``), call the games services, answer JSON. A refusal of
a service keeps its code (the one a browser's socket gets for the same move, docs/protocol.md) and its
status comes from ``botapi.errors.STATUS_OF``; it changes nothing.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Iterator
from typing import Any

from django.core.cache import cache
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from botapi.auth import check_bot, scope, token_of
from botapi.base import MAX_ID_LENGTH, MAX_SEQ, BotView, body, field
from botapi.errors import BotApiError, from_game_error
from botapi.objects import match_object_of
from botapi.pauses import check_not_paused
from botapi.schema import (
    Account,
    ActionAnswer,
    ActionRequest,
    HouseMatchRequest,
    MatchAnswer,
    ResignAnswer,
    ResignRequest,
    UpgradeAnswer,
    bot_responses,
)
from botapi.upgrade import bot_upgrade
from games import conf as game_conf
from games import services
from ratings.selectors import rating_get

log = logging.getLogger(__name__)

MOVE_LOCK_SECONDS = 30
"""Longest a move's lock (``botapi:move:<match>:<user>``) is held if its request dies without releasing
it: the locked write of a move takes milliseconds; a crashed worker must not block the seat for long."""


class AccountView(BotView):
    """``GET account/`` (any scope): ``{"username", "name", "bot", "paused_until" (ISO 8601 or null),
    "rating" (whole points), "provisional", "scopes"}``."""

    @extend_schema(operation_id="bot_account", responses=bot_responses(Account), tags=["bot"])
    def get(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]  # BearerToken authenticated it
        token = token_of(request)
        rating = rating_get(user=user)
        paused = user.bot_paused_until
        return Response({
            "username": user.username, "name": user.public_name, "bot": bool(user.bot_account),
            "paused_until": paused.isoformat() if paused is not None else None,
            "rating": rating.shown, "provisional": rating.provisional,
            "scopes": sorted(token.scopes) if token is not None else [],
        })


class UpgradeView(BotView):
    """``POST account/upgrade/`` (``bot:play``): become a BOT account (``botapi.upgrade.bot_upgrade``);
    ``{"username", "bot": true}``, the same again when it is one already."""

    permission_classes = [scope("bot:play")]

    @extend_schema(operation_id="bot_upgrade", request=None, responses=bot_responses(UpgradeAnswer),
                   tags=["bot"])
    def post(self, request: Request) -> Response:
        body(request)  # an empty body, or an object (nothing read): a malformed one is still refused
        user = bot_upgrade(request.user)  # type: ignore[arg-type]
        return Response({"username": user.username, "bot": True})


@contextlib.contextmanager
def move_lock(match_id: int, user_id: int) -> Iterator[None]:
    """One move at a time per match and account (docs/bot-api.md "Fair limits"): a cache ``add`` of
    ``botapi:move:<match>:<user>``, deleted when the move is answered.

    A cache outage lets the move through (logged): the match row's lock still serializes the writes,
    and the refusal of a second move is a courtesy to the client, not the guard of the match.

    :raises BotApiError: ``move_in_flight`` (429): another move of this account in this match is being
        applied."""
    key = f"botapi:move:{match_id}:{user_id}"
    try:
        held = cache.add(key, 1, timeout=MOVE_LOCK_SECONDS)
    except Exception as exc:
        log.warning("bot API move lock: cache unavailable (%s), move allowed", type(exc).__name__)
        yield
        return
    if not held:
        raise BotApiError("move_in_flight", "another move of yours in this match is being applied: send this"
                                            " one again after its answer")
    try:
        yield
    finally:
        try:
            cache.delete(key)
        except Exception as exc:
            log.warning("bot API move lock: cache unavailable (%s), lock left to expire", type(exc).__name__)


def _msg_id(data: dict[str, Any]) -> str:
    """The body's retry key ``id`` (1 to 64 characters), or a fresh one (the move is then never taken
    for a resend)."""
    msg_id = field(data, "id", str)
    if msg_id is None:
        return "bot-" + secrets.token_hex(12)
    if not 1 <= len(msg_id) <= MAX_ID_LENGTH:
        raise BotApiError("bad_request", f"the field 'id' must be 1 to {MAX_ID_LENGTH} characters")
    return str(msg_id)


class ActionView(BotView):
    """``POST match/<id>/action/`` (``bot:play``): ``{"action": "discard Kc", "seq": 12, "id": "..."}``
    -> ``{"seq" (the event recording it), "last_seq" (the match's after it), "repeat" (the id was
    applied before: nothing new)}``. ``games.services.match_apply_action``: the socket's checks and
    codes."""

    permission_classes = [scope("bot:play")]

    @extend_schema(operation_id="bot_action", request=ActionRequest, responses=bot_responses(ActionAnswer),
                   tags=["bot"])
    def post(self, request: Request, match_id: int) -> Response:
        user: User = request.user  # type: ignore[assignment]
        check_bot(user)
        data = body(request)
        action = field(data, "action", str, required=True)
        seq = field(data, "seq", int, required=True)
        if not 0 <= seq <= MAX_SEQ:
            raise BotApiError("bad_request", f"the field 'seq' must be 0..{MAX_SEQ}")
        msg_id = _msg_id(data)
        with move_lock(match_id, user.pk):
            try:
                applied = services.match_apply_action(match_id=match_id, user=user, action_text=action,
                                                      client_seq=seq, msg_id=msg_id)
            except services.GameError as exc:
                raise from_game_error(exc) from None
        return Response({"seq": applied.seq, "last_seq": applied.last_seq, "repeat": applied.repeat})


class ResignView(BotView):
    """``POST match/<id>/resign/`` (``bot:play``), body empty or ``{"id": "..."}`` -> ``{"seq",
    "last_seq"}`` (``games.services.match_resign``: a rated match nobody has moved in yet is aborted)."""

    permission_classes = [scope("bot:play")]

    @extend_schema(operation_id="bot_resign", request=ResignRequest, responses=bot_responses(ResignAnswer),
                   tags=["bot"])
    def post(self, request: Request, match_id: int) -> Response:
        user: User = request.user  # type: ignore[assignment]
        check_bot(user)
        msg_id = _msg_id(body(request))
        with move_lock(match_id, user.pk):
            try:
                applied = services.match_resign(match_id=match_id, user=user, msg_id=msg_id)
            except services.GameError as exc:
                raise from_game_error(exc) from None
        return Response({"seq": applied.seq, "last_seq": applied.last_seq})


class HouseView(BotView):
    """``POST match/house/`` (``bot:play``): ``{"level": 1-5, "target": 50|100 (100), "rated": bool
    (true), "turn_timer": 15..120 (30), "preset": "classic"}`` -> ``201 {"match": M}``: a match against
    the house bot of ``level`` starts now, this account at seat 0
    (``games.services.match_create_vs_bot``). A BOT account plays ``GAMES_BOT_ACTIVE_MATCHES`` matches
    at once at most (``match_in_progress`` beyond)."""

    permission_classes = [scope("bot:play")]

    @extend_schema(operation_id="bot_house", request=HouseMatchRequest,
                   responses=bot_responses(MatchAnswer, status=201), tags=["bot"])
    def post(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        check_bot(user)
        check_not_paused(user)
        data = body(request)
        level = field(data, "level", int, required=True)
        target = field(data, "target", int, default=100)
        rated = field(data, "rated", bool, default=True)
        timer = field(data, "turn_timer", int, default=game_conf.BOT_TURN_TIMER)
        preset = field(data, "preset", str, default="classic")
        if not 1 <= level <= 5:
            raise BotApiError("bad_settings", f"level must be 1..5, got {level}")
        low, high = game_conf.TURN_TIMER_RANGE[0], game_conf.BOT_TURN_TIMER_MAX
        if not low <= timer <= high:
            raise BotApiError("bad_settings", f"turn_timer must be {low}..{high} seconds, got {timer}")
        try:
            if not rated and (busy := services.active_rated_match_id(user_id=user.pk)) is not None:
                raise services.MatchInProgress(busy)  # the cap counts casual matches too
            match = services.match_create_vs_bot(user=user, level=level, rules_preset=preset, target=target,
                                                 rated=rated, one_active=True, turn_timer=timer, via_api=True)
        except services.GameError as exc:
            if exc.code == "bad_field":
                raise BotApiError("bad_settings", exc.message) from None
            raise from_game_error(exc) from None
        return Response({"match": match_object_of(match, user.pk)}, status=201)
