"""Test helper: seeded bot-vs-bot matches, with the state after every step of their play.

A "step" is one call that live play makes (a cut, a deal, an action, a resignation); it appends one
input event and the derived events it caused (hand end, match end). ``Recorded.states`` holds, after
each step, the number of events so far and a clone of the state then: what a rebuild from the log must
give at that point."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine.bots import make_bot
from engine.deck import shuffled_deck
from engine.events import Event
from engine.match import MatchState, cut_for_deal
from engine.rules import RuleSet


@dataclass
class Recorded:
    """A played match: its ``rules``, ``first_dealer``, the final ``state`` and ``states`` after each
    step (``(len(events), clone)``, the first one before any event)."""

    rules: RuleSet
    first_dealer: int
    state: MatchState
    states: list[tuple[int, MatchState]] = field(default_factory=list)

    @property
    def events(self) -> tuple[Event, ...]:
        return self.state.events


def bot_match(rules: RuleSet, seed: int, levels: tuple[int, int] = (2, 3), *,
              resign_after: int | None = None, max_hands: int = 60) -> Recorded:
    """A match between two house bots of ``levels`` (seat 0, seat 1), all its chance drawn from
    ``seed``: the cut under rules that cut, else the first dealer, and every deck (and limit card).
    ``resign_after``: seat 1 resigns once this many events are logged (a match that ends by resignation).
    """
    rng = random.Random(seed)
    bots = (make_bot(levels[0], seed=rng.getrandbits(63)), make_bot(levels[1], seed=rng.getrandbits(63)))
    cuts = None
    if rules.first_dealer == "cut":
        cuts, first = cut_for_deal(rng)
    else:
        first = rng.randrange(2)
    match = MatchState(rules, first)
    rec = Recorded(rules, first, match)

    def step() -> None:
        rec.states.append((len(match.events), match.clone()))

    step()
    if cuts is not None:
        match.cut(cuts)
        step()
    while not match.is_over and match.hand_number < max_hands:
        if resign_after is not None and len(match.events) >= resign_after:
            match.resign(1)
            step()
            break
        if match.awaiting_deal:
            second = rules.knock_limit_from_second_deck
            match.deal(shuffled_deck(rng), limit_card=rng.randrange(52) if second else None)
        else:
            seat = match.current_player
            assert seat is not None
            match.apply(bots[seat].choose(match.view(seat)), seat)
        step()
    return rec
