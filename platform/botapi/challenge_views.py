"""Challenges over HTTP (docs/bot-api.md "Endpoints", "Who plays whom"): a BOT account sends, accepts,
declines and cancels direct challenges through the lobby's own services (``lobby.challenges``), so a
challenge made here is the one a person's notices show, with the same refusals. Every endpoint needs
the ``challenge:write`` scope and a BOT account; a paused BOT (``User.bot_paused_until`` ahead) may not
send or accept (``bot_paused``), but may still decline and cancel.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from accounts.selectors import player_get
from botapi.auth import check_bot, scope
from botapi.base import BotView, body, field
from botapi.errors import BotApiError, from_game_error
from botapi.objects import challenge_object, match_object
from botapi.pauses import check_not_paused
from botapi.schema import ChallengeAnswer, ChallengeEnded, ChallengeRequest, MatchAnswer, bot_responses
from games.services import GameError
from lobby import challenges
from lobby.models import Challenge, ChallengeStatus
from lobby.seeks import Settings


def _bot(request: Request, *, playing: bool) -> User:
    """The request's BOT account; ``playing`` (send, accept): not paused (``botapi.pauses``).

    :raises BotApiError: ``not_bot``, ``bot_paused``."""
    user: User = request.user  # type: ignore[assignment]  # BearerToken authenticated it
    check_bot(user)
    if playing:
        check_not_paused(user)
    return user


class ChallengeCreateView(BotView):
    """``POST challenge/<username>/``: ``{"target": 50|100 (100), "turn_timer": seconds (30; at most
    120), "rated": bool (false), "preset": "classic"}`` -> ``201 {"challenge": C}``. A person is
    challenged only when they accept BOT challenges (else ``challenge_blocked``); a house bot never
    (``challenge_bot``: play it with ``match/house/``)."""

    permission_classes = [scope("challenge:write")]

    @extend_schema(operation_id="bot_challenge", request=ChallengeRequest,
                   responses=bot_responses(ChallengeAnswer, status=201), tags=["bot"])
    def post(self, request: Request, username: str) -> Response:
        user = _bot(request, playing=True)
        data = body(request)
        choice = Settings(
            preset=field(data, "preset", str, default="classic"),
            target=field(data, "target", int, default=100), turn_timer=field(data, "turn_timer", int),
            rated=field(data, "rated", bool, default=False),
        )
        target = player_get(username=username) if len(username) <= 150 and "\x00" not in username else None
        if target is None:
            raise BotApiError("no_such_player", f"no player {username[:150]!r}")
        try:
            challenge = challenges.challenge_create(challenger=user, challenged=target, choice=choice)
        except GameError as exc:
            raise from_game_error(exc) from None
        return Response({"challenge": challenge_object(challenge, user)}, status=201)


class ChallengeAcceptView(BotView):
    """``POST challenge/<id>/accept/``: accept a challenge made to this account -> ``{"match": M}`` (the
    match has started; it also comes as ``matchStart`` on the event stream). Accepting again: the same
    match."""

    permission_classes = [scope("challenge:write")]

    @extend_schema(operation_id="bot_challenge_accept", request=None, responses=bot_responses(MatchAnswer),
                   tags=["bot"])
    def post(self, request: Request, challenge_id: int) -> Response:
        user = _bot(request, playing=True)
        body(request)
        try:
            match = challenges.challenge_accept(user=user, challenge_id=challenge_id)
        except GameError as exc:
            raise from_game_error(exc) from None
        return Response({"match": match_object(match, user)})


def _end(request: Request, challenge_id: int, *, role: str) -> Response:
    """Decline (``role`` "challenged") or cancel (``role`` "challenger") ``challenge_id`` through
    ``lobby.challenges.challenge_decline`` (strict: a challenge no longer open says why) ->
    ``{"id", "status": "declined"|"cancelled"}``."""
    user = _bot(request, playing=False)
    body(request)
    row = (Challenge.objects.filter(pk=challenge_id).values_list("challenger_id", "challenged_id").first())
    sides = dict(zip(("challenger", "challenged"), row, strict=True)) if row is not None else {}
    if sides.get(role) != user.pk:
        # the other side's verb (declining one's own challenge, cancelling one made to us) is refused
        # as a challenge this account cannot answer that way
        raise BotApiError("challenge_not_found", "no such challenge" + (
            "" if user.pk not in sides.values()
            else f": only its {'challenged player' if role == 'challenged' else 'challenger'} may do this"))
    try:
        challenges.challenge_decline(user=user, challenge_id=challenge_id, strict=True)
    except GameError as exc:
        raise from_game_error(exc) from None
    status = ChallengeStatus.DECLINED if role == "challenged" else ChallengeStatus.CANCELLED
    return Response({"id": challenge_id, "status": str(status)})


class ChallengeDeclineView(BotView):
    """``POST challenge/<id>/decline/``: decline a challenge made to this account."""

    permission_classes = [scope("challenge:write")]

    @extend_schema(operation_id="bot_challenge_decline", request=None,
                   responses=bot_responses(ChallengeEnded), tags=["bot"])
    def post(self, request: Request, challenge_id: int) -> Response:
        return _end(request, challenge_id, role="challenged")


class ChallengeCancelView(BotView):
    """``POST challenge/<id>/cancel/``: withdraw a challenge this account made."""

    permission_classes = [scope("challenge:write")]

    @extend_schema(operation_id="bot_challenge_cancel", request=None,
                   responses=bot_responses(ChallengeEnded), tags=["bot"])
    def post(self, request: Request, challenge_id: int) -> Response:
        return _end(request, challenge_id, role="challenger")
