"""The games pages as rendered by Django (no browser): the table page's payload and translated strings,
the new-match forms, the join page and "My matches", in English and pt-BR.

The table's JavaScript shows only strings rendered by ``games/_table_strings.html`` (``data-key`` spans);
these tests check that every key the scripts ask for exists, that every server error code of
docs/protocol.md and every rule preset has its message, and that pt-BR translates them all.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from engine.rules import PRESETS
from games import conf, services
from games.models import Match
from ratings.bot_elo import calibrated_elo

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
JS_DIR = ROOT / "games" / "static" / "games" / "js"

# Strings that read the same in both languages (numbers, names, symbols, loanwords).
SAME_IN_PT = {"2", "3", "4", "5", "6", "7", "8", "9", "10", "→ {n}", "{name}", "Gin!", "Oklahoma", "Hoyle"}
SAME_IN_PT |= {"Total", "gin", "big gin", "Casual"}  # "Casual": a casual (unrated) match, pt-BR too
SAME_IN_PT |= {"BOT"}  # the BOT account mark, as lichess writes it in every language


def table_strings(html: str) -> dict[str, str]:
    """``data-key`` -> text of the table page's string catalog."""
    block = html[html.index('id="table-i18n"') :]
    block = block[: block.index("</div>")]
    found = re.findall(r'<span data-key="(\w+)"(?: data-form="(one|other)")?>([^<]*)</span>', block)
    return {f"{k}|{form}" if form else k: unescape(v) for k, form, v in found}


def keys_used_by_scripts() -> set[str]:
    """Every string key the table's modules pass to ``t()``, literal or in the families built at run time."""
    source = "\n".join(p.read_text() for p in JS_DIR.glob("*.js"))
    keys = {k for k in re.findall(r'\bt\(\s*"(\w+)"', source) if not k.endswith("_")}  # "rank_" + r: below
    keys |= {k for pair in re.findall(r'\bt\([^()"]*\?\s*"(\w+)"\s*:\s*"(\w+)"', source) for k in pair}
    for base in re.findall(r'key\("(\w+)"\)', source):  # text.js: "log_x" and "log_x_you"
        keys |= {base, base + "_you"}
    keys |= set(re.findall(r'(?:ok|bad|missing): "(\w+)"', source))
    keys |= {f"rank_{r}" for r in "A23456789TJQK"} | {f"suit_{s}" for s in "cdhs"}
    keys |= {f"suit_plural_{s}" for s in "cdhs"} | {f"preset_{name}" for name in PRESETS}
    # Count sentences (i18n.js tn): both plural forms, literal or in a ternary, or a result kind's key.
    counted = set(re.findall(r'\btn\(\s*"(\w+)"', source))
    counted |= {k for pair in re.findall(r'\btn\(\s*\w+\s*\?\s*"(\w+)"\s*:\s*"(\w+)"', source) for k in pair}
    kinds = ("knock", "gin", "big_gin", "undercut")
    counted |= {f"result_{kind}_{who}" for kind in kinds for who in ("you", "them")}
    keys |= {f"{k}|{form}" for k in counted for form in ("one", "other")}
    return keys


def protocol_error_codes() -> set[str]:
    text = (ROOT / "docs" / "protocol.md").read_text()
    section = text[text.index("### `error`") : text.index("### `pong`")]
    return set(re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE))


@pytest.fixture
def alice_client(alice: Any) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def test_table_page_carries_the_state_and_every_string_the_scripts_use(
    alice: Any, alice_client: Client, house_bots: list[Any]
) -> None:
    match = services.match_create_vs_bot(user=alice, level=3, rules_preset="classic", target=100)
    html = alice_client.get(reverse("games:table", args=[match.pk])).content.decode()
    assert f'data-ws-path="/ws/match/{match.pk}/"' in html
    state = json.loads(unescape(re.search(r'id="initial-state"[^>]*>(.*?)</script>', html, re.S).group(1)))
    assert state["type"] == "state" and state["match"]["id"] == match.pk and state["match"]["you"] == 0
    assert len(state["hand"]["cards"]) in (10, 11)

    strings = table_strings(html)
    missing = keys_used_by_scripts() - set(strings)
    assert not missing, f"keys used by the table's scripts without a string: {sorted(missing)}"
    codes = protocol_error_codes()
    assert {"out_of_turn", "taken_card", "knock_over_limit", "stale_seq"} <= codes
    assert not {f"error_{c}" for c in codes} - set(strings)
    assert strings["card_name"] == "{rank} of {suit}" and strings["knock"] == "Knock"


def test_table_strings_are_all_translated_to_pt_br(
    alice: Any, alice_client: Client, house_bots: list[Any]
) -> None:
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="oklahoma", target=50)
    url = reverse("games:table", args=[match.pk])
    english = table_strings(alice_client.get(url).content.decode())
    alice_client.cookies["django_language"] = "pt-br"
    page = alice_client.get(url).content.decode()
    portuguese = table_strings(page)
    assert set(portuguese) == set(english)
    untranslated = sorted(k for k in english if english[k] == portuguese[k] and english[k] not in SAME_IN_PT)
    assert not untranslated, untranslated
    # The glossary's terms (rules.md): monte, descarte, bater, pontos soltos, trinca, sequência.
    assert portuguese["stock_n"] == "Monte ({n})" and portuguese["discard_n"] == "Descarte ({n})"
    assert portuguese["knock"] == "Bater" and portuguese["group_deadwood"] == "Pontos soltos"
    assert portuguese["meld_set"] == "Trinca" and portuguese["meld_run"] == "Sequência"
    seven_of_hearts = portuguese["card_name"].format(rank=portuguese["rank_7"], suit=portuguese["suit_h"])
    assert seven_of_hearts == "7 de copas"
    assert "Pontos soltos:" in page and ">Bater<" in page


def test_new_match_page_lists_the_bot_levels_presets_and_targets(alice_client: Client) -> None:
    html = alice_client.get(reverse("games:new_bot_match")).content.decode()
    assert html.count('name="level"') == 5 and 'name="level" value="1" checked' in html
    for name in PRESETS:
        assert f'<option value="{name}"' in html
    assert 'name="target" value="100" checked' in html and 'name="target" value="50"' in html
    assert 'data-testid="start-bot-match"' in html and 'data-testid="open-friend-table"' in html
    # each level shows its calibrated Elo from the bots' round robin (data/bot_elo.json)
    for level, elo in calibrated_elo().items():
        assert re.search(rf'value="{level}".*?Elo {elo}</span>', html, re.S)
    fields = {"level": "9", "preset": "classic", "target": "100"}
    bad = alice_client.post(reverse("games:new_bot_match"), fields)
    assert bad.status_code == 400 and "errorlist" in bad.content.decode()


@pytest.mark.parametrize(("view", "field", "value", "said"), [
    ("games:new_bot_match", "rated", "maybe", "maybe is not one of the available choices"),
    ("games:new_bot_match", "submission", "not-a-uuid", "Enter a valid UUID."),
    ("games:new_friend_table", "rated", "maybe", "maybe is not one of the available choices"),
    ("games:new_friend_table", "submission", "not-a-uuid", "Enter a valid UUID."),
])
def test_a_refused_rated_or_submission_field_says_why_on_the_page(
    alice_client: Client, house_bots: list[Any], view: str, field: str, value: str, said: str
) -> None:
    # the fresh-clone trial saw a 400 page with no message for these two fields
    fields = {"level": "1", "preset": "classic", "target": "100", field: value}
    bad = alice_client.post(reverse(view), fields)
    assert bad.status_code == 400
    assert said in unescape(bad.content.decode())
    assert not Match.objects.exists()


def test_my_matches_shows_opponent_rules_result_and_score(
    alice: Any, alice_client: Client, house_bots: list[Any]
) -> None:
    lost = services.match_create_vs_bot(user=alice, level=2, rules_preset="brazilian", target=50, rated=False)
    services.match_resign(match_id=lost.pk, user=alice)
    services.match_create_vs_bot(user=alice, level=4, rules_preset="classic", target=100)
    alice_client.cookies["django_language"] = "pt-br"
    html = alice_client.get(reverse("games:my_matches")).content.decode()
    rows = re.findall(r"<tr class=\"result-(\w+)\">(.*?)</tr>", html, re.S)
    assert [r for r, _ in rows] == ["in_progress", "lost"]  # newest first
    in_progress, resigned = rows[0][1], rows[1][1]
    assert "Clássica" in in_progress and "até 100" in in_progress and "Em andamento" in in_progress
    assert "Brasileira" in resigned and "Derrota" in resigned and "(desistiu)" in resigned
    assert "robô · nível 2" in resigned
    assert f'href="{reverse("games:table", args=[lost.pk])}"' in resigned


def test_join_page_for_a_visitor_offers_guest_play_then_a_seated_player_goes_to_the_table(
    alice: Any, bob: Any
) -> None:
    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    assert table.invite_token
    url = reverse("games:join", args=[table.invite_token])
    visitor = Client()
    html = visitor.get(url).content.decode()
    assert "invites you to a game of Gin Rummy" in html and 'data-testid="join-as-guest"' in html
    bob_client = Client()
    bob_client.force_login(bob)
    assert 'data-testid="join-table"' in bob_client.get(url).content.decode()
    response = bob_client.post(url)
    assert response.status_code == 302 and response.url == reverse("games:table", args=[table.pk])
    assert Match.objects.get(pk=table.pk).player1_id == bob.pk
    assert "This table already has two players." in visitor.get(url).content.decode()


def test_count_sentences_carry_both_plural_forms_from_ngettext(
    alice: Any, alice_client: Client, house_bots: list[Any]
) -> None:
    match = services.match_create_vs_bot(user=alice, level=1, rules_preset="classic", target=100)
    url = reverse("games:table", args=[match.pk])
    html = alice_client.get(url).content.decode()
    assert "{#" not in html and "#}" not in html  # a multi-line {# #} is printed, not a comment
    en = table_strings(html)
    assert en["result_knock_you|one"] == "You knocked and score {points} point."
    assert en["result_knock_you|other"] == "You knocked and score {points} points."
    assert (en["n_cards|one"], en["n_cards|other"]) == ("{n} card", "{n} cards")
    alice_client.cookies["django_language"] = "pt-br"
    pt = table_strings(alice_client.get(url).content.decode())
    assert (pt["result_knock_them|one"], pt["result_knock_them|other"]) == (
        "{name} bateu e marca {points} ponto.", "{name} bateu e marca {points} pontos.",
    )
    assert (pt["n_cards|one"], pt["n_cards|other"]) == ("{n} carta", "{n} cartas")
    assert (pt["result_undercut_spectator|one"], pt["result_undercut_spectator|other"]) == (
        "{name} deu a virada em quem bateu e marca {points} ponto.",
        "{name} deu a virada em quem bateu e marca {points} pontos.",
    )
    form = alice_client.get(reverse("games:new_bot_match")).content.decode()
    assert "50 pontos" in form and "100 pontos" in form
    assert (en["result_undercut_spectator|one"], en["result_undercut_spectator|other"]) == (
        "{name} undercut the knocker and scores {points} point.",
        "{name} undercut the knocker and scores {points} points.",
    )


@pytest.mark.parametrize(("language", "seconds", "words"), [
    ("en", 60, "rated tables always have a turn timer: 60 seconds per move if left empty"),
    ("en", 1, "rated tables always have a turn timer: 1 second per move if left empty"),
    ("pt-br", 60, "sempre têm tempo por jogada: 60 segundos por jogada se ficar vazio"),
    ("pt-br", 1, "sempre têm tempo por jogada: 1 segundo por jogada se ficar vazio"),
])
def test_the_friend_forms_rating_hint_counts_the_rated_timer_in_the_languages_plural(
    alice_client: Client, monkeypatch: pytest.MonkeyPatch, language: str, seconds: int, words: str
) -> None:
    """The hint under "Rated" states the timer a rated table gets (``services.RATED_TURN_TIMER``) with
    ngettext's form for it: 1 second / 60 seconds (pt-BR 1 segundo / 60 segundos)."""
    monkeypatch.setattr(conf, "RATED_TURN_TIMER", seconds)
    alice_client.cookies["django_language"] = language
    html = alice_client.get(reverse("games:new_friend_table")).content.decode()
    note = html[html.index('data-testid="friend-rated-note"') :]
    assert words in note[: note.index("</p>")]


@pytest.mark.parametrize("language", ["en", "pt-br"])
def test_each_form_describes_the_table_preset_for_its_context(alice_client: Client, language: str) -> None:
    """Between two friends nobody is "the computer": the friend form says the first dealer is drawn."""
    alice_client.cookies["django_language"] = language
    html = alice_client.get(reverse("games:new_friend_table")).content.decode()
    bot_help = html[html.index('id="bot-preset-help"') : html.index('id="friend-title"')]
    friend_help = html[html.index('id="friend-preset-help"') :]
    computer, drawn = {
        "en": ("the computer deals first", "the first dealer is drawn at random"),
        "pt-br": ("o computador dá primeiro", "quem dá primeiro é sorteado"),
    }[language]
    assert computer in bot_help and drawn not in bot_help
    assert drawn in friend_help and computer not in friend_help
