"""Personal API tokens (docs/bot-api.md "Tokens"): create, list, revoke, and the lookup that
authenticates a request.

A token is ``gin_`` plus 40 URL-safe random characters (``secrets.token_urlsafe(30)``: 240 bits). Only
its SHA-256 (hex) is stored, so a database leak gives no usable token; the text is shown once, when it is
made. A token carries scopes (:data:`SCOPES`); a request it authenticates may do only what its scopes
allow (``botapi.auth``). Revoking is immediate and final.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import ApiToken, Standing, User

PREFIX = "gin_"
TOKENS_PER_ACCOUNT = 20
"""Live (unrevoked) tokens one account may hold at once."""

SCOPES: dict[str, object] = {
    "bot:play": _("Play as a BOT: upgrade the account, read its event and match streams, move and resign"),
    "challenge:write": _("Send, accept, decline and cancel challenges; enter and leave the BOT pool"),
}
"""Scope code -> what it allows (shown on the tokens page, in the active language)."""


class TokenError(ValueError):
    """A refused token request: ``code`` (``no_scope``, ``bad_scope``, ``bad_name``, ``token_limit``,
    ``no_such_token``, ``guest``, ``house_bot``) and an English ``message``. Nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def hash_token(text: str) -> str:
    """SHA-256 of the token's text, hex (64 characters)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def token_create(*, user: User, name: str, scopes: Iterable[str]) -> tuple[ApiToken, str]:
    """Make a token for ``user`` named ``name`` with ``scopes``; returns the row and its text (the only
    time the text exists: show it once).

    :raises TokenError: ``guest`` / ``house_bot`` (no token for them), ``bad_name`` (empty, over 60
        characters, or a control character), ``no_scope``, ``bad_scope`` (a code not in :data:`SCOPES`),
        ``token_limit`` (:data:`TOKENS_PER_ACCOUNT` live tokens already).
    """
    if user.is_guest:
        raise TokenError("guest", "guests cannot make API tokens: sign up first")
    if user.is_bot:
        raise TokenError("house_bot", "house bots have no API tokens")
    name = (name or "").strip()
    if not name or len(name) > 60 or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise TokenError("bad_name", "a token's name is 1 to 60 characters, no control characters")
    chosen = sorted(set(scopes))
    if not chosen:
        raise TokenError("no_scope", "choose at least one scope")
    unknown = [s for s in chosen if s not in SCOPES]
    if unknown:
        raise TokenError("bad_scope", f"unknown scope(s): {', '.join(unknown)}")
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # two tabs: the limit holds
        if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= TOKENS_PER_ACCOUNT:
            raise TokenError("token_limit", f"at most {TOKENS_PER_ACCOUNT} live tokens: revoke one first")
        text = PREFIX + secrets.token_urlsafe(30)
        token = ApiToken.objects.create(user=user, name=name, token_hash=hash_token(text),
                                        prefix=text[:10], scopes=chosen)
    return token, text


def token_revoke(*, user: User, token_id: int) -> ApiToken:
    """Revoke ``user``'s token ``token_id`` (at once, for good). Revoking a revoked token changes nothing.

    :raises TokenError: ``no_such_token`` (none of ``user``'s tokens has that id).
    """
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(pk=token_id, user=user).first()
        if token is None:
            raise TokenError("no_such_token", "you have no token with that id")
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
    return token


def live_tokens(user: User) -> list[ApiToken]:
    """``user``'s tokens that are not revoked, newest first."""
    return list(ApiToken.objects.filter(user=user, revoked_at__isnull=True))


def token_user(text: str) -> tuple[User, ApiToken] | None:
    """The account and token ``text`` authenticates, or None: unknown, revoked, or its account is
    inactive or closed. Notes the use (``last_used_at``, at most once a minute: one UPDATE rarely)."""
    if not text.startswith(PREFIX) or len(text) > 100:
        return None
    token = (ApiToken.objects.select_related("user")
             .filter(token_hash=hash_token(text), revoked_at__isnull=True).first())
    if token is None or not token.user.is_active or token.user.standing == Standing.CLOSED:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token.user, token
