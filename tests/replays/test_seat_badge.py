"""The seat badge of the player to act, as a spectator or a replay reader sees it: third person ("To play"
/ "Vez de jogar"), never the table's "Their turn" ("Vez do adversário"), which in pt-BR said "the
opponent's turn" over the very player whose turn it was (fresh-clone trial of issue 22)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.template.loader import render_to_string
from django.utils import translation

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("language", "word"), [("en", "To play"), ("pt-br", "Vez de jogar")])
def test_the_spectator_badge_is_in_the_third_person(language: str, word: str) -> None:
    with translation.override(language):
        html = render_to_string("games/_table_strings.html", {"bot_levels": []})
    assert f'<span data-key="to_play">{word}</span>' in html


def test_replay_and_watch_scripts_use_the_third_person_badge() -> None:
    for name in ("replay.js", "watch.js"):
        script = (ROOT / "replays" / "static" / "replays" / "js" / name).read_text()
        assert 'badge(t("to_play"), "turn")' in script and 't("their_turn")' not in script, name
