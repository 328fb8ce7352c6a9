"""The replay page fits one screen (issue 22 item 2), in chromium at 1280x800 and 390x844, English and
pt-BR: the step buttons and the current move's row of the move list are inside the viewport with the page
unscrolled (the stock folded into a strip that opens on demand); stepping forward keeps the current row
in view; the counter's number is the highlighted row's number (move 0 = the deal); the analysis's
explanation of the current move is written under the controls, not only in a tooltip."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
from playwright.sync_api import expect

from games.models import Match
from replays import analyses, analysis_runs
from replays.models import AnalysisStatus, MatchAnalysis
from tests.replays.test_browser import in_thread
from tests.replays.test_browser_analysis import one_decimal

pytestmark = pytest.mark.browser

SIZES = [(1280, 800), (390, 844)]
LOCALES = ["en-US", "pt-BR"]
POSITION = {
    "en-US": re.compile(r"^Hand (\d+) of (\d+) · move (\d+) of (\d+)$"),
    "pt-BR": re.compile(r"^Mão (\d+) de (\d+) · jogada (\d+) de (\d+)$"),
}
STOCK = {"en-US": re.compile(r"^Stock: (\d+) cards ▸$"), "pt-BR": re.compile(r"^Monte: (\d+) cartas ▸$")}

BOX = """el => { const r = el.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, height: innerHeight, scrolled: scrollY}; }"""


def analysed(match: Match) -> dict[str, Any]:
    """Run the match's computer analysis here (few worlds a decision) and return its stored result."""
    row = MatchAnalysis.objects.create(match=match, version=analyses.VERSION)
    assert in_thread(partial(analysis_runs.analysis_run, analysis_id=row.pk)) is True
    row.refresh_from_db()
    assert row.status == AnalysisStatus.DONE
    return dict(row.result)


@pytest.fixture
def sized(browser: Any, page: Any) -> Iterator[Any]:
    """``open(width, height, locale)`` -> a new page in its own context with that viewport (asks for
    ``page`` for its setup: the ORM stays usable while Playwright's loop runs)."""
    made: list[Any] = []

    def open_page(width: int, height: int, locale: str) -> Any:
        context = browser.new_context(locale=locale, viewport={"width": width, "height": height})
        context.set_default_timeout(15_000)
        made.append(context)
        return context.new_page()

    yield open_page
    for context in made:
        context.close()


def box(locator: Any) -> dict[str, float]:
    return dict(locator.evaluate(BOX))


STEP_BUTTONS = [
    "#btn-first", "#btn-prev-hand", "#btn-prev", "#btn-play", "#btn-next", "#btn-next-hand", "#btn-last",
]
WORDS = {
    "en-US": {"kind": {"?!": "Inaccuracy", "?": "Mistake", "??": "Blunder"}, "better": "better"},
    "pt-BR": {"kind": {"?!": "Imprecisão", "?": "Erro", "??": "Erro grave"}, "better": "melhor"},
}


ROW_AND_LIST = """list => {
  const row = list.querySelector("li.current").getBoundingClientRect();
  const box = list.getBoundingClientRect();
  return {row: [row.top, row.bottom], list: [box.top, box.bottom], height: innerHeight, scrolled: scrollY};
}"""


def row_in_view(page: Any) -> None:
    """The highlighted row of the move list is inside the list's visible part and inside the viewport,
    the page unscrolled."""
    rects = page.locator("#move-list").evaluate(ROW_AND_LIST)
    top, bottom = rects["row"]
    assert rects["scrolled"] == 0, rects
    assert rects["list"][0] - 1 <= top and bottom <= rects["list"][1] + 1, rects
    # On a phone the list sits under the felt: when a long explanation line or a wrapped control row
    # leaves less than a row of it on screen, the current move is read from the counter (checked by
    # the caller) and the list is out of view as a whole; otherwise its current row is on screen.
    if rects["height"] - rects["list"][0] >= bottom - top:
        assert top >= 0 and bottom <= rects["height"], rects


def buttons_in_view(page: Any) -> float:
    """Every step button is inside the viewport with the page unscrolled; their lowest bottom (px)."""
    bottoms = []
    for selector in STEP_BUTTONS:
        b = box(page.locator(selector))
        assert b["scrolled"] == 0 and b["top"] >= 0 and b["bottom"] <= b["height"], (selector, b)
        bottoms.append(b["bottom"])
    return max(bottoms)


def counter_matches_row(page: Any, locale: str) -> int:
    """The counter's move number, equal to the highlighted row's list number and to the page's step."""
    found = POSITION[locale].match(page.locator("[data-testid=position]").inner_text())
    assert found, page.locator("[data-testid=position]").inner_text()
    step = int(found.group(3))
    row = page.locator("#move-list li.current")
    expect(row).to_have_count(1)
    assert row.evaluate("li => li.value") == step
    assert row.locator("button").get_attribute("data-step") == str(step)
    assert page.locator("#replay-app").get_attribute("data-step") == str(step)
    return step


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("locale", LOCALES)
def test_the_replay_fits_one_screen_and_follows_the_current_move(
    daphne_server: Any, sized: Any, finished_match: Any, settings: Any, width: int, height: int, locale: str
) -> None:
    from replays import selectors

    settings.REPLAYS_ANALYSIS_WORLDS = 12
    match = finished_match("classic", target=100)
    built = selectors.replay_build(match=match)
    steps = built.steps
    longest = max(range(len(steps)), key=lambda i: steps[i])
    assert steps[longest] >= 20, steps  # the list must scroll to follow it
    decisions = analysed(match)["decisions"]
    marks = [d for d in decisions if d["mark"]]
    assert marks, "a level-1 bot's match without a single marked decision"
    # one of the longest hand's when it has one (reached by clicking its row), else another hand's
    marked = next((d for d in marks if d["hand"] == longest + 1), marks[0])
    p = sized(width, height, locale)
    p.goto(f"{daphne_server.url}/replay/{match.pk}/?hand={longest + 1}&step=0")

    # the board, its controls and the current move on one screen; the stock folded into a strip
    bottom = buttons_in_view(p)
    print(f"{width}x{height} {locale}: step buttons' bottom at {bottom:.0f} px")
    strip = p.locator("[data-testid=stock-toggle]")
    found = STOCK[locale].match(strip.inner_text())
    assert found and int(found.group(1)) == 31, strip.inner_text()
    expect(strip).to_have_attribute("aria-expanded", "false")
    expect(p.locator("[data-testid=stock]")).to_be_hidden()
    assert counter_matches_row(p, locale) == 0
    row_in_view(p)

    # stepping through the whole hand (buttons and keys): the current row stays in view, one numbering
    for k in range(1, steps[longest] + 1):
        if k % 2:
            p.locator("#btn-next").click()
        else:
            p.keyboard.press("ArrowRight")
        expect(p.locator("#replay-app")).to_have_attribute("data-step", str(k))
        assert counter_matches_row(p, locale) == k
        row_in_view(p)
        buttons_in_view(p)
    total = POSITION[locale].match(p.locator("[data-testid=position]").inner_text())
    assert total and total.group(3) == total.group(4) == str(steps[longest])  # "move 38 of 38", row 38
    # back to a move by clicking its row
    p.locator("#move-list button[data-step='3']").click()
    assert counter_matches_row(p, locale) == 3
    row_in_view(p)

    # the stock opens on demand (keyboard too) and folds again
    strip.focus()
    p.keyboard.press("Enter")
    expect(strip).to_have_attribute("aria-expanded", "true")
    left = built.data["hands"][longest]["frames"][3]["stock_size"]  # the server's count at move 3
    now = STOCK[locale].match(strip.inner_text().replace("▾", "▸"))
    assert now and int(now.group(1)) == left, strip.inner_text()
    expect(p.locator("[data-testid=stock] .card")).to_have_count(left)
    expect(p.locator("[data-testid=stock]")).to_be_visible()
    strip.click()
    expect(strip).to_have_attribute("aria-expanded", "false")
    expect(p.locator("[data-testid=stock]")).to_be_hidden()

    # the analysis's explanation of a marked move, written under the controls, visible
    if marked["hand"] == longest + 1:
        p.locator(f"#move-list button[data-step='{marked['step']}']").click()
    else:
        p.goto(f"{daphne_server.url}/replay/{match.pk}/?hand={marked['hand']}&step={marked['step']}")
    assert counter_matches_row(p, locale) == marked["step"]
    line = p.locator("[data-testid=analysis-step]")
    expect(line).to_be_visible()
    words = WORDS[locale]
    cost = one_decimal(marked["cost"]).replace(".", "," if locale == "pt-BR" else ".")
    expect(line).to_contain_text(f"{words['kind'][marked['mark']]}: {words['better']} ")
    expect(line).to_contain_text(f"({cost} ")
    assert line.evaluate("e => e.closest('.felt') !== null")
    b = box(line)
    assert b["scrolled"] == 0 and b["bottom"] <= b["height"], b
    row_in_view(p)

