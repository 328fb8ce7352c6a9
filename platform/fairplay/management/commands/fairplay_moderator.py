"""``manage.py fairplay_moderator NAME [--remove]``: make the member ``NAME`` a fair-play moderator
(staff, in the group "fair-play moderators" of migration 0003: the queue at ``/admin/`` and its
actions, docs/fairplay.md "Moderation"), or with ``--remove`` take that away: the group, and staff
status too unless the member still has another group, a permission of their own or is a superuser.
The member logs in to ``/admin/`` with their own password.

Refused, changing nothing: an unknown name, a guest, a house bot, an account not active.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from accounts.models import User

GROUP = "fair-play moderators"


class Command(BaseCommand):
    help = "Make a member a fair-play moderator (staff + the moderators' group), or --remove it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the member's username (case ignored)")
        parser.add_argument("--remove", action="store_true", help="take the moderator role away")

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        name = options["name"]
        user = User.objects.select_for_update().filter(username__iexact=name).first()
        if user is None:
            raise CommandError(f"no member named {name!r}")
        if user.is_guest or user.is_bot:
            kind = "guest" if user.is_guest else "house bot"
            raise CommandError(f"{user.username!r} is a {kind}, not a member")
        if not user.is_active:
            raise CommandError(f"{user.username!r} is not active (closed accounts cannot moderate)")
        group = Group.objects.filter(name=GROUP).first()
        if group is None:
            raise CommandError(f"the group {GROUP!r} is missing: run manage.py migrate")
        if options["remove"]:
            user.groups.remove(group)
            if not (user.is_superuser or user.groups.exists() or user.user_permissions.exists()):
                user.is_staff = False  # staff for nothing else: no admin log-in left either
                user.save(update_fields=["is_staff"])
            self.stdout.write(f"{user.username} is no longer a fair-play moderator")
            return
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        user.groups.add(group)
        self.stdout.write(f"{user.username} is a fair-play moderator: log in at /admin/ for the queue")
