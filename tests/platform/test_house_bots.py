"""``ensure_house_bots`` creates bot-1..bot-5 once and repairs them; running it again changes nothing."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.utils import translation

from accounts.models import User
from accounts.selectors import house_bot_get, house_bots_list

pytestmark = pytest.mark.django_db


def snapshot() -> list[tuple]:
    return list(
        User.objects.order_by("pk").values_list(
            "pk", "username", "is_bot", "bot_level", "is_guest", "display_name", "password"
        )
    )


def test_creates_five_bots_with_levels() -> None:
    out = StringIO()
    call_command("ensure_house_bots", stdout=out)
    bots = list(house_bots_list())
    assert [(b.username, b.bot_level) for b in bots] == [(f"bot-{n}", n) for n in range(1, 6)]
    assert [b.display_name for b in bots] == [
        "Bot 1 · Beginner",
        "Bot 2 · Casual",
        "Bot 3 · Standard",
        "Bot 4 · Advanced",
        "Bot 5 · Expert",
    ]
    assert all(b.is_bot and not b.is_guest and not b.has_usable_password() for b in bots)
    assert "bot-5 (Bot 5 · Expert)" in out.getvalue()
    assert house_bot_get(level=3).username == "bot-3"
    with translation.override("pt-br"):
        assert [b.public_name for b in bots] == [
            "Robô 1 · Iniciante", "Robô 2 · Amador", "Robô 3 · Padrão", "Robô 4 · Avançado",
            "Robô 5 · Especialista",
        ]
    with translation.override("en"):
        assert bots[4].public_name == "Bot 5 · Expert"


def test_idempotent() -> None:
    call_command("ensure_house_bots", stdout=StringIO())
    before = snapshot()
    call_command("ensure_house_bots", stdout=StringIO())
    assert snapshot() == before
    assert User.objects.count() == 5


def test_repairs_a_tampered_bot_in_place() -> None:
    call_command("ensure_house_bots", stdout=StringIO())
    bot = User.objects.get(username="bot-2")
    bot.display_name = "hacked"
    bot.set_password("now-it-can-log-in")
    bot.save()
    call_command("ensure_house_bots", stdout=StringIO())
    repaired = User.objects.get(username="bot-2")
    assert repaired.pk == bot.pk
    assert repaired.display_name == "Bot 2 · Casual" and not repaired.has_usable_password()


def test_bad_level_is_refused() -> None:
    with pytest.raises(ValueError, match=r"1\.\.5"):
        house_bot_get(level=6)


@pytest.mark.parametrize(
    "fields",
    [
        {"is_bot": True, "bot_level": None},
        {"is_bot": True, "bot_level": 6},
        {"is_bot": False, "bot_level": 3},
        {"is_bot": True, "bot_level": 1, "is_guest": True},
    ],
)
def test_database_refuses_inconsistent_bot_fields(fields: dict) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="x", **fields)
