"""The bot API's refusals: the public API's JSON shape, ``{"error": code, "message": text}`` (the site's
DRF exception handler, ``api.errors.api_exception_handler``, writes the body from ``default_code`` and
``detail``). ``code`` is the same word a browser's socket gets for the same refusal (docs/protocol.md),
so a bot and the table page read one list of codes."""

from __future__ import annotations

from rest_framework.exceptions import APIException

from web.errors import ApplicationError

STATUS_OF: dict[str, int] = {
    "not_authenticated": 401,
    "bad_token": 401,
    "missing_scope": 403,
    "not_bot": 403,
    "not_seated": 403,
    "bot_paused": 403,
    "no_such_match": 404,
    "no_such_player": 404,
    "challenge_not_found": 404,
    "no_such_pool": 404,
    "move_in_flight": 429,
    "throttled": 429,
    "too_many_streams": 429,
}
"""Codes whose HTTP status is not 400 (every other refusal of a request is 400)."""


class BotApiError(APIException):
    """``raise BotApiError("out_of_turn", "it is not your turn")``: status from :data:`STATUS_OF` (else
    400, or ``status`` given)."""

    def __init__(self, code: str, message: str, *, status: int | None = None) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status or STATUS_OF.get(code, 400)
        self.default_code = code
        self.code = code
        self.message = message


def from_game_error(exc: ApplicationError) -> BotApiError:
    """The refusal of a service (``games.services.GameError``, the lobby's refusals, ...) as the bot
    API answers it: the same code and English message, the status of :data:`STATUS_OF`."""
    return BotApiError(exc.code, exc.message)
