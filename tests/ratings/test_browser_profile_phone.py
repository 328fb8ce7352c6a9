"""The profile's "Last rated matches" table fits a 390 x 844 phone (issue 10 trial): no sideways
scroll, the Rating and Replay columns on screen; the date moves under the opponent's name."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

HEADING_PT = "Últimas partidas valendo rating"
FITS = """() => {
    const table = document.querySelector('[data-testid="profile-matches"]');
    const box = table.parentElement;
    const right = (e) => e.getBoundingClientRect().right;
    const edge = (sel) => Math.max(...[...table.querySelectorAll(sel)].map(right));
    return {page: document.documentElement.scrollWidth, table: table.scrollWidth, box: box.clientWidth,
            rating: edge('tbody td.num'), replay: edge('tbody a[href^="/replay/"]'),
            cols: [...table.querySelectorAll('tbody tr:first-child td, thead th')]
                .map((e) => Math.round(e.getBoundingClientRect().width) + ':' + e.textContent.trim()),
            dates: [...table.querySelectorAll('tbody time, tbody .narrow-only')]
                .filter((t) => t.getClientRects().length).length};
}"""


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_the_last_rated_matches_fit_a_phone(daphne_server: Any, page: Any, locale: str, make_member: Any,
                                            finish_friend: Any) -> None:
    from accounts.models import User

    alice = make_member("alice_the_long_named")
    bob = make_member("bob")
    User.objects.filter(pk=bob.pk).update(display_name="Bartholomew Longname-Smithson")
    bob.refresh_from_db()
    for winner in (alice, bob, alice):
        finish_friend(alice, bob, winner=winner)
    page.context.add_cookies([{"name": "django_language", "value": locale.lower(), "url": daphne_server.url}])
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{daphne_server.url}/u/{alice.username}/")
    heading = {"en-US": "Last rated matches", "pt-BR": HEADING_PT}[locale]
    assert page.get_by_role("heading", name=heading).is_visible()  # the page is in that language
    got = page.evaluate(FITS)
    assert got["page"] <= 390 and got["table"] <= got["box"], got  # nothing scrolls sideways
    assert got["rating"] <= 390 and got["replay"] <= 390, got  # Rating and Replay on screen
    assert got["dates"] == 3, got  # each match's date still shown (under the opponent)
    page.set_viewport_size({"width": 1280, "height": 800})
    wide = page.evaluate(FITS)
    assert wide["dates"] == 3 and wide["table"] <= wide["box"], wide
