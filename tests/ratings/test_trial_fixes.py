"""What the new-user trial of the ratings feature found (issue 10), each fixed: the 404 page gives the
view's reason in production (DEBUG off, pytest-django's default), the page number and the switches are
read strictly, a guest's "Jump to my rank", an aborted match's rating JSON, the board's intro."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from ratings.models import PlayerRating

pytestmark = pytest.mark.django_db


def _client(user: Any = None, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    if user is not None:
        client.force_login(user)
    return client


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

    table = services.table_create(user=alice, rules_preset="classic", target=100, turn_timer=None)
    match = services.table_join(user=bob, token=table.invite_token)
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
