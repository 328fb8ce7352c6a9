"""``fairplay.signals``: the pair and player signals read from real matches, rating changes,
registrations, sightings and reports; the refresh is idempotent and leaves the assistance columns alone."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from engine.rules import PRESETS
from fairplay import measures, signals
from fairplay.models import PairSignal, PlayerSignal, Report, Sighting, SightingKind
from fairplay.simulation import play_match
from games.models import Match, MatchEvent, MatchStatus, ResultReason
from games.services import GameError, match_create_seated, match_play_out_seeded
from ratings.models import RatingChange
from ratings.services import matches_rate
from tests.factories import TournamentFactory, UserFactory
from tournaments.models import Registration

pytestmark = pytest.mark.django_db


def rows(model: Any) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "updated_at"}
            for row in model.objects.order_by("pk").values()]


def test_a_resigning_pair_on_one_device() -> None:
    """Five matches: b resigns each once both seats made the 3 own moves a rated match needs
    (``fairplay.simulation.play_match``: the attack the farming limits still allow)."""
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    ids = [play_match(7, n, {0: a, 1: b} if n % 2 else {0: b, 1: a}, (2, 1), 50, 1 if n % 2 else 0)
           for n in range(5)]
    ids.append(play_match(7, 9, {0: a, 1: c}, (2, 3), 50))  # a against someone else, played out
    assert set(Match.objects.filter(pk__in=ids[:5]).values_list("status", "result_reason", "rated")) == {
        (MatchStatus.FINISHED, ResultReason.RESIGN, True)}
    # b's own actions before resigning: 3 in each, under the signal's 6 (the early-resign count reads
    # them from the log), though enough for the match to be rated.
    assert {MatchEvent.objects.filter(match_id=pk, type="action", seat=Match.objects.get(pk=pk).seat_of(b.pk))
            .count() for pk in ids[:5]} == {3}
    # The farming limits may unrate a match resigned early: it still counts for the pair (not rated: 4 rated).
    Match.objects.filter(pk=ids[0]).update(rated=False)
    matches_rate(match_ids=ids)
    assert RatingChange.objects.filter(match_id__in=ids).count() == 2 * 5
    now = timezone.now()
    for user in (a, b):
        Sighting.objects.create(user=user, kind=SightingKind.DEVICE, digest="d" * 64, last_seen=now)
    Sighting.objects.create(user=a, kind=SightingKind.NETWORK, digest="1" * 64, last_seen=now)
    Sighting.objects.create(user=b, kind=SightingKind.NETWORK, digest="2" * 64, last_seen=now)
    assert signals.signals_refresh() == {"players": 3, "pairs": 2}
    pair = PairSignal.objects.get(low=a, high=b)
    gained = sum(RatingChange.objects.filter(match_id__in=ids[:5], player=a).values_list("delta", flat=True))
    lost = sum(RatingChange.objects.filter(match_id__in=ids[:5], player=b).values_list("delta", flat=True))
    assert (pair.matches, pair.share_low, pair.share_high, pair.resign_share) == (
        5, round(5 / 6, 4), 1.0, 1.0)
    assert pair.transferred == pytest.approx(round((lost - gained) / 2, 2))  # b (higher id) lost: negative
    assert pair.transferred < -50
    assert (pair.same_device, pair.same_network, pair.overlap) == (True, False, 1.0)
    assert pair.reasons[0] == {"signal": "resign", "value": 1.0, "strength": 1.0,
                               "note": "100% of 5 rated matches together ended by a resignation"}
    assert "same_device" in [r["signal"] for r in pair.reasons] and pair.strength == 1.0
    player_a, player_b = PlayerSignal.objects.get(user=a), PlayerSignal.objects.get(user=b)
    assert (player_b.early_resigns, player_a.early_resigns) == (5, 0)
    assert player_a.strength == player_b.strength == 1.0
    assert player_a.reasons == [
        {"signal": "pair", "value": 1.0, "strength": 1.0, "note": f"pair with {b.username}"}]
    assert [r["signal"] for r in player_b.reasons] == ["early_resigns", "pair"]
    other = PairSignal.objects.get(low=a, high=c)
    assert (other.matches, other.resign_share, other.same_device) == (1, 0.0, False)
    assert other.strength < measures.THRESHOLD


def test_sightings_in_common_are_flagged() -> None:
    a, b = UserFactory(), UserFactory()
    pk = play_match(3, 0, {0: a, 1: b}, (1, 2), 50)
    matches_rate(match_ids=[pk])
    now = timezone.now()
    Sighting.objects.bulk_create([
        Sighting(user=a, kind=SightingKind.NETWORK, digest="e" * 64, last_seen=now),
        Sighting(user=b, kind=SightingKind.NETWORK, digest="e" * 64, last_seen=now),
        Sighting(user=b, kind=SightingKind.DEVICE, digest="e" * 64, last_seen=now),  # another kind: no match
    ])
    signals.signals_refresh()
    pair = PairSignal.objects.get(low=a, high=b)
    assert (pair.same_network, pair.same_device) == (True, False)
    network = [r for r in pair.reasons if r["signal"] == "same_network"]
    assert network == [{"signal": "same_network", "value": 1.0, "strength": 0.4, "note": "same network"}]
    assert pair.strength >= 0.4
    assert PlayerSignal.objects.get(user=a).reasons[0]["signal"] == "pair"


def _rated_loss(player: Any, opponent: Any, delta: float, at: dt.datetime) -> None:
    """A finished rated match ``player`` lost by ``delta`` points at ``at`` (rows as ratings writes them)."""
    match = Match.objects.create(rules=PRESETS["classic"].to_dict(), player0=player, player1=opponent,
                                 status=MatchStatus.FINISHED, rated=True, winner=1, scores=[10, 100],
                                 result_reason=ResultReason.TARGET, first_dealer=0, finished_at=at)
    change = RatingChange.objects.create(match=match, player=player, opponent=opponent, before=1500,
                                         after=1500 + delta,
                                         delta=delta, k=40, expected=0.5, opponent_rating=1500, won=False)
    RatingChange.objects.filter(pk=change.pk).update(created_at=at)


def test_a_drop_the_day_before_registering_is_flagged() -> None:
    sandbagger, honest, opponent = UserFactory(), UserFactory(), UserFactory()
    now = timezone.now()
    registered = now - dt.timedelta(hours=2)
    for delta, hours in ((-60.0, 26), (-50.0, 25), (-40.0, 24)):  # 150 points the day before
        _rated_loss(sandbagger, opponent, delta, registered - dt.timedelta(hours=hours))
    _rated_loss(honest, opponent, -150.0, registered - dt.timedelta(hours=49))  # before the 48 h
    tournament = TournamentFactory()
    for user in (sandbagger, honest):
        reg = Registration.objects.create(tournament=tournament, user=user)
        Registration.objects.filter(pk=reg.pk).update(joined_at=registered)
    signals.signals_refresh()
    flagged, clean = PlayerSignal.objects.get(user=sandbagger), PlayerSignal.objects.get(user=honest)
    assert flagged.drops_before_tournaments == 1
    assert flagged.reasons[0] == {
        "signal": "drop_before_tournament", "value": 150.0, "strength": 1.0,
        "note": "1 registration(s) after losing 100+ points in 48 h; the largest 150.0"}
    assert flagged.strength == 1.0 >= measures.THRESHOLD
    # 150 lost 49 h before registering: no drop (the 150 points it gave its opponent are a pair's transfer:
    # (0 + 150) / 2 = 75 -> 0.6 * ramp(75, 30, 100) = 0.3857, below the threshold).
    assert clean.drops_before_tournaments == 0
    assert [(r["signal"], r["strength"]) for r in clean.reasons] == [("pair", 0.3857)]


def test_reports_abandons_and_the_assistance_columns() -> None:
    player, reporters = UserFactory(), [UserFactory() for _ in range(3)]
    for reporter in reporters:
        Report.objects.create(reporter=reporter, reported=player, reason="assistance", place="profile")
    Report.objects.create(reporter=reporters[0], reported=player, reason="collusion", place="profile")
    Report.objects.create(reporter=reporters[1], reported=player, reason="other", place="profile",
                          status="dismissed")
    # Lost on time twice, rated (rows as games writes them for a loss on time).
    for opponent in reporters[:2]:
        Match.objects.create(rules=PRESETS["classic"].to_dict(), player0=player, player1=opponent,
                             status=MatchStatus.FINISHED, rated=True, winner=1, scores=[0, 0], first_dealer=0,
                             result_reason=ResultReason.TIMEOUT, finished_at=timezone.now())
    # The assistance analysis wrote its columns first; the refresh keeps them and folds z in.
    PlayerSignal.objects.create(user=player, decisions=120, agreement=0.93, loss_per_decision=0.4,
                                assistance_z=3.0)
    signals.signals_refresh(user_ids=[player.pk])
    row = PlayerSignal.objects.get(user=player)
    assert (row.decisions, row.agreement, row.loss_per_decision, row.assistance_z) == (120, 0.93, 0.4, 3.0)
    assert (row.open_reports, row.abandoned) == (3, 2)
    assert [(r["signal"], r["strength"]) for r in row.reasons] == [
        ("assistance", 0.7), ("reports", 0.5781), ("abandoned", 0.15)]  # z = 3: the flag; 1 - 0.75**3;
    # 0.6 * ramp(2, 1, 5)
    assert row.strength == round(1 - 0.3 * (1 - 0.5781) * 0.85, 4) == 0.8924


def test_the_refresh_is_idempotent_and_clears_what_left_the_window() -> None:
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    ids = [play_match(5, n, {0: a, 1: b}, (1, 1), 50, 1) for n in range(3)]
    ids.append(play_match(5, 3, {0: b, 1: c}, (2, 4), 50))
    matches_rate(match_ids=ids)
    signals.signals_refresh()
    first = (rows(PlayerSignal), rows(PairSignal))
    assert len(first[0]) == 3 and len(first[1]) == 2
    signals.signals_refresh()
    assert (rows(PlayerSignal), rows(PairSignal)) == first
    signals.signals_refresh(batch=1)  # one player per transaction: the same rows
    assert (rows(PlayerSignal), rows(PairSignal)) == first
    # A month later the matches left the window: a's strength clears, its pair row goes.
    later = timezone.now() + dt.timedelta(days=measures.WINDOW_DAYS + 1)
    assert PlayerSignal.objects.get(user=a).strength > 0
    signals.signals_refresh(now=later)
    assert PairSignal.objects.count() == 0
    assert set(PlayerSignal.objects.values_list("strength", flat=True)) == {0.0}


def test_a_real_match_is_never_played_out() -> None:
    a, b = UserFactory(), UserFactory()
    match = match_create_seated(player0=a, player1=b, rated=True)
    with pytest.raises(GameError, match="not a simulation"):
        match_play_out_seeded(match_id=match.pk, choose=lambda seat, view, seq: None)
    assert Match.objects.get(pk=match.pk).last_seq == match.last_seq
