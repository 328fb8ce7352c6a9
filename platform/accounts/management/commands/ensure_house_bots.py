"""``manage.py ensure_house_bots``: create or repair the house bot accounts (idempotent)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts.services import house_bots_ensure


class Command(BaseCommand):
    """Create ``bot-1``..``bot-5`` if missing; running it again changes nothing."""

    help = "Create or repair the house bot accounts bot-1..bot-5 (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        bots = house_bots_ensure()
        self.stdout.write(", ".join(f"{bot.username} ({bot.public_name})" for bot in bots))
