"""A member joins the hourly tournament (started early by a test setting), plays the round-1 match
against a bot in chromium, sees the standings update live and is paired in round 2."""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Any

import pytest
from celery import current_app
from playwright.sync_api import expect

from games import services as game_services
from games.models import Match, MatchStatus
from tests.games.test_browser import play_one_hand
from tournaments import services
from tournaments.models import Pairing, Tournament

# Tournament matches are created by games.services.match_create_seated and driven by the server (the
# server-moves work of issue 11, landing separately): until it is on main these tests cannot run.
NEEDS_SERVER_MOVES = pytest.mark.skipif(
    not hasattr(game_services, "match_create_seated"),
    reason="needs games.services.match_create_seated (server-driven moves, not on main yet)",
)
pytestmark = [pytest.mark.browser, pytest.mark.slow, NEEDS_SERVER_MOVES]


def resign_outside_playwright(match_id: int, user: Any) -> None:
    """``match_resign`` in a thread of its own: in this thread Playwright's event loop is running, so
    the broadcast after the commit (``async_to_sync``) would be refused and the open table never told."""
    from django.db import connection

    errors: list[BaseException] = []

    def run() -> None:
        try:
            game_services.match_resign(match_id=match_id, user=user)
        except BaseException as exc:  # re-raised below, in the test's thread
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    if errors:
        raise errors[0]


def test_member_joins_hourly_plays_round_one_live_standings_round_two(
    daphne_server_factory: Any, page: Any, django_user_model: Any, settings: Any, request: Any
) -> None:
    server = daphne_server_factory(TOURNAMENTS_START_EARLY_SECONDS="7200", GAMES_BOT_DELAY="0,0",
                                   GAMES_HAND_PAUSE="0")
    base = server.url
    settings.TOURNAMENTS_START_EARLY_SECONDS = 7200
    current_app.conf.task_always_eager = True  # the test process runs the start step's tasks eagerly
    request.addfinalizer(lambda: setattr(current_app.conf, "task_always_eager", False))
    django_user_model.objects.create_user(username="rita", password="felt-green-42-knock")
    services.tournaments_ensure()
    hourly = Tournament.objects.filter(schedule__name_en="Hourly Quick").order_by("starts_at").first()
    assert hourly is not None
    services.tournament_open(tournament_id=hourly.pk)

    page.goto(base + "/accounts/login/")
    page.fill("#id_username", "rita")
    page.fill("#id_password", "felt-green-42-knock")
    page.locator("form").get_by_role("button", name=re.compile("Log in")).click()
    page.get_by_role("navigation").get_by_role("link", name="Tournaments").click()
    row = page.locator(f"tr[data-tournament='{hourly.pk}']")
    assert "Hourly Quick" in row.inner_text()
    # the countdown has units ("15 min 09 s"), never a bare "15:09" that reads as a clock time
    countdown = row.locator("[data-countdown]")
    expect(countdown).to_have_text(re.compile(r"^(\d+ h \d\d min|\d+ min \d\d s|\d+ s)$"))
    row.get_by_test_id("join").click()
    assert "You are registered" in page.locator(".messages").inner_text()

    # The start (early, by the setting): 7 house bots fill the field, round 1 is paired at once.
    assert services.tournament_start(tournament_id=hourly.pk)
    hourly.refresh_from_db()
    assert (hourly.status, hourly.rounds, hourly.current_round) == ("running", 3, 1)
    standings = page.context.new_page()  # the tournament page stays open beside the table
    standings.goto(f"{base}/tournaments/{hourly.pk}/")
    assert "Round 1 of 3" in standings.get_by_test_id("status").inner_text()
    mine = Pairing.objects.get(round__tournament=hourly, round__number=1, player0__username="rita")
    assert mine.player1 is not None and mine.player1.is_bot

    # The banner on any page links to the table.
    page.goto(base + "/")
    banner = page.get_by_test_id("tournament-banner")
    banner.wait_for(state="visible")
    assert banner.inner_text().startswith("Your round 1 match is ready")
    banner.locator("a").click()
    page.wait_for_url(f"{base}/match/{mine.match_id}/")
    page.wait_for_function("document.getElementById('conn').textContent === 'Connected'")
    # One hand in the browser (a whole match to 50 is about six: minutes of clicking through the code
    # path the games' browser tests cover); then the bot resigns, and the end reaches the open table.
    play_one_hand(page)
    page.locator("#result-continue").click()
    if not page.locator("#match-end").is_visible():
        resign_outside_playwright(mine.match_id, mine.player1)
        if not os.environ.get("REDIS_URL"):
            # The in-process channel layer cannot carry this process's broadcast to the server's
            # sockets: the table learns the end as a player returning to it would.
            page.reload()
    page.locator("#match-end").wait_for(state="visible")
    # A tournament match ends back at its tournament, never at an ordinary "Play again" against the bot;
    # the table names the bot as the tournament page does (its public name, numbered in a field).
    assert not page.locator("#play-again-form").is_visible()
    back = page.get_by_test_id("back-to-tournament")
    assert back.is_visible() and back.get_attribute("href") == f"/tournaments/{hourly.pk}/"
    assert page.locator("#opp-name").inner_text() == mine.player1.public_name
    assert mine.player1.public_name in standings.get_by_test_id("pairings").inner_text()

    # The other round-1 matches are bot against bot. This test is about the live standings and round 2,
    # not about how long two bots take to reach the target (minutes), so each ends by a resignation,
    # through the same service and signal a resigning player uses.
    others = Pairing.objects.filter(round__tournament=hourly, round__number=1).exclude(pk=mine.pk)
    for pairing in others.select_related("match"):
        if pairing.match is not None and pairing.match.status == MatchStatus.ACTIVE:
            resign_outside_playwright(pairing.match_id, pairing.match.player1)
    unfinished = Match.objects.filter(tournament_pairing__in=others).exclude(status=MatchStatus.FINISHED)
    assert not unfinished.exists(), list(unfinished.values("pk", "status"))

    # Live, without a reload: rita's result appears in the standings, then round 2 pairs her.
    standings.wait_for_function(
        "() => /Round 2 of 3/.test(document.querySelector('[data-testid=status]').textContent)",
        timeout=180_000,
    )
    rita = django_user_model.objects.get(username="rita")
    row = standings.locator(f"[data-testid=standings] tr[data-player='{rita.pk}']")
    assert row.locator("[data-testid=points]").inner_text() in ("0", "1")
    pairings = standings.get_by_test_id("pairings").inner_text()
    assert "rita" in pairings
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not Pairing.objects.filter(
            round__tournament=hourly, round__number=2, player0__username="rita").exists():
        time.sleep(0.5)
    second = Pairing.objects.get(round__tournament=hourly, round__number=2, player0__username="rita")
    assert second.player1_id != mine.player1_id  # no rematch
