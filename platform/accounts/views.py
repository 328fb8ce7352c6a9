"""Account views: sign up (also converts a guest), play as guest. Log in/out are Django's own views."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.forms import SignUpForm
from accounts.models import User
from accounts.services import AccountError, UsernameTaken, guest_convert, guest_create, member_create
from accounts.throttles import GUEST_GROUP, SIGNUP_GROUP, over_limit, throttled
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
