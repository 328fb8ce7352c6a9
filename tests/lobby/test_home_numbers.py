"""The home page's numbers (``home.numbers``, ``web.presence``) on worked data, and the page itself for an
anonymous visitor, a guest and a member."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Match, MatchStatus, ResultReason
from home import numbers as home_numbers
from lobby.models import EntryStatus, Pool, PoolEntry
from ratings.models import PlayerRating
from tests.lobby.home_pools import ensure_default_pools
from tournaments.models import Registration, Tournament, TournamentStatus
from web import presence

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def default_pools(db: None) -> None:
    ensure_default_pools()


def member(name: str, rating: float | None = None, matches: int = 10) -> User:
    user = User.objects.create(username=name)  # no password: hashing costs 0.3 s
    if rating is not None:
        PlayerRating.objects.create(user=user, rating=rating, peak=rating, rated_matches=matches,
                                    wins=matches, losses=0, last_rated_at=timezone.now())
    return user


def active(p0: User, p1: User, *, rated: bool, **extra: Any) -> Match:
    return Match.objects.create(rules={"target": 100}, player0=p0, player1=p1, status=MatchStatus.ACTIVE,
                                rated=rated, first_dealer=0, turn_timer_seconds=60 if rated else None,
                                started_at=timezone.now(), **extra)


@pytest.fixture
def world() -> dict[str, Any]:
    """Worked data: 2 waiting in ``50-20-casual`` (and one cancelled there), 1 in ``100-60-rated``;
    ``50-20-rated`` made inactive; a public rated match (ratings 1700 + 1600 = 3300) and a private casual
    one between stronger players (2000 + 1900) in play, a finished one; 12 established players and one
    provisional at 2500 (the 12 above everyone else); tournaments in 2 h and in 1 h and one whose start
    passed."""
    now = timezone.now()
    users = [member(f"w{i}") for i in range(4)]
    casual = Pool.objects.get(slug="50-20-casual")
    rated_pool = Pool.objects.get(slug="100-60-rated")
    Pool.objects.filter(slug="50-20-rated").update(active=False)
    PoolEntry.objects.create(pool=casual, user=users[0], rating=1500)
    PoolEntry.objects.create(pool=casual, user=users[1], rating=1500)
    PoolEntry.objects.create(pool=casual, user=users[2], rating=1500, status=EntryStatus.CANCELLED)
    PoolEntry.objects.create(pool=rated_pool, user=users[3], rating=1500)
    ana, bea = member("ana", 1700), member("bea", 1600)
    cid, dan = member("cid", 2000), member("dan", 1900)
    public = active(ana, bea, rated=True)
    private = active(cid, dan, rated=False)
    Match.objects.create(rules={"target": 100}, player0=ana, player1=cid, status=MatchStatus.FINISHED,
                         rated=True, first_dealer=0, winner=0, scores=[104, 37],
                         result_reason=ResultReason.TARGET,
                         started_at=now, finished_at=now)
    board = [member(f"top{i:02d}", 2200 - 10 * i) for i in range(12)]
    newcomer = member("newcomer", 2500, matches=9)
    later = Tournament.objects.create(name_en="Later", name_pt="Depois",
                                      starts_at=now + dt.timedelta(hours=2))
    soon = Tournament.objects.create(name_en="Soon", name_pt="Logo", starts_at=now + dt.timedelta(hours=1),
                                     status=TournamentStatus.OPEN)
    Tournament.objects.create(name_en="Past", name_pt="Passado", starts_at=now - dt.timedelta(minutes=5))
    Registration.objects.create(tournament=soon, user=ana)
    return {"public": public, "private": private, "board": board, "newcomer": newcomer, "soon": soon,
            "later": later, "ana": ana, "cid": cid}


def test_live_numbers_on_worked_data(world: dict[str, Any]) -> None:
    for user_id, at in ((1, 1000.0), (2, 990.0), (3, 945.0), (4, 930.0)):  # 4: 70 s ago, no longer online
        presence.touch(user_id, now=at)
    numbers = home_numbers.live_numbers(now=1000.0)
    assert numbers == {
        "players_online": 3,
        "matches_in_play": 2,  # the public and the private one; not the finished one
        "pools": [{"slug": "100-60-rated", "waiting": 1}, {"slug": "100-60-casual", "waiting": 0},
                  {"slug": "50-20-casual", "waiting": 2}],  # active pools in order; cancelled: not waiting
        "live_match": {"id": world["public"].pk, "url": f"/watch/{world['public'].pk}/",
                       "players": [{"name": "ana", "rating": 1700, "is_bot": False, "bot_level": None,
                                    "bot_account": False},
                                   {"name": "bea", "rating": 1600, "is_bot": False, "bot_level": None,
                                    "bot_account": False}],
                       "target": 100, "rated": True},  # the private 3900 one is not offered
    }


def test_live_match_is_the_top_rated_public_one(world: dict[str, Any]) -> None:
    stronger = active(world["board"][0], world["board"][1], rated=True)  # 2200 + 2190 > 3300
    assert home_numbers.live_match()["id"] == stronger.pk  # type: ignore[index]
    Match.objects.filter(pk=stronger.pk).update(status=MatchStatus.FINISHED)
    assert home_numbers.live_match()["id"] == world["public"].pk  # type: ignore[index]
    bots = [User.objects.create(username=f"bot{n}", is_bot=True, bot_level=n) for n in (4, 5)]
    active(bots[0], bots[1], rated=True)  # two house bots: neither counted nor offered
    assert home_numbers.matches_in_play() == 2
    assert home_numbers.live_match()["id"] == world["public"].pk  # type: ignore[index]


def test_top_ten_leaves_provisional_players_out(world: dict[str, Any]) -> None:
    top = home_numbers.top_players()
    assert [row["username"] for row in top] == [f"top{i:02d}" for i in range(10)]
    assert [row["rating"] for row in top] == [2200 - 10 * i for i in range(10)]
    assert [row["rank"] for row in top] == list(range(1, 11))
    assert "newcomer" not in {row["username"] for row in top}  # 2500 but 9 rated matches: provisional


def test_next_tournament_is_the_soonest_still_to_start(world: dict[str, Any]) -> None:
    soon = home_numbers.next_tournament(now=timezone.now())
    assert soon is not None and soon.pk == world["soon"].pk and soon.players == 1  # type: ignore[attr-defined]


def test_home_get_for_a_member(world: dict[str, Any]) -> None:
    context = home_numbers.home_get(user=world["ana"])
    assert context["registered"] is True and context["registered_ids"] == {world["soon"].pk}
    me = context["me"]
    assert me["rating"] == 1700 and me["provisional"] is False and me["rated_matches"] == 10
    [last] = me["matches"]
    assert last["opponent"] == "cid" and last["won"] is True and last["scores"] == (104, 37)
    assert last["replay_url"] == f"/replay/{last['id']}/"
    assert home_numbers.home_get(user=world["cid"])["me"]["matches"][0]["won"] is False


def test_presence_counts_each_player_once() -> None:
    """Three sockets' marks of player 7 count once; a mark older than ONLINE_SECONDS counts for nothing."""
    for at in (1000.0, 1010.0, 1020.0):
        presence.touch(7, now=at)
    presence.touch(8, now=1000.0)
    assert presence.count(now=1020.0) == 2
    assert presence.count(now=1065.0) == 1  # cutoff 1005: 7 (1020) still online, 8 (1000) no longer
    assert presence.count(now=1081.0) == 0


@pytest.mark.parametrize("who", ["anonymous", "guest", "member"])
def test_the_page_shows_everything(world: dict[str, Any], client: Client, who: str) -> None:
    if who == "guest":
        client.force_login(User.objects.create(username="guest-1", is_guest=True))
    elif who == "member":
        client.force_login(world["ana"])
    page = client.get(reverse("home:home")).content.decode()
    assert 'data-ws="/ws/home/"' in page
    assert '<strong data-live="matches_in_play">2</strong>' in page
    assert '<strong data-pool-waiting="50-20-casual">2</strong>' in page
    assert 'href="/play/pool/50-20-casual/"' in page and 'href="/play/"' in page
    assert 'data-pool-waiting="50-20-rated"' not in page  # inactive
    assert f'href="/watch/{world["public"].pk}/"' in page
    assert f'href="/watch/{world["private"].pk}/"' not in page
    assert ">Soon</a>" in page and "data-countdown=" in page
    assert page.count('<li><a href="/u/top') == 10 and "newcomer" not in page
    for url in (reverse("tournaments:list"), reverse("ratings:rankings"), reverse("replays:open")):
        assert f'href="{url}"' in page
    assert ('data-testid="my-rating"' in page) == (who == "member")
    if who == "member":
        assert "<strong>1700</strong>" in page and 'href="/replay/' in page
        assert 'data-testid="leave"' in page  # registered for the next tournament
    elif who == "guest":
        assert "Guests play casual pools" in page
    else:
        assert "Sign up to join" in page


def test_the_page_in_portuguese(world: dict[str, Any], client: Client) -> None:
    page = client.get(reverse("home:home"), headers={"accept-language": "pt-BR"}).content.decode()
    for text in ("jogadores online", "partidas em andamento", "Jogue agora com um desconhecido",
                 "Próximo torneio", "Assistir a uma partida ao vivo"):
        assert text in page, text


def test_query_count_is_bounded(world: dict[str, Any], client: Client,
                                django_assert_max_num_queries: Any) -> None:
    client.force_login(world["ana"])
    with django_assert_max_num_queries(16):
        assert client.get(reverse("home:home")).status_code == 200


def test_the_page_reuses_the_sockets_fresh_read(world: dict[str, Any], client: Client) -> None:
    """A read of the home socket's ticker at most two intervals old is shown as is (no query for it);
    an older one is not."""
    import time

    from django.core.cache import cache

    from home import live as home_live

    numbers = {**home_numbers.live_numbers(), "matches_in_play": 77}
    cache.set(home_live.LAST_KEY, {"at": time.time(), "numbers": numbers})
    page = client.get(reverse("home:home")).content.decode()
    assert '<strong data-live="matches_in_play">77</strong>' in page
    cache.set(home_live.LAST_KEY, {"at": time.time() - 3 * home_live.interval(), "numbers": numbers})
    page = client.get(reverse("home:home")).content.decode()
    assert '<strong data-live="matches_in_play">2</strong>' in page


@pytest.mark.parametrize(("language", "forms"), [
    ("en", {1: ("player online", "match in play"), 2: ("players online", "matches in play")}),
    ("pt-BR", {1: ("jogador online", "partida em andamento"),
               2: ("jogadores online", "partidas em andamento")}),
])
def test_the_live_numbers_agree_in_number(world: dict[str, Any], client: Client, language: str,
                                          forms: dict[int, tuple[str, str]]) -> None:
    """Each live number's noun is singular or plural as the number asks (ngettext), in both languages;
    the page carries both forms of each noun for home.js to pick when a number changes."""
    import time

    from django.core.cache import cache

    from home import live as home_live

    for n, (online, in_play) in forms.items():
        numbers = {**home_numbers.live_numbers(), "players_online": n, "matches_in_play": n}
        cache.set(home_live.LAST_KEY, {"at": time.time(), "numbers": numbers})
        page = client.get(reverse("home:home"), headers={"accept-language": language}).content.decode()
        assert (f'<strong data-live="players_online">{n}</strong> <span data-live-noun="players_online">'
                f'{online}</span>') in page
        assert (f'<strong data-live="matches_in_play">{n}</strong> <span data-live-noun="matches_in_play">'
                f'{in_play}</span>') in page
    waiting = "players waiting" if language == "en" else "jogadores esperando"
    assert (f'<strong data-pool-waiting="50-20-casual">2</strong> <span data-pool-noun="50-20-casual">'
            f'{waiting}</span>') in page
    one, other = (("player waiting", "players waiting") if language == "en"
                  else ("jogador esperando", "jogadores esperando"))
    assert f'<span data-key="players_waiting" data-form="one">{one}</span>' in page
    assert f'<span data-key="players_waiting" data-form="other">{other}</span>' in page
    assert f'<span data-key="players_online" data-form="one">{forms[1][0]}</span>' in page
    assert f'<span data-key="matches_in_play" data-form="other">{forms[2][1]}</span>' in page


@pytest.mark.parametrize("who", ["anonymous", "guest", "member"])
@pytest.mark.parametrize(("language", "why"), [("en", "Log in to play rated"),
                                               ("pt-BR", "Entre na sua conta para jogar valendo rating")])
def test_a_guest_sees_the_rated_pool_buttons_disabled_with_why(
        world: dict[str, Any], client: Client, who: str, language: str, why: str) -> None:
    """Anonymous readers and guests: each rated pool's button is disabled (no link) and says why; the
    casual ones link to their waiting screen. A member gets every button enabled, no reason."""
    if who == "guest":
        client.force_login(User.objects.create(username="guest-1", is_guest=True))
    elif who == "member":
        client.force_login(world["ana"])
    page = client.get(reverse("home:home"), headers={"accept-language": language}).content.decode()
    rated = page[page.index('data-testid="pool-100-60-rated"') - 80:]
    rated = rated[:rated.index("</a>")]
    assert 'href="/play/pool/50-20-casual/"' in page
    if who == "member":
        assert 'href="/play/pool/100-60-rated/"' in rated and 'aria-disabled' not in rated and why not in page
    else:
        assert 'href="/play/pool/100-60-rated/"' not in page
        assert 'aria-disabled="true"' in rated
        assert f'<span class="pool-why" data-testid="pool-why-100-60-rated">{why}</span>' in rated
        assert 'data-testid="pool-why-50-20-casual"' not in page


def test_a_house_bot_in_the_live_match_is_named_in_the_readers_language(client: Client) -> None:
    """The live numbers are read once for every reader (in the server's language); the page names a
    house bot of the live match in the reader's own, its number kept (bot-3-2: "Robô 3 · Padrão 2")."""
    import time

    from django.core.cache import cache

    from home import live as home_live

    bot = User.objects.create(username="bot-3-2", is_bot=True, bot_level=3)
    member = User.objects.create(username="rui")
    Match.objects.create(rules={"target": 100}, player0=member, player1=bot, status=MatchStatus.ACTIVE,
                         bot_level=3, first_dealer=0, turn_timer_seconds=60, started_at=timezone.now())
    numbers = home_numbers.live_numbers()
    assert numbers["live_match"]["players"][1] == {"name": "Bot 3 · Standard 2", "rating": numbers[
        "live_match"]["players"][1]["rating"], "is_bot": True, "bot_level": 3,
        "bot_account": False}
    cache.set(home_live.LAST_KEY, {"at": time.time(), "numbers": numbers})
    page = client.get(reverse("home:home"), headers={"accept-language": "pt-BR"}).content.decode()
    assert 'title="Robô 3 · Padrão 2">Robô 3 · Padrão 2</span>' in page
    assert '<span data-key="bot_name_3">Robô 3 · Padrão</span>' in page  # for home.js (socket updates)
    page = client.get(reverse("home:home"), headers={"accept-language": "en"}).content.decode()
    assert 'title="Bot 3 · Standard 2">Bot 3 · Standard 2</span>' in page
