"""The lobby's side of the fair-play limits (docs/fairplay.md "Limits that make farming slow"): a marked
account is refused rated pools, open challenges and direct challenges (``account_marked``; its
opponents get ``opponent_marked``), and a pair at its daily cap of rated matches is never paired rated
by a pool's wave and refused a rated open or direct challenge (``pair_rated_limit``). Casual play stays
open to both."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Standing
from games import services
from games.models import Match, MatchStatus
from lobby import challenges, pools, seeks
from lobby.matching import Waiter, pair_wave
from lobby.models import EntryStatus, PoolEntry
from lobby.seeks import Settings

pytestmark = pytest.mark.django_db
RATED = Settings("classic", 100, None, True)
CASUAL = Settings("classic", 100, None, False)


def _code(call: Any) -> str:
    with pytest.raises(services.GameError) as refused:
        call()
    return refused.value.code


def _mark(user: Any) -> None:
    type(user).objects.filter(pk=user.pk).update(standing=Standing.MARKED)


def _played_rated(a: Any, b: Any, times: int) -> None:
    """``times`` rated matches of ``a`` against ``b`` started now and finished (a result each)."""
    for _ in range(times):
        match = services.match_create_seated(player0=a, player1=b, rated=True)
        Match.objects.filter(pk=match.pk).update(status=MatchStatus.FINISHED, winner=0,
                                                  finished_at=timezone.now())


def test_a_marked_account_is_refused_every_rated_path_and_keeps_casual(
        alice: Any, bob: Any, rated_pool: Any, casual_pool: Any) -> None:
    _mark(alice)
    assert _code(lambda: pools.pool_join(user=alice, slug=rated_pool.slug)) == "account_marked"
    assert _code(lambda: seeks.seek_create(user=alice, choice=RATED)) == "account_marked"
    assert _code(lambda: challenges.challenge_create(challenger=alice, challenged=bob, choice=RATED)
                 ) == "account_marked"
    # Her opponents are refused a rated match with her, with the reason.
    with pytest.raises(services.GameError) as refused:
        challenges.challenge_create(challenger=bob, challenged=alice, choice=RATED)
    assert (refused.value.code, refused.value.message) == ("opponent_marked",
                                                           "alice may play casual matches only for now")
    bobs_seek = seeks.seek_create(user=bob, choice=RATED)
    assert _code(lambda: seeks.seek_accept(user=alice, seek_id=bobs_seek.pk)) == "account_marked"
    assert not Match.objects.filter(rated=True).exists()
    # Casual: every path stays open.
    assert pools.pool_join(user=alice, slug=casual_pool.slug).entry.status == EntryStatus.WAITING
    pools.pool_cancel(entry_id=PoolEntry.objects.get(user=alice).pk, user=alice)
    seeks.seek_cancel(user=bob, seek_id=bobs_seek.pk)
    casual_seek = seeks.seek_create(user=bob, choice=CASUAL)
    match = seeks.seek_accept(user=alice, seek_id=casual_seek.pk)
    assert (match.status, match.rated) == (MatchStatus.ACTIVE, False)


def test_a_seek_or_challenge_of_an_account_marked_since_is_refused_at_acceptance(
        alice: Any, bob: Any, carol: Any) -> None:
    seek = seeks.seek_create(user=alice, choice=RATED)
    challenge = challenges.challenge_create(challenger=carol, challenged=bob, choice=RATED)
    _mark(alice)
    _mark(carol)
    assert _code(lambda: seeks.seek_accept(user=bob, seek_id=seek.pk)) == "opponent_marked"
    refused = _code(lambda: challenges.challenge_accept(user=bob, challenge_id=challenge.pk))
    assert refused == "opponent_marked"
    assert not Match.objects.exists()


def test_an_entry_marked_while_waiting_leaves_the_rated_pool(alice: Any, bob: Any, rated_pool: Any) -> None:
    entry = pools.pool_join(user=alice, slug=rated_pool.slug).entry
    pools.pool_join(user=bob, slug=rated_pool.slug)
    _mark(alice)
    wave = pools.run_wave(pool_id=rated_pool.pk)
    assert wave.pairs == [] and wave.left == [(entry.pk, "account_marked")]
    entry.refresh_from_db()
    assert entry.status == EntryStatus.CANCELLED


def test_a_pair_at_its_daily_cap_is_not_paired_rated_but_is_paired_casual(
        alice: Any, bob: Any, carol: Any, rated_pool: Any, casual_pool: Any) -> None:
    _played_rated(alice, bob, 3)
    for user in (alice, bob):
        pools.pool_join(user=user, slug=rated_pool.slug)
    wave = pools.run_wave(pool_id=rated_pool.pk)
    assert wave.pairs == [] and wave.waiting == 2
    # A third player in the pool: alice or bob gets carol, the other waits on.
    pools.pool_join(user=carol, slug=rated_pool.slug)
    wave = pools.run_wave(pool_id=rated_pool.pk)
    [(_, _, match_id)] = wave.pairs
    players = set(Match.objects.filter(pk=match_id).values_list("player0_id", "player1_id").get())
    assert carol.pk in players and players != {alice.pk, bob.pk}
    # The casual pool pairs the two as before.
    waiting = PoolEntry.objects.get(pool=rated_pool, status=EntryStatus.WAITING)
    pools.pool_cancel(entry_id=waiting.pk, user=waiting.user)
    other = bob if waiting.user_id == alice.pk else alice
    Match.objects.filter(pk=match_id).update(status=MatchStatus.FINISHED, winner=0)
    for user in (waiting.user, other):
        pools.pool_join(user=user, slug=casual_pool.slug)
    [(_, _, casual_id)] = pools.run_wave(pool_id=casual_pool.pk).pairs
    casual = Match.objects.get(pk=casual_id)
    assert {casual.player0_id, casual.player1_id} == {alice.pk, bob.pk} and not casual.rated


def test_a_pair_at_its_daily_cap_is_refused_rated_challenges(alice: Any, bob: Any, settings: Any) -> None:
    _played_rated(alice, bob, 2)
    challenge = challenges.challenge_create(challenger=alice, challenged=bob, choice=RATED)
    seek = seeks.seek_create(user=bob, choice=RATED)
    _played_rated(bob, alice, 1)  # the third of the day
    with pytest.raises(services.GameError) as refused:
        challenges.challenge_accept(user=bob, challenge_id=challenge.pk)
    assert (refused.value.code, refused.value.message) == (
        "pair_rated_limit", "you and alice have started 3 rated matches against each other in the last"
                            " 24 hours, the most a day allows: play casual, or rated again tomorrow")
    assert _code(lambda: seeks.seek_accept(user=alice, seek_id=seek.pk)) == "pair_rated_limit"
    seeks.seek_cancel(user=bob, seek_id=seek.pk)
    assert _code(lambda: challenges.challenge_create(challenger=bob, challenged=alice, choice=RATED)
                 ) == "pair_rated_limit"
    casual = challenges.challenge_create(challenger=bob, challenged=alice, choice=CASUAL)
    assert challenges.challenge_accept(user=alice, challenge_id=casual.pk).rated is False
    # A larger cap lets the same pair play rated again.
    settings.GAMES_PAIR_RATED_PER_DAY = 4
    Match.objects.filter(rated=False, status=MatchStatus.ACTIVE).update(status=MatchStatus.FINISHED)
    assert challenges.challenge_accept(user=bob, challenge_id=challenge.pk).rated


def test_pair_wave_never_pairs_an_avoided_pair() -> None:
    def waiter(key: int, user: int, rating: float) -> Waiter:
        return Waiter(key=key, user_id=user, rating=rating, waited=0.0, last_opponent=None)

    two = [waiter(1, 10, 1500), waiter(2, 20, 1500)]
    assert pair_wave(two, start=100, growth=10) == [(1, 2)]
    assert pair_wave(two, start=100, growth=10, avoid=[(20, 10)]) == []  # either order, even alone
    four = [waiter(1, 10, 1500), waiter(2, 20, 1510), waiter(3, 30, 1520), waiter(4, 40, 1530)]
    assert pair_wave(four, start=100, growth=10) == [(1, 2), (3, 4)]
    # two pairs still, neither of them 10-20 (the two best pairings without it tie at a total gap of 40)
    kept = pair_wave(four, start=100, growth=10, avoid=[(10, 20)])
    assert len(kept) == 2 and (1, 2) not in kept and sorted(k for pair in kept for k in pair) == [1, 2, 3, 4]


@pytest.mark.parametrize(("language", "text"), [
    ("en", "your account is under fair-play review: you may play casual matches only"),
    ("pt-BR", "sua conta está em análise de jogo limpo: você só pode jogar partidas casuais"),
])
def test_play_shows_a_marked_reader_the_rated_pools_disabled_with_why(
        alice: Any, rated_pool: Any, casual_pool: Any, language: str, text: str) -> None:
    from django.test import Client

    _mark(alice)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(alice)
    page = client.get("/play/").content.decode()
    rated = page[page.index(f'data-testid="pool-{rated_pool.slug}"'):]
    rated = rated[:rated.index("</li>")]
    assert text in rated and "disabled" in rated
    assert f'data-testid="join-{casual_pool.slug}"' in page  # casual pools stay open
