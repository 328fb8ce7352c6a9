"""Account views: sign up (also converts a guest), play as guest, the API tokens page. Log in/out are
Django's own views."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.forms import SignUpForm, TokenForm
from accounts.models import ApiToken, User
from accounts.services import AccountError, UsernameTaken, guest_convert, guest_create, member_create
from accounts.throttles import GUEST_GROUP, SIGNUP_GROUP, over_limit, over_rate, throttled, too_many
from accounts.tokens import SCOPES, TOKENS_PER_ACCOUNT, TokenError, live_tokens, token_create, token_revoke
from web.templatetags.names import player_name

BACKEND = "django.contrib.auth.backends.ModelBackend"


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("home:home")


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Sign up. A logged-in guest keeps its row (and history); a logged-in member is sent home.

    A valid POST counts against the per-IP sign-up rate (``ACCOUNTS_SIGNUP_RATE``; over it: 429 page).
    A guest's second submit racing the first (double click) finds the guest already converted: it is
    sent on like the first (redirect), not given an error.
    """
    guest = request.user if isinstance(request.user, User) and request.user.is_guest else None
    if request.user.is_authenticated and guest is None:
        return redirect("home:home")
    converting = guest is not None
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        retry_after = over_limit(request, group=SIGNUP_GROUP)
        if retry_after is not None:
            return throttled(request, group=SIGNUP_GROUP, retry_after=retry_after)
        try:
            return _sign_up(request, form, guest)
        except UsernameTaken:
            # Lost a race with a simultaneous sign-up: the same error the form gives for a taken name.
            form.add_error("username", User._meta.get_field("username").error_messages["unique"])
        except AccountError:
            # This guest was converted meanwhile: by the first of two submits of this form. That one logs
            # the member in (new session key); this one changes nothing and must not touch the session.
            return HttpResponseRedirect(_next_url(request))
    return render(
        request,
        "accounts/signup.html",
        {"form": form, "converting": converting, "next": request.GET.get("next", "")},
    )


def _welcome(sentence: str, member: User) -> SafeString:
    """The translated welcome ``sentence`` (escaped) with the member's name as ``player_name`` markup, so a
    150-character name is cut with an ellipsis (the whole name in its title) like everywhere else."""
    return mark_safe(conditional_escape(sentence) % {"name": player_name(member.username)})


def _sign_up(request: HttpRequest, form: SignUpForm, guest: User | None) -> HttpResponse:
    """Create the member (or convert ``guest``) from a valid form, log in, redirect.

    :raises UsernameTaken: the username was taken after the form validated it (nothing changed).
    """
    username, password = form.cleaned_data["username"], form.cleaned_data["password1"]
    if guest is not None:
        member = guest_convert(user=guest, username=username, password=password)
        # The password changed: refresh the session hash so the person stays logged in.
        update_session_auth_hash(request, member)
        messages.success(request, _welcome(_("Welcome, %(name)s! Your matches are kept."), member))
    else:
        member = member_create(username=username, password=password)
        login(request, member, backend=BACKEND)
        messages.success(request, _welcome(_("Welcome, %(name)s!"), member))
    return HttpResponseRedirect(_next_url(request))


@require_POST
def play_as_guest(request: HttpRequest) -> HttpResponse:
    """Create a guest account and log it in (POST, CSRF-protected). A logged-in user is just redirected.

    Each creation counts against the per-IP guest rate (``ACCOUNTS_GUEST_RATE``; over it: 429 page).
    """
    if not request.user.is_authenticated:
        retry_after = over_limit(request, group=GUEST_GROUP)
        if retry_after is not None:
            return throttled(request, group=GUEST_GROUP, retry_after=retry_after)
        guest = guest_create()
        login(request, guest, backend=BACKEND)
        messages.info(request, _("You are playing as %(name)s.") % {"name": guest.public_name})
    return HttpResponseRedirect(_next_url(request))


TOKEN_GROUP = "accounts.tokens"


def _token_rate(group: str, request: HttpRequest) -> str:
    return str(getattr(settings, "ACCOUNTS_TOKEN_RATE", "10/h"))


def _token_key(group: str, request: HttpRequest) -> str:
    return f"user:{request.user.pk}"


def _member(request: HttpRequest) -> User:
    """The signed-in member (the login decorator ran); a guest or a house bot: 403, with the reason."""
    user = request.user
    if not isinstance(user, User) or user.is_guest or user.is_bot:
        raise PermissionDenied(_("Guests have no API tokens: sign up first."))
    return user


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """Account → API tokens (docs/bot-api.md "Tokens"): the live tokens, the form that makes one, revoke
    buttons, and (for a member who is not a BOT account) the upgrade to a BOT account
    (``botapi.page_views.upgrade``, through the ``bot_upgrade_box`` tag).

    A valid POST makes the token and redirects (303: a reload never makes a second one) to this page, which
    shows its text once: the text waits in the session for that one GET, which takes it out (a later GET
    cannot show it again; ``Cache-Control: no-store``; only the hash is ever stored in the database). A bad
    form: 400 with the field's error, nothing made. Token creations count against ``ACCOUNTS_TOKEN_RATE``
    per account (over it: the 429 page); ``token_limit`` (20 live tokens) is the form's error.
    """
    user = _member(request)
    form = TokenForm(request.POST or None)
    created = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            retry_after = over_rate(request, group=TOKEN_GROUP, key=_token_key, rate=_token_rate)
            if retry_after is not None:
                return too_many(request, detail=_("Too many API tokens made from this account."),
                                retry_after=retry_after)
            try:
                token, text = token_create(user=user, name=form.cleaned_data["name"],
                                           scopes=form.cleaned_data["scopes"])
            except TokenError as refused:
                form.add_error("scopes" if refused.code in ("no_scope", "bad_scope") else
                               None if refused.code == "token_limit" else "name", _token_refusal(refused))
                status = 400
            else:
                request.session[NEW_TOKEN_KEY] = {"id": token.pk, "text": text}
                again = HttpResponseRedirect(reverse("accounts:tokens"))
                again.status_code = 303  # See Other: the reload of the page is a GET
                return again
        else:
            status = 400
    else:
        shown = request.session.pop(NEW_TOKEN_KEY, None)
        if isinstance(shown, dict) and isinstance(shown.get("id"), int):
            fresh = ApiToken.objects.filter(pk=shown["id"], user=user, revoked_at__isnull=True).first()
            if fresh is not None:
                created = {"token": fresh, "text": str(shown.get("text", ""))}
    response = render(request, "accounts/tokens.html", {
        "form": form, "tokens": live_tokens(user), "created": created, "scopes": SCOPES,
        "max_tokens": TOKENS_PER_ACCOUNT,
    }, status=status)
    response["Cache-Control"] = "no-store"
    return response


NEW_TOKEN_KEY = "accounts_new_token"
"""The session key where a new token's text waits for the one page that shows it (:func:`tokens`)."""


def _token_refusal(refused: TokenError) -> str:
    """The reader's-language text of a ``token_create`` refusal the form did not catch first."""
    if refused.code == "token_limit":
        return _("You have %(n)d live tokens, the most an account may hold: revoke one first.") % {
            "n": TOKENS_PER_ACCOUNT}
    if refused.code in ("no_scope", "bad_scope"):
        return _("Choose at least one scope.")
    return _("A token's name is 1 to 60 characters, no control characters.")


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    """Revoke one of the member's tokens (POST, CSRF; the page asks to confirm first): at once, for good.
    Someone else's or an unknown id: 404."""
    user = _member(request)
    try:
        token = token_revoke(user=user, token_id=token_id)
    except TokenError:
        raise Http404(_("You have no token with that id.")) from None
    messages.success(request, _("The token “%(name)s” is revoked: programs using it are refused now.")
                     % {"name": token.name})
    return redirect("accounts:tokens")
