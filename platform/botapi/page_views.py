"""The "Write a bot" page (``/developers/bots/``): the bot API for a person who wants to connect a program
(docs/bot-api.md is the full reference; the repository's docs are not served, so the key parts are here);
and the tokens page's "Upgrade to a BOT account" button (``/accounts/bot/upgrade/``, POST)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from accounts.models import User
from botapi.errors import BotApiError
from botapi.upgrade import bot_upgrade

TINY_BOT = '''"""Discard the highest deadwood card, take the upcard if it helps, knock when allowed."""
from engine.actions import Action, ActionKind
from engine.cards import card_rank
from engine.melds import deadwood, deadwood_after_discards


class HighestDeadwood:
    level = 1

    def choose(self, view):
        legal = view.legal_actions
        if view.phase.value != "discard":  # the upcard offer or a draw
            up = view.upcard
            after = deadwood_after_discards([*view.hand, up]) if up is not None else {}
            better = min((d for c, d in after.items() if c != up), default=99) < deadwood(view.hand)
            wanted = ("take", "draw discard") if better else ("pass", "draw stock")
            return next(a for a in legal if str(a) in wanted)
        if Action.big_gin() in legal:
            return Action.big_gin()
        after = deadwood_after_discards(view.hand)
        discards = [a.card for a in legal if a.kind is ActionKind.DISCARD]
        card = min(discards, key=lambda c: (after[c], -card_rank(c)))
        return Action.knock(card) if Action.knock(card) in legal else Action.discard(card)


def make_bot():
    return HighestDeadwood()
'''
"""The page's worked example (the same in docs/bot-api.md): a complete bot for ``python -m botclient --bot``;
checked against the engine by tests/botapi/test_write_bot_page.py."""

RUN_IT = "python -m botclient --url https://gin.example --token gin_... --upgrade --bot tiny_bot:make_bot"

SESSION = """curl -H "Authorization: Bearer $TOKEN" -X POST https://gin.example/api/v1/bot/account/upgrade/
curl -N -H "Authorization: Bearer $TOKEN" https://gin.example/api/v1/bot/stream/events/
curl -H "Authorization: Bearer $TOKEN" -X POST https://gin.example/api/v1/bot/challenge/981/accept/
curl -N -H "Authorization: Bearer $TOKEN" https://gin.example/api/v1/bot/match/4217/stream/
curl -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\
     -d '{"action": "draw stock", "seq": 5}' https://gin.example/api/v1/bot/match/4217/action/"""


@require_safe
def write_bot(request: HttpRequest) -> HttpResponse:
    """``/developers/bots/``: what a BOT account is, the token, the protocol in short, a tiny bot, the
    notation, the limits, links to the API docs."""
    notation = [
        ("take", _("take the first upcard (the first turn's offer)")),
        ("pass", _("decline the first upcard")),
        ("draw stock", _("draw the top card of the stock")),
        ("draw discard", _("draw the top card of the discard pile")),
        ("discard Kc", _("discard a card and end the turn")),
        ("knock Kc", _("discard a card face down and knock (deadwood at most the knock limit; 0 is gin)")),
        ("knock", _("big gin: all 11 cards melded, knock without discarding")),
    ]
    return render(request, "botapi/write_bot.html", {
        "notation": notation,
        "tiny_bot": TINY_BOT,
        "run_it": RUN_IT,
        "session": SESSION,
        "token_rate": getattr(settings, "BOTAPI_TOKEN_RATE", "600/min"),
    })


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
    messages.success(request, _("This is a BOT account now: connect your program with a token that has the "
                                "scope %(scope)s (make one below if you have none).") % {"scope": "bot:play"})
    return redirect("accounts:tokens")
