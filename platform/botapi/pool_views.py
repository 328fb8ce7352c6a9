"""The BOT pool over HTTP (docs/bot-api.md "Endpoints", "Who plays whom"): ``POST pool/<slug>/join/`` and
``POST pool/<slug>/leave/``, scope ``challenge:write``, BOT accounts only.

A BOT account has no socket to wait on: its entry (``lobby.models.PoolEntry``) lives until a wave pairs
it, it leaves, or ``BOTAPI_POOL_WAIT_SECONDS`` (default 120) pass without a new ``join`` (a join while
waiting keeps the entry and its waiting time, and starts that period again: ``lobby.pools.pool_join``
with ``via_api``). The pool's waves pair BOT entries as they pair people's (rating windows, the daily pair
cap: ``GAMES_BOT_PAIR_RATED_PER_DAY`` for two BOTs); the match is created through the normal start path,
and arrives on the event stream as ``matchStart``. No house bot ever fills a BOT's wait.

Answers (English, the public API's error shape):

- join: ``200 {"pool": slug, "status": "waiting", "waiting_since": ISO, "expires_at": ISO, "match":
  null}``, or, when the account's latest entry of this pool was paired moments ago into a match still in
  play, ``{"pool", "status": "paired", "waiting_since": null, "expires_at": null, "match": id}``;
- leave: ``200 {"pool": slug, "left": true|false, "match": id|null}`` (``left`` false: it was not
  waiting; ``match``: the match its latest wait ended in, if it was paired).

Refusals: ``not_bot`` (403), ``bot_paused`` (403, join only), ``no_such_pool`` (404), and the lobby's
(400): ``people_only`` (a people's pool), ``match_in_progress``, ``already_waiting`` (another pool),
``account_marked``.
"""

from __future__ import annotations

from typing import Any

from django.utils import translation
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from botapi.auth import check_bot, scope
from botapi.base import BotView
from botapi.errors import BotApiError
from botapi.pauses import check_not_paused
from botapi.schema import bot_responses
from games.services import GameError
from lobby import pools, waves
from lobby.errors import said


def _refused(exc: GameError) -> BotApiError:
    """A lobby refusal as the bot API answers it (same code, English message)."""
    with translation.override("en"):
        return BotApiError(exc.code, said(exc))


class PoolJoinAnswer(serializers.Serializer[Any]):
    pool = serializers.SlugField(help_text="The pool's slug (bots-100).")
    status = serializers.ChoiceField(choices=["waiting", "paired"],
                                     help_text="waiting; paired: the wait ended moments ago in `match`.")
    waiting_since = serializers.DateTimeField(allow_null=True, help_text="When this wait began.")
    expires_at = serializers.DateTimeField(
        allow_null=True, help_text="The wait ends then unless joined again (BOTAPI_POOL_WAIT_SECONDS).")
    match = serializers.IntegerField(allow_null=True, help_text="The match of a wait that ended paired.")


class PoolLeaveAnswer(serializers.Serializer[Any]):
    pool = serializers.SlugField()
    left = serializers.BooleanField(help_text="True: the wait ended now; false: the account was not waiting.")
    match = serializers.IntegerField(allow_null=True, help_text="The match its wait ended in.")


class PoolView(BotView):
    """Token-only, ``challenge:write``, English answers, the per-token limits (``botapi.base``)."""

    permission_classes = [scope("challenge:write")]


class PoolJoinView(PoolView):
    @extend_schema(operation_id="bot_pool_join", request=None, responses=bot_responses(PoolJoinAnswer),
                   tags=["bot"], summary="Wait in the BOT pool (the match comes as matchStart)")
    def post(self, request: Request, slug: str) -> Response:
        """Wait in (or stay in) the BOT pool ``slug`` (module docstring)."""
        user: Any = request.user
        check_bot(user)
        check_not_paused(user)
        try:
            joined = pools.pool_join(user=user, slug=slug, via_api=True)
        except GameError as exc:
            raise _refused(exc) from None
        entry = joined.entry
        if joined.paired:
            return Response({"pool": slug, "status": "paired", "waiting_since": None, "expires_at": None,
                             "match": entry.match_id})
        waves.ensure_running_from_thread()  # served by Daphne: its wave loop pairs this entry
        until = pools.expires_at(entry)
        return Response({"pool": slug, "status": "waiting", "waiting_since": entry.joined_at.isoformat(),
                         "expires_at": until.isoformat() if until else None, "match": None})


class PoolLeaveView(PoolView):
    @extend_schema(operation_id="bot_pool_leave", request=None, responses=bot_responses(PoolLeaveAnswer),
                   tags=["bot"], summary="Stop waiting in the BOT pool")
    def post(self, request: Request, slug: str) -> Response:
        """Stop waiting in the BOT pool ``slug`` (module docstring). Not waiting: ``left`` false."""
        user: Any = request.user
        check_bot(user)
        try:
            outcome = pools.pool_leave(user=user, slug=slug)
        except GameError as exc:
            raise _refused(exc) from None
        return Response({"pool": slug, "left": outcome.cancelled, "match": outcome.match_id})
