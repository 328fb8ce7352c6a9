"""Browser (chromium, Daphne subprocess): a rated friend match resigned after one move each says, before
and after, that it is not rated (docs/fairplay.md "Limits that make farming slow"), in English and
pt-BR: the resign confirmation names the rule, the match-end card says "Not rated" rather than
"Casual match", and the match is stored finished, unrated, ``unrated_why`` ``early_resign``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import LANGUAGES, friend_tables, off_loop, open_table
from tests.games.test_farming_limits import _move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "en-US": ("Resign this match? Your opponent wins, but the match is not rated: each player must make 3 "
              "moves of their own before a resignation counts.",
              "Not rated: resigned before each player had made enough moves of their own."),
    "pt-BR": ("Desistir desta partida? Seu adversário vence, mas a partida não vale rating: cada jogador "
              "precisa fazer 3 jogadas próprias antes que uma desistência conte.",
              "Não valeu rating: desistência antes de cada jogador fazer jogadas próprias suficientes."),
}


@pytest.mark.parametrize("locale", LANGUAGES)
def test_an_early_resignation_says_it_is_not_rated(daphne_server: Any, contexts: Any, locale: str) -> None:
    from games.models import Match

    old, hal, ivy = friend_tables(daphne_server, contexts, 1280, locale, rules_preset="classic", target=100,
                                  turn_timer=60, rated=True)
    off_loop(lambda: _move(old.pk, {0: old.player0, 1: old.player1}, 1))
    open_table(hal, daphne_server.url, old.pk)  # the state after both moves
    hal.locator("#btn-resign").click()
    question, end = TEXTS[locale]
    assert hal.get_by_test_id("resign-question").inner_text() == question
    hal.locator("#btn-resign-yes").click()
    for page in (hal, ivy):
        page.locator("#match-end").wait_for()
        page.get_by_test_id("match-kind").wait_for()
        assert page.get_by_test_id("match-kind").inner_text() == end
        assert page.get_by_test_id("rating-change").count() == 0
    done = Match.objects.get(pk=old.pk)
    assert (done.status, done.winner, done.rated, done.unrated_why) == ("finished", 1, False, "early_resign")
