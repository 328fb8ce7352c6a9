"""The rankings board on a 390 x 844 phone (issue 10 trial): every column on screen without a sideways
scroll (all time and 30 days, English and pt-BR, long names), and "jump to my rank" puts the highlighted
row mid-screen, the players above it in view (it was scrolled to the very top)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from ratings.models import PlayerRating
from scripts.lib import loadtest

pytestmark = pytest.mark.django_db(transaction=True)

MEASURE = """() => {
    const table = document.querySelector('[data-testid="board"]');
    const box = table.parentElement;
    const me = document.querySelector('[data-testid="board"] tr.me');
    const head = table.querySelector('thead').getBoundingClientRect();
    const note = document.querySelector('.messages, [role="alert"], .message');
    return {page: document.documentElement.scrollWidth, table: table.scrollWidth, box: box.clientWidth,
            headers: [...table.querySelectorAll('thead th')].filter((t) => t.getClientRects().length)
                .map((t) => [...t.querySelectorAll('span, abbr')].filter((e) => e.getClientRects().length)
                    .map((e) => e.textContent.trim() + (e.title ? '=' + e.title : '')).join('')
                    || t.textContent.trim()),
            meTop: me ? me.getBoundingClientRect().top : null, headTop: head.top,
            cutNames: [...table.querySelectorAll('tbody .player-name')]
                .filter((e) => e.scrollWidth > e.clientWidth + 1).length,
            noteTop: note ? note.getBoundingClientRect().top : null};
}"""


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_the_board_fits_a_phone_and_jump_keeps_its_context(daphne_server: Any, page: Any, locale: str,
                                                           make_member: Any) -> None:
    from accounts.models import User

    now = timezone.now()
    users = User.objects.bulk_create([User(username=f"player_with_a_long_name_{i:03d}") for i in range(80)])
    PlayerRating.objects.bulk_create([
        PlayerRating(user=u, rating=2400 - 7.5 * i, peak=2400, rated_matches=1200 + i, wins=700 + i,
                     losses=500, last_rated_at=now - timedelta(days=i % 20)) for i, u in enumerate(users)
    ])
    me = make_member("me")
    PlayerRating.objects.create(user=me, rating=2400 - 7.5 * 70 - 1, peak=1900, rated_matches=20, wins=10,
                                losses=10, last_rated_at=now)
    page.context.add_cookies([{"name": "django_language", "value": locale.lower(), "url": daphne_server.url}])
    page.set_viewport_size({"width": 390, "height": 844})
    for tab in ("all", "30d"):
        page.goto(f"{daphne_server.url}/rankings/?tab={tab}")
        got = page.evaluate(MEASURE)
        assert got["page"] <= 390 and got["table"] <= got["box"], (tab, got)
        assert got["cutNames"] == 0, got  # names wrap: "player_with_a_lo…" on every row told none apart
        won = "V=Vitórias" if locale == "pt-BR" else "W=Won"  # short, the whole word its title
        assert won in got["headers"], got["headers"]
    session = loadtest.session_key_for(me)
    page.context.add_cookies([{"name": "sessionid", "value": session, "url": daphne_server.url}])
    page.goto(f"{daphne_server.url}/rankings/?me=1")
    assert page.url.endswith("page=2#me")
    got = page.evaluate(MEASURE)
    # The row lands mid-screen (scroll-margin), its neighbours above it in view; it was at the very top.
    assert 250 < got["meTop"] < 500, str(got)

