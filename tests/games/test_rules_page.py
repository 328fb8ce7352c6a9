"""The rules page (``/rules/``): linked from the header and the level picker, in English and pt-BR,
its preset table generated from ``engine.rules.PRESETS`` (so it states the enforced numbers) with each
preset's source, and its worked examples scored by the engine."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from engine.rules import PRESETS
from games.views import PRESET_SOURCES, preset_sources

pytestmark = pytest.mark.django_db


def cells(html: str, label: str) -> list[str]:
    row = re.search(rf'<tr><th scope="row">{re.escape(label)}</th>(.*?)</tr>', html, re.S)
    assert row, label
    return [unescape(c) for c in re.findall(r"<td>(.*?)</td>", row.group(1))]


def test_the_rules_page_states_the_engines_numbers_and_sources() -> None:
    client = Client()
    html = client.get(reverse("games:rules")).content.decode()
    assert f'href="{reverse("games:rules")}"' in html  # the header link
    names = re.findall(r'<th scope="col" data-preset="(\w+)">', html)
    assert names == list(PRESETS)
    assert cells(html, "Gin bonus") == [str(r.gin_bonus) for r in PRESETS.values()]
    assert cells(html, "Undercut bonus") == [str(r.undercut_bonus) for r in PRESETS.values()]
    assert cells(html, "Big gin bonus") == [
        "as gin" if r.big_gin_bonus is None else str(r.big_gin_bonus) for r in PRESETS.values()
    ]
    assert cells(html, "Game bonus") == [str(r.game_bonus) for r in PRESETS.values()]
    assert cells(html, "Source") == preset_sources(list(PRESETS))
    assert set(PRESET_SOURCES) == set(PRESETS)  # every preset names its source
    assert cells(html, "Source")[0] == "Classic Gin Rummy, as online game sites play it"
    two = list(PRESETS).index("two_deck")
    assert cells(html, "Deal")[two] == "11 to the non-dealer, no upcard"
    assert cells(html, "Equal deadwood goes to")[two] == "the knocker"
    # the seed's examples, scored by the engine: the layoff is worth 2, the undercut 30 (5 + 25)
    assert "so the knocker scores the difference: 2." in html
    assert "keeps 5: 30 points for the defender" in html
    # cards in the text are written as the table writes them (Q♠), not as codes (Qs)
    assert "the defender lays off Q♠ on the knocker's spade run" in unescape(html)
    assert "the defender lays off K♦ 3♥ 7♥ and keeps 5" in unescape(html)
    assert 'data-cards="7s 7h 7d"' in html and "games/js/rules_cards.js" in html


def test_the_rules_page_in_pt_br_and_the_level_pickers_link(django_user_model: object) -> None:
    client = Client()
    client.cookies["django_language"] = "pt-br"
    html = client.get(reverse("games:rules")).content.decode()
    assert "Regras do Gin Rummy" in html and "Conjuntos de regras" in html
    assert cells(html, "Bônus de gin") == [str(r.gin_bonus) for r in PRESETS.values()]
    assert "Dois baralhos" in html and "então quem bateu marca a diferença: 2." in html
    assert cells(html, "Fonte")[0] == "Gin Rummy clássico, como nos sites de jogos online"
    user = django_user_model.objects.create_user(username="rui")  # type: ignore[attr-defined]
    client.force_login(user)
    picker = client.get(reverse("games:new_bot_match")).content.decode()
    assert f'class="rules-link" href="{reverse("games:rules")}"' in picker
    assert "Como jogar: as regras" in picker
