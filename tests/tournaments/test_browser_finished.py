"""A finished (simulated) event's page in chromium at 1280x800 and 390x844, English and pt-BR: the
"simulation" badge, the final standings above the last round's boards, whole-point rating changes, no
"Play" link, and nothing wider than the screen."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from tests.tournaments.test_pages import finished_event
from tournaments.models import Tournament

pytestmark = [pytest.mark.browser]


@pytest.mark.parametrize("lang,badge", [("en", "simulation"), ("pt-BR", "simulação")])
def test_finished_simulation_page_on_desktop_and_phone(daphne_server: Any, page: Any, members: list[User],
                                                       lang: str, badge: str) -> None:
    tournament, _ = finished_event(members)
    Tournament.objects.filter(pk=tournament.pk).update(is_simulation=True, simulation_seed=1)
    page.context.add_cookies([{"name": "django_language", "value": lang.lower(), "url": daphne_server.url}])
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{daphne_server.url}/tournaments/{tournament.pk}/")
        assert page.get_by_test_id("simulation-badge").inner_text() == badge
        standings = page.get_by_test_id("standings").bounding_box()
        boards = page.get_by_test_id("pairings").bounding_box()
        assert standings is not None and boards is not None and standings["y"] < boards["y"]
        changes = page.get_by_test_id("rating-change").all_inner_texts()
        assert sorted(changes) == ["+26", "-26", "0"]  # the bye's player: a rated match of none
        assert page.get_by_test_id("play-link").count() == 0
        assert page.evaluate("document.documentElement.scrollWidth") <= width
