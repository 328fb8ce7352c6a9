"""Issue 25's seeded simulation (``fairplay.simulation``): 200 honest bot-driven members of levels 1-4, a
colluding pair and a level-5 "assisted" member, every match real (created, played through the engine,
resigned through the service, rated through ratings' path); the pair tops the queue above the threshold
and every honest member stays below it."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from fairplay import measures, simulation
from fairplay.models import PairSignal, PlayerSignal
from games.live import rebuild
from games.models import Match, MatchEvent, MatchStatus, ResultReason
from ratings.models import PlayerRating, RatingChange

pytestmark = pytest.mark.django_db


def test_the_colluding_pair_tops_the_queue_among_200_honest_members() -> None:
    sample = simulation.simulate(seed=25)
    assert len(sample.honest) == 200 and set(sample.levels.values()) == {1, 2, 3, 4}
    # 2 rounds of 100 honest boards, 8 farmed, 4 of the farmer's against honest members, 4 assisted.
    assert len(sample.match_ids) == 216 and len(sample.assisted_match_ids) == 4
    played = Match.objects.filter(pk__in=sample.match_ids)
    assert played.filter(status=MatchStatus.FINISHED, rated=True).count() == 216
    assert RatingChange.objects.filter(match_id__in=sample.match_ids).count() == 2 * 216  # every one rated
    # Every log replays through the engine to the stored result.
    for match in Match.objects.filter(pk__in=sample.match_ids[::20]):
        live = rebuild(match, MatchEvent.objects.filter(match=match).order_by("seq"))
        assert live.state.is_over and live.state.winner == match.winner
    farmed = Match.objects.filter(pk__in=sample.match_ids, player0__in=[sample.farmer, sample.puppet],
                                  player1__in=[sample.farmer, sample.puppet])
    assert farmed.count() == 8
    assert {(m.result_reason, m.player_id(m.winner)) for m in farmed} == {
        (ResultReason.RESIGN, sample.farmer)}

    queue = list(PlayerSignal.objects.order_by("-strength", "user_id").values_list("user_id", "strength"))
    assert len(queue) == 203
    top = {user for user, _ in queue[:2]}
    assert top == {sample.farmer, sample.puppet}
    assert all(strength >= measures.THRESHOLD for _, strength in queue[:2])
    honest = set(sample.honest)
    best_honest = max(strength for user, strength in queue if user in honest)
    assert best_honest < measures.THRESHOLD
    low, high = sorted((sample.farmer, sample.puppet))
    pair = PairSignal.objects.get(low=low, high=high)
    assert (pair.matches, pair.resign_share, pair.same_network, pair.same_device) == (8, 1.0, True, True)
    assert pair.strength == 1.0
    farmer_gain = PlayerRating.objects.get(user_id=sample.farmer).rating
    assert farmer_gain > 1500
    report = simulation.queue_report(sample)
    assert report["above_threshold"][:2] in (["farmer", "puppet"], ["puppet", "farmer"])
    assert report["max_honest_strength"] == best_honest and report["margin"] > 0
    print(report, sample.seconds)  # (-s) the numbers docs/fairplay.md quotes

    # The refresh is idempotent over the whole population.
    def queue_rows() -> list[tuple[object, ...]]:
        return list(PlayerSignal.objects.order_by("user_id").values_list("user_id", "strength", "reasons"))

    before = queue_rows()
    simulation.signals.signals_refresh()
    assert queue_rows() == before


def test_the_command_prints_the_queue_and_refuses_a_used_seed() -> None:
    out = io.StringIO()
    call_command("fairplay_simulate", "--seed", "4", "--honest", "4", "--rounds", "1", "--farm", "4",
                 "--farmer-others", "0", "--assisted", "0", stdout=out, stderr=io.StringIO())
    report = json.loads(out.getvalue())
    assert report["matches"] == 2 + 4
    assert sorted(report["queue"]["above_threshold"]) == ["farmer", "puppet"]
    assert report["queue"]["threshold"] == measures.THRESHOLD == 0.7
    assert report["ratings"]["farmer"] > 1500 > report["ratings"]["puppet"]
    assert report["ratings"]["assisted"] == 1500.0  # no match: no rating row
    with pytest.raises(CommandError, match="seed 4 exist already"):
        call_command("fairplay_simulate", "--seed", "4", "--honest", "4", stdout=io.StringIO(),
                     stderr=io.StringIO())
