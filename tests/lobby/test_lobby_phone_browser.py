"""/lobby/ in chromium at a 390 x 844 phone (docs/lobby.md "Open challenges"): with several open challenges
(long names, a guest's, a rating range, rated and casual, the reader's own), nothing scrolls sideways,
neither the page nor the list inside its panel (the rows stack, each value with its column's name), in
English and pt-BR, before and after the socket redraws the list."""

from __future__ import annotations

from typing import Any

import pytest

from lobby import seeks
from lobby.seeks import Settings
from ratings.models import PlayerRating
from tests.browser_pages import off_loop
from tests.games.wsclient import session_cookie

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG = "Bartholomew-Longname-Smithson-the-Third"
FITS = """() => {
    const width = window.innerWidth;
    const box = document.querySelector('.table-scroll');
    const wide = [...document.querySelectorAll('body *')]
        .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > width + 0.5)
        .map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));
    return {page: document.scrollingElement.scrollWidth, list: box.scrollWidth - box.clientWidth,
            rows: document.querySelectorAll('[data-testid=seek]').length, wide: wide.slice(0, 5)};
}"""


def world(django_user_model: Any) -> Any:
    from accounts.services import guest_create

    def member(name: str, rating: float) -> Any:
        user = django_user_model.objects.create_user(username=name, password="pw-for-tests-1")
        PlayerRating.objects.create(
            user=user, rating=rating, peak=rating, rated_matches=20, wins=10, losses=10
        )
        return user

    creators = [member(f"{LONG}-{i}", 1500 + 10 * i) for i in range(4)]
    seeks.seek_create(user=creators[0], choice=Settings("classic", 100, 300, True), rating_min=1450,
                      rating_max=1600)
    seeks.seek_create(user=creators[1], choice=Settings("brazilian", 50, None, False))
    seeks.seek_create(user=creators[2], choice=Settings("classic", 50, 20, True), rating_min=3000)
    seeks.seek_create(user=creators[3], choice=Settings("classic", 100, 120, False), rating_max=1400)
    seeks.seek_create(user=guest_create(), choice=Settings("brazilian", 100, 30, False))
    reader = member("reader", 1510)
    seeks.seek_create(user=reader, choice=Settings("classic", 100, 60, False))
    return reader


def test_the_lobby_fits_a_phone_with_several_open_challenges(
    daphne_server: Any, page: Any, django_user_model: Any
) -> None:
    # off Playwright's loop: each seek's after-commit push uses async_to_sync (embedded profile's layer)
    reader = off_loop(lambda: world(django_user_model))
    page.set_viewport_size({"width": 390, "height": 844})
    for locale in ("en", "pt-br"):
        page.context.clear_cookies()
        name, value = session_cookie(reader).split("=", 1)
        page.context.add_cookies([{"name": "django_language", "value": locale, "url": daphne_server.url},
                                  {"name": name, "value": value, "url": daphne_server.url}])
        page.goto(daphne_server.url + "/lobby/")
        page.wait_for_function(f"document.documentElement.lang === '{locale}'")
        got = page.evaluate(FITS)  # as the server drew it
        assert got["rows"] == 6 and got["page"] <= 390 and got["list"] <= 0 and not got["wide"], (locale, got)
        page.wait_for_selector("#seeks[data-live='1']")  # the socket's redraw
        got = page.evaluate(FITS)
        assert got["rows"] == 6 and got["page"] <= 390 and got["list"] <= 0 and not got["wide"], (locale, got)
        label = "Regras" if locale == "pt-br" else "Rules"
        cell = page.locator("[data-testid=seek] td[data-label]").nth(1)
        assert cell.get_attribute("data-label") == label  # each value says its column on a phone
        assert page.get_by_test_id("seek-cancel").is_visible()
    page.set_viewport_size({"width": 1280, "height": 800})  # a wide screen keeps the table with its header
    assert page.locator("#seeks thead").is_visible()
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 1280
