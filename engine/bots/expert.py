"""Levels 4 and 5: stronger than the baseline (issue 4, "The bots").

Both levels choose a discard by the hand it leaves: its deadwood now, its expected deadwood after the
next draw and its chance to reach the knock limit on that draw (:func:`engine.bots.evaluate.lookahead`).

- Level 4 is the simple player with that look-ahead: it keeps the cards that can still meld, takes the
  upcard only when it makes a meld, knocks as soon as it can, and remembers nothing.
- Level 5 also tracks every card seen (:mod:`engine.bots.tracker`), samples the opponent's concealed
  hand from the posterior given its takes, declines and discards under the simple player's policy
  (:mod:`engine.bots.posterior`), penalizes each discard by how often a sampled
  opponent would meld it, takes the upcard whenever it leaves less deadwood than a stock draw is
  expected to, values low deadwood more as the stock runs out. Its discard is then settled by
  determinized Monte Carlo (:mod:`engine.bots.rollout`): the heuristic's best few discards (those
  within ``window`` points of its first choice) and knocking, when legal, are compared by their mean
  hand points over ``worlds`` sampled worlds (opponent hand and stock order drawn from the view),
  each played out to the end of the hand; the knock is valued exactly against the sampled hands
  (undercuts and layoffs included). The sample counts are fixed, not timed, so a seed replays.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.bots.common import Options, discard_action, forms_meld, mask_of, options
from engine.bots.evaluate import NEIGHBOUR_MASK, Outlook, lookahead
from engine.bots.montecarlo import KnockEstimate, knock_estimate, meld_danger
from engine.bots.posterior import read_evidence, sample_posterior
from engine.bots.rollout import discard_values, make_worlds
from engine.bots.tracker import read_table, sample_opponent_hands
from engine.cards import Card, CardMask
from engine.melds import least_discard_of_mask

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.view import PlayerView


@dataclass(frozen=True, slots=True)
class Style:
    """Weights of the discard score ``now * deadwood + ahead * expected - knock_bonus * p_knock
    + danger * penalty`` (points; ``now`` grows by ``late_now`` as the stock runs out, when the
    opponent is likelier to knock and the deadwood held counts), the upcard margin (points;
    ``None``: take the upcard only when it makes a meld, like level 3), and the sampling settings:
    ``worlds`` rollout worlds per discard decision (0: no rollouts), at most ``candidates`` discards
    within ``window`` points of the heuristic's best, and the ``margin`` (points) a rollout choice
    must gain over the heuristic's first choice (or a discard over knocking) to replace it; after
    ``prune_after`` worlds, candidates trailing the leader by more than ``prune`` points a world are
    dropped (successive halving, :func:`engine.bots.rollout.discard_values`). ``posterior``: the
    opponent's hands come from :func:`engine.bots.posterior.sample_posterior` (else from the
    tracker's weights, :func:`engine.bots.tracker.sample_opponent_hands`)."""

    now: float
    knock_bonus: float
    danger_penalty: float
    take_margin: float | None
    tracking: bool
    samples: int
    knock_samples: int
    late_now: float = 0.0
    ahead: float = 1.0
    worlds: int = 0
    candidates: int = 0
    margin: float = 0.0
    window: float = 0.0
    prune_after: int = 0
    prune: float = 0.0
    posterior: bool = False


STYLES: dict[int, Style] = {
    4: Style(now=0.5, knock_bonus=6.0, danger_penalty=0.0, take_margin=None, tracking=False,
             samples=0, knock_samples=0),
    5: Style(now=0.5, knock_bonus=6.0, danger_penalty=9.0, take_margin=1.0, tracking=True,
             samples=100, knock_samples=24, late_now=1.0, worlds=100, candidates=6, margin=1.0, window=6.0,
             prune_after=40, prune=2.0, posterior=True),
}


def _stock_weights(pool: list[Card], samples: list[CardMask]) -> list[float]:
    """Each ``pool`` card's relative chance to come from the stock next: one minus the share of the
    sampled opponent hands holding it (at least 0.05)."""
    n = len(samples)
    return [max(0.05, 1.0 - sum(hand >> c & 1 for hand in samples) / n) for c in pool]


GIN_WAIT_STOCK = 12
"""Stock size (cards) at or below which level 5 no longer plays on for gin."""


class ExpertBot:
    """Level 4 or 5 (see the module docstring). ``rng`` drives tie breaks and sampling."""

    def __init__(self, level: int, rng: random.Random) -> None:
        if level not in STYLES:
            raise ValueError(f"ExpertBot plays levels 4 and 5, got {level!r}")
        self.level = level
        self.style = STYLES[level]
        self.rng = rng

    def choose(self, view: PlayerView) -> Action:
        """This level's action for ``view`` (one of ``view.legal_actions``).

        :raises ValueError: the view has no legal action.
        """
        opts = options(view.legal_actions)
        hand = mask_of(view.hand)
        style = self.style
        samples: list[CardMask] = []
        weights: list[float] | None
        if style.tracking and style.samples and style.posterior:
            # the evidence holds the unknown cards and the known ones: no tracker table needed
            evidence = read_evidence(view)
            pool = list(evidence.unknown)
            samples = sample_posterior(evidence, style.samples, self.rng)
            weights = _stock_weights(pool, samples)
            opp_known = evidence.known
        elif style.tracking:
            table = read_table(view)
            pool = table.unknown
            p_opp = table.p_opponent()
            # a card the opponent probably holds is less likely to be drawn from the stock
            weights = [max(0.05, 1.0 - p_opp.get(c, 0.0)) for c in pool]
            if style.samples:
                samples = sample_opponent_hands(table, style.samples, self.rng)
            opp_known = table.opp_known
        else:
            opp_known = mask_of(view.opponent_known)
            seen = hand | mask_of(view.discard_pile) | opp_known
            pool = [c for c in range(52) if not seen >> c & 1]
            weights = None
        limit = view.knock_limit
        if opts.decision != "discard":
            return self._draw(view, opts, hand, pool, weights, limit)
        if opts.big_gin is not None:
            return opts.big_gin
        allowed = sorted((set(opts.discards) | set(opts.knocks)) - {view.taken_card})
        if not allowed:
            allowed = sorted(set(opts.discards) | set(opts.knocks))
        scores: dict[Card, float] = {}
        outlooks: dict[Card, Outlook] = {}
        now = style.now + style.late_now * max(0.0, 1.0 - view.stock_size / 31.0)
        for card in allowed:
            o = lookahead(hand ^ (1 << card), pool, weights, limit)
            outlooks[card] = o
            if samples:
                danger = meld_danger(card, samples)
            elif forms_meld(opp_known, card):
                danger = 1.0
            else:
                danger = 0.5 if NEIGHBOUR_MASK[card] & opp_known else 0.0
            scores[card] = (now * o.deadwood + style.ahead * o.expected - style.knock_bonus * o.p_knock
                            + style.danger_penalty * danger)
        knockable = [c for c in allowed if c in opts.knocks]
        if style.worlds and samples:
            return self._by_rollouts(view, opts, hand, allowed, knockable, scores, outlooks, samples, pool)
        if knockable:
            least = min(outlooks[c].deadwood for c in knockable)
            card = min((c for c in knockable if outlooks[c].deadwood == least), key=lambda c: scores[c])
            if least == 0 or style.knock_samples == 0:
                return opts.knocks[card]
            # level 5: knock with the card whose knock is worth most against the sampled hands
            some = samples[: style.knock_samples]
            estimates = {c: knock_estimate(hand ^ (1 << c), some, view.rules, limit, view.multiplier)
                         for c in knockable}
            card = max(knockable, key=lambda c: (estimates[c].ev, -outlooks[c].deadwood, -c))
            if self._knock_now(view, estimates[card], outlooks[card].p_gin):
                return opts.knocks[card]
        best = min(scores.values())
        card = self.rng.choice([c for c in allowed if scores[c] <= best + 1e-9])
        return discard_action(opts, card, knock=False)

    def _by_rollouts(self, view: PlayerView, opts: Options, hand: CardMask, allowed: list[Card],
                     knockable: list[Card], scores: dict[Card, float], outlooks: dict[Card, Outlook],
                     samples: list[CardMask], pool: list[Card]) -> Action:
        """Level 5's discard: the heuristic's best ``candidates`` discards (and knocking, when legal)
        compared by their mean hand points over the same sampled worlds (:mod:`engine.bots.rollout`);
        a candidate replaces the heuristic's first choice only when it is ``margin`` points better."""
        style = self.style
        limit, rules, mult = view.knock_limit, view.rules, view.multiplier
        if knockable:
            least = min(outlooks[c].deadwood for c in knockable)
            if least == 0:
                card = min((c for c in knockable if outlooks[c].deadwood == 0), key=lambda c: scores[c])
                return opts.knocks[card]
        some = samples[: style.worlds]
        worlds = make_worlds(some, pool, view.stock_size, self.rng)
        below = view.discard_pile[-1] if view.discard_pile else None
        ranked = sorted(allowed, key=lambda c: (scores[c], c))
        # only discards the heuristic finds close are worth the rollouts
        candidates = [c for c in ranked[: style.candidates] if scores[c] <= scores[ranked[0]] + style.window]
        first = candidates[0]
        if len(candidates) == 1 and not knockable:
            return discard_action(opts, candidates[0], knock=False)
        values = discard_values(hand, candidates, worlds, below, rules, limit, mult,
                                style.prune_after, style.prune)
        if first not in values:  # the heuristic's choice fell far behind in the first worlds
            first = max(values, key=lambda c: values[c])
        card = max(values, key=lambda c: values[c] - (0.0 if c == first else style.margin))
        if knockable:
            estimates = {c: knock_estimate(hand ^ (1 << c), some, rules, limit, mult) for c in knockable}
            knock_card = max(knockable, key=lambda c: (estimates[c].ev, -outlooks[c].deadwood, -c))
            if estimates[knock_card].ev >= values[card] - style.margin:
                return opts.knocks[knock_card]
        return discard_action(opts, card, knock=False)

    def _draw(self, view: PlayerView, opts: Options, hand: CardMask, pool: list[Card],
              weights: list[float] | None, limit: int) -> Action:
        """Take the upcard when the best discard after taking it leaves less deadwood than a stock
        draw is expected to (by ``take_margin`` points)."""
        upcard = view.upcard
        if opts.take is None or upcard is None:
            assert opts.decline is not None
            return opts.decline
        if opts.decline is None:
            return opts.take
        if self.style.take_margin is None:
            return opts.take if forms_meld(hand, upcard) else opts.decline
        take_dw = least_discard_of_mask(hand | 1 << upcard, upcard)[1]
        stock = lookahead(hand, pool, weights, limit)
        if take_dw <= stock.expected - self.style.take_margin:
            return opts.take
        return opts.decline

    def _knock_now(self, view: PlayerView, est: KnockEstimate, p_gin: float) -> bool:
        """Whether knocking (worth ``est`` over sampled opponent hands) beats playing on (level 5).

        Knocking is worth its mean points over sampled opponent hands (undercuts count against it).
        Playing on is worth the chance of gin next draw times the gin value, plus the knock value
        kept if neither side ends the hand, minus a small loss when the opponent may knock first.
        With ``GIN_WAIT_STOCK`` cards or fewer left in the stock it never waits for gin: it knocks
        whenever the knock is worth more than nothing.
        """
        rules = view.rules
        if view.stock_size <= GIN_WAIT_STOCK:
            return est.ev > 0
        gin_value = (rules.gin_bonus + est.opp_deadwood) * view.multiplier
        wait = p_gin * gin_value + (1 - p_gin) * (1 - est.p_opp_ready) * max(est.ev, 0.0) * 0.6
        wait -= est.p_opp_ready * 5.0
        return est.ev >= wait
