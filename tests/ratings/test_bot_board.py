"""The BOT ranking (docs/bot-api.md): the people's boards (page, API, home top list, ranks, counts) never
list a BOT account; ``/rankings/bots/`` and ``/api/v1/rankings/bots/`` list the BOT accounts by
rating with the house bots interleaved as anchors at their calibrated Elo (data/bot_elo.json: levels
1..5 at 924, 1323, 1500, 1539, 1671)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from ratings import selectors
from ratings.bot_elo import calibrated_elo
from ratings.models import PlayerRating

pytestmark = pytest.mark.django_db


def _rated(user: Any, rating: float, matches: int = 12) -> None:
    PlayerRating.objects.create(user=user, rating=rating, peak=rating, rated_matches=matches,
                                wins=matches - 2, losses=2)


def _bot_account(make_member: Callable[[str], Any], name: str) -> Any:
    user = make_member(name)
    user.bot_account = True
    user.save(update_fields=["bot_account"])
    return user


@pytest.fixture
def field(make_member: Callable[[str], Any], house_bots: Any) -> dict[str, Any]:
    """People p1 (1700), p2 (1600), p3 (1400); BOT accounts b1 (1580), b2 (1450), b3 (1200, provisional:
    4 matches), b4 (1560, hidden: on no board)."""
    people = {name: make_member(name) for name in ("p1", "p2", "p3")}
    for name, rating in (("p1", 1700), ("p2", 1600), ("p3", 1400)):
        _rated(people[name], rating)
    bots = {name: _bot_account(make_member, name) for name in ("b1", "b2", "b3", "b4")}
    _rated(bots["b1"], 1580)
    _rated(bots["b2"], 1450)
    _rated(bots["b3"], 1200, matches=4)
    _rated(bots["b4"], 1560)
    PlayerRating.objects.filter(user=bots["b4"]).update(hidden=True)
    return {**people, **bots}


def test_the_house_bots_elo_is_the_file_s() -> None:
    assert dict(calibrated_elo()) == {1: 924, 2: 1323, 3: 1500, 4: 1539, 5: 1671}


def test_people_s_board_has_no_bot_account_and_ranks_and_counts_leave_them_out(field: dict[str, Any]) -> None:
    for provisional in (False, True):
        board = selectors.board_page(tab="all", provisional=provisional, search="", page=1)
        assert [(r["rank"], r["username"]) for r in board.rows] == [(1, "p1"), (2, "p2"), (3, "p3")]
        assert board.count == 3
    # A name search ranks by the buckets (which count BOT accounts): the BOT accounts ahead are taken away.
    found = selectors.board_page(tab="all", provisional=False, search="p3", page=1)
    assert [(r["rank"], r["username"]) for r in found.rows] == [(3, "p3")]
    assert selectors.rank_get(user_id=field["p3"].pk) == 3
    assert selectors.ranks_of([(field["p2"].pk, 1600.0), (field["p3"].pk, 1400.0)]) == {
        field["p2"].pk: 2, field["p3"].pk: 3}
    assert selectors.rank_get(user_id=field["b1"].pk) is None
    recent = selectors.board_page(tab="30d", provisional=True, search="", page=1)
    assert [r["username"] for r in recent.rows] == []  # nobody has last_rated_at here
    assert selectors.board_page(tab="all", provisional=False, search="b", page=1).rows == []


def test_bot_board_interleaves_bot_accounts_and_anchors(field: dict[str, Any]) -> None:
    rows = selectors.bot_board()
    assert [(r["rank"], r["username"], r["rating"], r["anchor"], r["provisional"]) for r in rows] == [
        (None, "bot-5", 1671, True, False),
        (1, "b1", 1580, False, False),
        (None, "bot-4", 1539, True, False),
        (None, "bot-3", 1500, True, False),
        (2, "b2", 1450, False, False),
        (None, "bot-2", 1323, True, False),
        (3, "b3", 1200, False, True),
        (None, "bot-1", 924, True, False),
    ]
    b1 = rows[1]
    assert (b1["rated_matches"], b1["wins"], b1["losses"], b1["bot_account"]) == (12, 10, 2, True)
    assert rows[0]["house_bot_level"] == 5 and rows[0]["rated_matches"] is None


def _page_rows(html: str) -> list[tuple[str, str, bool]]:
    """(username, rank cell, anchor) of each BOT board row."""
    found = re.findall(r'data-testid="board-row" data-username="([^"]+)"'
                       r'( class="anchor" data-anchor="1")?>\s*<td class="num">(\d*)</td>', html)
    return [(name, rank, bool(anchor)) for name, anchor, rank in found]


def test_bot_rankings_page(field: dict[str, Any]) -> None:
    response = Client().get("/rankings/bots/")
    assert response.status_code == 200
    html = response.content.decode()
    assert _page_rows(html) == [("bot-5", "", True), ("b1", "1", False), ("bot-4", "", True),
                                ("bot-3", "", True), ("b2", "2", False), ("bot-2", "", True),
                                ("b3", "3", False), ("bot-1", "", True)]
    assert html.count('class="bot-badge"') == 3 + 0  # the three BOT accounts; the viewer is anonymous
    assert html.count('data-testid="anchor"') == 5
    pt = Client(headers={"accept-language": "pt-br"}).get("/rankings/bots/").content.decode()
    assert "âncora" in pt and "Conta de robô: um programa que joga pela API de robôs" in pt
    assert 'data-testid="tab-bots">Contas de robô</a>' in pt  # the tab's own word, capitalized
    people = Client().get("/rankings/").content.decode()
    assert 'href="/rankings/bots/"' in people
    assert 'data-username="b1"' not in people and 'data-username="p1"' in people


def test_home_top_list_has_no_bot_account(field: dict[str, Any]) -> None:
    from home.numbers import top_players

    assert [r["username"] for r in top_players()] == ["p1", "p2", "p3"]


def test_api_bot_rankings(field: dict[str, Any]) -> None:
    body = Client().get("/api/v1/rankings/bots/?limit=3").json()
    assert body["count"] == 8 and body["pages"] == 3
    assert [(r["rank"], r["username"], r["rating"], r["anchor"], r["house_bot_level"], r["bot_account"])
            for r in body["results"]] == [
        (None, "bot-5", 1671, True, 5, False), (1, "b1", 1580, False, None, True),
        (None, "bot-4", 1539, True, 4, False)]
    assert body["results"][0]["rated_matches"] is None and body["results"][1]["wins"] == 10
    assert body["next"] == "http://testserver/api/v1/rankings/bots/?limit=3&page=2"
    last = Client().get("/api/v1/rankings/bots/?limit=3&page=3").json()
    assert [(r["rank"], r["username"]) for r in last["results"]] == [(3, "b3"), (None, "bot-1")]
    people = Client().get("/api/v1/rankings/").json()
    assert [r["username"] for r in people["results"]] == ["p1", "p2", "p3"]
    assert all(r["bot_account"] is False and r["anchor"] is False for r in people["results"])


@pytest.mark.parametrize("query, status, error", [
    ("page=0", 400, "bad_query"), ("limit=x", 400, "bad_query"), ("page=4&limit=3", 404, "no_such_page"),
    ("page=1&page=2", 400, "bad_query"),
])
def test_api_bot_rankings_bad_query(field: dict[str, Any], query: str, status: int, error: str) -> None:
    response = Client().get(f"/api/v1/rankings/bots/?{query}")
    assert response.status_code == status
    assert response.json()["error"] == error


def test_api_profile_of_a_bot_account(field: dict[str, Any]) -> None:
    body = Client().get("/api/v1/players/b1/").json()
    assert (body["bot_account"], body["rank"], body["rating"]) == (True, None, 1580)
    assert Client().get("/api/v1/players/p2/").json()["rank"] == 2
