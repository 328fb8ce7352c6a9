"""The computer analysis in chromium: on a finished match's replay, "Analyse" shows the run's progress
(pushed over ws/analysis/<id>/ by the server), then the per-player summary and the marks in the move
list and at each step, equal to the stored analysis."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from playwright.sync_api import expect

from replays.models import MatchAnalysis
from tests.games.wsclient import session_cookie

pytestmark = pytest.mark.browser

RECORD_SHOWN = """() => {
  window.shownProgress = [];
  const box = document.getElementById("analysis-count");
  new MutationObserver(() => window.shownProgress.push(box.textContent))
    .observe(box, { childList: true, characterData: true, subtree: true });
}"""

CARD = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def one_decimal(value: float) -> str:
    """As the page writes points (Intl.NumberFormat: one decimal, halves away from zero)."""
    return str(Decimal(str(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def card_text(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + CARD[card[1]]


def test_analyse_shows_progress_then_the_summary_and_the_marks(
    daphne_server_factory: Any, page: Any, finished_match: Any
) -> None:
    # 40 worlds a decision (enough for marks); every decision's progress pushed: at the default pace (a
    # report at most every 0.5 s) a run faster than that showed only 0 and the total, however live the
    # page, so whether a step between was seen depended on the machine's speed
    server = daphne_server_factory(REPLAYS_ANALYSIS_WORLDS="40", REPLAYS_ANALYSIS_PUSH_EVERY="0")
    match = finished_match("classic", target=50)
    page.goto(f"{server.url}/replay/{match.pk}/")
    panel = page.locator("#analysis")
    expect(panel).to_have_attribute("data-status", "none")
    # anonymous: refused (members only, issue 20), and the page says why
    page.locator("[data-testid=analyse]").click()
    expect(page.locator("[data-testid=analysis-error]")).to_have_text(
        "No analysis: Log in to ask for a computer analysis.")
    assert not MatchAnalysis.objects.filter(match=match).exists()
    name, value = session_cookie(match.player0).split("=", 1)
    page.context.add_cookies([{"name": name, "value": value, "url": server.url}])
    page.goto(f"{server.url}/replay/{match.pk}/")
    expect(panel).to_have_attribute("data-status", "none")
    page.evaluate(RECORD_SHOWN)
    page.locator("[data-testid=analyse]").click()
    expect(panel).to_have_attribute("data-status", "done", timeout=120_000)
    expect(page.locator("[data-testid=analyse]")).to_be_hidden()

    stored = MatchAnalysis.objects.get(match=match)
    result = stored.result
    total = len(result["decisions"])
    # the progress the page showed, live, before the summary: counts of the same total, growing, and
    # (every report pushed) every step from 0 to the total, each shown as its report came
    shown = page.evaluate("window.shownProgress")
    counts = [tuple(map(int, m.groups())) for s in shown
              if (m := re.fullmatch(r"Analysing: (\d+) of (\d+) decisions", s))]
    assert counts and all(t == total for _, t in counts), shown
    assert [d for d, _ in counts] == sorted(d for d, _ in counts)
    assert sorted({d for d, _ in counts}) == list(range(total + 1)), shown
    assert shown[-1] == f"Analysed: {total} decisions of both players.", shown
    expect(page.locator("[data-testid=analysis-progress]")).to_have_text(
        f"Analysed: {total} decisions of both players.")

    # the summary: one column per player, the stored numbers
    for seat, summary in enumerate(result["summary"]):
        marks = summary["marks"]
        column = {key: page.locator(f"#an-{key}-{seat}").inner_text()
                  for key in ("name", "decisions", "inaccuracy", "mistake", "blunder", "average")}
        assert column == {
            "name": ("alice", "Bot 1 · Beginner")[seat], "decisions": str(summary["decisions"]),
            "inaccuracy": str(marks["?!"]), "mistake": str(marks["?"]), "blunder": str(marks["??"]),
            "average": one_decimal(summary["average_cost"]),
        }
    assert sum(s["decisions"] for s in result["summary"]) == total

    # the marks of hand 1 joined its move list without a reload
    marked = [d for d in result["decisions"] if d["mark"]]
    assert marked, "a level-1 bot's match without a single marked decision"
    in_hand_1 = [d for d in marked if d["hand"] == 1]
    expect(page.locator("#move-list .an-mark")).to_have_count(len(in_hand_1))

    # a marked step, opened by its link: its mark and the preferred move, in the list and at the step
    d = marked[0]
    page.goto(f"{server.url}/replay/{match.pk}/?hand={d['hand']}&step={d['step']}")
    current = page.locator("#move-list li.current")
    expect(current.locator(".an-mark")).to_have_text(d["mark"])
    step = page.locator("[data-testid=analysis-step]")
    expect(step).to_be_visible()
    kind = {"?!": "Inaccuracy", "?": "Mistake", "??": "Blunder"}[d["mark"]]
    verb, *card = d["best"].split(" ")
    words = {"take": "to take the upcard", "pass": "to pass", "draw": None, "discard": "to discard {c}",
             "knock": "to knock with {c}" if card else "to go big gin"}[verb]
    if verb == "draw":
        words = "to draw from the stock" if card == ["stock"] else "to take the discard"
    assert words is not None
    words = words.replace("{c}", card_text(card[0]) if card and len(card[0]) == 2 else "")
    cost = one_decimal(d["cost"])
    expect(step).to_have_text(f"{d['mark']} {kind}: better {words} ({cost} points more on average).")
    # an analysed step with no better move says so
    agreed = next((x for x in result["decisions"] if x["best"] == x["chosen"]), None)
    if agreed is not None:
        page.goto(f"{server.url}/replay/{match.pk}/?hand={agreed['hand']}&step={agreed['step']}")
        expect(step).to_contain_text("Analysis: no better move for")
