"""The site through a real browser on a real Daphne subprocess: guest play, language switch, sign-up."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_guest_then_keep_history_then_portuguese(page: Any, daphne_server: Any) -> None:
    page.goto(daphne_server.url + "/")
    assert page.locator("h1").inner_text() == "Play Gin Rummy online"
    page.get_by_test_id("play-as-guest").click()
    page.wait_for_url(daphne_server.url + "/")
    who = page.get_by_test_id("who").inner_text()
    assert who.startswith("Guest ") and who.endswith("guest")
    guest = User.objects.get(is_guest=True)

    page.get_by_role("link", name="Keep your history: sign up").click()
    page.fill("#id_username", "carla")
    page.fill("#id_password1", "felt-green-42-knock")
    page.fill("#id_password2", "felt-green-42-knock")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(daphne_server.url + "/")
    assert page.get_by_test_id("who").inner_text() == "carla"
    carla = User.objects.get(username="carla")
    assert carla.pk == guest.pk and not carla.is_guest

    page.select_option("#lang-select", "pt-br")
    page.wait_for_load_state()
    page.wait_for_function("document.documentElement.lang === 'pt-br'")
    assert page.locator("h1").inner_text() == "Jogue Gin Rummy online"
    assert page.get_by_role("button", name="Sair").is_visible()
