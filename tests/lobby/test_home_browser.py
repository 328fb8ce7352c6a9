"""The home page in chromium on a real Daphne: at a 390 x 844 phone nothing scrolls sideways (anonymous,
guest and member; English and pt-BR; long names everywhere), and its numbers change without a reload
when a player joins a pool (the home socket, ``ws/home/``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from games.models import Match, MatchStatus, ResultReason
from lobby.models import Pool, PoolEntry
from ratings.models import PlayerRating
from tests.games.wsclient import session_cookie
from tests.lobby.home_pools import ensure_default_pools
from tournaments.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG = "Bartholomew-Longname-Smithson-the-Third-of-Somewhere"
OVERFLOW = """() => {
    const width = window.innerWidth;
    const wide = [...document.querySelectorAll('body *')]
        .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > width + 0.5)
        .map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));
    return {page: document.documentElement.scrollWidth, width, wide: wide.slice(0, 5)};
}"""


def world() -> dict[str, Any]:
    ensure_default_pools()
    now = timezone.now()

    def member(name: str, rating: float, display: str = "") -> User:
        user = User.objects.create(username=name, display_name=display)
        PlayerRating.objects.create(user=user, rating=rating, peak=rating, rated_matches=12, wins=12,
                                    losses=0, last_rated_at=now)
        return user

    players = [member(f"p{i}-{LONG}"[:60], 1900 - i, display=f"{LONG} {i}"[:60]) for i in range(11)]
    Match.objects.create(rules={"target": 100}, player0=players[0], player1=players[1],
                         status=MatchStatus.ACTIVE, rated=True, first_dealer=0, turn_timer_seconds=60,
                         started_at=now)
    for k in range(3):
        Match.objects.create(rules={"target": 100}, player0=players[2], player1=players[3 + k],
                             status=MatchStatus.FINISHED, rated=True, first_dealer=0, winner=k % 2,
                             scores=[104, 37], result_reason=ResultReason.TARGET, started_at=now,
                             finished_at=now)
    Tournament.objects.create(name_en=f"Evening {LONG}"[:80], name_pt=f"Noite {LONG}"[:80],
                              starts_at=now + dt.timedelta(minutes=42))
    guest = User.objects.create(username="guest-9", is_guest=True)
    return {"member": players[2], "guest": guest}


def test_the_home_page_fits_a_phone_and_updates_live(daphne_server: Any, page: Any) -> None:
    people = world()
    page.set_viewport_size({"width": 390, "height": 844})
    for who in ("anonymous", "guest", "member"):
        for locale in ("en", "pt-br"):
            page.context.clear_cookies()
            page.context.add_cookies([{"name": "django_language", "value": locale, "url": daphne_server.url}])
            if who != "anonymous":
                name, value = session_cookie(people[who]).split("=", 1)
                page.context.add_cookies([{"name": name, "value": value, "url": daphne_server.url}])
            page.goto(daphne_server.url + "/")
            page.wait_for_function(f"document.documentElement.lang === '{locale}'")
            assert page.get_by_test_id("quick-pairing").is_visible()
            assert page.get_by_test_id("my-rating").count() == (who == "member")
            got = page.evaluate(OVERFLOW)
            assert got["page"] <= 390 and not got["wide"], (who, locale, got)

    # Live: the number of players waiting in a pool changes on the open page, without a reload.
    page.context.clear_cookies()
    page.goto(daphne_server.url + "/")
    page.wait_for_function("document.getElementById('home-live').dataset.updates >= 1")
    waiting = page.locator('[data-pool-waiting="50-20-casual"]')
    assert waiting.inner_text() == "0"
    PoolEntry.objects.create(pool=Pool.objects.get(slug="50-20-casual"), user=people["guest"], rating=1500)
    # The server's ticker reads each second; the limit is generous, never a deadline the test races.
    page.wait_for_function(
        "document.querySelector('[data-pool-waiting=\"50-20-casual\"]').textContent === '1'")
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1  # no reload happened


def test_the_live_nouns_follow_the_numbers_in_both_languages(daphne_server: Any, page: Any) -> None:
    """home.js writes each new count's noun in the page language's plural form: en 0 players / 1 player,
    pt-BR 1 jogador / 2 jogadores (0 is singular in Portuguese); a house bot of the live match is named
    in the page language (the socket's numbers are read once, in English)."""
    ensure_default_pools()
    pool = Pool.objects.get(slug="50-20-casual")
    noun = "document.querySelector('[data-pool-noun=\"50-20-casual\"]').textContent"
    count = "document.querySelector('[data-pool-waiting=\"50-20-casual\"]').textContent"
    page.goto(daphne_server.url + "/")
    page.wait_for_function("document.getElementById('home-live').dataset.updates >= 1", timeout=30_000)
    assert page.evaluate(noun) == "players waiting"
    PoolEntry.objects.create(pool=pool, user=User.objects.create(username="g-1", is_guest=True), rating=1500)
    page.wait_for_function(f"{count} === '1' && {noun} === 'player waiting'", timeout=30_000)
    # a house bot in the live match: the socket's numbers name it in English, the page in pt-BR
    bot = User.objects.create(username="bot-3", is_bot=True, bot_level=3)
    Match.objects.create(rules={"target": 100}, player0=User.objects.create(username="rui"), player1=bot,
                         status=MatchStatus.ACTIVE, bot_level=3, first_dealer=0, started_at=timezone.now())
    page.context.add_cookies([{"name": "django_language", "value": "pt-br", "url": daphne_server.url}])
    page.goto(daphne_server.url + "/")
    page.wait_for_function("document.getElementById('home-live').dataset.updates >= 1", timeout=30_000)
    assert page.evaluate(noun) == "jogador esperando"
    page.wait_for_function(  # the ticker's next read carries the match (the page's may predate it)
        "document.querySelector('[data-live-player=\"1\"]').textContent === 'Robô 3 · Padrão'"
        " && !document.getElementById('live-match').hidden", timeout=30_000)
    PoolEntry.objects.create(pool=pool, user=User.objects.create(username="g-2", is_guest=True), rating=1500)
    page.wait_for_function(f"{count} === '2' && {noun} === 'jogadores esperando'", timeout=30_000)
    online = page.evaluate("document.querySelector('[data-live-noun=\"players_online\"]').textContent")
    shown = int(page.evaluate("document.querySelector('[data-live=\"players_online\"]').textContent"))
    assert online == ("jogador online" if shown <= 1 else "jogadores online")
