"""``fairplay.measures``: the curves, the noisy-or and the signals' scores, against hand-computed values."""

from __future__ import annotations

import pytest

from fairplay import assistance, measures
from fairplay.measures import PairFigures, PlayerFigures


def test_ramp_and_noisy_or() -> None:
    assert measures.ramp(3, 1, 4) == pytest.approx(2 / 3)
    assert [measures.ramp(v, 1, 4) for v in (1, 0, 4, 9)] == [0.0, 0.0, 1.0, 1.0]
    assert measures.noisy_or([0.5, 0.5]) == 0.75
    assert measures.noisy_or([0.6, 0.4, 0.25]) == pytest.approx(1 - 0.4 * 0.6 * 0.75)  # 0.82
    assert measures.noisy_or([]) == 0.0
    assert measures.noisy_or([0.3, 1.0]) == 1.0
    with pytest.raises(ValueError, match="low < high"):
        measures.ramp(1, 4, 4)
    with pytest.raises(ValueError, match=r"0\.\.1"):
        measures.noisy_or([1.5])


def test_transfer_and_drops() -> None:
    # Two matches: the higher id gained 11.5 twice, the lower lost 11.5 then 13 (a higher K).
    assert measures.transfer([11.5, 11.5], [-11.5, -13.0]) == 23.75
    day = 86400.0
    # -80 and -70 in the 48 h before the registration at 7200 s (+20 at 7200 itself counts: (t-48h, t]),
    # net 130 lost; the second registration, 9 days later, follows no change.
    changes = [(0.0, -80.0), (3600.0, -70.0), (7200.0, 20.0)]
    assert measures.worst_drop(changes, [7200.0, 9 * day]) == (1, 130.0)
    # 99 points lost is not a drop; a change 48 h and 1 s before is outside the window.
    assert measures.worst_drop([(0.0, -99.0)], [3600.0]) == (0, 0.0)
    assert measures.worst_drop([(0.0, -150.0)], [2 * day + 1]) == (0, 0.0)


def test_the_colluding_pair_of_issue_25() -> None:
    """8 matches together (the puppet's 8 of 8, the farmer's 8 of 12), all resigned, +92 points to the
    farmer (the higher id here), the same network."""
    figures = PairFigures(matches=8, share_low=1.0, share_high=8 / 12, transferred=92.0, resign_share=1.0,
                          hands=8, high_deadwood_knocks=0.0, overlap=1.0, same_network=True,
                          same_device=False)
    reasons = measures.pair_reasons(figures)
    assert [(r["signal"], r["strength"]) for r in reasons] == [
        ("resign", 1.0),                          # ramp(8, 1, 4) * ramp(1.0, 0.3, 0.8)
        ("transfer", 0.5314),                     # 0.6 * (92 - 30) / 70
        ("repeat", 0.5),                          # 0.5 * ramp(8, 2, 8) * ramp(1.0, 0.25, 0.75)
        ("same_network", 0.4),
        ("overlap", 0.3),                         # 0.3 * ramp(8, 3, 8) * 1.0
    ]
    assert reasons[1]["note"] == "92.0 Elo points transferred (the second gained)"
    assert measures.strength(reasons) == 1.0


def test_pair_scores_below_one() -> None:
    """3 matches, 2 resigned, 40 points, 5 of 15 hands an undercut high knock, same device:
    resign ramp(3,1,4)=2/3 * ramp(2/3,0.3,0.8)=0.7333 -> 0.4889; deadwood 0.8 * ramp(3,2,5)=1/3 *
    ramp(1/3,0.2,0.5)=0.4444 -> 0.1185; transfer 0.6 * 10/70 = 0.0857; repeat 0.5 * ramp(3,2,8)=1/6 *
    ramp(0.5,0.25,0.75)=0.5 -> 0.0417; overlap 0; device 0.6."""
    figures = PairFigures(matches=3, share_low=0.5, share_high=0.25, transferred=-40.0, resign_share=2 / 3,
                          hands=15, high_deadwood_knocks=1 / 3, overlap=0.5, same_network=False,
                          same_device=True)
    reasons = measures.pair_reasons(figures)
    assert [(r["signal"], r["strength"]) for r in reasons] == [
        ("same_device", 0.6), ("resign", 0.4889), ("deadwood_knocks", 0.1185), ("transfer", 0.0857),
        ("repeat", 0.0417)]
    assert reasons[3]["note"] == "40.0 Elo points transferred (the first gained)"
    expected = 1 - 0.4 * (1 - 0.4889) * (1 - 0.1185) * (1 - 0.0857) * (1 - 0.0417)
    # 1 - 0.4 * 0.5111 * 0.8815 * 0.9143 * 0.9583
    assert measures.strength(reasons) == round(expected, 4) == 0.8421


def test_an_honest_pair_scores_nothing() -> None:
    figures = PairFigures(matches=2, share_low=0.25, share_high=0.25, transferred=18.0, resign_share=0.0,
                          hands=9, high_deadwood_knocks=0.1111, overlap=1.0, same_network=False,
                          same_device=False)
    assert measures.pair_reasons(figures) == []
    assert measures.strength([]) == 0.0


def test_player_scores() -> None:
    """A sandbagger: 150 points lost before registering (ramp(150, 50, 150) = 1), 2 early resigns
    (ramp(2,1,4) = 1/3), 2 reporters (1 - 0.75**2 = 0.4375), an assistance z of 3
    (ramp(3, 1, 1 + 2/0.7) = 0.7), 3 abandoned (0.6 * ramp(3,1,5) = 0.3), a pair of 0.4."""
    figures = PlayerFigures(abandoned=3, early_resigns=2, drops=1, worst_drop=150.0, reporters=2,
                            assistance_z=3.0, pair=0.4, pair_note="pair with user 7")
    reasons = measures.player_reasons(figures)
    assert [(r["signal"], r["value"], r["strength"]) for r in reasons] == [
        ("drop_before_tournament", 150.0, 1.0), ("assistance", 3.0, 0.7), ("reports", 2, 0.4375),
        ("pair", 0.4, 0.4), ("early_resigns", 2, 0.3333), ("abandoned", 3, 0.3)]
    assert reasons[3]["note"] == "pair with user 7"
    assert measures.strength(reasons) == 1.0
    # 100 points lost before registering alone: half a case, below the threshold.
    half = measures.player_reasons(PlayerFigures(0, 0, 1, 100.0, 0, None, 0.0, ""))
    assert [(r["signal"], r["strength"]) for r in half] == [("drop_before_tournament", 0.5)]
    assert measures.strength(half) < measures.THRESHOLD
    # Reports alone reach the threshold from 5 reporters: 1 - 0.75**4 = 0.6836, 1 - 0.75**5 = 0.7627.
    four = measures.strength(measures.player_reasons(PlayerFigures(0, 0, 0, 0.0, 4, None, 0.0, "")))
    five = measures.strength(measures.player_reasons(PlayerFigures(0, 0, 0, 0.0, 5, None, 0.0, "")))
    assert (four, five) == (0.6836, 0.7627)
    assert four < measures.THRESHOLD <= five
    # Not analysed (z None): no assistance reason; the assistance module's flag (z = 3) is a case on its
    # own, z = 2.9 is not (ramp(2.9, 1, 3.857) = 0.665), z = 2 is 0.35.
    assert measures.ASSISTANCE_FLAG_Z == assistance.THRESHOLD
    for z, score in ((2.0, 0.35), (2.9, 0.665), (3.0, 0.7), (3.5, 0.875), (5.0, 1.0)):
        [reason] = measures.player_reasons(PlayerFigures(0, 0, 0, 0.0, 0, z, 0.0, ""))
        assert (reason["signal"], reason["strength"]) == ("assistance", score)
    def alone(z: float) -> float:
        return measures.strength(measures.player_reasons(PlayerFigures(0, 0, 0, 0.0, 0, z, 0.0, "")))

    assert alone(3.0) >= measures.THRESHOLD > alone(2.9)
    assert measures.player_reasons(PlayerFigures(0, 0, 0, 0.0, 0, None, 0.0, "")) == []
    assert measures.strength(measures.player_reasons(PlayerFigures(0, 0, 0, 0.0, 0, 4.2, 0.0, ""))) == 1.0
