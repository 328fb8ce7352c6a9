"""Club pages: the list, a club's page, create/edit, join/leave/delete, members' roles, the invitation.

Thin views (HackSoft): parse, call one service or selector, render. An invitation club's page shows its
name and description to everyone; its members, ranking and invitation link only to its members (the
link only to organisers). Refusals come back as :class:`~clubs.errors.ClubError` and are shown as form
errors or messages in the active language.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.models import User
from clubs import selectors, services
from clubs.errors import ClubError
from clubs.forms import ClubForm
from clubs.models import Club, ClubAccess, ClubMember, ClubRole
from web.errors import NotFound


def _member(request: HttpRequest) -> User | None:
    """The signed-in user, or None."""
    user = request.user
    return user if isinstance(user, User) and user.is_authenticated else None


def _club(slug: str) -> Club:
    club = selectors.club_get(slug=slug)
    if club is None:
        raise NotFound(_("There is no such club."))
    return club


def _refusal(user: User | None) -> str | None:
    """Why ``user`` may not create a club (None: they may)."""
    if user is None:
        return None  # login_required answers first
    if user.is_guest or user.is_bot:
        return ClubError("not_member_account").text()
    if not user.in_good_standing:
        return ClubError("standing").text()
    return None


@require_GET
def club_list(request: HttpRequest) -> HttpResponse:
    search = request.GET.get("q", "")
    if not isinstance(search, str):
        search = ""
    user = _member(request)
    return render(request, "clubs/list.html", {
        "clubs": selectors.clubs_public(search=search),
        "mine": selectors.clubs_of(user=user) if user else [],
        "search": search.strip()[:selectors.SEARCH_MAX],
        "search_max": selectors.SEARCH_MAX,
    })


@login_required
@require_http_methods(["GET", "POST"])
def club_new(request: HttpRequest) -> HttpResponse:
    user = _member(request)
    assert user is not None  # login_required
    refusal = _refusal(user)
    form = ClubForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and refusal is None and form.is_valid():
        try:
            club = services.club_create(user=user, name=form.cleaned_data["name"],
                                        description=form.cleaned_data["description"],
                                        access=form.cleaned_data["access"])
        except ClubError as exc:
            form.add_club_error(exc)
        else:
            messages.success(request, _("Your club is ready. Invite members with its link."))
            return redirect("clubs:detail", slug=club.slug)
    status = 400 if request.method == "POST" else 200
    return render(request, "clubs/form.html", {"form": form, "refusal": refusal, "club": None}, status=status)


def _can_see_members(club: Club, me: ClubMember | None, user: User | None) -> bool:
    return club.access == ClubAccess.PUBLIC or me is not None or (user is not None and user.is_staff)


@require_GET
def club_detail(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club(slug)
    user = _member(request)
    me = selectors.membership_of(club=club, user=user) if user else None
    see = _can_see_members(club, me, user)
    members = list(selectors.members_of(club=club)) if see else []
    organises = me is not None and me.organises
    return render(request, "clubs/detail.html", {
        "club": club, "me": me, "organises": organises,
        "is_owner": me is not None and me.role == ClubRole.OWNER,
        "see_members": see, "members": members, "member_count": selectors.member_count(club=club),
        "ranking": selectors.club_ranking(club=club) if see else [],
        "unrated": selectors.unrated_count(club=club) if see else 0,
        "invite_url": request.build_absolute_uri(reverse("clubs:invite", args=[club.invite_code]))
        if organises else None,
        "may_join": me is None and club.access == ClubAccess.PUBLIC,
    })


@login_required
@require_http_methods(["GET", "POST"])
def club_edit(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club(slug)
    user = _member(request)
    assert user is not None
    me = selectors.membership_of(club=club, user=user)
    if me is None or not me.organises:
        raise NotFound(_("Only the club's owner and organisers may edit it."))
    initial = {"name": club.name, "description": club.description, "access": club.access}
    form = ClubForm(request.POST if request.method == "POST" else None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.club_edit(club_id=club.pk, user=user, name=form.cleaned_data["name"],
                               description=form.cleaned_data["description"],
                               access=form.cleaned_data["access"])
        except ClubError as exc:
            form.add_club_error(exc)
        else:
            messages.success(request, _("The club is saved."))
            return redirect("clubs:detail", slug=club.slug)
    status = 400 if request.method == "POST" else 200
    return render(request, "clubs/form.html", {"form": form, "refusal": None, "club": club}, status=status)


def _after(request: HttpRequest, club: Club, done: str | None, error: ClubError | None) -> HttpResponse:
    if error is not None:
        messages.error(request, error.text())
    elif done:
        messages.success(request, done)
    return redirect("clubs:detail", slug=club.slug)


@require_POST
def club_join(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club(slug)
    user = _member(request)
    if user is None:
        return _after(request, club, None, ClubError("not_authenticated"))
    try:
        joined = services.club_join(club_id=club.pk, user=user)
    except ClubError as exc:
        return _after(request, club, None, exc)
    done = _("Welcome to the club.") if joined else _("You are already a member.")
    return _after(request, club, done, None)


@require_POST
def club_leave(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club(slug)
    user = _member(request)
    if user is None:
        return _after(request, club, None, ClubError("not_authenticated"))
    try:
        left = services.club_leave(club_id=club.pk, user=user)
    except ClubError as exc:
        return _after(request, club, None, exc)
    return _after(request, club, _("You left the club.") if left else _("You were not a member."), None)


@require_POST
def club_delete(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club(slug)
    user = _member(request)
    if user is None:
        return _after(request, club, None, ClubError("not_authenticated"))
    try:
        services.club_delete(club_id=club.pk, user=user)
    except ClubError as exc:
        return _after(request, club, None, exc)
    messages.success(request, _("The club was deleted."))
    return redirect("clubs:list")


@require_POST
def invite_renew(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club(slug)
    user = _member(request)
    if user is None:
        return _after(request, club, None, ClubError("not_authenticated"))
    try:
        services.invite_renew(club_id=club.pk, user=user)
    except ClubError as exc:
        return _after(request, club, None, exc)
    return _after(request, club, _("A new invitation link is ready: the old one no longer works."), None)


ACTIONS = ("organiser", "member", "owner", "remove")


@require_POST
def member_action(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    """``action``: ``organiser`` / ``member`` (the owner sets the role), ``owner`` (the owner hands the
    ownership over), ``remove``."""
    club = _club(slug)
    user = _member(request)
    if user is None:
        return _after(request, club, None, ClubError("not_authenticated"))
    action = request.POST.get("action", "")
    try:
        if action == "remove":
            done = services.member_remove(club_id=club.pk, user=user, member_id=user_id)
            text = _("The member was removed.") if done else _("That player is not a member of this club.")
        elif action == "owner":
            services.club_transfer(club_id=club.pk, user=user, member_id=user_id)
            text = _("The ownership was handed over: you are now an organiser.")
        elif action in ("organiser", "member"):
            services.member_set_role(club_id=club.pk, user=user, member_id=user_id, role=action)
            text = _("The member's role was changed.")
        else:
            raise ClubError("bad_role")
    except ClubError as exc:
        return _after(request, club, None, exc)
    return _after(request, club, text, None)


@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, code: str) -> HttpResponse:
    """The invitation link: the club's name and description and a Join button; POST joins. An unknown
    or renewed code is a 404 that says the link is not valid."""
    club = selectors.club_by_code(code=code)
    if club is None:
        raise NotFound(ClubError("bad_code").text())
    user = _member(request)
    me = selectors.membership_of(club=club, user=user) if user else None
    if request.method == "POST":
        if user is None:
            messages.error(request, ClubError("not_authenticated").text())
            return redirect(request.path)
        try:
            services.club_join(club_id=club.pk, user=user, code=code)
        except ClubError as exc:
            messages.error(request, exc.text())
            return redirect(request.path)
        messages.success(request, _("Welcome to the club."))
        return redirect("clubs:detail", slug=club.slug)
    return render(request, "clubs/invite.html", {
        "club": club, "me": me, "member_count": selectors.member_count(club=club),
        "login_url": f"{reverse('accounts:login')}?next={request.path}",
    })
