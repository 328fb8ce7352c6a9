"""Fixtures for the fair-play tests: members with ratings, a moderator (the group of migration 0003),
a plain staff member, and Celery tasks run eagerly."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Group


@pytest.fixture(autouse=True)
def eager_tasks() -> Iterator[None]:
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture
def member(db: None) -> Callable[..., Any]:
    """``member(name, rating=None, played=0)``: a member, with a rating row when ``rating`` is given."""
    from accounts.models import User
    from ratings.models import PlayerRating

    def make(name: str, rating: float | None = None, played: int = 0) -> Any:
        user = User.objects.create_user(username=name, password="pw-for-tests-1")
        if rating is not None:
            PlayerRating.objects.create(user=user, rating=rating, peak=rating, rated_matches=played,
                                        wins=played)
        return user

    return make


@pytest.fixture
def moderator(db: None) -> Any:
    from accounts.models import User

    user = User.objects.create_user(username="mod", password="pw-for-tests-1", is_staff=True)
    user.groups.add(moderators_group())
    return user


def moderators_group() -> Group:
    """The group of migration 0003 (made again after a transactional test's flush removed it)."""
    import importlib

    from django.contrib.auth.models import Permission

    migration = importlib.import_module("fairplay.migrations.0003_moderators")
    group, created = Group.objects.get_or_create(name=migration.GROUP)
    if created:
        group.permissions.add(*Permission.objects.filter(content_type__app_label="fairplay",
                                                         codename__in=migration.PERMISSIONS))
    return group


@pytest.fixture
def staff(db: None) -> Any:
    from accounts.models import User

    return User.objects.create_user(username="staffer", password="pw-for-tests-1", is_staff=True)
