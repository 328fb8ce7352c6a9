"""The rankings and profile pages: what they show, bounded queries, and bad query strings (a 404 gives
the view's reason; the page number and the switches are read strictly, a page past the last shows the
last); a guest's "Jump to my rank", the board's intro, an aborted match's rating JSON."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ratings.models import PlayerRating, RatingChange
from tests.factories import FriendMatchFactory
from web.paging import NoSuchPage

pytestmark = pytest.mark.django_db


def _client(user: Any = None, language: str | None = None) -> Client:
    """A test client, logged in as ``user`` when given, asking for ``language`` (Accept-Language) if given."""
    client = Client(headers={"accept-language": language}) if language else Client()
    if user is not None:
        client.force_login(user)
    return client


def _population(make_member: Callable[[str], Any], n: int) -> list[Any]:
    """``n`` members p00.. with ratings 2000, 1990, ... and 10 + i rated matches (all established)."""
    from accounts.models import User

    users = User.objects.bulk_create([User(username=f"p{i:02d}") for i in range(n)])
    now = timezone.now()
    PlayerRating.objects.bulk_create([
        PlayerRating(user=u, rating=2000 - 10 * i, peak=2000 - 10 * i, rated_matches=10 + i, wins=10,
                     losses=i,
                     last_rated_at=now - timedelta(days=i * 3))
        for i, u in enumerate(users)
    ])
    return users


def _rows(html: str) -> list[tuple[str, str]]:
    """(rank, username) of each board row."""
    return re.findall(r'data-testid="board-row" data-username="([^"]+)">\s*<td class="num">(\d+)</td>', html)


def test_rankings_lists_established_players_by_rating(
    make_member: Callable[[str], Any], house_bots: Any
) -> None:
    users = _population(make_member, 12)
    newbie = make_member("newbie")
    PlayerRating.objects.create(user=newbie, rating=2500, peak=2500, rated_matches=3, wins=3, losses=0)
    html = _client().get("/rankings/").content.decode()
    assert [u for u, _ in _rows(html)] == [u.username for u in users]
    assert [int(r) for _, r in _rows(html)] == list(range(1, 13))
    assert "newbie" not in html  # provisional: hidden by default
    shown = _client().get("/rankings/?provisional=1").content.decode()
    assert _rows(shown)[0][0] == "newbie" and 'class="provisional"' in shown
    # house bots in their own table with their fixed Elo
    bots = re.search(r'data-testid="bots-board">(.*?)</table>', html, re.S).group(1)
    assert re.findall(r'class="num">(\d+)<', bots) == ["924", "1323", "1500", "1539", "1671"]


def test_last_30_days_tab_shows_change_and_record(make_member: Callable[[str], Any], alice: Any, bob: Any,
                                                  finish_friend: Callable[..., Any]) -> None:
    PlayerRating.objects.create(user=alice, rating=1500, peak=1500, rated_matches=9, wins=5, losses=4)
    PlayerRating.objects.create(user=bob, rating=1500, peak=1500, rated_matches=9, wins=5, losses=4)
    from ratings import services

    for _ in range(2):
        match = finish_friend(alice, bob, winner=alice)
        services.match_rate(match_id=match.pk)  # (no on-commit task in a rolled-back test transaction)
    html = _client().get("/rankings/?tab=30d").content.decode()
    assert [u for u, _ in _rows(html)] == ["alice", "bob"]
    changes = RatingChange.objects.filter(player=alice).order_by("id")
    total = round(sum(c.delta for c in changes))
    row = re.search(r'data-username="alice">(.*?)</tr>', html, re.S).group(1)
    assert re.findall(r'<td class="num[^"]*">([^<]+)</td>', row) == [
        "1", str(round(changes.last().after)), f"+{total}", "2", "0"]


def test_viewer_row_is_highlighted_and_jump_to_my_rank(make_member: Callable[[str], Any]) -> None:
    users = _population(make_member, 60)
    me = users[55]
    response = _client(me).get("/rankings/?me=1")
    assert response.status_code == 302 and response["Location"] == "/rankings/?page=2#me"
    html = _client(me).get("/rankings/?page=2").content.decode()
    assert re.search(
        r'<tr class="me" id="me" aria-current="true" data-testid="board-row" data-username="p55">', html)
    assert [r for u, r in _rows(html) if u == "p55"] == ["56"]


@pytest.mark.parametrize(("language", "text"), [
    ("en", "You are provisional (3 of 10 rated matches), so the board leaves you out: here is your rank with "
           "the provisional players shown."),
    ("pt-br", "Você é provisório (3 de 10 partidas valendo rating), por isso a tabela não mostra você"),
])
def test_jump_to_my_rank_of_a_provisional_player_shows_the_provisional_board(
    make_member: Callable[[str], Any], language: str, text: str
) -> None:
    _population(make_member, 60)  # established: 2000, 1990, ..., 1410
    me = make_member("newbie")
    PlayerRating.objects.create(user=me, rating=1445, peak=1520, rated_matches=3, wins=1, losses=2,
                                last_rated_at=timezone.now())
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(me)
    response = client.get("/rankings/?me=1")
    # 56 players rated 1450 and up are ahead: rank 57, on page 2 of the board with provisional players.
    assert response.status_code == 302 and response["Location"] == "/rankings/?provisional=1&page=2#me"
    html = client.get(response["Location"]).content.decode()
    assert text in html
    assert [r for u, r in _rows(html) if u == "newbie"] == ["57"]
    assert 'class="me" id="me"' in html


@pytest.mark.parametrize(("query", "setup", "location", "text"), [
    ("me=1", "none", "/rankings/", "You have no rated match yet: play one (against a bot or a member)"),
    ("tab=30d&me=1", "old", "/rankings/?tab=30d",
     "You have no rated match in the last 30 days, so you are not on this board: your rank is on the"),
])
def test_jump_to_my_rank_off_every_board_says_why(
    make_member: Callable[[str], Any], query: str, setup: str, location: str, text: str
) -> None:
    users = _population(make_member, 30)
    me = make_member("newbie") if setup == "none" else users[25]  # p25: last rated 75 days ago
    client = _client(me)
    response = client.get(f"/rankings/?{query}")
    assert response.status_code == 302 and response["Location"] == location
    assert text in client.get(location).content.decode()


def test_search_takes_a_whole_username(make_member: Callable[[str], Any]) -> None:
    """Names take 150 characters, so the search does too (the input's maxlength as well); longer is a
    form error (400), never a 500."""
    long_name = "j" * 149 + "z"
    member = make_member(long_name)
    PlayerRating.objects.create(user=member, rating=1600, peak=1600, rated_matches=12, wins=6, losses=6)
    _population(make_member, 3)
    html = _client().get(f"/rankings/?q={long_name}").content.decode()
    assert [u for u, _ in _rows(html)] == [long_name]
    assert 'maxlength="150"' in html
    too_long = _client().get(f"/rankings/?q={long_name}x")
    assert too_long.status_code == 400
    assert "Ensure this value has at most 150 characters (it has 151)" in too_long.content.decode()


def test_board_and_profile_links_are_the_profile_addresses(make_member: Callable[[str], Any]) -> None:
    """The rows' links are built without reverse() per row: the same addresses, quoting included."""
    from django.urls import reverse

    users = _population(make_member, 2)
    odd = make_member("ǅemal+.@-_ß")
    PlayerRating.objects.create(user=odd, rating=1999, peak=1999, rated_matches=12, wins=6, losses=6)
    html = _client().get("/rankings/").content.decode()
    links = re.findall(r'data-testid="board-row" data-username="[^"]+">\s*<td class="num">\d+</td>\s*'
                       r'<td class="opponent"><a href="([^"]+)"', html)
    assert links == [reverse("ratings:profile", args=[u.username]) for u in (users[0], odd, users[1])]
    assert links[1] == "/u/D%C5%BEemal+.@-_%C3%9F/"


def test_search_by_name_prefix_keeps_the_board_rank(make_member: Callable[[str], Any]) -> None:
    _population(make_member, 30)
    html = _client().get("/rankings/?q=P2").content.decode()  # case-insensitive prefix
    assert _rows(html) == [(f"p{i}", str(i + 1)) for i in range(20, 30)]
    assert _client().get("/rankings/?q=zzz").content.decode().count('data-testid="board-empty"') == 1


@pytest.mark.parametrize(("query", "status"), [
    ("tab=week", 404), ("tab=", 200), ("page=0", 400), ("page=-1", 400), ("page=abc", 400), ("page=1.5", 400),
    ("page=99", 200), (f"page={10**30}", 200), ("q=" + "x" * 10_000, 400), ("q=%F0%9F%83%8F", 200),
    ("q=%E2%80%AE%E2%80%8B", 200), ("q=%ED%A0%80", 200), ("provisional=maybe", 400),
])
def test_bad_query_strings_are_a_404_a_form_error_or_the_last_page(
    query: str, status: int, make_member: Callable[[str], Any]
) -> None:
    _population(make_member, 3)
    response = _client().get(f"/rankings/?{query}")
    assert response.status_code == status
    if status == 400:
        assert ("Ensure this value has at most 150 characters (it has 10000)" in response.content.decode()
                or "Use 1 or 0 (or true or false)." in response.content.decode()
                or "The page must be a whole number from 1." in response.content.decode())
    if query.startswith("page=") and status == 200:  # past the last page: the last page, saying so
        assert "on this board: here is the last page." in response.content.decode()


def test_nul_in_search_is_refused_without_a_500(make_member: Callable[[str], Any]) -> None:
    response = _client().get("/rankings/?q=a%00b")
    assert response.status_code == 400


def test_rankings_query_count_is_bounded(make_member: Callable[[str], Any], house_bots: Any) -> None:
    users = _population(make_member, 60)
    client = _client(users[3])
    client.get("/rankings/")  # warm the session
    for url in ("/rankings/", "/rankings/?tab=30d&provisional=1", "/rankings/?page=2", "/rankings/?q=p",
                "/rankings/?q=p5&tab=30d"):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        # Session, viewer, (board count), the page's ids and rows (or a search's rows and their ranks,
        # one query for all), the 30-day changes, the bots, the member's unseen event notices (the bar
        # on every signed-in page, tournament_notice_tags): not one query per row.
        assert len(queries) <= 8, [q["sql"] for q in queries]


def test_profile_shows_rating_rank_record_chart_and_matches(
    alice: Any, bob: Any, house_bots: Any, finish_friend: Callable[..., Any], finish_bot: Callable[..., Any]
) -> None:
    from ratings import services

    for match in (finish_friend(alice, bob, winner=alice), finish_bot(alice, 3, won=False),
                  finish_friend(alice, bob, winner=alice)):
        services.match_rate(match_id=match.pk)  # (no on-commit task in a rolled-back test transaction)
    client = _client(bob)
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/u/alice/")
    assert response.status_code == 200
    # (8 before the "left N of M rated matches" card, lobby.playbans.left_count: one aggregate; 10 with
    # the Challenge box's "do they accept challenges", lobby.challenges.accepts_challenges: one row; 11
    # with the rating refunds, ratings.selectors.refunds_of: one indexed read; 12 with the member's unseen
    # event notices, the bar on every signed-in page: tournament_notice_tags)
    assert len(queries) <= 12, [q["sql"] for q in queries]
    html = response.content.decode()
    changes = list(RatingChange.objects.filter(player=alice).order_by("created_at", "id"))
    assert len(changes) == 3
    rating = round(changes[-1].after)
    assert re.search(rf'data-testid="profile-rating">{rating}<abbr class="provisional"', html)
    assert "vs members 2–0" in html and "vs bots 0–1" in html
    points = re.findall(r'data-testid="chart-point" data-match="(\d+)" data-rating="(\d+)"', html)
    assert points == [(str(c.match_id), str(round(c.after))) for c in changes]
    svg = html.split("<svg", 1)[1].split("</svg>")[0]
    assert "<polyline" in svg and "http" not in svg.replace("http://www.w3.org", "")  # inline, no CDN
    rows = re.findall(r'data-testid="profile-match" data-match="(\d+)"', html)
    assert rows == [str(c.match_id) for c in reversed(changes)]
    first = changes[0]
    assert (f'<span class="nowrap">{round(first.before)} → {round(first.after)}</span> '
            '<span class="nowrap up">(+20)</span>') in html


def _history(player: Any, opponent: Any, n: int) -> list[RatingChange]:
    """``n`` rated wins of ``player`` over ``opponent``, one a day back from today (the newest last),
    1500 + 10 * i after the i-th."""
    from games.models import Match, MatchStatus

    matches = Match.objects.bulk_create([
        Match(rules={}, player0=player, player1=opponent, status=MatchStatus.FINISHED, rated=True,
              winner=0, scores=[100, 0]) for _ in range(n)
    ])
    changes = RatingChange.objects.bulk_create([
        RatingChange(match=m, player=player, opponent=opponent, before=1500 + 10 * i, after=1510 + 10 * i,
                     delta=10, k=20, expected=0.5, opponent_rating=1500, won=True)
        for i, m in enumerate(matches)
    ])
    now = timezone.now().replace(microsecond=123456)
    for i, c in enumerate(changes):
        c.created_at = now - timedelta(days=n - 1 - i, minutes=i)
        RatingChange.objects.filter(pk=c.pk).update(created_at=c.created_at)
    PlayerRating.objects.create(user=player, rating=1500 + 10 * n, peak=1500 + 10 * n, rated_matches=n,
                                wins=n, losses=0, last_rated_at=now)
    return changes


def test_profile_chart_is_one_point_per_match_without_a_date_per_point(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """120 rated matches on 120 days: 120 points (match, rating after, time as a number), and the page
    formats dates only for its table of the last 20 matches (2 each), not one per chart point."""
    from django.utils import dateformat

    changes = _history(alice, bob, 120)
    calls = []
    real = dateformat.format

    def counting(value: Any, format_string: str) -> str:
        calls.append(value)
        return real(value, format_string)

    client = _client(bob)
    monkeypatch.setattr(dateformat, "format", counting)
    with CaptureQueriesContext(connection) as queries:
        html = client.get("/u/alice/").content.decode()
    # Session, viewer, the player, their rating, record, chart (history), rank, the aborts card (one
    # aggregate, games.aborts), the left-matches card (one aggregate, lobby.playbans.left_count) and the
    # Challenge box's "do they accept challenges" (one row, lobby.challenges.accepts_challenges), the
    # rating refunds (ratings.selectors.refunds_of), the viewer's unseen event notices (the bar on every
    # signed-in page, tournament_notice_tags): whatever the history.
    assert len(queries) <= 12, [q["sql"] for q in queries]
    points = re.findall(r'data-match="(\d+)" data-rating="(\d+)" data-at="(\d+)"><title>([^<]*)</title>',
                        html)
    assert points == [
        (str(c.match_id), str(1510 + 10 * i), str(int(c.created_at.timestamp())),
         f"Match {c.match_id} vs bob: {1500 + 10 * i} → {1510 + 10 * i} (+10)")
        for i, c in enumerate(changes)
    ]
    assert len(calls) <= 3 * 20, len(calls)  # the listed matches' (datetime, date and time, phone's date)
    rows = re.findall(
        r'data-testid="profile-match" data-match="(\d+)">\s*<td class="wide-only"><time datetime="([^"]+)"',
        html)
    newest = changes[::-1][:20]
    assert rows == [(str(c.match_id), c.created_at.isoformat()) for c in newest]


def test_profile_chart_draws_the_latest_500(alice: Any, bob: Any) -> None:
    changes = _history(alice, bob, 503)
    html = _client().get("/u/alice/").content.decode()
    drawn = re.findall(r'data-testid="chart-point" data-match="(\d+)"', html)
    assert drawn == [str(c.match_id) for c in changes[3:]]
    assert "The latest 500 rated matches." in html


@pytest.mark.parametrize("path", ["/u/nobody/", "/u/" + "x" * 5000 + "/", "/u/%E2%80%AE/"])
def test_unknown_profile_is_a_404(path: str, db: None) -> None:
    assert _client().get(path).status_code == 404


def test_guest_has_no_profile_and_bots_show_their_fixed_rating(guest: Any, house_bots: Any) -> None:
    assert _client().get(f"/u/{guest.username}/").status_code == 404
    html = _client().get("/u/bot-5/").content.decode()
    assert 'data-testid="profile-rating">1671<' in html


def test_header_links_to_the_rankings(db: None) -> None:
    assert 'href="/rankings/" data-testid="nav-rankings"' in _client().get("/").content.decode()


def test_bot_picker_shows_the_expected_score_in_both_languages(
    alice: Any, guest: Any, house_bots: Any
) -> None:
    client = _client(alice)
    html = client.get("/play/bot/").content.decode()
    # 1500 vs 1671: E = 0.2720 -> 27 %; vs 924: E = 1/(1+10**(-576/400)) = 0.9650 -> 96 %.
    assert re.search(r'data-testid="expected-5"[^>]*>you: 27%<', html)
    assert re.search(r'data-testid="expected-1"[^>]*>you: 96%<', html)
    assert "your rating is 1500" in html
    client.cookies["django_language"] = "pt-br"
    pt = client.get("/play/bot/").content.decode()
    assert re.search(r'data-testid="expected-5"[^>]*>você: 27%<', pt) and "seu rating é 1500" in pt
    assert 'href="/rankings/" data-testid="nav-rankings">Ranking<' in pt
    assert "Valendo rating" in client.get("/play/friend/").content.decode()
    guest_html = _client(guest).get("/play/bot/").content.decode()
    assert 'data-testid="expected-' not in guest_html and "never rated" in guest_html


def test_rankings_and_profile_in_portuguese(alice: Any, bob: Any, finish_friend: Callable[..., Any]) -> None:
    from ratings import services

    services.match_rate(match_id=finish_friend(alice, bob, winner=alice).pk)
    client = _client(alice)
    client.cookies["django_language"] = "pt-br"
    assert "Jogadores com menos de 10 partidas" in client.get("/rankings/").content.decode()
    profile = client.get("/u/alice/").content.decode()
    assert "Histórico de rating" in profile and "contra membros 1–0" in profile
    # The chart's hover title in Portuguese, its coordinates in SVG syntax (a decimal point, never
    # pt-BR's decimal comma, which no browser parses as a coordinate).
    change = RatingChange.objects.get(player=alice)
    point = re.search(r'data-testid="chart-point"[^>]*data-at="(\d+)"><title>([^<]*)</title>', profile)
    assert point and point.group(2) == f"Partida {change.match_id} contra bob: 1500 → 1520 (+20)"
    # The day is the browser's to add (ratings/chart.js), from the time as a number.
    assert int(point.group(1)) == int(change.created_at.timestamp())
    assert "ratings/chart.js" in profile
    svg = profile.split("<svg", 1)[1].split("</svg>")[0]
    coordinates = re.findall(r' (?:cx|cy|y1|y2|y)="([^"]*)"', svg)
    assert coordinates and all(re.fullmatch(r"\d+(\.\d)?", c) for c in coordinates), coordinates


@pytest.mark.parametrize(("n", "lang", "text"), [
    (1, "en", "Page 1 of 1 · 1 player<"), (2, "en", "Page 1 of 1 · 2 players<"),
    (1, "pt-br", "Página 1 de 1 · 1 jogador<"), (2, "pt-br", "Página 1 de 1 · 2 jogadores<"),
])
def test_the_board_counts_players_with_plural_forms(
    make_member: Callable[[str], Any], n: int, lang: str, text: str
) -> None:
    _population(make_member, n)
    html = _client().get("/rankings/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert text in html


def test_profile_address_ignores_case_and_compatibility_forms(make_member: Callable[[str], Any]) -> None:
    """/u/<name>/ finds the player as the API does: ignoring case, after the NFKC normalisation sign-up
    applies (typed 'ǅemal-ß', U+01C5, is stored 'Džemal-ß'); other spellings redirect to the stored one."""
    from urllib.parse import quote

    stored = make_member("ǅemal-ß").username
    assert stored == "Džemal-ß"
    make_member("alice_b")
    client = Client()
    assert client.get("/u/alice_b/").status_code == 200
    # (Case of non-ASCII letters: as the database's lower() has it, the unique constraint's function:
    # PostgreSQL folds Ž/ž, SQLite only ASCII; so only ASCII case changes here.)
    for typed, canonical in (("ALICE_B", "alice_b"), ("Alice_B", "alice_b"), ("ǅemal-ß", stored),
                             ("džEMAL-ß", stored)):
        response = client.get(f"/u/{quote(typed)}/?tab=x")
        assert response.status_code == 302, typed
        assert response["Location"] == f"/u/{quote(canonical)}/?tab=x"
        assert client.get(response["Location"]).status_code == 200
    for typed in ("ǅemal-ß", "džEMAL-ß", "džemal-ß", "alice_B"):
        api = client.get(f"/api/v1/players/{quote(typed)}/")
        assert api.status_code == 200, typed
        assert api.json()["username"] in (stored, "alice_b")
    assert client.get("/u/nobody/").status_code == 404


def test_a_stale_board_count_never_hides_players(make_member: Callable[[str], Any]) -> None:
    """Found by a trial: the board's count was cached for a minute and Django's paginator cut the rows to
    it, so a new player's "jump to my rank" showed "Nobody on this board yet". The all-time boards'
    counts are exact (the rating buckets); the 30-day count may lag, but only the "of N" does."""
    from accounts.models import User
    from ratings import selectors

    _population(make_member, 3)  # rated 0, 3 and 6 days ago: all on both tabs
    for tab in ("all", "30d"):
        assert selectors.board_page(tab=tab, provisional=False, search="", page=1, per_page=2).count == 3
    late = User.objects.bulk_create([User(username=f"late{i}") for i in range(3)])
    PlayerRating.objects.bulk_create([
        PlayerRating(user=u, rating=2100 + i, peak=2100, rated_matches=12, wins=12, losses=0,
                     last_rated_at=timezone.now()) for i, u in enumerate(late)
    ])
    exact = selectors.board_page(tab="all", provisional=False, search="", page=3, per_page=2)
    assert exact.count == 6 and [r["rank"] for r in exact.rows] == [5, 6] and not exact.page.has_next()
    # The 30-day count is still the cached 3: every row is shown anyway, with a next page while one exists.
    pages = [selectors.board_page(tab="30d", provisional=False, search="", page=n, per_page=2)
             for n in (1, 2, 3)]
    assert [[r["username"] for r in b.rows] for b in pages] == [
        ["late2", "late1"], ["late0", "p00"], ["p01", "p02"]]
    assert [b.page.has_next() for b in pages] == [True, True, False]
    with pytest.raises(NoSuchPage):
        selectors.board_page(tab="30d", provisional=False, search="", page=4, per_page=2)
    html = _client().get("/rankings/?tab=30d").content.decode()
    assert [u for u, _ in _rows(html)][:3] == ["late2", "late1", "late0"]


def _reason(html: str) -> str | None:
    found = re.search(r'data-testid="error-reason">([^<]*)</p>', html)
    return found.group(1) if found else None


def _board(make_member: Callable[[str], Any], n: int = 3) -> list[Any]:
    users = [make_member(f"p{i}") for i in range(n)]
    for i, u in enumerate(users):
        PlayerRating.objects.create(user=u, rating=1900 - i, peak=1900 - i, rated_matches=12, wins=6,
                                    losses=6)
    return users


@pytest.mark.parametrize(("url", "en", "pt"), [
    ("/rankings/?tab=x", "Unknown tab: use “all” or “30d”.", "Aba desconhecida: use “all” ou “30d”."),
    ("/u/nobody/", "No such player.", "Jogador não encontrado."),
])
def test_a_404_says_the_views_reason_in_production(
        url: str, en: str, pt: str, make_member: Callable[[str], Any], settings: Any) -> None:
    assert settings.DEBUG is False
    _board(make_member)
    for language, reason in (("en", en), ("pt-br", pt)):
        response = _client(language=language).get(url)
        assert response.status_code == 404 and _reason(response.content.decode()) == reason


def test_a_404_never_shows_djangos_own_message(db: None) -> None:
    for url in ("/no-such-page/", "/t/%00/"):
        html = _client().get(url).content.decode()
        assert _reason(html) is None and "NUL in the path" not in html and "URLconf" not in html


def _page_rows(html: str) -> list[str]:
    return re.findall(r'data-testid="board-row" data-username="([^"]+)"', html)


@pytest.mark.parametrize(("page", "shown"), [
    (str(10**30), "100000000000…"), ("1000001", "1000001"), ("0002", "2"), ("99", "99"),
    ("999999999", "999999999"),
])
def test_a_page_past_the_last_shows_the_last_page_saying_so(
        page: str, shown: str, make_member: Callable[[str], Any]) -> None:
    """Issue 22 item 7: ``?page=999999999`` was a 404; now the last page (here page 1 of 1), 200."""
    _board(make_member)
    response = _client().get(f"/rankings/?page={page}")
    html = response.content.decode()
    assert response.status_code == 200
    assert f'data-testid="page-note">There is no page {shown} on this board: here is the last page.<' in html
    assert _page_rows(html) == ["p0", "p1", "p2"] and "Page 1 of 1 · 3 players" in html


def test_the_last_page_of_a_long_board_is_shown_past_its_end(make_member: Callable[[str], Any]) -> None:
    _board(make_member, n=53)  # 50 a page: page 2 holds p50..p52
    response = _client(language="pt-br").get("/rankings/?page=999999999")
    html = response.content.decode()
    assert response.status_code == 200 and _page_rows(html) == ["p50", "p51", "p52"]
    assert "Não existe a página 999999999 nesta tabela: esta é a última página." in html
    assert "Página 2 de 2 · 53 jogadores" in html


@pytest.mark.parametrize("page", ["abc", "２", "١", "+1", " 1", "1_0", "0", "1.0", "-1", ""])
def test_a_page_that_is_not_a_whole_number_is_a_400_naming_the_page(
        page: str, make_member: Callable[[str], Any]) -> None:
    """Issue 22 item 7: not a number is a 400 with the reason under the form, over the first page."""
    _board(make_member)
    for language, error in (("en", "The page must be a whole number from 1."),
                            ("pt-br", "A página deve ser um número inteiro a partir de 1.")):
        response = _client(language=language).get("/rankings/", {"page": page})
        html = response.content.decode()
        if page == "":  # an empty page is the first page (the form's own blank)
            assert response.status_code == 200 and 'data-testid="page-error"' not in html
            continue
        assert response.status_code == 400
        assert f'<ul class="errorlist" data-testid="page-error"><li>{error}</li></ul>' in html
        assert _page_rows(html) == ["p0", "p1", "p2"]


def test_a_nul_in_the_page_is_refused_before_the_view(make_member: Callable[[str], Any]) -> None:
    _board(make_member)
    response = _client().get("/rankings/?page=1%00")
    html = response.content.decode()
    assert response.status_code == 400 and "contains a NUL character (%00)" in html
    assert 'data-testid="board"' not in html


@pytest.mark.parametrize(("value", "shown"), [
    ("1", True), ("true", True), ("0", False), ("false", False), ("", False),
])
def test_the_provisional_switch_reads_1_0_true_false(
        value: str, shown: bool, make_member: Callable[[str], Any]) -> None:
    _board(make_member)
    newbie = make_member("newbie")
    PlayerRating.objects.create(user=newbie, rating=2500, peak=2500, rated_matches=3, wins=3, losses=0)
    response = _client().get("/rankings/", {"provisional": value})
    assert response.status_code == 200
    assert ('data-username="newbie"' in response.content.decode()) is shown


@pytest.mark.parametrize("value", ["no", "yes", "on", "TRUE", "2"])
def test_any_other_switch_value_is_a_form_error(value: str, make_member: Callable[[str], Any]) -> None:
    _board(make_member)
    newbie = make_member("newbie")
    PlayerRating.objects.create(user=newbie, rating=2500, peak=2500, rated_matches=3, wins=3, losses=0)
    for name in ("provisional", "me"):
        for language, error in (("en", "Use 1 or 0 (or true or false)."),
                                ("pt-br", "Use 1 ou 0 (ou true ou false).")):
            response = _client(language=language).get("/rankings/", {name: value})
            html = response.content.decode()
            assert response.status_code == 400 and error in html and 'data-username="newbie"' not in html


def test_the_intro_says_what_the_board_shows(make_member: Callable[[str], Any]) -> None:
    _board(make_member)
    hidden = _client().get("/rankings/").content.decode()
    shown = _client().get("/rankings/?provisional=1").content.decode()
    assert "Every established player by rating." in hidden and "established and provisional" not in hidden
    assert "Every player by rating, established and provisional." in shown
    assert "Every established player" not in shown
    shown_pt = _client(language="pt-br").get("/rankings/?provisional=1").content.decode()
    assert "Todos os jogadores, estabelecidos e provisórios, por rating." in shown_pt


def test_a_guest_jumping_to_their_rank_is_told_to_sign_up(guest: Any) -> None:
    link = '<a href="/accounts/signup/">'
    for language, text in (("en", f"Guests' matches are never rated: {link}sign up</a>"),
                           ("pt-br", f"Partidas de convidados nunca valem rating: {link}crie uma conta</a>")):
        response = _client(guest, language).get("/rankings/?me=1", follow=True)
        html = response.content.decode()
        assert response.redirect_chain == [("/rankings/", 302)]
        assert text in html and "play one" not in html


def test_an_aborted_matchs_rating_json_says_it_is_never_rated(alice: Any, bob: Any) -> None:
    from games import services
    from games.models import Match

    match = FriendMatchFactory(host=alice, friend=bob)
    services.match_resign(match_id=match.pk, user=bob)  # before anyone moved: aborted
    assert Match.objects.get(pk=match.pk).status == "aborted"
    response = _client(alice).get(f"/ratings/match/{match.pk}.json")
    assert response.status_code == 404
    assert response.json() == {"error": "aborted: never rated", "rated": False, "aborted": True}


def test_a_profile_never_shows_its_owner_as_the_visitor(alice: Any, bob: Any) -> None:
    """The site header reads ``user`` (the viewer): the profile's owner once overrode it, so a visitor
    saw "alice  Log out" on alice's profile."""
    html = _client().get(f"/u/{alice.username}/").content.decode()
    assert 'data-testid="who"' not in html and "Log out" not in html and "<h1>" in html
    assert f'<h1><span class="player-name" title="{alice.username}">{alice.username}</span>' in html
    seen_by_bob = _client(bob).get(f"/u/{alice.username}/").content.decode()
    assert re.search(r'data-testid="who"><span class="player-name" title="bob">bob</span>', seen_by_bob)


@pytest.mark.parametrize(("language", "text", "link"), [
    ("en", "No established player has a name starting like that, but a provisional player (fewer than 10 "
           "rated matches) does.", "Show provisional players"),
    ("pt-br", "Nenhum jogador estabelecido tem um nome que comece assim, mas um jogador provisório (menos "
              "de 10 partidas valendo rating) tem.", "Mostrar jogadores provisórios"),
])
def test_a_search_for_a_provisional_name_offers_the_switch(
        language: str, text: str, link: str, make_member: Callable[[str], Any]) -> None:
    """Issue 22 item 7: searching your own provisional name with the box unticked said only that nobody
    has such a name; now it says a provisional player does, with a link that ticks the switch."""
    _board(make_member)
    newbie = make_member("newbie")
    PlayerRating.objects.create(user=newbie, rating=1510, peak=1510, rated_matches=3, wins=2, losses=1)
    html = _client(language=language).get("/rankings/", {"q": "NEWB"}).content.decode()
    assert f'<span data-testid="provisional-found">{text} ' in html
    assert f'<a href="/rankings/?provisional=1&amp;q=NEWB" data-testid="show-provisional">{link}</a>' in html
    followed = _client(language=language).get("/rankings/", {"provisional": "1", "q": "NEWB"})
    followed = followed.content.decode()
    assert _page_rows(followed) == ["newbie"] and 'data-testid="provisional-found"' not in followed
    # Nobody of that name at all, or a name on the board itself: the plain sentence / the rows, no offer.
    nobody = _client().get("/rankings/", {"q": "zzz"}).content.decode()
    assert "No player on this board has a name starting like that." in nobody
    assert 'data-testid="provisional-found"' not in nobody
    assert 'data-testid="provisional-found"' not in _client().get("/rankings/", {"q": "p1"}).content.decode()
