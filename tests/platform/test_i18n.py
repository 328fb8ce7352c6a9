"""The language switch (``set_language``) renders the pages in Brazilian Portuguese and back."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_compiled_catalog_is_committed_next_to_its_source() -> None:
    messages = ROOT / "platform" / "locale" / "pt_BR" / "LC_MESSAGES"
    assert (messages / "django.po").exists() and (messages / "django.mo").exists()
    assert (messages / "django.mo").stat().st_mtime >= (messages / "django.po").stat().st_mtime - 1


def test_language_switch_renders_pt_br_then_english(client: Client) -> None:
    english = client.get(reverse("home:home")).content.decode()
    assert '<html lang="en">' in english and "Play Gin Rummy online" in english

    response = client.post(reverse("set_language"), {"language": "pt-br", "next": "/accounts/login/"})
    assert response.status_code == 302 and response.url == "/accounts/login/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "pt-br"

    home = client.get(reverse("home:home")).content.decode()
    assert '<html lang="pt-br">' in home
    assert "Jogue Gin Rummy online" in home
    assert "Jogar agora como convidado" in home
    assert "Jogar contra um robô" in home
    login = client.get(reverse("accounts:login")).content.decode()
    assert "Entrar" in login and "Novo por aqui?" in login
    assert ">Usuário:</label>" in login and ">Senha:</label>" in login  # Django's own pt-BR catalog

    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert "Play Gin Rummy online" in client.get(reverse("home:home")).content.decode()


def test_accept_language_header_picks_pt_br(client: Client) -> None:
    page = client.get(reverse("home:home"), HTTP_ACCEPT_LANGUAGE="pt-BR,pt;q=0.9").content.decode()
    assert "Jogue Gin Rummy online" in page


def test_guest_flash_message_is_translated(client: Client) -> None:
    client.post(reverse("set_language"), {"language": "pt-br", "next": "/"})
    page = client.post(reverse("accounts:guest"), follow=True).content.decode()
    assert "Você está jogando como Guest " in page
    assert "Guarde seu histórico: crie uma conta" in page
