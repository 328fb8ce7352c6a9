"""Direct challenges over HTTP (docs/lobby.md "Direct challenges"): the profile's "Challenge" form, the
no-script Accept / Decline, and the "let others challenge me" switch. Thin: parse, call
``lobby.challenges``, redirect with a message. A refusal changes nothing."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.requests import SignedInRequest
from accounts.selectors import player_get
from games.services import GameError
from lobby import challenges
from lobby.challenge_forms import MatchSettingsForm
from lobby.errors import said
from web.errors import NotFound


@login_required
@require_POST
def challenge(request: SignedInRequest, username: str) -> HttpResponse:
    """Challenge the player ``username`` (the form of their profile); back to the profile with a message
    (sent: they have ``LOBBY_CHALLENGE_SECONDS`` to answer; else why not)."""
    if len(username) > 150 or "\x00" in username:
        raise NotFound(_("No such player."))
    target = player_get(username=username)
    if target is None:
        raise NotFound(_("No such player."))
    form = MatchSettingsForm(request.POST, bot=bool(target.bot_account or request.user.bot_account))
    back = redirect("ratings:profile", username=target.username)
    if not form.is_valid():
        messages.error(request, _("Invalid match settings: %(errors)s") % {
            "errors": "; ".join(str(e) for errors in form.errors.values() for e in errors)})
        return back
    try:
        challenges.challenge_create(challenger=request.user, challenged=target, choice=form.settings())
    except GameError as exc:
        messages.error(request, said(exc))
        return back
    messages.success(request, _("Challenge sent to %(name)s: they have %(n)s seconds to answer.") % {
        "name": target.public_name, "n": int(challenges.challenge_seconds())})
    return back


@login_required
@require_POST
def answer(request: SignedInRequest, challenge_id: int, verb: str) -> HttpResponse:
    """``accept`` (to the table) or ``decline`` a challenge without the notices script."""
    try:
        if verb == "accept":
            match = challenges.challenge_accept(user=request.user, challenge_id=challenge_id)
            return redirect("games:table", match_id=match.pk)
        challenges.challenge_decline(user=request.user, challenge_id=challenge_id, strict=True)
    except GameError as exc:
        messages.error(request, said(exc))
    return redirect("home:home")


@login_required
@require_POST
def preference(request: SignedInRequest) -> HttpResponse:
    """Set "let others challenge me" (``accepts_challenges``: checkbox) and, for a person (not a BOT account:
    the form shows it to them only), "accept challenges from BOT accounts" (``accepts_bot_challenges``:
    checkbox, docs/bot-api.md), and go back to the profile."""
    accepts = request.POST.get("accepts_challenges") in ("1", "on", "true")
    accepts_bots = None
    if not request.user.bot_account and not request.user.is_guest:
        accepts_bots = accepts and request.POST.get("accepts_bot_challenges") in ("1", "on", "true")
    challenges.set_accepts_challenges(user=request.user, accepts=accepts, accepts_bots=accepts_bots)
    if not accepts:
        messages.success(request, _("Nobody can challenge you now."))
    elif accepts_bots:
        messages.success(request, _("Others may challenge you now, BOT accounts too."))
    else:
        messages.success(request, _("Others may challenge you now."))
    if request.user.is_guest:
        return redirect("home:home")
    return redirect("ratings:profile", username=request.user.username)
