"""docs/bot-api.md's worked example is true to the engine and to the site: its match-stream line is the
real view of the engine's seeded deal it names (never a concealed card), its later states and refusal
follow from the engine, and its tiny bot is the "Write a bot" page's, line for line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from botapi.page_views import TINY_BOT
from engine.deck import seeded_deck
from engine.errors import IllegalActionError
from engine.match import MatchState
from engine.rules import RuleSet

DOC = (Path(__file__).resolve().parents[2] / "docs" / "bot-api.md").read_text()


def blocks(language: str) -> list[str]:
    """The doc's fenced blocks of ``language``, their list-item indent removed."""
    found = re.findall(rf"^( *)```{language}\n(.*?)^\1```", DOC, re.M | re.S)
    return ["\n".join(line.removeprefix(indent) for line in body.splitlines()) for indent, body in found]


def example_match() -> MatchState:
    """The session's deal: seeded deck 311, classic rules, seat 1 deals; both pass, seat 0 draws and
    discards Kh."""
    match = MatchState(RuleSet.preset("classic"), first_dealer=1)
    match.deal(seeded_deck(311))
    for action, seat in [("pass", 0), ("pass", 1), ("draw stock", 0), ("discard Kh", 0)]:
        match.apply(action, seat)
    return match


def test_the_match_full_line_is_the_engines_view_of_that_deal() -> None:
    (full,) = [json.loads(b) for b in blocks("json") if '"matchFull"' in b]
    match = example_match()
    assert full["seat"] == 1 and full["state"]["to_move"] == match.current_player == 1
    assert full["state"]["view"] == match.view(1).to_dict()
    assert full["rules"] == RuleSet.preset("classic").to_dict()
    # Nothing of the opponent's hand nor of the stock: only what seat 1 may know.
    view = full["state"]["view"]
    assert view["opponent_hand"] is None and view["opponent_known"] == []
    assert [item["card"] for item in view["history"]] == [None, None, None, None]


def test_the_later_states_and_the_refusal_follow_from_the_engine() -> None:
    match = example_match()
    states = [json.loads(line) for line in re.findall(r'^ *(\{"type": "state".*\})$', DOC, re.M)]
    assert [s["seq"] for s in states] == [6, 7]
    match.apply("draw stock", 1)
    assert states[0]["view"]["hand"] == match.view(1).to_dict()["hand"]
    assert states[0]["view"]["legal_actions"] == [str(a) for a in match.view(1).legal_actions]
    match.apply("discard Kc", 1)
    after = match.view(1).to_dict()
    assert {k: after[k] for k in states[1]["view"]} == states[1]["view"]
    with pytest.raises(IllegalActionError) as refused:
        match.apply("draw stock", 1)
    assert json.dumps({"error": refused.value.code, "message": str(refused.value)}) in DOC


def test_the_docs_tiny_bot_is_the_pages() -> None:
    (python,) = [b for b in blocks("python") if "class HighestDeadwood" in b]
    assert python == TINY_BOT.rstrip("\n")
