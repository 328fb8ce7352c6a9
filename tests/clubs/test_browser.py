"""The club page on a phone (390 x 844), in both languages: nothing wider than the screen, with the
organiser's tools, the invitation link, the ranking and a long description without spaces."""

from __future__ import annotations

from typing import Any

import pytest

from clubs import services
from clubs.models import ClubAccess
from ratings.models import PlayerRating
from tests.browser_pages import log_in, make_user, off_loop, sized

WIDER_THAN_SCREEN = """() => [...document.querySelectorAll("main *")]
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).map(e => e.outerHTML.slice(0, 80))"""
"""Elements of the page's main part reaching past the screen's right edge (a table scrolling inside its
own box counts too: the ranking has to fit as it is)."""


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_club_page_fits_a_phone(daphne_server: Any, contexts: Any, locale: str) -> None:
    owner = make_user("owner-with-a-rather-long-name")
    club = off_loop(lambda: services.club_create(
        user=owner, name="The Very Long Named Gin Rummy Club Of Porto Alegre", access=ClubAccess.INVITE,
        description="x" * 300))
    for i in range(3):
        member = make_user(f"member-{i}-of-the-club")
        off_loop(lambda m=member: services.club_join(club_id=club.pk, user=m, code=club.invite_code))
        played = 5 + 5 * i
        PlayerRating.objects.create(user=member, rating=1500 + 50 * i, rated_matches=played, wins=played)
    page = sized(contexts, 390, locale)
    log_in(page, daphne_server.url, owner.username, locale)
    page.goto(f"{daphne_server.url}/clubs/{club.slug}/")
    assert page.locator("[data-testid=club-ranking] tbody tr").count() == 3
    link = page.locator("[data-testid=club-invite-url]").input_value()
    assert link.endswith(f"/clubs/join/{club.invite_code}/")
    page.screenshot(path=f"/tmp/club-{locale}.png", full_page=True)
    assert page.evaluate(WIDER_THAN_SCREEN) == []
    page.close()
