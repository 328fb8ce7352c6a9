"""The bot API's web pages (session log-in, not tokens): the upgrade button of the tokens page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from botapi.errors import BotApiError
from botapi.upgrade import bot_upgrade


@login_required
@require_POST
def upgrade(request: HttpRequest) -> HttpResponse:
    """Upgrade the signed-in member to a BOT account (POST, CSRF; the page asks to confirm first), by the
    rule of ``POST /api/v1/bot/account/upgrade/`` (``botapi.upgrade.bot_upgrade``); back to the tokens
    page with the result. Already a BOT account: the same answer, nothing changes. A guest: 403."""
    user = request.user
    if not isinstance(user, User) or user.is_guest or user.is_bot:
        raise PermissionDenied(_("Guests have no API tokens: sign up first."))
    try:
        bot_upgrade(user)
    except BotApiError as refused:
        if refused.code != "not_fresh":
            raise
        messages.error(request, _("This account has played rated matches against people (or is in a rated "
                                  "match now), so it cannot become a BOT account: make a new account for "
                                  "your bot."))
        return redirect("accounts:tokens")
    messages.success(request, _("This is a BOT account now: make a token with the scope %(scope)s and "
                                "connect your program.") % {"scope": "bot:play"})
    return redirect("accounts:tokens")
