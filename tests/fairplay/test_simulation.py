"""Issue 25's seeded simulation (``fairplay.simulation``): 200 honest bot-driven members of levels 1-4, a
colluding pair and a level-5 "assisted" member, every match real (created, played through the engine,
resigned through the service, rated through ratings' path) over simulated days under the farming limits;
after the assistance analysis the pair and the assisted member top the queue above the threshold and
every honest member stays below it (docs/fairplay.md "Simulation")."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from fairplay import assistance, measures, simulation
from fairplay.models import PairSignal, PlayerSignal, SeatSignal
from games import conf as game_conf
from games.conf import PAIR_RATED_WINDOW
from games.live import rebuild
from games.models import Match, MatchEvent, MatchStatus, ResultReason
from games.selectors import own_moves
from ratings.models import PlayerRating, RatingChange

# Measured with seed 25 (docs/fairplay.md "Simulation"):
FARMER, PUPPET = 1624.85, 1400.29
ASSISTED = (177, 0.5932, 4.252)  # (contested decisions, agreement with level 5 on them, z in band 4)
BEST_HONEST = 0.3173  # the strongest honest member's strength after the analysis (the level-2 regular)
MAX_HONEST_Z = 1.663  # the largest z among the analysed honest members (the level-2 regular, band 4)

pytestmark = pytest.mark.django_db


def test_the_pair_and_the_assisted_member_top_the_queue_among_200_honest_members(settings) -> None:
    # The judge's worlds value only the expected-point loss of a contested decision; which decisions are
    # contested and whether the seat agreed (the z-score) come from level 5's and level 4's choices alone
    # (fairplay.assistance.tally_seat), so 8 worlds instead of 48 keep the calibration and save most of
    # the judge's time. The discards judged per seat stay at the calibrated 40.
    settings.FAIRPLAY_ASSISTANCE_WORLDS = 8
    sample = simulation.simulate(seed=25)
    assert len(sample.honest) == 200 and set(sample.levels.values()) == {1, 2, 3, 4}
    assert [sample.levels[u] for u in sample.regulars] == [1, 2, 3, 4]
    # 2 rounds of 100 honest boards, 8 farmed, 4 of the farmer's against honest members, 3 round robins
    # of the 4 regulars (18), 15 assisted; over 3 simulated days (8 farmed at 3 a day).
    assert sample.days == 3
    assert len(sample.match_ids) == 245 and len(sample.assisted_match_ids) == 15
    assert len(sample.regular_match_ids) == 18
    played = Match.objects.filter(pk__in=sample.match_ids)
    assert played.filter(status=MatchStatus.FINISHED, rated=True).count() == 245
    assert RatingChange.objects.filter(match_id__in=sample.match_ids).count() == 2 * 245  # every one rated
    # Every log replays through the engine to the stored result.
    for match in Match.objects.filter(pk__in=sample.match_ids[::20]):
        live = rebuild(match, MatchEvent.objects.filter(match=match).order_by("seq"))
        assert live.state.is_over and live.state.winner == match.winner

    # The attack the limits still allow: the puppet resigns once each seat made its 3 own moves (so
    # the match is rated), at most 3 rated matches of the pair in any 24 h.
    farmed = list(Match.objects.filter(pk__in=sample.match_ids, player0__in=[sample.farmer, sample.puppet],
                                       player1__in=[sample.farmer, sample.puppet]).order_by("started_at"))
    assert len(farmed) == 8
    assert {(m.result_reason, m.player_id(m.winner), m.rated, m.unrated_why) for m in farmed} == {
        (ResultReason.RESIGN, sample.farmer, True, "")}
    for m in farmed:
        moves = own_moves(match_id=m.pk)
        puppet_seat = 0 if m.player0_id == sample.puppet else 1
        # rated: each seat made 3 of its own; still an early resignation for the signals (fewer than 6)
        assert min(moves.values()) >= game_conf.rated_min_moves() == 3
        assert moves[puppet_seat] < measures.EARLY_RESIGN_ACTIONS
        # the pair's rated matches in the 24 h up to this one's start, this one included
        assert sum(m.started_at - PAIR_RATED_WINDOW <= o.started_at <= m.started_at for o in farmed) <= 3
    sessions = [round((m.started_at - farmed[0].started_at) / simulation.DAY) for m in farmed]
    assert [sessions.count(d) for d in range(3)] == [3, 3, 2]

    queue = list(PlayerSignal.objects.order_by("-strength", "user_id"))
    assert len(queue) == 203
    # Before any analysis: the pair on top; the assisted member's play alone is no signal yet.
    assert {r.user_id for r in queue[:2]} == {sample.farmer, sample.puppet}
    assert all(r.strength == 1.0 for r in queue[:2])
    before = PlayerSignal.objects.get(user_id=sample.assisted)
    assert before.strength < measures.THRESHOLD and before.assistance_z is None
    assert "assistance" not in [reason["signal"] for reason in before.reasons]
    honest = set(sample.honest)
    assert max(r.strength for r in queue if r.user_id in honest) < measures.THRESHOLD
    low, high = sorted((sample.farmer, sample.puppet))
    pair = PairSignal.objects.get(low=low, high=high)
    assert (pair.matches, pair.resign_share, pair.same_network, pair.same_device) == (8, 1.0, True, True)
    assert pair.strength == 1.0
    ratings = dict(PlayerRating.objects.filter(user_id__in=[sample.farmer, sample.puppet])
                   .values_list("user_id", "rating"))
    print("RATINGS", round(ratings[sample.farmer], 2), round(ratings[sample.puppet], 2))  # TEMP

    # The assistance analysis: the assisted member's 15 matches and the regulars' 18.
    result = simulation.analyse_sample(sample, simulation.assistance_analysis(sample))
    assert result["matches"] == 33 and result["seats"] == 66
    figures = simulation.assistance_report(sample)
    print(json.dumps(simulation.queue_report(sample)), json.dumps(figures), sample.seconds)  # (-s) the docs
    assisted = PlayerSignal.objects.get(user_id=sample.assisted)
    assert assisted.decisions >= assistance.MIN_DECISIONS
    assert assisted.assistance_z is not None and assisted.assistance_z >= assistance.THRESHOLD
    assert (assisted.decisions, round(assisted.agreement, 4), assisted.assistance_z) == ASSISTED
    assert assisted.strength >= measures.THRESHOLD and assisted.reasons[0]["signal"] == "assistance"
    queue = list(PlayerSignal.objects.order_by("-strength", "user_id"))
    assert {r.user_id for r in queue[:3]} == {sample.farmer, sample.puppet, sample.assisted}
    assert all(r.strength >= measures.THRESHOLD for r in queue[:3])
    best_honest = max(r.strength for r in queue if r.user_id in honest)
    assert best_honest < measures.THRESHOLD and best_honest == BEST_HONEST
    assert figures["honest_seats"] == 51 and figures["honest_seats"] + 15 == result["seats"]
    assert figures["max_honest_z"] == MAX_HONEST_Z < assistance.THRESHOLD
    analysed = SeatSignal.objects.filter(match_id__in=sample.match_ids)
    assert analysed.filter(player_id=sample.assisted).count() == 15
    report = simulation.queue_report(sample)
    assert sorted(report["above_threshold"]) == ["assisted", "farmer", "puppet"]
    assert report["max_honest_strength"] == best_honest and report["margin"] > 0

    # The refresh is idempotent over the whole population.
    def queue_rows() -> list[tuple[object, ...]]:
        return list(PlayerSignal.objects.order_by("user_id").values_list("user_id", "strength", "reasons"))

    before = queue_rows()
    simulation.signals.signals_refresh()
    assert queue_rows() == before


def test_the_command_prints_the_queue_and_refuses_a_used_seed(settings) -> None:
    settings.FAIRPLAY_ASSISTANCE_WORLDS = 8
    out = io.StringIO()
    call_command("fairplay_simulate", "--seed", "4", "--honest", "4", "--rounds", "1", "--farm", "4",
                 "--farmer-others", "0", "--assisted", "1", "--regulars", "0", "--analyse",
                 stdout=out, stderr=io.StringIO())
    report = json.loads(out.getvalue())
    assert report["matches"] == 2 + 4 + 1 and report["days"] == 2  # 4 farmed: 2 days at 3 a day
    assert sorted(report["queue"]["above_threshold"]) == ["farmer", "puppet"]
    assert report["queue"]["threshold"] == measures.THRESHOLD == 0.7
    assert report["ratings"]["farmer"] > 1500 > report["ratings"]["puppet"]
    # One analysed match: its figures are the stored seat's, too few decisions for a z-score.
    (match_id,) = report["assisted_match_ids"]
    seat = SeatSignal.objects.get(match_id=match_id, player_id=report["users"]["assisted"])
    shown = report["assistance"]["assisted"]
    assert (shown["decisions"], shown["z"]) == (seat.decisions, None) and seat.decisions > 0
    assert shown["agreement"] == round(seat.agreed / seat.decisions, 4)
    assert report["assistance"]["honest_seats"] == 1 and report["assistance"]["max_honest_z"] is None
    with pytest.raises(CommandError, match="seed 4 exist already"):
        call_command("fairplay_simulate", "--seed", "4", "--honest", "4", stdout=io.StringIO(),
                     stderr=io.StringIO())
    with pytest.raises(CommandError, match="a pair may play 3 rated matches a day"):
        call_command("fairplay_simulate", "--seed", "5", "--farm", "8", "--days", "2", stdout=io.StringIO(),
                     stderr=io.StringIO())
