"""Computer analysis of a finished match (issue 12): level 5's evaluator, given more time, judges every
decision of both players from that player's own information at that moment.

A *decision* is an action its player chose among two or more legal ones: take or pass the first upcard
(``offer``), stock or discard pile (``draw``), which card to discard and whether to knock or play on
(``discard``: every ``discard X``, ``knock X`` and big gin). Forced moves (one legal action) are not
decisions, and the turn timer's moves (``auto``) are not the player's: both are skipped.

**What the judge sees.** :func:`judge` takes a :class:`~engine.view.PlayerView` (``HandState.view``):
the player's own cards, the discard pile, the cards the opponent took and still holds, counts and the
public history. It never receives the opponent's concealed cards or the stock order, so it cannot read
them; equal views give equal judgements (the worlds' generator is seeded from public data only).

**How an option is valued** (level 5's evaluator, ``engine.bots.expert``): the unseen cards are split
into ``worlds``, guesses of the opponent's concealed hand (drawn from level 5's posterior,
:func:`engine.bots.posterior.sample_posterior`, given what its takes, declines and discards say; or,
with ``Settings.opponents == "tracker"``, as analysis version 1 did, by
:func:`engine.bots.tracker.sample_opponent_hands`) and a stock order (the rest, shuffled:
:func:`engine.bots.rollout.make_worlds`). In each world the
option is played, then the hand is played out to its end with the simple player's policy on both sides
(take the upcard only for a meld, discard the least deadwood, knock at once), under the match's rules
exactly (offers, dead hand at the stock floor, the discard-draw limit, big gin), and scored by the
engine's :func:`~engine.scoring.score_knock` (its number: :func:`~engine.knock_points.knock_points`).
An option's value is its mean hand points over the
worlds, from the player's side (positive: the player scores; negative: the opponent does; a dead hand
is 0). Every option plays the same worlds (common random numbers), so the worlds' noise largely cancels
between options. Level 5 plays 100 worlds on the heuristic's best few discards; the analysis plays
:attr:`Settings.worlds` (200) on every legal option, dropping at each of :attr:`Settings.stages` (after
25, 50 and 100 worlds) the options that trail the leader by more than 8, 4 and 2.5 points (never the
move played). Version 2's settings were chosen against two references, the opponent's true hand and
a posterior search with ten times the worlds (``scripts/bench_analysis_agreement.py``, docs/analysis.md).

**Cost and marks.** ``cost = best value - chosen value`` (expected points, >= 0; 0 when the move played
is the best, ties going to the move played). :func:`classify` marks a decision by its cost
(:data:`THRESHOLDS`): ``?!`` inaccuracy (2 to 5 points), ``?`` mistake (5 to 10), ``??`` blunder
(10 or more); a cost under 2 points, or under twice its standard error (``error``, from the per-world
differences), is within the evaluator's noise and gets no mark.

Values are hand points, not match-win chances: the score of the match (how close the target is) is
not taken into account. Framework-free, ``mypy --strict``.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.actions import BIG_GIN, DISCARDS, DRAW_DISCARD, DRAW_STOCK, KNOCKS, PASS, TAKE, Action, ActionKind
from engine.bots.common import forms_meld, mask_of
from engine.bots.posterior import read_evidence, sample_posterior
from engine.bots.rollout import World, make_worlds
from engine.bots.tracker import read_table, sample_opponent_hands
from engine.cards import Card, CardMask, parse_card
from engine.knock_points import knock_points
from engine.match import MatchState
from engine.melds import deadwood_of_mask, least_discard_of_mask
from engine.phase import Phase
from engine.replay_format import verify
from engine.rules import RuleSet
from engine.view import PlayerView

ANALYSIS_VERSION = 2
"""Bump when a judgement would change (settings, valuation, marks): analyses are stored per version."""

Decision = Literal["offer", "draw", "discard"]
Opponents = Literal["tracker", "posterior"]
Mark = Literal["", "?!", "?", "??"]
Json = dict[str, Any]

THRESHOLDS: tuple[tuple[Mark, float], ...] = (("??", 10.0), ("?", 5.0), ("?!", 2.0))
"""(mark, least cost in expected points), largest first: ``??`` from 10, ``?`` from 5, ``?!`` from 2."""
NOISE_FACTOR = 2.0
"""A cost is marked only when it exceeds this many standard errors (the evaluator's noise)."""
MAX_ACTIONS = 400
"""Safety stop of one playout (actions; the discard-draw limit ends real hands well before)."""

_OFFERS = (Phase.OFFER_NONDEALER, Phase.OFFER_DEALER)
_TAKES = (ActionKind.TAKE_UPCARD, ActionKind.DRAW_DISCARD)


@dataclass(frozen=True, slots=True)
class Settings:
    """How hard the evaluator looks: ``worlds`` sampled per decision; ``stages`` of successive
    halving, ``(worlds, points)`` (after that many worlds, options trailing the leader's mean by more
    than ``points`` are dropped, never the move played); ``seed`` of the worlds' generator;
    ``opponents``, where the opponent's hands come from (:func:`worlds_of`)."""

    worlds: int = 200
    stages: tuple[tuple[int, float], ...] = ((25, 8.0), (50, 4.0), (100, 2.5))
    seed: int = 0
    opponents: Opponents = "posterior"

    def to_dict(self) -> Json:
        """JSON-ready: ``{"worlds", "stages": [[worlds, points], ...], "seed", "opponents"}``."""
        return {"worlds": self.worlds, "stages": [list(s) for s in self.stages], "seed": self.seed,
                "opponents": self.opponents}


@dataclass(frozen=True, slots=True)
class Option:
    """One legal option: ``action`` (canonical text), ``value`` (mean hand points, the player's side)
    over ``worlds`` worlds (fewer than the settings' when it was dropped early)."""

    action: str
    value: float
    worlds: int


@dataclass(frozen=True, slots=True)
class Judgement:
    """The evaluator's verdict on one decision.

    - ``decision``: ``offer``, ``draw`` or ``discard``; ``chosen``: the move played; ``best``: the
      evaluator's preferred move (``chosen`` when it is the best or tied with it).
    - ``chosen_value``, ``best_value``: expected hand points (the player's side); ``cost`` =
      ``best_value - chosen_value`` >= 0; ``error``: the standard error of ``cost`` (points).
    - ``mark``: :func:`classify` of ``cost`` and ``error``.
    - ``options``: every option the evaluator valued, best first.
    """

    decision: Decision
    chosen: str
    best: str
    chosen_value: float
    best_value: float
    cost: float
    error: float
    mark: Mark
    options: tuple[Option, ...]


def classify(cost: float, error: float = 0.0) -> Mark:
    """The mark of a decision costing ``cost`` expected points with standard error ``error``
    (:data:`THRESHOLDS`; ``""`` below 2 points or within :data:`NOISE_FACTOR` standard errors).

    >>> classify(1.9), classify(2.0), classify(5.0), classify(9.99), classify(10.0), classify(3.0, 2.0)
    ('', '?!', '?', '?', '??', '')
    """
    if cost <= NOISE_FACTOR * error:
        return ""
    for mark, least in THRESHOLDS:
        if cost >= least:
            return mark
    return ""


def decision_of(view: PlayerView) -> Decision:
    """What ``view``'s player decides now: ``offer``, ``draw`` or ``discard``.

    :raises ValueError: the hand has ended.
    """
    if view.phase in _OFFERS:
        return "offer"
    if view.phase is Phase.DRAW:
        return "draw"
    if view.phase is Phase.DISCARD:
        return "discard"
    raise ValueError("the hand has ended: no decision")


# --------------------------------------------------------------------------------------------- playouts


@functools.lru_cache(maxsize=1 << 17)
def _discard_choice(hand11: CardMask, keep: Card | None) -> tuple[Card, int, bool]:
    """The simple player's discard from 11 cards: (card, deadwood left, all 11 melded), never ``keep``
    (the card just taken); ties go to the highest card (it sheds the most points). Cached: the worlds
    of one decision meet the same hands again and again."""
    best_card, best = least_discard_of_mask(hand11, keep)
    # all 11 melded implies a meld of 4+ cards, so some discard leaves 0: test only then
    return best_card, best, best == 0 and deadwood_of_mask(hand11) == 0


@dataclass(frozen=True, slots=True)
class _Start:
    """The position a decision is taken in, from its player's view (everything public)."""

    me: int
    hand: CardMask
    pile: tuple[Card, ...]
    phase: Phase
    taken: Card | None
    stock_only: bool
    pile_draws: int
    rules: RuleSet
    knock_limit: int
    multiplier: int
    scores: dict[tuple[CardMask, CardMask, int], int] = field(default_factory=dict)

    @classmethod
    def of(cls, view: PlayerView) -> _Start:
        draws = sum(1 for e in view.history if e.action.kind in _TAKES)
        stock_only = view.phase is Phase.DRAW and DRAW_DISCARD not in view.legal_actions
        return cls(
            me=view.player, hand=mask_of(view.hand), pile=view.discard_pile, phase=view.phase,
            taken=view.taken_card, stock_only=stock_only,
            pile_draws=draws, rules=view.rules, knock_limit=view.knock_limit, multiplier=view.multiplier,
        )

    def score(self, knocker_cards: CardMask, defender_cards: CardMask, knocker: int) -> int:
        """Hand points from my side of ``knocker``'s knock (10 cards) or big gin (11 cards)."""
        key = (knocker_cards, defender_cards, knocker)
        hit = self.scores.get(key)
        if hit is None:
            points = knock_points(knocker_cards, defender_cards, self.rules, self.knock_limit,
                                  self.multiplier)
            hit = points if knocker == self.me else -points
            self.scores[key] = hit
        return hit


def playout(start: _Start, world: World, first: Action) -> int:
    """Hand points from my side when I play ``first`` in ``start`` and both players then follow the
    simple player's policy in ``world`` (the opponent's 10 or 11 cards and the stock, top first) until
    the hand ends (module docstring)."""
    me = start.me
    hands = [0, 0]
    hands[me] = start.hand
    hands[1 - me] = world.opponent
    pile = list(start.pile)
    stock = world.stock
    pos = 0
    phase = start.phase
    turn = me
    taken = start.taken
    stock_only = start.stock_only
    draws = start.pile_draws
    rules = start.rules
    floor, draw_limit = rules.stock_floor, rules.discard_draw_limit
    limit = start.knock_limit
    action: Action | None = first
    for _ in range(MAX_ACTIONS):
        if action is None:  # the simple player's policy
            hand = hands[turn]
            if phase is Phase.DISCARD:
                keep = None if rules.may_discard_taken_card else taken
                card, left, big_gin = _discard_choice(hand, keep)
                action = BIG_GIN if big_gin else (KNOCKS[card] if left <= limit else DISCARDS[card])
            else:
                top = pile[-1] if pile else None
                meld = top is not None and forms_meld(hand, top)
                if phase is Phase.DRAW:
                    action = DRAW_DISCARD if meld and not stock_only else DRAW_STOCK
                else:
                    action = TAKE if meld else PASS
        kind = action.kind
        if kind is ActionKind.DISCARD:
            thrown = action.card
            assert thrown is not None
            hands[turn] &= ~(1 << thrown)
            pile.append(thrown)
            taken = None
            if len(stock) - pos <= floor or (draw_limit is not None and draws >= draw_limit):
                return 0  # dead hand (rules.md point 8)
            phase = Phase.DRAW
            turn ^= 1
        elif kind is ActionKind.DRAW_STOCK:
            if pos >= len(stock):
                return 0  # the view's counts and the world disagree: no card to draw
            hands[turn] |= 1 << stock[pos]
            pos += 1
            taken = None
            stock_only = False
            phase = Phase.DISCARD
        elif kind in _TAKES:
            taken = pile.pop()
            hands[turn] |= 1 << taken
            draws += 1
            phase = Phase.DISCARD
        elif kind is ActionKind.PASS:
            if phase is Phase.OFFER_NONDEALER:
                phase = Phase.OFFER_DEALER
            else:
                phase = Phase.DRAW
                stock_only = True
            turn ^= 1
        elif kind is ActionKind.KNOCK:
            thrown = action.card
            assert thrown is not None
            return start.score(hands[turn] & ~(1 << thrown), hands[1 - turn], turn)
        else:  # big gin
            return start.score(hands[turn], hands[1 - turn], turn)
        action = None
    return 0  # the players keep trading pile cards: call it a dead hand


# --------------------------------------------------------------------------------------------- judging


CHAIN_STEPS = 5
"""Metropolis steps per world when the opponents' hands come from the posterior (200 worlds: 1,000
steps after the burn-in, as level 5's 100)."""


def worlds_of(view: PlayerView, count: int, rng: random.Random, opponents: Opponents) -> list[World]:
    """``count`` guesses at what ``view``'s player cannot see (module docstring), from the view only:
    the opponent's hands weighted by the tracker (``"tracker"``) or drawn from level 5's posterior
    (``"posterior"``, :func:`engine.bots.posterior.sample_posterior`, :data:`CHAIN_STEPS` a world)."""
    if opponents == "posterior":
        evidence = read_evidence(view)
        hands = sample_posterior(evidence, count, rng, steps=CHAIN_STEPS * count)
        return make_worlds(hands, evidence.unknown, view.stock_size, rng)
    table = read_table(view)
    return make_worlds(sample_opponent_hands(table, count, rng), table.unknown, view.stock_size, rng)


def _seed(view: PlayerView, settings: Settings) -> str:
    """The worlds' seed: public data only (so equal views sample equal worlds)."""
    return f"gin-analysis:{settings.seed}:{view.hand_number}:{len(view.history)}:{view.player}"


def judge(view: PlayerView, chosen: Action, settings: Settings | None = None) -> Judgement:
    """Value every legal option of ``view``'s player and compare ``chosen`` with the best
    (module docstring).

    :raises ValueError: ``chosen`` is not one of ``view.legal_actions`` (or there are none).
    """
    settings = settings or Settings()
    legal = view.legal_actions
    if chosen not in legal:
        raise ValueError(f"{chosen} is not a legal action here (legal: {', '.join(map(str, legal))})")
    decision = decision_of(view)
    start = _Start.of(view)
    rng = random.Random(_seed(view, settings))
    worlds = worlds_of(view, max(1, settings.worlds), rng, settings.opponents)
    values: dict[Action, list[int]] = {a: [] for a in legal}
    alive = list(legal)
    done = 0
    for until, margin in (*settings.stages, (len(worlds), None)):
        until = min(until, len(worlds))
        if until <= done:
            continue
        for action in alive:
            values[action].extend(playout(start, w, action) for w in worlds[done:until])
        done = until
        if margin is not None:  # successive halving: all alive options played the same worlds
            lead = max(sum(values[a]) for a in alive)
            alive = [a for a in alive if a == chosen or sum(values[a]) >= lead - margin * done]
            if len(alive) == 1:
                break  # the move played alone is left: it is the best, its cost is 0
    means = {a: sum(v) / len(v) for a, v in values.items()}
    ranked = sorted(legal, key=lambda a: (-means[a] if a in alive else math.inf, a != chosen, a))
    best = ranked[0]
    cost = max(0.0, means[best] - means[chosen])
    error = 0.0
    if best != chosen:
        diffs = [b - c for b, c in zip(values[best], values[chosen], strict=True)]
        n = len(diffs)
        mean = sum(diffs) / n
        error = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) if n > 1 else 0.0
    return Judgement(
        decision=decision, chosen=str(chosen), best=str(best), chosen_value=means[chosen],
        best_value=means[best], cost=cost, error=error, mark=classify(cost, error),
        options=tuple(Option(str(a), means[a], len(values[a])) for a in ranked),
    )


# --------------------------------------------------------------------------------------------- a match


@dataclass(frozen=True, slots=True)
class Position:
    """One action of a replay as its player faced it: ``hand`` number, ``step`` (the action's 1-based
    place in its hand: the replay viewer's step), ``seat``, the player's ``view`` before it, the
    ``action`` played, ``auto`` (the turn timer played it)."""

    hand: int
    step: int
    seat: int
    view: PlayerView
    action: Action
    auto: bool

    @property
    def is_decision(self) -> bool:
        """Whether the player chose among two or more legal actions (and the timer did not play it)."""
        return not self.auto and len(self.view.legal_actions) > 1


def positions(record: Json) -> Iterator[Position]:
    """Every action of the replay file ``record`` (docs/replay-format.md) with its player's view
    before it, in order.

    :raises ReplayVerificationError: the record does not verify (:func:`engine.replay_format.verify`).
    """
    verify(record)  # never judge a record the rules reject
    rules = RuleSet.from_dict(record["rules"])
    match = MatchState(rules, record["first_dealer"])
    if record.get("cut") is not None:
        match.cut([(parse_card(a), parse_card(b)) for a, b in record["cut"]])
    for hand in record["hands"]:
        limit = hand.get("limit_card")
        deck = [parse_card(c) for c in hand["deck"]]
        match.deal(deck, limit_card=None if limit is None else parse_card(limit))
        for step, act in enumerate(hand["actions"], start=1):
            seat = act["seat"]
            action = Action.parse(act["action"])
            yield Position(hand["number"], step, seat, match.view(seat), action, bool(act.get("auto", False)))
            match.apply(action, seat)


def _summary(seat: int, decisions: Sequence[Json], auto: int) -> Json:
    mine = [d for d in decisions if d["seat"] == seat]
    marks = {mark: sum(1 for d in mine if d["mark"] == mark) for mark, _ in reversed(THRESHOLDS)}
    total = sum(d["cost"] for d in mine)
    return {
        "seat": seat, "decisions": len(mine), "marks": marks, "total_cost": round(total, 2),
        "average_cost": round(total / len(mine), 3) if mine else 0.0, "auto": auto,
    }


def analyse(
    record: Json, settings: Settings | None = None, progress: Callable[[int, int], None] | None = None
) -> Json:
    """Judge every decision of both players in the replay file ``record``.

    :param progress: called as ``progress(done, total)`` (decisions) before the first and after each.
    :returns: JSON-ready ``{"version", "settings", "thresholds": {"?!": 2.0, "?": 5.0, "??": 10.0},
        "decisions": [{"hand", "step", "seat", "decision", "chosen", "best", "chosen_value",
        "best_value", "cost", "error", "mark", "options": [[action, value, worlds], ...best 4]}],
        "summary": [{"seat", "decisions", "marks": {"?!", "?", "??"}, "total_cost", "average_cost",
        "auto"} for seats 0 and 1]}``; points rounded to 0.01.
    :raises ReplayVerificationError: the record does not verify.
    """
    settings = settings or Settings()
    todo = list(positions(record))
    chosen = [p for p in todo if p.is_decision]
    auto = [sum(1 for p in todo if p.auto and p.seat == s) for s in (0, 1)]
    total = len(chosen)
    if progress is not None:
        progress(0, total)
    decisions: list[Json] = []
    for done, pos in enumerate(chosen, start=1):
        j = judge(pos.view, pos.action, settings)
        decisions.append({
            "hand": pos.hand, "step": pos.step, "seat": pos.seat, "decision": j.decision,
            "chosen": j.chosen, "best": j.best, "chosen_value": round(j.chosen_value, 2),
            "best_value": round(j.best_value, 2), "cost": round(j.cost, 2), "error": round(j.error, 2),
            "mark": j.mark, "options": [[o.action, round(o.value, 2), o.worlds] for o in j.options[:4]],
        })
        if progress is not None:
            progress(done, total)
    return {
        "version": ANALYSIS_VERSION, "settings": settings.to_dict(),
        "thresholds": {mark: least for mark, least in THRESHOLDS},
        "decisions": decisions,
        "summary": [_summary(seat, decisions, auto[seat]) for seat in (0, 1)],
    }
