"""The arithmetic of the fair-play signals (docs/fairplay.md "Strength and the queue"): framework-free,
typed strictly, every number here.

Each signal of a pair of players or of one player is mapped to a *score* in 0..1 by a documented
threshold curve (:func:`ramp`: 0 up to where an honest player plausibly is, 1 from where a case is hard
to explain, linear between), some capped below 1 (a weight: a signal that alone never justifies a look,
such as playing the same friend often or sharing a network). A pair's *strength* and a player's are the
noisy-or of their scores (:func:`noisy_or`: independent pieces of evidence, each explaining away a part
of the doubt left by the others), and a pair's strength is passed on to BOTH of its players (the
beneficiary and the feeder). The queue shows a case as "look at this" from :data:`THRESHOLD` on.

A *reason* is ``{"signal": name, "value": number, "strength": score, "note": text}``; lists of reasons
are sorted strongest first (ties: by signal name), and only scores above 0 are kept.

Worked examples (each is a test in tests/fairplay/test_measures.py):

- ``ramp(3, 1, 4) == 2 / 3``; ``noisy_or([0.5, 0.5]) == 0.75``.
- The colluding pair of issue 25 (8 rated matches together, 8 of the puppet's 8 and 8 of the farmer's 12,
  all resigned, the farmer +92 points, the same network): resign 1.0, transfer 0.6 * (92 - 30) / 70 =
  0.5314, repeat 0.5 * 1 * 1 = 0.5, same network 0.4 -> strength 1.0.
- An honest pair that met twice (one of 4 matches for each, no resignation, 18 points across, both on
  one day): every score 0 -> strength 0.0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypedDict

THRESHOLD = 0.7
"""From this strength on the queue shows a case as "look at this" (docs/fairplay.md)."""

ASSISTANCE_FLAG_Z = 3.0
"""The assistance z-score from which the assistance signal alone is a case (``fairplay.assistance.THRESHOLD``,
calibrated there; a test checks the two agree): its score reaches :data:`THRESHOLD` exactly at this z."""
ASSISTANCE_RAMP = (ASSISTANCE_FLAG_Z - 2.0, ASSISTANCE_FLAG_Z - 2.0 + 2.0 / THRESHOLD)
"""The assistance score is ``ramp(z, 1, 3.857)``: 0 up to z = 1, 0.35 at z = 2, 0.7 at z = 3, 1 from 3.857."""

WINDOW_DAYS = 30
"""The signals read the rated matches of the last 30 days; a player is refreshed when it has one there."""

HIGH_DEADWOOD = 8
"""A knock is "with high deadwood" from 8 points of deadwood on (classic's limit is 10). Knocking that high
is common and honest (the house bots of levels 1-4 end a third to two thirds of their hands so: measured
in the simulation), so the pair signal counts only such knocks the defender *undercut*: the knocker handed
the other the hand and the undercut bonus, a feeder's way of giving points that still looks like play."""

EARLY_RESIGN_ACTIONS = 6
"""A resignation is "early" when the resigner had made fewer than 6 actions of its own (draws, passes,
discards; the timer's automatic moves not counted), about three turns: too soon to know the hand is lost."""

DROP_POINTS = 100.0
"""A rating drop before a tournament: at least 100 Elo points lost (net) in the :data:`DROP_HOURS` before
the player registered (sandbagging: losing on purpose to enter a weaker field)."""

DROP_HOURS = 48

REPORT_WEIGHT = 0.25
"""Each distinct reporter with an open report adds a quarter of the remaining doubt (1, 2, 4 reporters:
0.25, 0.4375, 0.684): reports alone reach the threshold only from 5 different people."""


class Reason(TypedDict):
    signal: str
    value: float
    strength: float
    note: str


def ramp(value: float, low: float, high: float) -> float:
    """0.0 for ``value <= low``, 1.0 for ``value >= high``, linear between (``low < high``).

    >>> ramp(3, 1, 4)
    0.6666666666666666

    :raises ValueError: ``low >= high``.
    """
    if not low < high:
        raise ValueError(f"ramp needs low < high, got {low} and {high}")
    if value <= low:
        return 0.0
    if value >= high:
        return 1.0
    return (value - low) / (high - low)


def noisy_or(scores: Iterable[float]) -> float:
    """``1 - prod(1 - s)`` over ``scores`` (each 0..1): 0.0 for none; 1.0 as soon as one is 1.

    >>> noisy_or([0.5, 0.5])
    0.75

    :raises ValueError: a score outside 0..1.
    """
    doubt = 1.0
    for score in scores:
        if not 0.0 <= score <= 1.0 or math.isnan(score):
            raise ValueError(f"a score is 0..1, got {score}")
        doubt *= 1.0 - score
    return 1.0 - doubt


def _sorted(reasons: Iterable[Reason]) -> list[Reason]:
    kept = [r for r in reasons if r["strength"] > 0.0]
    return sorted(kept, key=lambda r: (-r["strength"], r["signal"]))


def strength(reasons: Iterable[Reason]) -> float:
    """The noisy-or of the reasons' strengths, rounded to 4 decimals (the stored figure)."""
    return round(noisy_or(r["strength"] for r in reasons), 4)


@dataclass(frozen=True, slots=True)
class PairFigures:
    """Two players' figures against each other in the window (``fairplay.models.PairSignal``).

    ``matches``: rated matches together; ``share_low``/``share_high``: that over each one's rated matches;
    ``transferred``: Elo points the higher id gained from the lower, net; ``resign_share``: of their matches,
    ended by a resignation; ``hands``: hands they finished together; ``high_deadwood_knocks``: of those,
    the share ended by a knock with :data:`HIGH_DEADWOOD` or more that the defender undercut;
    ``overlap``: days they played each
    other over the days either played a rated match; ``same_network``/``same_device``: a sighting in common.
    """

    matches: int
    share_low: float
    share_high: float
    transferred: float
    resign_share: float
    hands: int
    high_deadwood_knocks: float
    overlap: float
    same_network: bool
    same_device: bool


def _reason(signal: str, value: float, score: float, note: str) -> Reason:
    return {"signal": signal, "value": round(value, 4), "strength": round(score, 4), "note": note}


def pair_reasons(f: PairFigures) -> list[Reason]:
    """The scores of a pair, strongest first (docs/fairplay.md, table "Pair signals"):

    - ``resign``: ``ramp(matches, 1, 4) * ramp(resign_share, 0.3, 0.8)``: four matches or more nearly all
      resigned (honest players, and bots, resign a lost match now and then, not every one);
    - ``deadwood_knocks``: ``0.8 * ramp(matches, 2, 5) * ramp(share, 0.2, 0.5)``, ``share`` the hands
      ended by an undercut knock with :data:`HIGH_DEADWOOD` or more;
    - ``transfer``: ``0.6 * ramp(|transferred|, 30, 100)``: a stronger friend wins points honestly too;
    - ``repeat``: ``0.5 * ramp(matches, 2, 8) * ramp(max share, 0.25, 0.75)``: friends play each other;
    - ``overlap``: ``0.3 * ramp(matches, 3, 8) * overlap``;
    - ``same_device`` 0.6, ``same_network`` 0.4 (a household, a campus, a café share a network).
    """
    share = max(f.share_low, f.share_high)
    direction = "the second gained" if f.transferred >= 0 else "the first gained"
    reasons = [
        _reason("resign", f.resign_share, ramp(f.matches, 1, 4) * ramp(f.resign_share, 0.3, 0.8),
                f"{f.resign_share:.0%} of {f.matches} rated matches together ended by a resignation"),
        _reason("deadwood_knocks", f.high_deadwood_knocks,
                0.8 * ramp(f.matches, 2, 5) * ramp(f.high_deadwood_knocks, 0.2, 0.5),
                f"{f.high_deadwood_knocks:.0%} of {f.hands} hands: a knock with {HIGH_DEADWOOD}+ deadwood, "
                f"undercut"),
        _reason("transfer", f.transferred, 0.6 * ramp(abs(f.transferred), 30, 100),
                f"{abs(f.transferred):.1f} Elo points transferred ({direction})"),
        _reason("repeat", share, 0.5 * ramp(f.matches, 2, 8) * ramp(share, 0.25, 0.75),
                f"{f.matches} rated matches together: {f.share_low:.0%} and {f.share_high:.0%} "
                f"of each one's"),
        _reason("overlap", f.overlap, 0.3 * ramp(f.matches, 3, 8) * f.overlap,
                f"played each other on {f.overlap:.0%} of their days"),
        _reason("same_device", float(f.same_device), 0.6 if f.same_device else 0.0, "same device"),
        _reason("same_network", float(f.same_network), 0.4 if f.same_network else 0.0, "same network"),
    ]
    return _sorted(reasons)


@dataclass(frozen=True, slots=True)
class PlayerFigures:
    """One player's figures in the window (``fairplay.models.PlayerSignal``).

    ``abandoned``: rated matches lost by leaving or on time; ``early_resigns``: matches resigned before
    :data:`EARLY_RESIGN_ACTIONS` own actions; ``drops``: registrations preceded by a drop of
    :data:`DROP_POINTS` or more; ``worst_drop``: the largest such drop (points lost, 0 for none);
    ``reporters``: distinct players with an open report; ``assistance_z``: written by the assistance
    analysis (None: not analysed); ``pair``: the strongest strength among the player's pairs and
    ``pair_note`` who with.
    """

    abandoned: int
    early_resigns: int
    drops: int
    worst_drop: float
    reporters: int
    assistance_z: float | None
    pair: float
    pair_note: str


def player_reasons(f: PlayerFigures) -> list[Reason]:
    """The scores of a player, strongest first (docs/fairplay.md, table "Player signals"):

    - ``pair``: the strength of the player's strongest pair, as it is (both players of a pair get it);
    - ``assistance``: ``ramp(z, *ASSISTANCE_RAMP)`` = ``ramp(z, 1, 3.857)`` (agreement with level 5, z-score
      within the rating band): 0.7, a case on its own, from :data:`ASSISTANCE_FLAG_Z` = 3 on;
    - ``drop_before_tournament``: ``ramp(worst_drop, 50, 150)``: 150 points lost before registering is a
      case, 100 half of one;
    - ``early_resigns``: ``ramp(count, 1, 4)``;
    - ``abandoned``: ``0.6 * ramp(count, 1, 5)`` (bad manners, lobby's playbans handle it; alone never a
      case);
    - ``reports``: ``1 - (1 - REPORT_WEIGHT) ** reporters``.
    """
    reasons = [
        _reason("pair", f.pair, f.pair, f.pair_note),
        _reason("drop_before_tournament", f.worst_drop, ramp(f.worst_drop, 50, 150),
                f"{f.drops} registration(s) after losing {DROP_POINTS:.0f}+ points in {DROP_HOURS} h; "
                f"the largest {f.worst_drop:.1f}"),
        _reason("early_resigns", f.early_resigns, ramp(f.early_resigns, 1, 4),
                f"{f.early_resigns} match(es) resigned before {EARLY_RESIGN_ACTIONS} own moves"),
        _reason("abandoned", f.abandoned, 0.6 * ramp(f.abandoned, 1, 5),
                f"{f.abandoned} rated match(es) lost by leaving or on time"),
        _reason("reports", f.reporters, 1.0 - (1.0 - REPORT_WEIGHT) ** f.reporters,
                f"open reports from {f.reporters} player(s)"),
    ]
    if f.assistance_z is not None:
        reasons.append(_reason("assistance", f.assistance_z, ramp(f.assistance_z, *ASSISTANCE_RAMP),
                               f"agreement with level 5 at z = {f.assistance_z:.2f} in the rating band"))
    return _sorted(reasons)


def transfer(high_deltas: Iterable[float], low_deltas: Iterable[float]) -> float:
    """Net Elo points the higher-id player gained from the lower one in their matches: the mean of what
    one gained and the other lost (their K-factors may differ), ``(sum(high) - sum(low)) / 2``.

    >>> transfer([11.5, 11.5], [-11.5, -13.0])
    23.75
    """
    return (sum(high_deltas) - sum(low_deltas)) / 2.0


def worst_drop(changes: Iterable[tuple[float, float]], registered: Iterable[float]) -> tuple[int, float]:
    """Drops before registrations. ``changes``: ``(time, delta)`` of the player's rating changes,
    ``registered``: the times of its registrations (any one unit, e.g. POSIX seconds). For each
    registration the net delta of the changes in the :data:`DROP_HOURS` before it (time in
    ``(t - 48 h, t]``); returns (how many registrations had a net loss of :data:`DROP_POINTS` or more, the
    largest net loss among them or 0.0).

    >>> worst_drop([(0.0, -80.0), (3600.0, -70.0), (7200.0, 20.0)], [7200.0, 9 * 86400.0])
    (1, 130.0)
    """
    window = DROP_HOURS * 3600.0
    listed = list(changes)
    count, worst = 0, 0.0
    for at in registered:
        lost = -sum(delta for t, delta in listed if at - window < t <= at)
        if lost >= DROP_POINTS:
            count += 1
            worst = max(worst, lost)
    return count, worst
