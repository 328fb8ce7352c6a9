"""Club writes (HackSoft services, keyword-only): create, edit, join, leave, roles, removal, invitation.

Every write runs in one transaction and locks what a concurrent write could change under it: creating
locks the creator's user row (the daily and owned limits count their clubs), every other write locks
the club's row (``select_for_update``), so two joins, a join and a removal, or two ownership transfers
run one after the other. The one owner per club is also a database constraint (``clubs_one_owner``).
Each refusal is a :class:`clubs.errors.ClubError` (its ``code`` names it) and changes nothing.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from confusable_homoglyphs import confusables
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.utils import timezone
from django.utils.text import slugify

from accounts.abusive_words import abusive_word
from accounts.models import Standing, User
from clubs.errors import ClubError
from clubs.models import Club, ClubAccess, ClubMember, ClubRole
from web.text import TEXT_LAYOUT, control_characters

NAME_MIN, NAME_MAX = 3, 60
"""A club's name: 3 to 60 characters (after trimming the spaces around it)."""
DESCRIPTION_MAX = 1000
CLUBS_PER_DAY = 3
"""Most clubs one member creates in 24 hours (a rolling window)."""
CLUBS_OWNED_MAX = 10
"""Most clubs one member owns at a time."""
RESERVED_SLUGS = frozenset({"new", "join"})
"""Slugs taken by the clubs' own pages (``/clubs/new/``, ``/clubs/join/<code>/``)."""
SLUG_BASE_MAX = 50
"""The slug's base is cut here, leaving room for a ``-<n>`` suffix within the field's 60."""


def new_invite_code() -> str:
    """A fresh invitation code: 22 URL-safe characters (128 random bits)."""
    return secrets.token_urlsafe(16)


# --------------------------------------------------------------------------------------------- checks


def _check_member_account(user: User) -> None:
    if not user.is_authenticated:
        raise ClubError("not_authenticated")
    if user.is_guest or user.is_bot:
        raise ClubError("not_member_account")


def clean_name(name: str) -> str:
    """``name`` trimmed of the spaces around it. :raises ClubError: ``name_length`` (3..60 characters),
    ``name_controls`` (any control character, NUL included, or a bidirectional control),
    ``name_abusive`` (``accounts.abusive_words``), ``name_confusable`` (mixed look-alike alphabets)."""
    bad = control_characters(name)
    if bad:
        raise ClubError("name_controls", field="name", first=f"U+{ord(bad[0]):04X}")
    name = " ".join(name.split())  # one space between words: "A  B" and "A B" are one name
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise ClubError("name_length", field="name", min=NAME_MIN, max=NAME_MAX)
    if abusive_word(name) is not None:
        raise ClubError("name_abusive", field="name")
    if confusables.is_dangerous(name):
        raise ClubError("name_confusable", field="name")
    return name


def clean_description(description: str) -> str:
    """``description`` trimmed. :raises ClubError: ``description_length`` (over 1000 characters),
    ``description_controls`` (control characters other than tab and line breaks, bidirectional controls)."""
    bad = control_characters(description, allowed=TEXT_LAYOUT)
    if bad:
        raise ClubError("description_controls", field="description", first=f"U+{ord(bad[0]):04X}")
    description = description.strip()
    if len(description) > DESCRIPTION_MAX:
        raise ClubError("description_length", field="description", max=DESCRIPTION_MAX)
    return description


def _check_access(access: str) -> None:
    if access not in ClubAccess.values:
        raise ClubError("bad_access", field="access")


def _check_name_free(name: str, *, except_id: int | None = None) -> None:
    taken = Club.objects.filter(name__iexact=name)
    if except_id is not None:
        taken = taken.exclude(pk=except_id)
    if taken.exists():
        raise ClubError("name_taken", field="name", name=name)


def slug_candidates(name: str) -> list[str]:
    """The slugs tried for ``name``, in order: its slug (``club`` when nothing ASCII is left, or for a
    reserved word), then with ``-2``, ``-3``... (the first 50 tried; a name has at most 60 characters)."""
    base = slugify(name)[:SLUG_BASE_MAX].strip("-") or "club"
    first = base if base not in RESERVED_SLUGS else f"{base}-1"
    return [first] + [f"{base}-{n}" for n in range(2, 51)]


def _lock_user(user: User) -> None:
    User.objects.select_for_update().filter(pk=user.pk).first()


def _lock_club(club_id: int) -> Club:
    club = Club.objects.select_for_update().filter(pk=club_id).first()
    if club is None:
        raise ClubError("no_such_club")
    return club


def _membership(club: Club, user_id: int) -> ClubMember | None:
    return ClubMember.objects.filter(club=club, user_id=user_id).first()


def _require_role(club: Club, user: User, *, owner: bool = False) -> ClubMember:
    _check_member_account(user)
    me = _membership(club, user.pk)
    if me is None:
        raise ClubError("not_a_member")
    if owner and me.role != ClubRole.OWNER:
        raise ClubError("not_owner")
    if not me.organises:
        raise ClubError("not_organiser")
    return me


# --------------------------------------------------------------------------------------------- writes


def club_create(*, user: User, name: str, description: str = "", access: str = ClubAccess.PUBLIC,
                now: datetime | None = None) -> Club:
    """Create a club owned by ``user``; its slug comes from the name (a suffix on a clash).

    :raises ClubError: ``not_authenticated``, ``not_member_account`` (guest, bot), ``standing`` (not in
        good standing), ``daily_limit`` (:data:`CLUBS_PER_DAY` in 24 h), ``owned_limit``
        (:data:`CLUBS_OWNED_MAX`), the name's and description's codes (:func:`clean_name`,
        :func:`clean_description`), ``bad_access``, ``name_taken`` (same name ignoring case).
    """
    _check_member_account(user)
    if user.standing != Standing.GOOD:
        raise ClubError("standing")
    name, description = clean_name(name), clean_description(description)
    _check_access(access)
    now = now or timezone.now()
    with transaction.atomic():
        _lock_user(user)  # two creations at once by one member are counted one after the other
        recent = Club.objects.filter(created_by=user, created_at__gt=now - timedelta(days=1))
        if recent.count() >= CLUBS_PER_DAY:
            raise ClubError("daily_limit", n=CLUBS_PER_DAY)
        if ClubMember.objects.filter(user=user, role=ClubRole.OWNER).count() >= CLUBS_OWNED_MAX:
            raise ClubError("owned_limit", n=CLUBS_OWNED_MAX)
        _check_name_free(name)
        for slug in slug_candidates(name):
            if Club.objects.filter(slug=slug).exists():
                continue
            try:
                with transaction.atomic():  # a savepoint: another member's club may take the name or slug now
                    club = Club.objects.create(name=name, slug=slug, description=description, access=access,
                                               invite_code=new_invite_code(), created_by=user)
            except IntegrityError:
                _check_name_free(name)  # the same name at once: name_taken; else the slug: try the next
                continue
            ClubMember.objects.create(club=club, user=user, role=ClubRole.OWNER)
            return club
    raise ClubError("name_taken", field="name", name=name)  # 50 clubs with this slug: practically never


def club_edit(*, club_id: int, user: User, name: str, description: str, access: str) -> Club:
    """Change a club's name, description and access (owner or organiser). The slug stays (links keep
    working). :raises ClubError: as :func:`club_create` for the fields, ``no_such_club``,
    ``not_a_member``, ``not_organiser``."""
    name, description = clean_name(name), clean_description(description)
    _check_access(access)
    with transaction.atomic():
        club = _lock_club(club_id)
        _require_role(club, user)
        _check_name_free(name, except_id=club.pk)
        club.name, club.description, club.access = name, description, access
        try:
            with transaction.atomic():
                club.save(update_fields=["name", "description", "access"])
        except IntegrityError:
            raise ClubError("name_taken", field="name", name=name) from None
    return club


def club_join(*, club_id: int, user: User, code: str = "") -> bool:
    """Join a club: a public one at once, an invitation one only with its code (compared in constant
    time). Returns False when ``user`` was already a member (a double click changes nothing).
    :raises ClubError: ``not_authenticated``, ``not_member_account``, ``no_such_club``, ``invite_only``
    (no code given), ``bad_code`` (a wrong or renewed code)."""
    _check_member_account(user)
    with transaction.atomic():
        club = _lock_club(club_id)
        if _membership(club, user.pk) is not None:
            return False
        if code:
            if not secrets.compare_digest(code.encode(), club.invite_code.encode()):
                raise ClubError("bad_code")
        elif club.access != ClubAccess.PUBLIC:
            raise ClubError("invite_only")
        ClubMember.objects.create(club=club, user=user, role=ClubRole.MEMBER)
    return True


def club_leave(*, club_id: int, user: User) -> bool:
    """Leave a club. Returns False when ``user`` was not a member. :raises ClubError: ``no_such_club``,
    ``owner_leaves`` (the owner hands the ownership over first, or deletes the club when alone)."""
    if not user.is_authenticated:
        raise ClubError("not_authenticated")
    with transaction.atomic():
        club = _lock_club(club_id)
        me = _membership(club, user.pk)
        if me is None:
            return False
        if me.role == ClubRole.OWNER:
            raise ClubError("owner_leaves")
        me.delete()
    return True


def club_delete(*, club_id: int, user: User) -> None:
    """Delete a club (its owner, when no other member is left and it has no events).
    :raises ClubError: ``no_such_club``, ``not_a_member``, ``not_owner``, ``not_alone``, ``has_events``."""
    with transaction.atomic():
        club = _lock_club(club_id)
        _require_role(club, user, owner=True)
        if ClubMember.objects.filter(club=club).exclude(user_id=user.pk).exists():
            raise ClubError("not_alone")
        try:
            with transaction.atomic():
                club.delete()
        except ProtectedError:  # tournaments.Tournament.club is PROTECT: its events keep their club
            raise ClubError("has_events") from None


def member_set_role(*, club_id: int, user: User, member_id: int, role: str) -> bool:
    """The owner makes member ``member_id`` (a user id) an organiser or a plain member. Returns False
    when the role was already that. :raises ClubError: ``no_such_club``, ``not_a_member``, ``not_owner``,
    ``bad_role`` (only ``organiser``/``member``: ownership moves with :func:`club_transfer`), ``self``,
    ``target_not_member``."""
    if role not in (ClubRole.ORGANISER, ClubRole.MEMBER):
        raise ClubError("bad_role")
    with transaction.atomic():
        club = _lock_club(club_id)
        _require_role(club, user, owner=True)
        if member_id == user.pk:
            raise ClubError("self")
        target = _membership(club, member_id)
        if target is None:
            raise ClubError("target_not_member")
        if target.role == role:
            return False
        target.role = role
        target.save(update_fields=["role"])
    return True


def club_transfer(*, club_id: int, user: User, member_id: int) -> None:
    """The owner hands the ownership to member ``member_id``, and becomes an organiser. :raises
    ClubError: ``no_such_club``, ``not_a_member``, ``not_owner``, ``self``, ``target_not_member``."""
    with transaction.atomic():
        club = _lock_club(club_id)
        me = _require_role(club, user, owner=True)
        if member_id == user.pk:
            raise ClubError("self")
        target = _membership(club, member_id)
        if target is None:
            raise ClubError("target_not_member")
        # The old owner steps down first: the partial unique constraint allows one owner at any moment.
        me.role = ClubRole.ORGANISER
        me.save(update_fields=["role"])
        target.role = ClubRole.OWNER
        target.save(update_fields=["role"])


def member_remove(*, club_id: int, user: User, member_id: int) -> bool:
    """Remove member ``member_id`` (an owner or organiser removes a plain member; the owner removes an
    organiser too; nobody removes the owner). Returns False when they were not a member.
    :raises ClubError: ``no_such_club``, ``not_a_member``, ``not_organiser``, ``self`` (leave instead),
    ``cannot_remove``."""
    with transaction.atomic():
        club = _lock_club(club_id)
        me = _require_role(club, user)
        if member_id == user.pk:
            raise ClubError("self")
        target = _membership(club, member_id)
        if target is None:
            return False
        if target.role == ClubRole.OWNER or (target.role == ClubRole.ORGANISER and me.role != ClubRole.OWNER):
            raise ClubError("cannot_remove")
        target.delete()
    return True


def invite_renew(*, club_id: int, user: User) -> str:
    """A new invitation code for the club (owner or organiser): the old link stops working at once.
    Returns the new code. :raises ClubError: ``no_such_club``, ``not_a_member``, ``not_organiser``."""
    with transaction.atomic():
        club = _lock_club(club_id)
        _require_role(club, user)
        club.invite_code = new_invite_code()
        club.save(update_fields=["invite_code"])
    return club.invite_code
