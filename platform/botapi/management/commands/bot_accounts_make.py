"""``manage.py bot_accounts_make --count N --prefix P``: make N BOT accounts, each with a fresh API token
of every scope, and print one JSON line per account, ``{"username", "token"}`` (the benchmark
``scripts/bench_botapi`` and local trials use it; docs/bot-api.md "Benchmark").

Accounts that exist already (``P-1`` .. ``P-N``) are reused, upgraded when they are fresh, and get a new
token; a non-fresh person of that name is refused (nothing of them changes)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from accounts.models import ApiToken, User
from accounts.tokens import SCOPES, token_create


class Command(BaseCommand):
    help = "Make BOT accounts with API tokens; print {username, token} JSON lines"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--count", type=int, default=2, help="how many accounts (1..1000)")
        parser.add_argument("--prefix", default="benchbot", help="usernames are PREFIX-1 .. PREFIX-N")

    def handle(self, *args: Any, count: int, prefix: str, **options: Any) -> None:
        if not 1 <= count <= 1000:
            raise CommandError("--count is 1 to 1000")
        if not prefix.replace("-", "").replace("_", "").isalnum() or len(prefix) > 40:
            raise CommandError("--prefix: letters, digits, - and _ only, at most 40 characters")
        for n in range(1, count + 1):
            username = f"{prefix}-{n}"
            with transaction.atomic():
                user = User.objects.filter(username__iexact=username).first()
                if user is None:
                    user = User(username=username, bot_account=True)
                    user.set_unusable_password()
                    user.save()
                elif user.is_bot or user.is_guest:
                    raise CommandError(f"{username} exists and is a house bot or a guest")
                elif not user.bot_account:
                    raise CommandError(f"{username} exists and is not a BOT account: choose another --prefix")
                # The earlier runs' tokens are revoked: an account holds at most 20 live tokens.
                ApiToken.objects.filter(user=user, name="bench", revoked_at__isnull=True).update(
                    revoked_at=timezone.now())
                _, text = token_create(user=user, name="bench", scopes=SCOPES)
            self.stdout.write(json.dumps({"username": user.username, "token": text}))
