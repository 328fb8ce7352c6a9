"""Factories for the tests' data, made the way the site makes it (factory_boy).

``UserFactory(username=..., password=None)``: a member through ``create_user`` (no password: an unusable
one). ``GuestFactory()``: a guest through ``accounts.services.guest_create``.

Matches are made through the games services only, never as rows written by hand: a match's engine
state (the deal, its commitment, the event log) exists only as the services write it.
``TableFactory(host=..., rules_preset="classic", target=100, turn_timer=None, rated=True)``: a friend
table waiting for its second player (``services.table_create``). ``FriendMatchFactory(host=...,
friend=..., <the same options>)``: that table joined by ``friend`` (``services.table_join``), in play.
``BotMatchFactory(user=..., level=1, rules_preset="classic", target=100, rated=True)``: a match against
the house bot of ``level`` (the house bots are made first when missing). Unnamed players are new
members. Each returns the ``games.models.Match`` as the service returned it.

``TournamentFactory(**fields)``: an open tournament (``name_en`` "Test Cup", ``name_pt`` "Copa Teste",
starting in an hour); any model field may be given.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import factory
from factory.django import DjangoModelFactory

from accounts.models import User
from games.models import Match
from tournaments.models import Tournament, TournamentStatus


class UserFactory(DjangoModelFactory):
    """A member (``User.objects.create_user``): ``username`` member0, member1, ... unless given."""

    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"member{n}")
    password = None

    @classmethod
    def _create(cls, model_class: type[User], *args: Any, **kwargs: Any) -> User:
        return model_class.objects.create_user(*args, **kwargs)


class GuestFactory(DjangoModelFactory):
    """A guest, as "Play as a guest" makes one (``accounts.services.guest_create``)."""

    class Meta:
        model = User

    @classmethod
    def _create(cls, model_class: type[User], *args: Any, **kwargs: Any) -> User:
        from accounts.services import guest_create

        return guest_create()


class TableFactory(factory.Factory):
    """A friend table waiting for its friend (``games.services.table_create``)."""

    class Meta:
        model = Match

    host = factory.SubFactory(UserFactory)
    rules_preset = "classic"
    target = 100
    turn_timer = None
    rated = True

    @classmethod
    def _create(cls, model_class: type[Match], host: User, **options: Any) -> Match:
        from games import services

        return services.table_create(user=host, **options)


class FriendMatchFactory(TableFactory):
    """A friend table joined by ``friend`` (``games.services.table_join``): the first hand is dealt."""

    friend = factory.SubFactory(UserFactory)

    @classmethod
    def _create(cls, model_class: type[Match], host: User, friend: User, **options: Any) -> Match:  # type: ignore[override]
        from games import services

        table = services.table_create(user=host, **options)
        return services.table_join(user=friend, token=table.invite_token or "")


class BotMatchFactory(factory.Factory):
    """A match of ``user`` against the house bot of ``level`` (``games.services.match_create_vs_bot``)."""

    class Meta:
        model = Match

    user = factory.SubFactory(UserFactory)
    level = 1
    rules_preset = "classic"
    target = 100
    rated = True

    @classmethod
    def _create(cls, model_class: type[Match], **options: Any) -> Match:
        from accounts.services import house_bots_ensure
        from games import services

        house_bots_ensure()
        return services.match_create_vs_bot(**options)


class TournamentFactory(DjangoModelFactory):
    """An open tournament starting in an hour; any field of ``tournaments.models.Tournament`` may be given."""

    class Meta:
        model = Tournament

    name_en = "Test Cup"
    name_pt = "Copa Teste"
    status = TournamentStatus.OPEN
    starts_at = factory.LazyFunction(lambda: dt.datetime.now(dt.UTC) + dt.timedelta(hours=1))
