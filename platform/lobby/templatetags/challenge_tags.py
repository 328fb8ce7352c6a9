"""``{% load challenge_tags %}``: the profile's direct-challenge box (docs/lobby.md "Direct challenges").

``{% challenge_box player is_me %}``: on your own profile, the "let others challenge me" switch and, for
a person, "accept challenges from BOT accounts" (two queries); on another member's profile, for a
signed-in viewer, the "Challenge" form, or, when that member
switched off "let others challenge me" (one query), a disabled "Challenge" button with the reason
(``challenge_blocked``'s sentence; the server refuses a form sent anyway, as before).
"""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from engine.rules import PRESETS
from lobby import challenges
from lobby.challenge_forms import MatchSettingsForm
from lobby.errors import text

register = template.Library()


@register.inclusion_tag("lobby/_challenge_box.html", takes_context=True)
def challenge_box(context: dict[str, Any], player: Any, is_me: bool) -> dict[str, Any]:
    viewer = context.get("user")
    signed_in = bool(getattr(viewer, "is_authenticated", False)) and not getattr(viewer, "is_bot", False)
    can_challenge = signed_in and not is_me and not player.is_bot and not player.is_guest
    blocked = None
    if can_challenge and (not player.is_active or not challenges.accepts_challenges(player)):
        blocked = text("challenge_blocked", name=player.public_name)
    return {
        "player": player, "is_me": is_me, "signed_in": signed_in, "csrf_token": context.get("csrf_token"),
        "can_challenge": can_challenge, "blocked": blocked,
        "accepts": challenges.accepts_challenges(player) if is_me else None,
        "accepts_bots": challenges.accepts_bot_challenges(player) if is_me else None,
        "offer_bots": is_me and not player.bot_account and not player.is_guest,
        # a BOT account on either side: only the timers its match allows (challenges.bot_settings)
        "form": MatchSettingsForm(bot=bool(player.bot_account or getattr(viewer, "bot_account", False))),
        "viewer_is_guest": bool(getattr(viewer, "is_guest", False)),
        "seconds": int(challenges.challenge_seconds()),
    }


@register.inclusion_tag("lobby/_notices.html")
def notices_box() -> dict[str, Any]:
    """The site-wide box of direct-challenge notices and its script (``lobby/notices.js``): the base
    template includes it for members and guests."""
    return {"strings": json.dumps({
        "presets": {name: render_to_string("games/_preset_name.html", {"name": name}).strip()
                    for name in PRESETS},
        "rated": _("Rated"), "casual": _("Casual"), "accept": _("Accept"), "decline": _("Decline"),
        "withdraw": _("Withdraw"), "close": _("Close"),
        "bot_account": _("BOT account: a program playing through the bot API"),
        "received": _("{name} challenges you"), "sent": _("Waiting for {name} to answer your challenge"),
        "declined": _("{name} declined your challenge."),
        "expired": _("{name} did not answer your challenge."),
        "cancelled": _("The challenge was withdrawn."),
        "expired_received": _("The challenge of {name} expired."),
    })}
