"""``manage.py fairplay_moderator``: a member made a moderator reaches the queue; refusals change nothing."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from accounts.models import User
from tests.fairplay.conftest import moderators_group

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _group() -> None:
    """Migration 0003's group (a transactional test elsewhere in the run may have flushed it)."""
    moderators_group()

QUEUE = "/admin/fairplay/playersignal/"


def _queue_status(user: User) -> int:
    client = Client()
    client.force_login(user)
    return client.get(QUEUE).status_code


def test_a_member_made_moderator_opens_the_queue_and_loses_it_on_remove() -> None:
    ana = User.objects.create_user("Ana", password="pw-123456!x")
    client = Client()
    client.force_login(ana)
    assert client.get(QUEUE).status_code == 302  # not staff: the admin's log-in page
    out = StringIO()
    call_command("fairplay_moderator", "ana", stdout=out)  # the name's case is ignored
    assert "Ana is a fair-play moderator" in out.getvalue()
    ana.refresh_from_db()
    assert ana.is_staff and list(ana.groups.values_list("name", flat=True)) == ["fair-play moderators"]
    assert _queue_status(User.objects.get(pk=ana.pk)) == 200
    call_command("fairplay_moderator", "ana", "--remove", stdout=StringIO())
    # staff for nothing else: no admin at all (the trial found the staff flag left behind)
    assert not User.objects.get(pk=ana.pk).is_staff and _queue_status(User.objects.get(pk=ana.pk)) == 302


def test_remove_keeps_the_staff_flag_of_a_member_with_another_group() -> None:
    from django.contrib.auth.models import Group

    bo = User.objects.create_user("bo", password="pw-123456!x")
    bo.groups.add(Group.objects.create(name="tournament directors"))
    call_command("fairplay_moderator", "bo", stdout=StringIO())
    call_command("fairplay_moderator", "bo", "--remove", stdout=StringIO())
    bo.refresh_from_db()
    assert bo.is_staff and list(bo.groups.values_list("name", flat=True)) == ["tournament directors"]
    assert _queue_status(bo) == 403


@pytest.mark.parametrize(("make", "error"), [
    (lambda: None, "no member named 'nobody'"),
    (lambda: User.objects.create_user("nobody", is_guest=True), "'nobody' is a guest, not a member"),
    (lambda: User.objects.create_user("nobody", is_bot=True, bot_level=3), "'nobody' is a house bot"),
    (lambda: User.objects.create_user("nobody", is_active=False), "'nobody' is not active"),
])
def test_refused_and_nothing_changes(make: Any, error: str) -> None:
    make()
    with pytest.raises(CommandError, match=error):
        call_command("fairplay_moderator", "nobody", stdout=StringIO())
    assert not User.objects.filter(is_staff=True).exists()
