"""Token authentication of the bot API (docs/bot-api.md "Tokens"): ``Authorization: Bearer <token>``.

A request under ``/api/v1/bot/`` is authenticated by its token only (never a session cookie: a program
holds no session, and a browser's cookie must not move a bot). :class:`BearerToken` sets
``request.user`` and ``request.auth`` (the :class:`accounts.models.ApiToken`); :func:`scope` makes the
permission a view needs.
"""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts.models import ApiToken, User
from accounts.tokens import token_user
from botapi.errors import BotApiError


class BearerToken(BaseAuthentication):
    """``Authorization: Bearer gin_...``. No header: anonymous (the permission refuses it,
    ``not_authenticated``); a header that is not a live token: ``bad_token`` (401)."""

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        kind, _, text = header.partition(" ")
        if kind.lower() != "bearer" or not text.strip():
            raise BotApiError("bad_token", "send the token as 'Authorization: Bearer <token>'")
        found = token_user(text.strip())
        if found is None:
            raise BotApiError("bad_token", "this token is unknown or revoked")
        return found

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="bot"'


def token_of(request: Request) -> ApiToken | None:
    auth = request.auth
    return auth if isinstance(auth, ApiToken) else None


def scope(code: str) -> type[BasePermission]:
    """The permission "a live token with scope ``code``" (``not_authenticated`` without a token,
    ``missing_scope`` when the token lacks it)."""

    class HasScope(BasePermission):
        def has_permission(self, request: Request, view: Any) -> bool:
            token = token_of(request)
            if token is None:
                raise BotApiError("not_authenticated", "send your API token: 'Authorization: Bearer <token>'")
            if code not in token.scopes:
                raise BotApiError("missing_scope", f"this token lacks the scope {code}")
            return True

    HasScope.__name__ = HasScope.__qualname__ = f"HasScope_{code.replace(':', '_')}"
    return HasScope


def check_bot(user: User) -> None:
    """Refuse (``not_bot``) an account that is not a BOT account: only BOTs play through this API."""
    if not user.bot_account:
        raise BotApiError("not_bot",
                          "upgrade this account to a BOT account first (POST /api/v1/bot/account/upgrade/)")
