"""One refusal page (issue 24): the games', tournaments' and replays' refusals all render
``web/refused.html`` (``web.refusals``) with their own status and text, in English and pt-BR."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

MISSING = 999_999


def _member(django_user_model: Any) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_user(username="rita", password="x" * 12))
    return client


def _refusal(response: Any, status: int) -> str:
    assert response.status_code == status
    names = [t.name for t in response.templates][:3]
    assert names == ["web/refused.html", "web/error_page.html", "web/base.html"]
    html: str = response.content.decode()
    assert 'data-testid="error-page"' in html
    assert f'<p class="error-code" aria-hidden="true">{status}</p>' in html
    return html


def test_the_three_apps_refuse_on_one_page(django_user_model: Any) -> None:
    member = _member(django_user_model)
    games = _refusal(member.get(reverse("games:table", args=[MISSING])), 404)
    assert "<h1>Page not found</h1>" in games and ">No such match.</p>" in games
    tournaments = _refusal(member.get(reverse("tournaments:detail", args=[MISSING])), 404)
    assert "<h1>Page not found</h1>" in tournaments
    assert "There is nothing at this address." in tournaments  # nothing told about the tournament
    replays = _refusal(member.get(reverse("replays:replay", args=[MISSING])), 404)
    assert "<h1>Replay</h1>" in replays and ">There is no finished match with this number.</p>" in replays
    assert 'data-code="no_such_match"' in replays
    assert f'href="{reverse("replays:open")}">Open a replay file</a>' in replays


def test_the_refusal_page_in_portuguese(django_user_model: Any) -> None:
    member = _member(django_user_model)
    pt = {"headers": {"accept-language": "pt-BR"}}
    games = _refusal(member.get(reverse("games:table", args=[MISSING]), **pt), 404)
    assert "<h1>Página não encontrada</h1>" in games and "Voltar à página inicial" in games
    replays = _refusal(member.get(reverse("replays:replay", args=[MISSING]), **pt), 404)
    assert "Não há partida terminada com este número." in replays and "Abrir um arquivo de replay" in replays


def test_a_replay_refusal_from_a_form_is_the_same_page(django_user_model: Any) -> None:
    member = _member(django_user_model)
    response = member.post(reverse("replays:visibility", args=[MISSING]), {"public": "1"})
    html = _refusal(response, 404)  # a match the member may not see: answered as one that does not exist
    assert "There is no finished match with this number." in html
