"""``manage.py bot_accounts_make``: BOT accounts with working tokens; a re-run revokes the earlier ones."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from accounts.models import ApiToken, User
from accounts.tokens import token_user

pytestmark = pytest.mark.django_db


def _run(**kwargs: object) -> list[dict[str, str]]:
    out = io.StringIO()
    call_command("bot_accounts_make", stdout=out, **kwargs)
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


def test_accounts_are_bots_with_tokens_of_every_scope() -> None:
    rows = _run(count=3, prefix="bb")
    assert [r["username"] for r in rows] == ["bb-1", "bb-2", "bb-3"]
    for row in rows:
        found = token_user(row["token"])
        assert found is not None
        user, token = found
        assert user.username == row["username"] and user.bot_account and not user.is_bot
        assert sorted(token.scopes) == ["bot:play", "challenge:write"]
        assert not user.has_usable_password()


def test_a_rerun_revokes_the_earlier_tokens() -> None:
    first = _run(count=1, prefix="bb")[0]["token"]
    second = _run(count=1, prefix="bb")[0]["token"]
    assert token_user(first) is None and token_user(second) is not None
    assert ApiToken.objects.filter(user__username="bb-1", revoked_at__isnull=True).count() == 1


def test_a_person_of_that_name_is_left_alone() -> None:
    User.objects.create_user(username="bb-1", password="x" * 12)
    with pytest.raises(CommandError, match="not a BOT account"):
        _run(count=1, prefix="bb")
    assert not User.objects.get(username="bb-1").bot_account
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("kwargs", [{"count": 0}, {"count": 1001}, {"prefix": "a b"}, {"prefix": "x\x00"}])
def test_bad_arguments_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(CommandError):
        _run(**kwargs)
    assert not User.objects.filter(bot_account=True).exists()
