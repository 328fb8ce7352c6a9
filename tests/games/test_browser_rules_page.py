"""The rules page in a real browser (chromium, Daphne subprocess), at 1280 x 800 and at a 390 x 844
phone, in English and pt-BR: each preset's source named as a player knows it; the presets table fits a
desktop and scrolls inside its own box on a phone.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser_pages import LANGUAGES, WIDTHS, sized

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_rules_page_names_each_presets_source_in_player_terms(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """No file names or seed numbers: each preset's source as a player would know it, in the page's
    language, one per preset column."""
    from django.utils import translation

    from engine.rules import PRESETS
    from games.views import preset_sources

    with translation.override("pt-br" if locale == "pt-BR" else "en"):
        expected = [str(s) for s in preset_sources(list(PRESETS))]
    for width in WIDTHS:
        page = sized(contexts, width, locale)
        page.goto(daphne_server.url + "/rules/")
        row = page.locator("[data-testid=presets-table] tr", has=page.locator("th", has_text=re.compile(
            "^(Fonte|Source)$")))
        cells = row.locator("td").all_inner_texts()
        assert cells == expected and len(cells) == len(PRESETS), cells
        for cell in cells:
            assert not re.search(r"seed|\.md|\b00\d\b", cell, re.IGNORECASE), cell
        if locale == "pt-BR":
            assert "blog" in cells[list(PRESETS).index("two_deck")].lower()
        page.close()


PRESETS_FIT = """() => {
    const box = document.querySelector('.table-scroll');
    const table = document.querySelector('[data-testid=presets-table]');
    const last = table.querySelector('thead th:last-child').getBoundingClientRect();
    return {
        boxScrolls: box.scrollWidth > box.clientWidth + 1, scrollWidth: box.scrollWidth,
        clientWidth: box.clientWidth, pageScrolls: document.documentElement.scrollWidth > innerWidth,
        lastRight: Math.round(last.right), innerWidth, fontSize: getComputedStyle(table).fontSize,
    };
}"""


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_the_rules_pages_presets_table_fits_a_desktop_and_scrolls_in_its_box_on_a_phone(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    """At 1280 x 800 every preset's column (Hoyle, Two decks too) is on screen without a sideways
    scroll; at 390 the table may scroll, inside its own box only (the page does not)."""
    for width in (1280, 390):
        page = sized(contexts, width, locale)
        page.goto(daphne_server.url + "/rules/")
        got = page.evaluate(PRESETS_FIT)
        page.locator(".table-scroll").screenshot(path=f"/tmp/t13/rules-{width}-{locale}.png")
        assert not got["pageScrolls"], (width, got)
        if width == 1280:
            assert not got["boxScrolls"] and got["lastRight"] <= got["innerWidth"], got
        page.close()
