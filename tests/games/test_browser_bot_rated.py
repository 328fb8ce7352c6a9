"""Browser (chromium), at 1280 px and 390 px, English and pt-BR: a member's bot match from the form is
casual by default (issue 22 item 1); the table says "Casual" and what leaving costs (nothing to the
rating) before it happens, the resign confirmation says no rating changes, and the match-end card says
it was casual, with no rating line. The rated case's texts: tests/ratings/test_browser.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser_pages import (
    CHECKBOX_ON_ITS_LINE,
    LANGUAGES,
    PAGE_OVERFLOW,
    WIDTHS,
    log_in,
    make_user,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "en-US": {
        "kind": "Casual",
        "rated": "Rated",
        "leave": "Casual match: leaving costs your rating nothing. The match waits for you; after 24 hours "
                 "without a move it ends without a result.",
        "resign": "Resign this match? Your opponent wins. It is casual: no rating changes.",
        "end": "Casual match: no rating changed.",
    },
    "pt-BR": {
        "kind": "Casual",
        "rated": "Valendo rating",
        "leave": "Partida casual: sair não custa nada ao seu rating. A partida espera por você; depois de 24 "
                 "horas sem jogada ela termina sem resultado.",
        "resign": "Desistir da partida? Seu adversário vence. É casual: nenhum rating muda.",
        "end": "Partida casual: nenhum rating mudou.",
    },
}


@pytest.mark.parametrize("locale", LANGUAGES)
def test_a_members_bot_match_is_casual_by_default_and_says_so(
    daphne_server: Any, contexts: Any, locale: str
) -> None:
    from accounts.services import house_bots_ensure
    from games.models import Match
    from ratings.models import RatingChange

    house_bots_ensure()
    make_user("casey")
    texts = TEXTS[locale]
    for width in WIDTHS:
        page = contexts(width, locale)
        log_in(page, daphne_server.url, "casey", locale)
        page.goto(daphne_server.url + "/play/bot/")
        assert page.get_by_test_id("bot-casual").is_checked()
        assert not page.get_by_test_id("bot-rated").is_checked()
        assert page.evaluate(PAGE_OVERFLOW) == []
        # Each radio on its label's line, left of the word (site.css makes a .field input 100% wide).
        for testid, word in (("bot-casual", "Casual"), ("bot-rated", texts["rated"])):
            got = page.evaluate(CHECKBOX_ON_ITS_LINE, f"[data-testid={testid}]")
            assert got["text"] == word and got["lines"] == 1 and got["middleInLine"], (width, got)
            assert got["leftOfText"] and got["boxWidth"] < 40, (width, got)
        page.screenshot(path=f"/tmp/bot-form-{width}-{locale}.png", full_page=True)
        page.get_by_test_id("start-bot-match").click()
        page.wait_for_url(re.compile(r".*/match/\d+/$"))
        page.wait_for_function("document.getElementById('table-app').dataset.phase !== ''")
        match_id = int(re.search(r"/match/(\d+)/", page.url).group(1))  # type: ignore[union-attr]
        assert page.get_by_test_id("rated-kind").inner_text() == texts["kind"]
        assert page.get_by_test_id("leave-note").inner_text() == texts["leave"]
        assert page.evaluate(PAGE_OVERFLOW) == []
        page.screenshot(path=f"/tmp/bot-table-{width}-{locale}.png", full_page=True)
        page.locator("#btn-resign").click()
        assert page.get_by_test_id("resign-question").inner_text() == texts["resign"]
        page.locator("#btn-resign-yes").click()
        page.wait_for_selector("#match-end:not([hidden])")
        assert page.get_by_test_id("match-kind").inner_text() == texts["end"]
        assert page.get_by_test_id("rating-change").count() == 0
        page.screenshot(path=f"/tmp/bot-end-{width}-{locale}.png")
        assert page.evaluate(PAGE_OVERFLOW) == []
        match = Match.objects.get(pk=match_id)
        assert (match.rated, match.status, match.winner) == (False, "finished", 1)
        assert not RatingChange.objects.filter(match_id=match_id).exists()
        page.close()
