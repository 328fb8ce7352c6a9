"""A finished match's replay file (``/api/v1/matches/{id}/replay/``): ``replays.selectors.match_record``
(docs/replay-format.md, verified before it is given out) under the replay page's own rules
(``check_can_watch``): a live match is refused (409) until it ends, a private one needs its link's token,
and a private match the client may not see is answered as one that does not exist (404, whatever its
state). The token is read as the replay page reads it (``replays.selectors.share_token``: exactly as sent)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ApiView
from api.errors import ApiError, ErrorSerializer
from games.selectors import match_get
from replays.selectors import ReplayFailed, ReplayRefused, check_can_watch, match_record, share_token

# ``private`` (403) is only for watching live (``check_can_watch(live=True)``): a replay never answers it.
_STATUS = {"no_such_match": 404, "not_finished": 409}
_MESSAGES = {
    "no_such_match": "there is no finished match with this id",
    "not_finished": "the match is still being played: its replay opens when it ends",
}


class ReplayQuery(serializers.Serializer[Any]):
    """The query's parameters, for the schema only: the token is read by ``share_token`` (the replay
    page's rule: one value, exactly as sent; any other value is no token, never a 400)."""

    token = serializers.CharField(
        required=False,
        allow_blank=True,  # any string is accepted: one that is not the token is no token (404 if private)
        help_text="The token of a private match's replay link, exactly as in the link (given once).",
    )


class ReplayView(ApiView):
    @extend_schema(
        operation_id="match_replay",
        parameters=[ReplayQuery],
        tags=["matches"],
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="The replay file (docs/replay-format.md)."),
            404: OpenApiResponse(
                ErrorSerializer,
                description="`no_such_match`: no such match, or a private one and no valid token (any state)",
            ),
            409: OpenApiResponse(
                ErrorSerializer, description="`not_finished`: still in play (its players; anyone if public)"
            ),
            422: OpenApiResponse(
                ErrorSerializer, description="`failed_verification`: its log does not re-run."
            ),
        },
    )
    def get(self, request: Request, match_id: int) -> Response:
        """The replay file of a finished match: every deal, action and result, verifiable offline
        (``python -m engine replay verify FILE``). No authentication needed for a public match; a private
        one with its share ``token``, or for its players when they are logged in (the site's session)."""
        match = match_get(match_id=match_id)
        try:
            check_can_watch(match=match, user=request.user, token=share_token(request.query_params),
                            session=getattr(request, "session", None))
            assert match is not None
            record = match_record(match=match)
        except ReplayRefused as exc:
            raise ApiError(_STATUS[exc.code], exc.code, _MESSAGES[exc.code]) from None
        except ReplayFailed as exc:
            raise ApiError(422, "failed_verification", str(exc)) from None
        return Response(record)
