"""The "Write a bot" page (``/developers/bots/``, ``botpages:write_bot``): it renders in English and
Brazilian Portuguese, is linked from the footer and the "Play a bot" page, passes the CSP (no inline
script), and its tiny bot is a working bot: it plays whole matches against a house bot through the engine."""

from __future__ import annotations

import html
import random
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

URL = "/developers/bots/"


def test_the_page_has_its_address_and_name() -> None:
    assert reverse("botpages:write_bot") == URL


def test_the_page_in_english(client: Client) -> None:
    response = client.get(URL, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    text = response.content.decode()
    assert "<h1>Write a bot</h1>" in text
    assert "<h2>Your token</h2>" in text
    assert 'href="/accounts/tokens/" data-testid="tokens-link">API tokens</a>' in text
    assert "<code>POST /api/v1/bot/account/upgrade/</code> once: the account becomes a BOT account." in text
    assert 'href="/api/docs/" data-testid="api-docs-link">API documentation</a>' in text
    assert "At most 600/min requests per token" in text
    # The notation table: every action of the engine's notation, with its meaning.
    rows = re.findall(r"<tr><td><code>([^<]+)</code></td><td>([^<]+)</td></tr>", text)
    assert [action for action, _ in rows] == ["take", "pass", "draw stock", "draw discard", "discard Kc",
                                              "knock Kc", "knock"]
    assert rows[2] == ("draw stock", "draw the top card of the stock")
    # No inline script on the page (the site's CSP: script-src 'self').
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", text) == []


def test_the_page_in_brazilian_portuguese(client: Client) -> None:
    text = client.get(URL, HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()
    assert "<h1>Escreva um robô</h1>" in text
    assert "<h2>Seu token</h2>" in text
    assert 'data-testid="tokens-link">Tokens de API</a>' in text
    assert "<h2>Um robô em 20 linhas</h2>" in text
    assert "No máximo 2 fluxos de eventos por conta ao mesmo tempo." in text
    assert "<td><code>draw stock</code></td><td>comprar a carta do topo do monte</td>" in text
    assert 'data-testid="footer-write-bot">Escreva um robô</a>' in text


def test_the_footer_and_the_play_a_bot_page_link_the_page(client: Client) -> None:
    home = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<a href="/developers/bots/" data-testid="footer-write-bot">Write a bot</a>' in home
    client.force_login(UserFactory())
    bots = client.get(reverse("games:new_bot_match"), HTTP_ACCEPT_LANGUAGE="en")
    assert bots.status_code == 200
    assert re.search(r'data-testid="write-bot-link">Your own program can play here too: '
                     r'<a href="/developers/bots/">Write a bot</a>', bots.content.decode())


def tiny_bot_from_the_page(client: Client) -> Any:
    text = client.get(URL, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    code = html.unescape(re.search(r'<pre data-testid="tiny-bot"><code>(.*?)</code></pre>', text, re.S)[1])
    assert len(code.splitlines()) <= 30
    namespace: dict[str, Any] = {}
    exec(compile(code, "tiny_bot.py", "exec"), namespace)  # the page's own example, run as is
    return namespace["make_bot"]


def test_the_pages_tiny_bot_plays_legal_moves_to_the_end_of_matches(client: Client) -> None:
    """The code shown on the page, run as is: every choice is one of the legal actions, in 6 whole
    matches against the house bot level 2 (seeded decks), and it knocks or wins hands."""
    from engine.bots import make_bot
    from engine.deck import shuffled_deck
    from engine.match import MatchState
    from engine.rules import RuleSet

    make_tiny = tiny_bot_from_the_page(client)
    knocks = 0
    for game in range(6):
        rng = random.Random(game)
        match = MatchState(RuleSet.preset("classic"), first_dealer=game % 2)
        bots = [make_tiny(), make_bot(2, seed=game)]
        while not match.is_over:
            if match.awaiting_deal:
                match.deal(shuffled_deck(rng))
                continue
            seat = match.current_player
            view = match.view(seat)
            action = bots[seat].choose(view)
            assert action in view.legal_actions
            knocks += seat == 0 and str(action).startswith("knock")
            match.apply(action, seat)
        assert match.winner in (0, 1)
    assert knocks > 0
