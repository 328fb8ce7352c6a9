"""Seeded random playouts: whole matches or single hands played by random legal actions.

Used by the property tests (every preset: never raise, always end, replay identically) and by
``engine.tools.bench`` (playout hands per second). Everything is reproducible from ``seed``: the decks come
from ``engine.deck.shuffled_deck(random.Random(seed))`` and so do the choices.

Uniformly random play almost never gets its deadwood down to a knock, so a match to 100 would be
hundreds of dead hands. ``knock_bias`` (default 0: uniform) is the probability of taking a legal
knock (or big gin) whenever one exists, and ``greedy`` the probability of discarding the card that
leaves the least deadwood instead of a random one; with both set, matches end in a few dozen hands
and still visit every kind of hand end.
"""

from __future__ import annotations

import random

from engine.actions import Action, ActionKind
from engine.deck import shuffled_deck
from engine.hand import HandState
from engine.match import MatchState
from engine.rules import RuleSet

_KNOCKING = (ActionKind.KNOCK, ActionKind.BIG_GIN)


def choose_action(
    rng: random.Random, state: HandState, *, knock_bias: float = 0.0, greedy: float = 0.0
) -> Action:
    """A random legal action for the player to act in ``state`` (see the module docstring).

    :raises IndexError: the hand has ended (no legal actions).
    """
    actions = state.legal_actions()
    if knock_bias or greedy:
        last = actions[-1]
        if last.kind in _KNOCKING and rng.random() < knock_bias:
            return last if last.kind is ActionKind.BIG_GIN else rng.choice(
                [a for a in actions if a.kind in _KNOCKING]
            )
        if actions[0].kind is ActionKind.DISCARD and rng.random() < greedy:
            after = state.deadwood_after_discards()
            discards = [a for a in actions if a.kind is ActionKind.DISCARD]
            return min(discards, key=lambda a: after[a.card or 0])
    return rng.choice(actions)


def random_hand(
    rules: RuleSet, seed: int, *, dealer: int = 0, knock_bias: float = 0.0, greedy: float = 0.0
) -> HandState:
    """One hand dealt from a seeded deck and played to its end by random legal actions."""
    rng = random.Random(seed)
    deck = shuffled_deck(rng)
    state = HandState(rules, dealer, deck, rng.randrange(52) if rules.knock_limit_from_second_deck else None)
    while not state.is_over:
        state.apply(choose_action(rng, state, knock_bias=knock_bias, greedy=greedy))
    return state


def random_playout(
    rules: RuleSet,
    seed: int,
    *,
    first_dealer: int | None = None,
    knock_bias: float = 0.5,
    greedy: float = 0.8,
    max_hands: int | None = None,
) -> MatchState:
    """A whole match played by random legal actions, reproducible from ``seed``.

    :param first_dealer: seat dealing first; ``None`` draws it from the seeded generator.
    :param knock_bias, greedy: see the module docstring (0 and 0 for uniformly random play).
    :param max_hands: stop (unfinished) after this many hands; ``None`` plays to the end.
    :returns: the :class:`MatchState`; ``match.events`` is its full event log.
    """
    rng = random.Random(seed)
    if first_dealer is None:
        first_dealer = rng.randrange(2)
    match = MatchState(rules, first_dealer)
    while not match.is_over:
        if max_hands is not None and match.hand_number >= max_hands:
            break
        deck = shuffled_deck(rng)
        # seed 003's table turns a second deck's card for the knock limit (a chance outcome too)
        match.deal(deck, limit_card=rng.randrange(52) if rules.knock_limit_from_second_deck else None)
        hand = match.hand
        assert hand is not None
        while not hand.is_over:
            match.apply(choose_action(rng, hand, knock_bias=knock_bias, greedy=greedy))
    return match
