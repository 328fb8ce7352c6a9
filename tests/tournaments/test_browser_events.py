"""Events people make, end to end in chromium on a Daphne subprocess (issue 26's browser test).

1. A member creates a club, then from the club page a Swiss event of one round open only with an entry
   code (casual, no house bots); a second member gets the 404 page until they type the code at
   /tournaments/code/, then joins; the event starts (``TOURNAMENTS_START_EARLY_SECONDS``: at once), both
   follow the banner to their board, play a hand through the table (each deciding on its own turn),
   then one resigns; both pages show the final standings, and the standings CSV holds the right rows.
2. A member creates an Arena (10 minutes, house bots allowed, a field of 4: two bots) through the form;
   two members join, are paired, resign matches through the table, one pauses and resumes; a page
   left open shows the standings move without a reload; then time passes (``ends_at`` set in the past
   through the ORM), the matches in play end, the wave finishes the event, and the final points equal
   the sum of the ``ArenaGame`` points, 2 a win plus the streak bonuses replayed in order.

The lifecycle steps the test starts run eagerly in this process (Celery ``task_always_eager``, as
tests/tournaments/test_browser.py does); the ones a match's end sets off run eagerly inside Daphne.
Waits are on the pages' state (Playwright ``expect``), never sleeps.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from typing import Any

import pytest
from celery import current_app
from django.db.models import Q
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from tests.browser_pages import log_in, make_user, off_loop, open_table, resign
from tests.games.test_browser import (
    APP,
    MAX_DECISIONS,
    act_and_wait,
    best_discard,
    check_deadwood,
    seq,
    worth_taking,
)
from tests.tournaments.test_browser import NEEDS_SERVER_MOVES
from tournaments import arena, arena_play, services
from tournaments.models import ArenaGame, Pairing, Registration, Tournament, TournamentStatus

pytestmark = [pytest.mark.browser, pytest.mark.slow, NEEDS_SERVER_MOVES]

LOCALE = "en-US"


def eager_steps(request: Any) -> None:
    """The lifecycle steps this process starts run at once, in this process (restored afterwards)."""
    current_app.conf.task_always_eager = True
    request.addfinalizer(lambda: setattr(current_app.conf, "task_always_eager", False))


def fill_event_form(page: Any, **fields: str) -> None:
    """Fill the event form's fields (``id_<name>``): text and selects by value; ``rated`` and
    ``bots_allowed`` as "on"/"off". The start is 10 minutes ahead (UTC, as the form's label says)."""
    start = timezone.now() + dt.timedelta(minutes=10)
    page.fill("#id_starts_at", start.strftime("%Y-%m-%dT%H:%M"))
    for name, value in fields.items():
        box = page.locator(f"#id_{name}")
        if name in ("rated", "bots_allowed"):
            box.set_checked(value == "on")
        elif name in ("format", "access", "rules_preset", "match_target"):
            box.select_option(value)
        else:
            box.fill(value)


def decide(page: Any) -> None:
    """One decision of the player whose turn it is on ``page`` (the policy of
    ``tests.games.test_browser.play_one_hand``: take what lowers the deadwood, discard the card leaving
    the least, knock as soon as the Knock button is active)."""
    phase = page.get_attribute(APP, "data-phase")
    cards = check_deadwood(page)
    top = page.locator("#discard-fan .card.top")  # none once its last card was taken, until a discard
    upcard = top.get_attribute("data-card") if phase != "discard" else None
    if phase in ("offer_nondealer", "offer_dealer"):
        kind = "take" if worth_taking(cards, upcard) else "pass"
        act_and_wait(page, page.locator(f"#btn-{kind}").click)
    elif phase == "draw":
        pile = "#discard-button" if worth_taking(cards, upcard) and page.locator(
            "#discard-button").is_enabled() else "#stock-button"
        act_and_wait(page, page.locator(pile).click)
    elif phase == "discard":
        card = best_discard(page, cards)
        button = page.locator(f"#my-hand button.card[data-card='{card}']")
        button.click()  # select: the Knock button is active only if knocking with it is legal
        page.wait_for_function("document.getElementById('btn-discard').disabled === false")
        knock = page.locator("#btn-knock")
        act_and_wait(page, knock.click if knock.is_enabled() else button.click)
    else:
        raise AssertionError(f"unexpected phase {phase!r} on my turn")


def mover(pages: list[Any]) -> Any | None:
    """The page whose turn it is, once both tables show the server's latest state; None once the
    hand's result is shown."""
    latest = max(seq(p) for p in pages)
    for p in pages:
        p.wait_for_function(
            "(s) => { const a = document.getElementById('table-app');"
            " return +a.dataset.seq >= s && a.dataset.busy === '0'; }", arg=latest)
    if any(p.locator("#hand-result").is_visible() for p in pages):
        return None
    turn = [p for p in pages if p.get_attribute(APP, "data-your-turn") == "1"]
    assert len(turn) == 1, [p.get_attribute(APP, "data-your-turn") for p in pages]
    return turn[0]


def play_hand_between(pages: list[Any]) -> int:
    """Two people play one hand at their tables, each on its own turn; returns the decisions made."""
    for made in range(2 * MAX_DECISIONS):
        page = mover(pages)
        if page is None:
            for p in pages:
                expect(p.locator("#hand-result")).to_be_visible()
            return made
        decide(page)
    raise AssertionError("the hand did not end")


def read_csv(page: Any, testid: str) -> list[dict[str, str]]:
    """Download the export linked as ``testid`` from ``page`` and parse it."""
    with page.expect_download() as download:
        page.get_by_test_id(testid).click()
    with open(download.value.path(), encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_club_code_event_two_members_play_it_to_final_standings(
    daphne_server_factory: Any, contexts: Any, settings: Any, request: Any
) -> None:
    server = daphne_server_factory(TOURNAMENTS_START_EARLY_SECONDS="7200")
    base = server.url
    settings.TOURNAMENTS_START_EARLY_SECONDS = 7200
    eager_steps(request)
    ana, bruno = make_user("ana"), make_user("bruno")
    a, b = contexts(1280, LOCALE), contexts(1280, LOCALE)
    log_in(a, base, "ana", LOCALE)
    log_in(b, base, "bruno", LOCALE)

    # Ana makes a club, then its event: "Create an event" on the club page preselects the club.
    a.goto(base + "/clubs/new/")
    a.fill("#id_name", "Tuesday Knockers")
    a.get_by_test_id("club-save").click()
    a.wait_for_url(re.compile(r".*/clubs/[\w-]+/$"))
    a.get_by_test_id("club-event-create").click()
    a.wait_for_url(re.compile(r".*/tournaments/new/\?club=[\w-]+$"))
    expect(a.locator("#id_club")).to_have_value(re.compile(r"^tuesday-knockers"))
    fill_event_form(a, name="Tuesday Swiss", format="swiss", rounds="1", rated="off", access="code",
                    entry_code="knock-knock-7", bots_allowed="off", turn_timer_seconds="300")
    a.get_by_test_id("event-save").click()
    a.wait_for_url(re.compile(r".*/tournaments/\d+/organise/$"))
    event = Tournament.objects.select_related("club").get(created_by=ana)
    assert event.club is not None and event.club.name == "Tuesday Knockers"
    assert (event.format, event.fixed_rounds, event.rated, event.access, event.bots_allowed) == (
        "swiss", 1, False, "code", False)
    code = a.get_by_test_id("entry-code").inner_text()
    assert code == "knock-knock-7" == event.entry_code
    page_url = f"{base}/tournaments/{event.pk}/"
    assert a.get_by_test_id("share-link").input_value() == f"{page_url}?code={code}"

    # Bruno (not in the club) sees nothing of it until he types the code; then he joins.
    assert b.goto(page_url).status == 404
    b.goto(base + "/tournaments/code/")
    b.get_by_test_id("event-code").fill(code)
    b.get_by_role("button", name="Open the event").click()
    b.wait_for_url(page_url)
    b.get_by_test_id("join").click()
    expect(b.locator(".messages")).to_contain_text("You are registered")
    a.goto(page_url)
    a.get_by_test_id("join").click()  # the organiser joins without the code
    expect(a.locator(".messages")).to_contain_text("You are registered")
    assert sorted(Registration.objects.filter(tournament=event).values_list("user__username", flat=True)) == [
        "ana", "bruno"]

    # The start (early, by the setting): two people, no bots, one board.
    assert off_loop(lambda: services.tournament_start(tournament_id=event.pk))
    event.refresh_from_db()
    assert (event.status, event.rounds, event.current_round) == ("running", 1, 1)
    board = Pairing.objects.get(round__tournament=event, round__number=1)
    assert {board.player0_id, board.player1_id} == {ana.pk, bruno.pk} and board.match_id is not None

    # Both follow the site-wide banner to the table.
    tables = []
    for page in (a, b):
        page.goto(base + "/")
        banner = page.get_by_test_id("tournament-banner")
        expect(banner).to_contain_text("Your round 1 match is ready")
        banner.locator("a").click()
        page.wait_for_url(f"{base}/match/{board.match_id}/")
        page.wait_for_function("document.getElementById('conn').textContent === 'Connected'")
        tables.append(page)
    decisions = play_hand_between(tables)
    assert decisions >= 4  # at least a draw and a discard each
    for page in tables:
        page.locator("#result-continue").click()
    resign(b)  # Bruno resigns in hand 2
    for page in tables:
        expect(page.locator("#match-end")).to_be_visible()
        back = page.get_by_test_id("back-to-tournament")
        expect(back).to_have_attribute("href", f"/tournaments/{event.pk}/")

    # The round is recorded and the event finished (inside Daphne, on the match's end).
    for page in tables:
        page.get_by_test_id("back-to-tournament").click()
        page.wait_for_url(page_url)
        expect(page.get_by_test_id("status")).to_have_text("Finished. Winner: ana")
        expect(page.get_by_role("heading", name="Final standings")).to_be_visible()
        rows = page.locator("[data-testid=standings] tbody tr")
        expect(rows).to_have_count(2)
        assert rows.nth(0).get_attribute("data-player") == str(ana.pk)
        assert rows.nth(1).get_attribute("data-player") == str(bruno.pk)
        assert rows.locator("[data-testid=points]").all_inner_texts() == ["1", "0"]
    board.refresh_from_db()
    assert board.points == ([1, 0] if board.player0_id == ana.pk else [0, 1]) and not board.forfeit
    ana_seat = 0 if board.player0_id == ana.pk else 1
    hands = board.hand_points or [0, 0]
    diff = hands[ana_seat] - hands[1 - ana_seat]

    # The standings CSV: one row each, the winner first.
    rows_csv = read_csv(a, "export-standings")
    assert [(r["rank"], r["player"], r["points"], r["buchholz"], r["sonneborn_berger"], r["hand_point_diff"],
             r["games"], r["withdrawn"], r["bot"]) for r in rows_csv] == [
        ("1", "ana", "1.0", "0.0", "0.0", str(diff), "1", "0", "0"),
        ("2", "bruno", "0.0", "1.0", "0.0", str(-diff), "1", "0", "0"),
    ]


def arena_score_replayed(tournament: Tournament, user_id: int) -> tuple[int, int]:
    """(the sum of ``user_id``'s ``ArenaGame.points``, the score replayed from its results in order:
    :func:`tournaments.arena.score_match`, 2 a win and 2 more on a streak)."""
    total, replayed, streak = 0, 0, 0
    for game in ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=False).order_by(
            "finished_at", "pk"):
        if user_id not in (game.player0_id, game.player1_id):
            continue
        seat = 0 if game.player0_id == user_id else 1
        assert game.points is not None
        total += game.points[seat]
        won = None if game.winner_id is None else game.winner_id == user_id
        score = arena.score_match(won=won, streak=streak)
        replayed += score.points
        streak = score.streak_after
    return total, replayed


class ArenaPlayer:
    """A member's two pages: the event page (reloaded as they go) and the table."""

    def __init__(self, page: Any, base: str, event: Tournament, user: User) -> None:
        self.page, self.base, self.event, self.user = page, base, event, user
        self.url = f"{base}/tournaments/{event.pk}/"
        self.done: set[int] = set()  # matches of this member that ended

    def current_match(self) -> int:
        """Wait until the event page offers this member a match not yet ended; its id."""
        self.page.goto(self.url)
        skip = "".join(f":not([href='/match/{m}/'])" for m in sorted(self.done))
        link = self.page.locator(f"[data-testid=arena-games] li.mine a[data-testid=play-link]{skip}")
        expect(link).to_have_count(1)
        href = link.get_attribute("href") or ""
        return int(href.strip("/").split("/")[-1])

    def resign_current(self) -> int:
        """Open the current match's table, resign it there, and see its end lead back to the event."""
        match_id = self.current_match()
        open_table(self.page, self.base, match_id)
        resign(self.page)
        self.ended(match_id)
        return match_id

    def ended(self, match_id: int) -> None:
        expect(self.page.locator("#match-end")).to_be_visible()
        expect(self.page.get_by_test_id("back-to-tournament")).to_have_attribute(
            "href", f"/tournaments/{self.event.pk}/")
        self.done.add(match_id)


def test_arena_with_two_members_and_house_bots_runs_to_its_end(
    daphne_server_factory: Any, contexts: Any, settings: Any, request: Any
) -> None:
    server = daphne_server_factory(TOURNAMENTS_START_EARLY_SECONDS="7200")
    base = server.url
    settings.TOURNAMENTS_START_EARLY_SECONDS = 7200
    eager_steps(request)
    cleo, dan = make_user("cleo"), make_user("dan")
    c, d = contexts(1280, LOCALE), contexts(1280, LOCALE)
    log_in(c, base, "cleo", LOCALE)
    log_in(d, base, "dan", LOCALE)

    c.goto(base + "/tournaments/")
    c.get_by_role("link", name="Create an event").first.click()
    c.wait_for_url(base + "/tournaments/new/")
    fill_event_form(c, name="Lunch Arena", format="arena", rounds="", duration_minutes="10", rated="off",
                    access="public", bots_allowed="on", min_players="4", turn_timer_seconds="300")
    c.get_by_test_id("event-save").click()
    c.wait_for_url(re.compile(r".*/tournaments/\d+/organise/$"))
    event = Tournament.objects.get(created_by=cleo)
    assert event.ends_at is not None
    assert (event.format, event.duration_minutes, event.ends_at - event.starts_at, event.bots_allowed) == (
        "arena", 10, dt.timedelta(minutes=10), True)
    url = f"{base}/tournaments/{event.pk}/"
    for page in (c, d):
        page.goto(url)
        page.get_by_test_id("join").click()
        expect(page.locator(".messages")).to_contain_text("You are registered")

    # A page left open: the standings must move on it without a reload.
    watcher = d.context.new_page()
    watcher.goto(url)
    expect(watcher.get_by_test_id("status")).to_contain_text("Registration is open.")

    assert off_loop(lambda: services.tournament_start(tournament_id=event.pk))
    registrations = Registration.objects.filter(tournament=event).select_related("user")
    assert sorted(r.user.is_bot for r in registrations) == [False, False, True, True]
    assert ArenaGame.objects.filter(tournament=event).count() >= 1  # the first wave paired at the start
    expect(watcher.get_by_test_id("status")).to_contain_text("Arena running.")
    players = {"cleo": ArenaPlayer(c, base, event, cleo), "dan": ArenaPlayer(d, base, event, dan)}

    def resign_next(name: str) -> None:
        player = players[name]
        match_id = player.resign_current()
        game = ArenaGame.objects.get(match_id=match_id)
        other = game.player1_id if game.player0_id == player.user.pk else game.player0_id
        for rival in players.values():  # a match between the two members ended for both
            if rival.user.pk == other:
                rival.done.add(match_id)

    # Each member resigns two matches (whoever their opponent is: the other member or a bot).
    for name in ("cleo", "dan", "cleo", "dan"):
        resign_next(name)
    # The open page followed: the field's points moved from the start's zeros, with no reload.
    expect(watcher.locator("[data-testid=standings] [data-testid=points]", has_text=re.compile(r"^[24]$"))
           .first).to_be_visible()

    # Cleo pauses while in a match, resigns it: she is not paired again until she resumes.
    cleo_player = players["cleo"]
    cleo_player.current_match()
    c.get_by_test_id("pause").click()
    expect(c.locator(".messages")).to_contain_text("Paused")
    paused_match = cleo_player.resign_current()
    c.goto(url)
    mine = c.locator(f"[data-testid=standings] tr[data-player='{cleo.pk}']")
    expect(mine).to_contain_text("paused")
    # once the wave recorded it (the page refreshes on its notice), Cleo waits outside the queue
    expect(mine.locator("td").nth(3)).to_have_text(str(len(cleo_player.done)))
    assert ArenaGame.objects.get(match_id=paused_match).finished_at is not None
    assert Registration.objects.get(tournament=event, user=cleo).arena_game_id is None
    expect(c.locator("[data-testid=arena-games] li.mine")).to_have_count(0)
    c.get_by_test_id("resume").click()
    expect(c.locator(".messages")).to_contain_text("Back in the queue")
    # Dan's match ends next, so Cleo has someone to meet besides the bot she just played.
    resign_next("dan")
    resign_next("cleo")

    # Time passes: the Arena's end is now. The matches in play are played out (resigned here) and count.
    def open_game(player: ArenaPlayer) -> ArenaGame | None:
        return (ArenaGame.objects.filter(tournament=event, finished_at__isnull=True)
                .filter(Q(player0=player.user) | Q(player1=player.user))
                .exclude(match_id__in=player.done).first())

    assert any(open_game(p) for p in players.values()), "Dan was paired again after his resignation"
    Tournament.objects.filter(pk=event.pk).update(ends_at=timezone.now() - dt.timedelta(seconds=1))
    for name, player in players.items():
        if open_game(player) is not None:
            resign_next(name)
    off_loop(lambda: arena_play.arena_wave(tournament_id=event.pk))  # the beat's sweep: a no-op if done
    event.refresh_from_db()
    assert event.status == TournamentStatus.FINISHED
    assert not ArenaGame.objects.filter(tournament=event, finished_at__isnull=True).exists()

    # Final standings, on the page left open (live) and on a fresh load: points = the ArenaGame rows'.
    lines = arena_play.arena_standings(event)
    assert event.winner_id == lines[0].player
    c.goto(url)
    for page in (watcher, c):
        expect(page.get_by_test_id("status")).to_have_text(
            f"Finished. Winner: {User.objects.get(pk=lines[0].player).public_name}")
        expect(page.get_by_role("heading", name="Final standings")).to_be_visible()
        rows = page.locator("[data-testid=standings] tbody tr")
        expect(rows).to_have_count(4)
        shown = {int(rows.nth(i).get_attribute("data-player") or 0):
                 int(rows.nth(i).locator("[data-testid=points]").inner_text()) for i in range(4)}
        assert [int(rows.nth(i).get_attribute("data-player") or 0) for i in range(4)] == [
            line.player for line in lines]
        for registration in registrations:
            registration.refresh_from_db()
            total, replayed = arena_score_replayed(event, registration.user_id)
            assert shown[registration.user_id] == registration.arena_score == total == replayed
    finished = ArenaGame.objects.filter(tournament=event)
    assert finished.count() >= 7  # resigned: 2 + 2, the paused one, Dan's and Cleo's after the resume
    assert all(g.winner_id is not None for g in finished)  # each ended by a resignation: a result
    # The two bots always rank above the members (they only win), so members never meet each other and
    # 7 or more matches give a bot a third win in a row: a streak bonus is in the sums checked above.
    assert any(any(g.streak or []) for g in finished)
    assert sum(sum(g.points or [0, 0]) for g in finished) == sum(shown.values())
