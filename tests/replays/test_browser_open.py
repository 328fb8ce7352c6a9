"""An opened replay file in chromium: the page comes with hand 1 only, the viewer fetches another hand
when it goes there (``/replay/open/<sha256>/hands/<n>.json``) and draws it with the same board as a
site match's replay: both hands on screen equal the engine's state at that step."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from engine.cards import card_names, parse_card
from engine.hand import HandState
from engine.rules import RuleSet
from tests.replays.test_open import dead_hands

pytestmark = pytest.mark.browser

CARDS = "els => els.map(e => e.dataset.card)"


def engine_hands(record: dict[str, Any], number: int, step: int) -> tuple[list[str], list[str]]:
    hand = record["hands"][number - 1]
    deck = [parse_card(c) for c in hand["deck"]]
    state = HandState(RuleSet.from_dict(record["rules"]), hand["dealer"], deck)
    for act in hand["actions"][:step]:
        state.apply(act["action"], act["seat"])
    seat0, seat1 = (sorted(card_names(h)) for h in state.hands)
    return seat0, seat1


def on_screen(page: Any, seat: int) -> list[str]:
    return sorted(page.locator(f"#hand-{seat} [data-card]").evaluate_all(CARDS))


def test_an_opened_file_loads_each_hand_when_shown(daphne_server: Any, page: Any, tmp_path: Path) -> None:
    record = dead_hands(6)
    file = tmp_path / "six.json"
    file.write_text(json.dumps(record))
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "/hands/" in r.url else None)
    page.goto(f"{daphne_server.url}/replay/open/")
    page.set_input_files("#replay-file", str(file))
    page.locator("form button[type=submit]").click()
    app = page.locator("#replay-app")
    expect(app).to_have_attribute("data-hand", "1")
    assert on_screen(page, 0), "hand 1 is drawn from the page itself"
    expect(page.locator("#hand-list li")).to_have_count(6)
    page.keyboard.press("ArrowDown")
    expect(app).to_have_attribute("data-hand", "2")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(app).to_have_attribute("data-step", "3")
    mine, theirs = engine_hands(record, 2, 3)
    assert on_screen(page, 0) == mine and on_screen(page, 1) == theirs
    page.keyboard.press("End")
    expect(app).to_have_attribute("data-hand", "6")
    expect(page.locator("#reveal")).to_be_visible()
    steps = len(record["hands"][5]["actions"])
    expect(app).to_have_attribute("data-step", str(steps))
    mine, theirs = engine_hands(record, 6, steps)
    assert on_screen(page, 0) == mine and on_screen(page, 1) == theirs
    assert {re.sub(r".*/hands/", "", u) for u in fetched} >= {"2.json", "6.json"}
    assert not any(u.endswith("/1.json") for u in fetched)  # hand 1 came with the page
