"""Browser (chromium, a real Daphne): two strangers, members in two separate browser contexts, join the
same rated pool from /play/ and land on the same table within 5 s (the wave loop runs in Daphne: nobody
calls a wave here), play until both have moved, one resigns, and both see their rating change. The pool
pages fit a 390 px wide phone."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.browser_pages import off_loop
from tests.browser_waits import BROWSER_WAIT_MS, SOCKET_WAIT_S
from tests.games.test_browser import make_a_move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "felt-green-42-knock"
APP = "#table-app"


@pytest.fixture(autouse=True)
def no_pauses(settings: Any) -> None:
    settings.GAMES_BOT_DELAY = (0.0, 0.0)
    settings.GAMES_HAND_PAUSE = 0.0


def _log_in(page: Any, base: str, username: str) -> None:
    page.goto(base + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/$"))


def _seq(page: Any) -> int:
    return int(page.get_attribute(APP, "data-seq") or -1)


def test_two_strangers_meet_in_a_rated_pool_and_both_see_their_rating_change(
    daphne_server: Any, page: Any, browser: Any,
) -> None:
    from django.contrib.auth import get_user_model

    from games import conf as games_conf
    from games import selectors as games_selectors
    from games.models import Match
    from lobby.models import Pool
    from ratings.models import RatingChange

    # the migration's pool (present in a fresh test database; a flushed one lost it: made again)
    pool, _ = Pool.objects.update_or_create(slug="100-60-rated", defaults={
        "name": "100 points · 60 s · rated", "target": 100, "turn_timer_seconds": 60, "rated": True,
        "active": True})
    for name in ("rosa", "tiago"):
        get_user_model().objects.create_user(username=name, password=PASSWORD)
    base = daphne_server.url
    # ``page`` (its own context) is the first stranger, a second context the other; a phone's width
    page.set_viewport_size({"width": 390, "height": 844})
    contexts = [browser.new_context(locale="en-US", viewport={"width": 390, "height": 844})]
    errors: list[Any] = []
    try:
        pages = [page, contexts[0].new_page()]
        for each, name in zip(pages, ("rosa", "tiago"), strict=True):
            each.on("pageerror", lambda error: errors.append(error))
            _log_in(each, base, name)
            each.goto(base + "/play/")
            row = each.get_by_test_id(f"pool-{pool.slug}")
            assert "100 points · 60 s a move · Rated" in row.inner_text()
            # a phone's width: nothing sticks out sideways
            assert each.evaluate("document.documentElement.scrollWidth") <= 390
        # Both land on one table without a reload. How fast (idle: ~2.4 s from the second Join to both
        # tables, each page's own load ~1 s) is a measurement, not a test (a busy machine is slower):
        # scripts/loadtest_pools measures pairing times (docs/lobby.md "Load test").
        for each in pages:
            each.get_by_test_id(f"join-{pool.slug}").click()
            each.wait_for_url(base + f"/play/pool/{pool.slug}/")
        assert pages[0].evaluate("document.documentElement.scrollWidth") <= 390
        for each in pages:
            each.wait_for_url(re.compile(r".*/match/\d+/$"))
        ids = [int(re.search(r"/match/(\d+)/", each.url).group(1)) for each in pages]
        assert ids[0] == ids[1], ids
        match = Match.objects.get(pk=ids[0])
        assert match.rated and match.turn_timer_seconds == 60 and match.rules["target"] == 100

        # Move until each player has made GAMES_RATED_MIN_MOVES moves of its own: resigned before both
        # moved the match would be aborted, before each made that many it would be finished unrated
        # (docs/fairplay.md "Limits that make farming slow"), and no rating would change.
        needed = max(1, games_conf.rated_min_moves())

        def both_moved() -> bool:
            moves = games_selectors.own_moves(match_id=match.pk)
            return min(moves.get(0, 0), moves.get(1, 0)) >= needed

        for each in pages:
            each.wait_for_function("document.getElementById('table-app').dataset.phase !== ''")
        deadline = time.monotonic() + BROWSER_WAIT_MS / 1000
        while not both_moved() and time.monotonic() < deadline:
            ready = [p for p in pages if p.get_attribute(APP, "data-your-turn") == "1"
                     and p.get_attribute(APP, "data-busy") == "0"]
            if not ready:
                pages[0].wait_for_timeout(100)  # the other's state is on its way
                continue
            before = _seq(ready[0])
            make_a_move(ready[0])
            ready[0].wait_for_function(f"+document.getElementById('table-app').dataset.seq > {before}")
        assert both_moved()
        resigner = pages[0]
        resigner.wait_for_function("document.getElementById('table-app').dataset.busy === '0'")
        resigner.locator("#btn-resign").click()
        resigner.get_by_role("button", name="Yes, resign").click()
        lines = []
        for each in pages:
            each.locator("#match-end").wait_for()
            line = each.get_by_test_id("rating-change")
            line.wait_for()
            each.wait_for_function(
                "!document.querySelector('[data-testid=rating-change]').classList.contains('pending')")
            lines.append(line.inner_text())
        match.refresh_from_db()
        resigner_seat = 0 if match.player0.username == "rosa" else 1
        assert match.status == "finished" and match.winner == 1 - resigner_seat
        changes = {c.player.username: c
                   for c in RatingChange.objects.filter(match=match).select_related("player")}
        # two new players at 1500, K 40 each: the winner gains 40 * 0.5 = 20, the loser loses 20
        assert round(changes["rosa"].after) == 1480 and round(changes["tiago"].after) == 1520
        assert lines == ["Rating: 1500 → 1480 (-20)", "Rating: 1500 → 1520 (+20)"]
        assert errors == []
    finally:
        for context in contexts:
            context.close()


def test_waiting_screen_counts_switches_the_bot_fallback_and_cancels(daphne_server: Any, page: Any) -> None:
    """In Portuguese at 390 px: the waiting screen counts the seconds, the house-bot checkbox (off by
    default) reconnects with ?bot=1 and keeps the same wait, Cancel ends it and goes back to /play/."""
    from django.contrib.auth import get_user_model

    from lobby.models import Pool, PoolEntry

    pool, _ = Pool.objects.update_or_create(slug="50-20-casual", defaults={
        "name": "50 points · 20 s · casual", "target": 50, "turn_timer_seconds": 20, "rated": False,
        "active": True})
    get_user_model().objects.create_user(username="rosa", password=PASSWORD)
    base = daphne_server.url
    errors: list[Any] = []
    page.on("pageerror", lambda error: errors.append(error))
    page.set_viewport_size({"width": 390, "height": 844})
    page.context.add_cookies([{"name": "django_language", "value": "pt-br", "url": base}])
    _log_in(page, base, "rosa")
    page.goto(base + f"/play/pool/{pool.slug}/")
    page.wait_for_function("+document.querySelector('[data-testid=pool-waited]').textContent >= 2")
    assert page.get_by_test_id("pool-count").inner_text() == "1"
    assert page.get_by_test_id("pool-status").inner_text() == "Esperando um adversário…"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    entry = PoolEntry.objects.get()
    assert not entry.bot_fallback
    box = page.get_by_test_id("pool-bot")
    assert not box.is_checked()
    box.check()
    deadline = time.monotonic() + SOCKET_WAIT_S
    while not PoolEntry.objects.get(pk=entry.pk).bot_fallback and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    entry.refresh_from_db()
    assert entry.bot_fallback and entry.status == "waiting" and PoolEntry.objects.count() == 1
    page.get_by_test_id("pool-cancel").click()
    page.wait_for_url(base + "/play/")
    entry.refresh_from_db()
    assert entry.status == "cancelled"
    assert errors == []


def test_a_refused_join_shows_only_the_reason_and_the_way_back(daphne_server: Any, page: Any) -> None:
    """A join the socket refuses leaves no sign of a wait on the screen: no status, no counters, no bot
    choice, no Cancel; the reason (the already_waiting one names the pool, in the reader's language) and
    "Back to the pools". A guest on a rated pool: the reason and the way back, no socket at all."""
    from django.contrib.auth import get_user_model

    from games.models import Match
    from lobby import pools
    from lobby.models import Pool, PoolEntry

    rated, _ = Pool.objects.update_or_create(slug="100-60-rated", defaults={
        "name": "100 points · 60 s · rated", "target": 100, "turn_timer_seconds": 60, "rated": True,
        "active": True})
    casual, _ = Pool.objects.update_or_create(slug="50-20-casual", defaults={
        "name": "50 points · 20 s · casual", "target": 50, "turn_timer_seconds": 20, "rated": False,
        "active": True})
    users = get_user_model().objects
    rosa = users.create_user(username="rosa", password=PASSWORD)
    tiago = users.create_user(username="tiago", password=PASSWORD)
    base = daphne_server.url
    errors: list[Any] = []
    page.on("pageerror", lambda error: errors.append(error))
    page.set_viewport_size({"width": 390, "height": 844})
    hidden = ("pool-live", "pool-status", "pool-waited", "pool-count", "pool-bot", "pool-cancel")

    def refused_with(message: str) -> None:
        error = page.get_by_test_id("pool-error")
        error.wait_for(state="visible")
        assert error.inner_text() == message
        assert page.get_by_test_id("pool-back").is_visible()
        for testid in hidden:
            assert not page.get_by_test_id(testid).is_visible(), testid

    # already waiting in the casual pool (another tab): the rated pool's screen names the casual one
    # off Playwright's loop: the join's after-commit push uses async_to_sync (embedded profile's layer)
    off_loop(lambda: pools.pool_join(user=rosa, slug=casual.slug))
    page.context.add_cookies([{"name": "django_language", "value": "pt-br", "url": base}])
    _log_in(page, base, "rosa")
    page.goto(base + f"/play/pool/{rated.slug}/")
    refused_with("você já está esperando na fila 50 pontos · 20 s por jogada · Casual: cancele essa espera"
                 " primeiro")
    assert PoolEntry.objects.filter(user=rosa).count() == 1
    # in a rated match: the match is named, in English
    Match.objects.create(rules={}, player0=tiago, player1=users.create_user(username="uma"), status="active",
                         rated=True, scores=[0, 0], timeout_strikes=[0, 0])
    page.context.clear_cookies()
    _log_in(page, base, "tiago")
    page.goto(base + f"/play/pool/{casual.slug}/")
    match_id = Match.objects.get(player0=tiago).pk
    refused_with(f"finish your rated match {match_id} first")
    assert not PoolEntry.objects.filter(user=tiago).exists()
    page.get_by_test_id("pool-back").click()
    page.wait_for_url(base + "/play/")
    assert errors == []
