"""Known answers of the Elo arithmetic (``ratings.elo``), hand-computed, and its properties."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings import chart, elo
from ratings.elo import EloError, expected_score, k_factor, rate

ratings = st.floats(min_value=100, max_value=3500, allow_nan=False)


def test_doctests() -> None:
    assert doctest.testmod(elo).failed == 0
    assert doctest.testmod(chart).failed == 0


def test_expected_score_known_answers() -> None:
    assert expected_score(1500, 1500) == 0.5
    # 400 points apart: 10:1 odds.
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert expected_score(1500, 1900) == pytest.approx(1 / 11)
    # 1600 vs 1400: 1 / (1 + 10 ** -0.5) = 0.7597469266...
    assert expected_score(1600, 1400) == pytest.approx(0.7597469266479578, abs=1e-12)


@given(ratings, ratings)
def test_expected_scores_sum_to_one(a: float, b: float) -> None:
    assert expected_score(a, b) + expected_score(b, a) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(("matches", "peak", "k"), [
    (0, 1500, 40), (29, 2399.9, 40), (30, 1500, 20), (500, 2399.99, 20),
    (0, 2400, 10), (31, 2400.0, 10), (100, 2600, 10),
])
def test_k_bands(matches: int, peak: float, k: int) -> None:
    assert k_factor(rated_matches=matches, peak_rating=peak) == k


def test_k40_band_new_player_against_level_5_bot() -> None:
    # 1500 vs the level-5 bot's 1671: E = 1/(1+10**(171/400)) = 0.2720285...; a win is +40 * 0.7280 = +29.12.
    win = rate(rating=1500, opponent=1671, score=1, k=40)
    assert win.expected == pytest.approx(0.2720284864558038, abs=1e-12)
    assert win.after == pytest.approx(1529.1188605417678, abs=1e-9)
    assert elo.shown(win.after) == 1529 and elo.shown_change(win.before, win.after) == "+29"
    loss = rate(rating=1500, opponent=1671, score=0, k=40)
    assert loss.after == pytest.approx(1489.1188605417678, abs=1e-9)
    assert elo.shown_change(loss.before, loss.after) == "-11"
    # docs/ratings.md, continued: Ana (after the win, K 40) loses to Bruno (1600, K 20).
    ana = rate(rating=win.after, opponent=1600, score=0, k=40)
    bruno = rate(rating=1600, opponent=win.after, score=1, k=20)
    assert ana.expected == pytest.approx(0.39938587041494467, abs=1e-12)
    assert ana.after == pytest.approx(1513.1434257251701, abs=1e-9)
    assert elo.shown_change(ana.before, ana.after) == "-16"
    assert bruno.after == pytest.approx(1607.987717408299, abs=1e-9)
    assert elo.shown_change(bruno.before, bruno.after) == "+8"


def test_k20_band() -> None:
    win = rate(rating=1600, opponent=1400, score=1, k=20)
    assert win.after == pytest.approx(1604.8050614670408, abs=1e-9) and win.k == 20
    loss = rate(rating=1600, opponent=1400, score=0, k=20)
    assert loss.after == pytest.approx(1584.8050614670408, abs=1e-9)
    assert loss.delta == pytest.approx(-15.194938533520845, abs=1e-9)


def test_k10_band() -> None:
    # 2450 vs 2300: E = 1/(1+10**-0.375) = 0.7033850...; a win is +10 * 0.296615 = +2.97.
    win = rate(rating=2450, opponent=2300, score=1, k=10)
    assert win.after == pytest.approx(2452.9661499652816, abs=1e-9)


def test_floor() -> None:
    # 105 vs 105 loses 20 with K 40: 85, held at the floor of 100.
    loss = rate(rating=105, opponent=105, score=0, k=40)
    assert loss.after == 100.0 and loss.delta == -5.0
    assert rate(rating=100, opponent=3000, score=0, k=40).after == 100.0


@given(ratings, ratings, st.sampled_from([10, 20, 40]), st.sampled_from([0, 1]))
def test_deltas_sum_to_zero_with_the_same_k(a: float, b: float, k: int, a_score: int) -> None:
    first = rate(rating=a, opponent=b, score=a_score, k=k)
    second = rate(rating=b, opponent=a, score=1 - a_score, k=k)
    if first.after > elo.RATING_FLOOR and second.after > elo.RATING_FLOOR:  # the floor creates points
        assert first.delta + second.delta == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("bad", [
    {"rating": float("nan"), "opponent": 1500, "score": 1, "k": 40},
    {"rating": 1500, "opponent": float("inf"), "score": 1, "k": 40},
    {"rating": 1500, "opponent": 1500, "score": 2, "k": 40},
    {"rating": 1500, "opponent": 1500, "score": True, "k": 40},
    {"rating": 1500, "opponent": 1500, "score": 1, "k": 0},
])
def test_bad_input_is_refused(bad: dict[str, float]) -> None:
    with pytest.raises(EloError):
        rate(**bad)  # type: ignore[arg-type]
    with pytest.raises(EloError):
        k_factor(rated_matches=-1, peak_rating=1500)


def test_shown_rounds_half_up_and_changes_add_up() -> None:
    assert [elo.shown(x) for x in (1512.4999, 1512.5, 1527.49)] == [1512, 1513, 1527]
    assert elo.shown_change(1512.4, 1527.3) == "+15"
    assert elo.shown_change(1512.4, 1512.45) == "0"
    assert elo.is_provisional(9) and not elo.is_provisional(10)
