"""BOT accounts and tournaments (docs/tournaments.md, docs/bot-api.md "Fair limits"): a BOT account
registers only where the organiser allowed BOT accounts (``bot_accounts_not_allowed`` otherwise, in
English and pt-BR on the page, nothing stored); the organiser's form sets the choice; the event page says
it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from tests.factories import TournamentFactory, UserFactory
from tournaments import services
from tournaments.errors import TournamentError
from tournaments.models import Registration, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def robo() -> User:
    user = UserFactory(username="robo")
    user.bot_account = True
    user.save(update_fields=["bot_account"])
    return user


def test_a_bot_account_registers_only_where_allowed(robo: User, members: list[User]) -> None:
    closed = TournamentFactory()
    assert closed.bot_accounts_allowed is False  # the default
    with pytest.raises(TournamentError) as caught:
        services.tournament_join(tournament_id=closed.pk, user=robo)
    assert (caught.value.code, caught.value.message) == (
        "bot_accounts_not_allowed", "this tournament does not accept BOT accounts")
    assert not Registration.objects.filter(tournament=closed).exists()
    # people are not concerned
    assert services.tournament_join(tournament_id=closed.pk, user=members[0]).user_id == members[0].pk
    open_to_bots = TournamentFactory(bot_accounts_allowed=True)
    registration = services.tournament_join(tournament_id=open_to_bots.pk, user=robo)
    assert (registration.tournament_id, registration.user_id) == (open_to_bots.pk, robo.pk)


@pytest.mark.parametrize(("language", "text"), [
    ("en", "This tournament does not accept BOT accounts."),
    ("pt-br", "Este torneio não aceita contas de robô."),
])
def test_the_refusal_is_shown_on_the_page(robo: User, language: str, text: str) -> None:
    t = TournamentFactory()
    client = Client(headers={"accept-language": language})
    client.force_login(robo)
    response = client.post(reverse("tournaments:join", args=[t.pk]), follow=True)
    assert response.status_code == 200
    assert [str(m) for m in response.context["messages"]] == [text]
    assert not Registration.objects.filter(tournament=t).exists()


def _post_data(**kw: Any) -> dict[str, Any]:
    start = timezone.now() + dt.timedelta(hours=3)
    return {"name": "Bot Cup", "description": "", "format": "swiss",
            "starts_at": start.strftime("%Y-%m-%dT%H:%M"), "rounds": "", "duration_minutes": "",
            "rules_preset": "classic", "match_target": "50", "turn_timer_seconds": "30", "rated": "on",
            "rating_min": "", "rating_max": "", "access": "public", "entry_code": "", "bots_allowed": "on",
            "min_players": "2", "max_players": "64", **kw}


@pytest.mark.parametrize(("language", "label", "shown", "hidden"), [
    ("en", "Allow BOT accounts", "BOT accounts may join", "No BOT accounts"),
    ("pt-br", "Permitir contas de robô", "Contas de robô podem participar", "Sem contas de robô"),
])
def test_the_organisers_checkbox_and_the_event_page(
    members: list[User], language: str, label: str, shown: str, hidden: str,
) -> None:
    client = Client(headers={"accept-language": language})
    client.force_login(members[0])
    form = client.get(reverse("tournaments:create")).content.decode()
    assert label in form and 'name="bot_accounts_allowed"' in form
    response = client.post(reverse("tournaments:create"), _post_data(bot_accounts_allowed="on"))
    assert response.status_code == 302
    t = Tournament.objects.get(created_by=members[0])
    assert t.bot_accounts_allowed is True
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert f'<span data-testid="bot-accounts">{shown}</span>' in page
    # the edit form shows the choice and turns it off
    edit = client.get(reverse("tournaments:edit", args=[t.pk])).content.decode()
    assert 'name="bot_accounts_allowed" id="id_bot_accounts_allowed" checked' in edit
    response = client.post(reverse("tournaments:edit", args=[t.pk]), _post_data())
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.bot_accounts_allowed is False
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert f'<span data-testid="bot-accounts">{hidden}</span>' in page
