"""The assistance signal (docs/fairplay.md "Assistance signal"): how often a player's decisions agree with
level 5's, how many expected points they lose per decision, and how far that sits from the players of
the same rating band. Framework-free (the engine only), ``mypy --strict``.

Three parts:

- **One seat of one match** (:func:`tally_seat`): of the seat's decisions (``engine.analysis.positions``:
  forced moves and the turn timer's moves skipped) every draw and upcard decision and at most
  :data:`MAX_DECISIONS` discard decisions (which card to discard, whether to knock, big gin; spread
  evenly over the match: :func:`spread`) are put to level 5 and to level 4
  (``engine.bots.ladder.make_bot``, seeded from public data only: :func:`level5_seed`). Where they differ
  the decision is *contested* (following level 5 shows there); on each contested decision, did the seat
  play level 5's move, and how many expected points did its move lose (``engine.analysis.judge`` at
  :data:`JUDGE_WORLDS` worlds). The result is a :class:`Tally`: contested decisions, agreed, points lost.
- **A player's rolling figure** (:func:`rolling`): the last :data:`WINDOW` analysed matches' tallies
  summed: agreement = agreed / decisions, loss per decision.
- **Against the band** (:func:`band_of`, :func:`z_score`): the rating band is the house-bot level whose
  calibrated Elo is nearest the player's rating; the band's mean agreement and between-player spread
  (:data:`BANDS`, measured by ``scripts/fairplay_calibrate.py``) give
  ``z = (agreement - mean) / sqrt(spread**2 + mean * (1 - mean) / decisions)``: the spread of honest
  players plus the binomial noise of a figure of ``decisions`` decisions, so a short record is not
  flagged by luck. :data:`THRESHOLD` is where the signal speaks.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.actions import Action
from engine.analysis import Settings, judge
from engine.bots.ladder import make_bot
from engine.phase import Phase
from engine.view import PlayerView

METHOD_VERSION = 2
"""Stored on each ``SeatSignal`` row (``version``): bump when a tally would change (settings, sample, the
reference bot). 2: level 5 samples the opponent's hand from its posterior (issue 28)."""


def method_version() -> int:
    """:data:`METHOD_VERSION` (the ``SeatSignal.version`` default: a callable, so a bump needs no
    migration)."""
    return METHOD_VERSION

MAX_DECISIONS = 40
"""Discard decisions judged per seat and match, at most (level 5's choice ~36 ms each, and the judge at
:data:`JUDGE_WORLDS` worlds ~70 ms for the contested ones, about 4 in 10; docs/fairplay.md)."""

JUDGE_WORLDS = 48
"""Worlds per decision of ``engine.analysis.judge`` (the replay page's analysis uses 200): at 24 worlds
the mean cost of a level-3 discard read 2.5 points against 0.9 at 96 (the best of noisy options is
biased up); at 48, 1.0 (docs/fairplay.md)."""

WINDOW = 20
"""A player's rolling figure sums the tallies of their last this many analysed matches."""

MIN_DECISIONS = 100
"""Below this many (contested) decisions in the window the z-score is not computed (``None``): too few to
say. About 7 analysed matches (some 15 contested decisions a seat and match)."""

THRESHOLD = 3.0
"""A z-score at or above this is a case for the moderation queue (docs/fairplay.md: false positives)."""


@dataclass(frozen=True, slots=True)
class Band:
    """A rating band: honest players' ``mean`` agreement with level 5 on contested decisions (0..1),
    the ``spread`` (sd) of their true agreement between players, ``loss`` their mean expected points
    lost per contested decision. ``level``: the house-bot level the band is named after."""

    level: int
    mean: float
    spread: float
    loss: float


SPREAD_FLOOR = 0.12
"""The least ``spread`` of a band: the honest bots of one level hardly differ from seat to seat (measured
spread 0 to 0.04), people of one rating do; at 0.12 no honest level's figure is flagged in any band at 5,
10 or 20 matches, and level 5's is in bands 3 and 4 (docs/fairplay.md)."""

BANDS: dict[int, Band] = {
    1: Band(1, 0.189, SPREAD_FLOOR, 3.34),
    2: Band(2, 0.263, SPREAD_FLOOR, 2.94),
    3: Band(3, 0.134, SPREAD_FLOOR, 2.36),
    4: Band(4, 0.076, SPREAD_FLOOR, 2.56),
}
"""Band level -> :class:`Band`, measured on honest house bots of that level: 320 seats of 160 seeded
matches (classic, target 100), ``scripts/fairplay_calibrate.py play --matches 8 --seed 25`` and
``--seed 26``, then ``report`` (docs/fairplay.md "Calibration")."""

BOT_ELO: dict[int, float] = {1: 924.2, 2: 1322.6, 3: 1500.0, 4: 1539.2, 5: 1671.1}
"""The levels' calibrated Elo (``data/bot_elo.json``, ``ratings.bot_elo``) when the caller has none."""


# --------------------------------------------------------------------------------------------- one seat


@dataclass(frozen=True, slots=True)
class Tally:
    """One seat's judged decisions. Stored (``SeatSignal``): ``decisions``, the *contested* decisions
    judged (level 4's choice differs from level 5's: where following level 5 shows), ``agreed`` how many
    of them the seat played as level 5 would, ``loss`` the expected hand points the seat's choices lost
    on them in total (>= 0). For the calibration only: ``judged`` (every decision judged, contested or
    not) and ``judged_agreed``, and the same split for draws and upcard decisions (``draws``,
    ``draws_contested``, ``draws_agreed``: contested draws played as level 5). ``flagged``: where the
    seat played a contested decision as level 5 would, as ``(hand, step)`` (``engine.analysis.Position``:
    the hand's number and the action's 1-based step in it), the first :data:`FLAGGED_MOST` in play order,
    when the caller gave the places; the moderators' links to the replay at those decisions."""

    decisions: int = 0
    agreed: int = 0
    loss: float = 0.0
    judged: int = 0
    judged_agreed: int = 0
    draws: int = 0
    draws_contested: int = 0
    draws_agreed: int = 0
    flagged: tuple[tuple[int, int], ...] = ()


def level5_seed(view: PlayerView) -> int:
    """Level 5's (and level 4's) seed for ``view``: a 63-bit int from public data only (the hand's
    number, how many actions it has seen, the seat), so the same position always gets the same answer."""
    text = f"fairplay-level5:{view.hand_number}:{len(view.history)}:{view.player}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def spread(count: int, most: int) -> list[int]:
    """Which of ``count`` decisions (0-based, in order) are judged when at most ``most`` are: all of
    them when ``count <= most``, else ``most`` indices spread evenly from the first.

    >>> spread(3, 5), spread(10, 4)
    ([0, 1, 2], [0, 2, 5, 7])

    :raises ValueError: a negative count or a ``most`` below 1.
    """
    if count < 0 or most < 1:
        raise ValueError(f"spread needs count >= 0 and most >= 1, got {count}, {most}")
    if count <= most:
        return list(range(count))
    return [i * count // most for i in range(most)]


JUDGE_STAGES: tuple[tuple[int, float], ...] = ((50, 8.0), (100, 4.0), (200, 2.5))
"""The judge's successive-halving stages (those below its worlds are used): analysis version 1's."""


def judge_settings(worlds: int = JUDGE_WORLDS) -> Settings:
    """``engine.analysis.Settings`` at ``worlds`` worlds, the :data:`JUDGE_STAGES` below it, the
    opponent's hands weighted by the tracker: the judge the bands' losses were measured with (method
    version 2). The replay page's analysis now samples the posterior (analysis version 2); moving the
    judge to it changes every loss, so it waits for the next calibration."""
    return Settings(worlds=worlds, stages=tuple((n, m) for n, m in JUDGE_STAGES if n < worlds), seed=0,
                    opponents="tracker")


FLAGGED_MOST = 10
"""Most flagged decisions (contested, played as level 5) a seat keeps for the moderators' links."""


def tally_seat(moves: Iterable[tuple[PlayerView, Action]], *, most: int = MAX_DECISIONS,
               worlds: int = JUDGE_WORLDS, places: Sequence[tuple[int, int]] | None = None) -> Tally:
    """The :class:`Tally` of one seat's decisions ``moves`` (its ``(view, action played)`` pairs in
    the order played; only decisions: two or more legal actions, not the timer's).

    Every draw and upcard decision is judged (level 5 decides them without rollouts: about 1 ms), and at
    most ``most`` discard decisions (:func:`spread`). A decision is *contested* when level 4
    (``make_bot(4, seed)``: the look-ahead player without card tracking or sampling) would play
    otherwise than level 5 (``make_bot(5, seed)``), both seeded by :func:`level5_seed`; only contested
    decisions are stored, and only they are valued by ``engine.analysis.judge`` (``worlds`` worlds).

    :param places: each move's ``(hand, step)``, parallel to ``moves``: given, the tally's ``flagged``
        lists the contested decisions played as level 5, in play order (at most :data:`FLAGGED_MOST`).
    :raises ValueError: an action that is not legal in its view (``engine.analysis.judge``), or
        ``places`` not as long as ``moves``.
    """
    listed = list(moves)
    if places is not None and len(places) != len(listed):
        raise ValueError(f"places ({len(places)}) must be parallel to moves ({len(listed)})")
    discards: list[int] = []
    todo: list[int] = []
    for index, (view, _action) in enumerate(listed):
        (discards if view.phase is Phase.DISCARD else todo).append(index)
    todo += [discards[i] for i in spread(len(discards), most)]
    todo.sort()  # play order (a draw and the discard after it), so ``flagged`` reads as the match went
    settings = judge_settings(worlds)
    count = {"decisions": 0, "agreed": 0, "judged": 0, "judged_agreed": 0, "draws": 0,
             "draws_contested": 0, "draws_agreed": 0}
    loss = 0.0
    flagged: list[tuple[int, int]] = []
    for index in todo:
        view, action = listed[index]
        seed = level5_seed(view)
        best = make_bot(5, seed).choose(view)
        same = best == action
        draw = view.phase is not Phase.DISCARD
        count["judged"] += 1
        count["judged_agreed"] += same
        count["draws"] += draw
        if make_bot(4, seed).choose(view) == best:
            continue
        count["decisions"] += 1
        count["agreed"] += same
        count["draws_contested"] += draw
        count["draws_agreed"] += draw and same
        if same and places is not None and len(flagged) < FLAGGED_MOST:
            flagged.append(places[index])
        loss += judge(view, action, settings).cost
    return Tally(loss=loss, flagged=tuple(flagged), **count)


def in_sample(match_id: int, rate: float, salt: str = "") -> bool:
    """Whether match ``match_id`` is in the background sample at ``rate`` (0..1): a SHA-256 of ``salt``
    and the id mapped to [0, 1), below ``rate``. Deterministic (the same match is in or out on every
    call, in every process), spread evenly, and, with a secret ``salt`` (the site passes its secret
    key), not computable by a player from the public code.

    >>> in_sample(1, 0.0), in_sample(1, 1.0), [m for m in range(1, 21) if in_sample(m, 0.25)]
    (False, True, [1, 8, 16, 19])

    :raises ValueError: ``rate`` outside 0..1.
    """
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"the sample rate must be within 0..1, got {rate!r}")
    digest = hashlib.sha256(f"fairplay-sample:{salt}:{match_id}".encode() if salt
                            else f"fairplay-sample:{match_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0 ** 64 < rate


# --------------------------------------------------------------------------------------------- a player


@dataclass(frozen=True, slots=True)
class Figure:
    """A player's rolling figure: ``decisions`` (summed), ``agreement`` (0..1, None without decisions),
    ``loss_per_decision`` (expected points, None without decisions), ``matches`` summed."""

    decisions: int
    agreement: float | None
    loss_per_decision: float | None
    matches: int


def rolling(tallies: Sequence[tuple[int, int, float]], window: int = WINDOW) -> Figure:
    """The rolling figure of a player's ``tallies`` ``(decisions, agreed, loss)``, newest first: the
    first ``window`` summed.

    >>> rolling([(10, 7, 5.0), (20, 12, 30.0), (99, 99, 0.0)], window=2)
    Figure(decisions=30, agreement=0.6333333333333333, loss_per_decision=1.1666666666666667, matches=2)

    :raises ValueError: ``window`` below 1, or a tally with negative numbers or agreed > decisions.
    """
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    kept = list(tallies[:window])
    for decisions, agreed, loss in kept:
        if decisions < 0 or agreed < 0 or agreed > decisions or loss < 0:
            raise ValueError(f"a tally needs 0 <= agreed <= decisions and loss >= 0, got "
                             f"{(decisions, agreed, loss)}")
    n = sum(t[0] for t in kept)
    if n == 0:
        return Figure(0, None, None, len(kept))
    return Figure(n, sum(t[1] for t in kept) / n, sum(t[2] for t in kept) / n, len(kept))


def band_of(rating: float, elo: Mapping[int, float] | None = None, bands: Mapping[int, Band] | None = None,
            ) -> Band:
    """The band of a player rated ``rating``: the band whose level's calibrated Elo (``elo``, default
    :data:`BOT_ELO`) is nearest (a tie goes to the lower level).

    >>> band_of(1000.0).level, band_of(1450.0).level, band_of(1530.0).level, band_of(2000.0).level
    (1, 3, 4, 4)

    :raises ValueError: no band has a calibrated Elo.
    """
    elo = BOT_ELO if elo is None else elo
    bands = BANDS if bands is None else bands
    known = sorted(level for level in bands if level in elo)
    if not known:
        raise ValueError("no rating band has a calibrated Elo")
    return bands[min(known, key=lambda level: (abs(elo[level] - rating), level))]


def z_score(figure: Figure, band: Band, least: int = MIN_DECISIONS) -> float | None:
    """How many standard deviations ``figure``'s agreement sits above ``band``'s mean (module
    docstring): None below ``least`` decisions.

    >>> round(z_score(Figure(100, 0.8, 1.0, 5), Band(4, 0.7, 0.05, 1.0)), 3)
    1.474
    """
    if figure.agreement is None or figure.decisions < least:
        return None
    mean = band.mean
    sd = math.sqrt(band.spread ** 2 + mean * (1.0 - mean) / figure.decisions)
    return (figure.agreement - mean) / sd
