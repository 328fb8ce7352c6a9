"""Clubs and their members.

A :class:`Club` is made by a member, who becomes its owner; the owner names organisers (who may create
the club's events and manage its members' events); members join a public club at once, an invitation
club only with its invitation code (``invite_code``, a random token the owner can renew, which
invalidates the old link). A club's own ranking orders its members by their site rating.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class ClubAccess(models.TextChoices):
    PUBLIC = "public", _("public: anyone may join")
    INVITE = "invite", _("by invitation link only")


class Club(models.Model):
    """``name``: 3..60 characters, unique whatever the case; ``slug``: the URL's part, unique;
    ``description``: at most 1000 characters; ``invite_code``: 22 URL-safe characters
    (``secrets.token_urlsafe(16)``), the invitation link's secret."""

    name = models.CharField(_("name"), max_length=60)
    slug = models.SlugField(_("address"), max_length=60, unique=True)
    description = models.TextField(_("description"), max_length=1000, blank=True)
    access = models.CharField(_("who may join"), max_length=10, choices=ClubAccess.choices,
                              default=ClubAccess.PUBLIC)
    invite_code = models.CharField(_("invitation code"), max_length=40, unique=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ("name", "id")
        constraints = [
            models.UniqueConstraint(Lower("name"), name="clubs_name_unique_ci"),
        ]

    def __str__(self) -> str:
        return self.name


class ClubRole(models.TextChoices):
    OWNER = "owner", _("owner")
    ORGANISER = "organiser", _("organiser")
    MEMBER = "member", _("member")


class ClubMember(models.Model):
    """One member of one club. Exactly one owner per club (a partial unique constraint); an organiser
    may create and edit the club's events."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="club_memberships")
    role = models.CharField(_("role"), max_length=10, choices=ClubRole.choices, default=ClubRole.MEMBER)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        ordering = ("club", "joined_at", "id")
        constraints = [
            models.UniqueConstraint(fields=("club", "user"), name="clubs_member_once"),
            models.UniqueConstraint(fields=("club",), condition=Q(role="owner"), name="clubs_one_owner"),
        ]

    @property
    def organises(self) -> bool:
        return self.role in (ClubRole.OWNER, ClubRole.ORGANISER)
