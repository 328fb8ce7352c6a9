"""The pool pages: /play/ lists the active pools with their waiting counts (a guest sees the rated ones
disabled, with why), the waiting screen, 404 for a closed pool; English and pt-BR."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from lobby import pools

pytestmark = pytest.mark.django_db


def _client(user: Any | None, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        client.force_login(user)
    return client


def test_play_lists_the_active_pools_with_their_counts(
    alice: Any, bob: Any, rated_pool: Any, casual_pool: Any,
) -> None:
    pools.pool_join(user=bob, slug=rated_pool.slug)
    page = _client(alice).get("/play/").content.decode()
    rated = page[page.index(f'data-testid="pool-{rated_pool.slug}"'):]
    rated = rated[:rated.index("</li>")]
    assert "100 points · 60 s a move · Rated" in rated
    assert "1 player waiting" in rated
    assert f'href="/play/pool/{rated_pool.slug}/"' in rated
    casual = page[page.index(f'data-testid="pool-{casual_pool.slug}"'):]
    assert "0 players waiting" in casual[:casual.index("</li>")]
    pools.pool_join(user=alice, slug=casual_pool.slug)
    page = _client(alice, "pt-BR").get("/play/").content.decode()
    assert "1 jogador esperando" in page and "0 jogadores esperando" not in page
    assert 'href="/play/bot/"' in page and 'href="/play/friend/"' in page
    casual_pool.active = False
    casual_pool.save()
    assert casual_pool.slug not in _client(alice).get("/play/").content.decode()


def test_a_guest_sees_rated_pools_disabled_with_why(guest: Any, rated_pool: Any, casual_pool: Any) -> None:
    page = _client(guest).get("/play/").content.decode()
    rated = page[page.index(f'data-testid="pool-{rated_pool.slug}"'):]
    rated = rated[:rated.index("</li>")]
    assert "guests play casual games only: sign up to play rated" in rated and "disabled" in rated
    assert f'data-testid="join-{casual_pool.slug}"' in page
    wait = _client(guest).get(f"/play/pool/{rated_pool.slug}/").content.decode()
    assert 'data-testid="pool-why"' in wait and "pool.js" not in wait


def test_the_waiting_screen(alice: Any, rated_pool: Any) -> None:
    response = _client(alice).get(f"/play/pool/{rated_pool.slug}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert f'data-slug="{rated_pool.slug}"' in page and "lobby/pool.js" in page
    assert 'data-testid="pool-cancel"' in page and 'data-testid="pool-bot"' in page
    assert "If nobody comes in 30 s, play a house bot instead" in page
    box = page.index('data-testid="pool-bot"')
    assert " checked" not in page[box - 40:box + 40]  # off by default
    assert _client(alice).get("/play/pool/nope/").status_code == 404


def test_pages_in_portuguese(alice: Any, rated_pool: Any) -> None:
    page = _client(alice, "pt-BR").get("/play/").content.decode()
    assert "Jogue agora com um desconhecido" in page and "100 pontos" in page
    wait = _client(alice, "pt-BR").get(f"/play/pool/{rated_pool.slug}/").content.decode()
    assert "Se ninguém vier em 30 s, jogue contra um robô da casa" in wait


def test_a_guest_reads_why_in_portuguese(guest: Any, rated_pool: Any) -> None:
    page = _client(guest, "pt-BR").get("/play/").content.decode()
    assert "convidados jogam apenas partidas casuais: cadastre-se para jogar valendo rating" in page


def test_play_shows_the_readers_playban_with_its_reason(alice: Any, bob: Any, rated_pool: Any) -> None:
    import datetime as dt

    from django.utils import timezone

    from lobby.models import Playban

    assert 'data-testid="playban"' not in _client(alice).get("/play/").content.decode()
    ends = timezone.now() + dt.timedelta(minutes=14, seconds=30)
    Playban.objects.create(user=alice, reason="abandoned", ends_at=ends)
    page = _client(alice).get("/play/").content.decode()
    assert 'data-reason="abandoned"' in page and 'data-minutes="15"' in page
    assert "you left a rated match: you can pair again in 15 minutes" in page
    assert 'data-testid="playban"' not in _client(bob).get("/play/").content.decode()


def _row(page: str, slug: str) -> str:
    row = page[page.index(f'data-testid="pool-{slug}"'):]
    return row[:row.index("</li>")]


@pytest.mark.parametrize(("language", "notice", "link"), [
    ("en", "You have a rated match in progress", "Continue your match"),
    ("pt-BR", "Você tem uma partida valendo rating em andamento", "Continuar sua partida"),
])
def test_play_during_a_rated_match_links_to_it_and_disables_join(
    alice: Any, bob: Any, carol: Any, rated_pool: Any, casual_pool: Any,
    language: str, notice: str, link: str,
) -> None:
    """busy.check_free refuses any pool join (rated or casual) during an active rated match: /play/ says
    so with a link to the table and disables every Join; the server still refuses the join."""
    from games import services as game_services
    from games.services import GameError

    match = game_services.match_create_seated(player0=alice, player1=bob, rated=True)
    page = _client(alice, language).get("/play/").content.decode()
    assert notice in page and link in page
    assert f'href="/match/{match.pk}/" data-testid="continue-match"' in page
    for slug in (rated_pool.slug, casual_pool.slug):
        row = _row(page, slug)
        assert f'data-testid="join-{slug}"' in row and " disabled" in row and "/play/pool/" not in row
        assert str(match.pk) in row[row.index('data-testid="pool-why"'):]  # the server's own reason
    with pytest.raises(GameError) as info:
        pools.pool_join(user=alice, slug=casual_pool.slug)
    assert info.value.code == "match_in_progress"
    # carol, in no match, sees neither the notice nor a disabled Join
    other = _client(carol, language).get("/play/").content.decode()
    assert notice not in other and 'data-testid="continue-match"' not in other
    for slug in (rated_pool.slug, casual_pool.slug):
        assert f'href="/play/pool/{slug}/"' in other


def test_a_casual_match_leaves_the_pools_joinable(alice: Any, bob: Any, casual_pool: Any) -> None:
    from games import services as game_services

    game_services.match_create_seated(player0=alice, player1=bob, rated=False)
    page = _client(alice).get("/play/").content.decode()
    assert 'data-testid="continue-match"' not in page
    assert f'href="/play/pool/{casual_pool.slug}/"' in page


def test_a_playban_disables_join_on_play_and_the_lobbys_challenge_form(
    alice: Any, rated_pool: Any, casual_pool: Any,
) -> None:
    import datetime as dt

    from django.utils import timezone

    from games.services import GameError
    from lobby.models import Playban

    Playban.objects.create(user=alice, reason="abandoned", ends_at=timezone.now() + dt.timedelta(minutes=5))
    page = _client(alice).get("/play/").content.decode()
    assert 'id="playban"' in page
    for slug in (rated_pool.slug, casual_pool.slug):
        row = _row(page, slug)
        assert " disabled" in row and 'aria-describedby="playban"' in row and "/play/pool/" not in row
        assert 'data-testid="pool-why"' not in row  # the notice above says why, once
    lobby = _client(alice).get("/lobby/").content.decode()
    button = lobby[lobby.index('data-testid="seek-create"'):]
    assert button[:button.index(">")] == 'data-testid="seek-create" disabled aria-describedby="playban"'
    with pytest.raises(GameError) as info:
        pools.pool_join(user=alice, slug=casual_pool.slug)
    assert info.value.code == "playban"


@pytest.mark.parametrize(("language", "rated_label", "casual_label", "bot_line"), [
    ("en", "100 points · 60 s a move · Rated", "50 points · 20 s a move · Casual",
     "If nobody comes in 30 s, play a house bot instead"),
    ("pt-BR", "100 pontos · 60 s por jogada · Valendo rating", "50 pontos · 20 s por jogada · Casual",
     "Se ninguém vier em 30 s, jogue contra um robô da casa"),
])
def test_one_pool_label_on_play_the_home_buttons_and_the_waiting_screen(
    alice: Any, rated_pool: Any, casual_pool: Any, language: str, rated_label: str, casual_label: str,
    bot_line: str,
) -> None:
    """lobby.labels.pool_label names each pool the same way on /play/, the home page's one-click buttons
    and the waiting screen, in the reader's language; the API says it in English."""
    from lobby.labels import pool_label

    assert (pool_label(rated_pool, language.lower()), pool_label(casual_pool, language.lower())) == (
        rated_label, casual_label)
    client = _client(alice, language)
    play = client.get("/play/").content.decode()
    home = client.get("/").content.decode()
    for pool, label in ((rated_pool, rated_label), (casual_pool, casual_label)):
        row = play[play.index(f'data-testid="pool-{pool.slug}"'):]
        assert f'data-testid="pool-label">{label}</strong>' in row[:row.index("</li>")]
        assert f'<span class="pool-name" data-testid="pool-label-{pool.slug}">{label}</span>' in home
        wait = client.get(f"/play/pool/{pool.slug}/").content.decode()
        assert f'<h1 id="wait-title" data-testid="pool-label">{label}</h1>' in wait
    assert bot_line in wait
    api = {row["slug"]: row["name"]
           for row in Client(HTTP_ACCEPT_LANGUAGE=language).get("/api/v1/pools/").json()["results"]}
    assert (api[rated_pool.slug], api[casual_pool.slug]) == (
        "100 points · 60 s a move · Rated", "50 points · 20 s a move · Casual")
