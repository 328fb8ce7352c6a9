"""A match: hands played to the target score (rules.md "The match", "rule options and presets").

:class:`MatchState` is the whole game as OpenSpiel would see it: chance is explicit. Before each hand
the match waits for :meth:`MatchState.deal` with a 52-card order (live play passes
``engine.deck.shuffled_deck()``, tests ``seeded_deck(seed)``); then :meth:`MatchState.apply` plays the
hand's actions. Every step appends events (``engine.events``) to :attr:`MatchState.events`, and
:func:`replay` (``rules, first_dealer, events``) rebuilds an equal state from such a log, one
:func:`apply_event` at a time.

Between hands: the winner's points are added, a dead hand is redealt by the same dealer, otherwise
the next dealer follows ``rules.next_dealer`` (``alternate``; ``loser`` or ``winner`` of the hand).
When a score reaches ``rules.target`` the match ends and the end bonuses are added (see
:meth:`MatchState.final_scores`).

>>> from engine.rules import preset
>>> from engine.deck import seeded_deck
>>> m = MatchState(preset("classic"), first_dealer=0)
>>> m.awaiting_deal, m.current_player
(True, None)
>>> _ = m.deal(seeded_deck(7))
>>> m.current_player, [str(a) for a in m.legal_actions()]
(1, ['take', 'pass'])
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from engine.actions import Action
from engine.cards import Card
from engine.deck import shuffled_deck
from engine.errors import EngineError, IllegalActionError, InvalidEventError
from engine.events import ActionEvent, CutEvent, DealEvent, Event, HandEndEvent, MatchEndEvent, ResignEvent
from engine.hand import HandState
from engine.rules import RuleSet
from engine.scoring import HandResult
from engine.view import PlayerView


def _seat(value: object, what: str) -> int:
    if type(value) is not int or value not in (0, 1):
        raise EngineError(f"{what} must be seat 0 or 1, got {value!r}", code="invalid_player")
    return value


class MatchState:
    """The full state of a match.

    :param rules: the rule set.
    :param first_dealer: seat (0 or 1) dealing the first hand (the caller draws it at random, or
        seats the computer, per ``rules.first_dealer``).
    :raises EngineError: code ``invalid_player`` when ``first_dealer`` is not 0 or 1.
    """

    __slots__ = (
        "_events",
        "_final",
        "_hand",
        "_over",
        "_results",
        "_winner",
        "dealer",
        "first_dealer",
        "hand_number",
        "hands_won",
        "rules",
        "scores",
    )

    rules: RuleSet
    first_dealer: int
    dealer: int
    hand_number: int
    scores: tuple[int, int]
    hands_won: tuple[int, int]
    _hand: HandState | None
    _events: list[Event]
    _results: list[HandResult]
    _over: bool
    _winner: int | None
    _final: tuple[int, int] | None

    def __init__(self, rules: RuleSet, first_dealer: int) -> None:
        self.rules = rules
        self.first_dealer = _seat(first_dealer, "first_dealer")
        self.dealer = first_dealer
        self.hand_number = 0
        self.scores = (0, 0)
        self.hands_won = (0, 0)
        self._hand = None
        self._events = []
        self._results = []
        self._over = False
        self._winner = None
        self._final = None

    # ----------------------------------------------------------------------------- reading

    @property
    def hand(self) -> HandState | None:
        """The current hand (the last one, ended, while awaiting a deal); ``None`` before the first deal."""
        return self._hand

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, in order (the full log, with hidden information)."""
        return tuple(self._events)

    @property
    def results(self) -> tuple[HandResult, ...]:
        """The result of every finished hand, in order (dead hands included)."""
        return tuple(self._results)

    @property
    def awaiting_deal(self) -> bool:
        """Whether the match waits for :meth:`deal` (a chance node)."""
        return not self._over and (self._hand is None or self._hand.is_over)

    @property
    def is_over(self) -> bool:
        """Whether the match has ended (target reached or a resignation)."""
        return self._over

    @property
    def winner(self) -> int | None:
        """The winning seat once over (who reached the target, or the resigner's opponent), else ``None``."""
        return self._winner

    @property
    def final_scores(self) -> tuple[int, int] | None:
        """Scores (seat 0, seat 1) once over, with the end bonuses; ``None`` while the match is on.

        At the target (rules.md table, "end bonuses"): each seat gets ``hand_bonus`` per hand it won;
        the winner gets ``game_bonus``, plus ``shutout_bonus`` if the loser won no hand; then with
        ``shutout_doubles`` and a loser without a hand won, the winner's whole total (bonuses
        included) is doubled. After a resignation the scores stand, without bonuses.
        """
        return self._final

    @property
    def current_player(self) -> int | None:
        """The seat to act; ``None`` while awaiting a deal or once over."""
        if self._over or self._hand is None:
            return None
        return self._hand.current_player

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """The legal actions of the player to act, sorted (``[]`` awaiting a deal, once over, or when
        ``player`` is given and not to act)."""
        if self._over or self._hand is None:
            return []
        return self._hand.legal_actions(player)

    def view(self, player: int) -> PlayerView:
        """What seat ``player`` may see of the current (or last, ended) hand.

        :raises EngineError: code ``no_hand`` before the first deal; ``invalid_player``.
        """
        _seat(player, "player")
        if self._hand is None:
            raise EngineError("no hand has been dealt yet", code="no_hand")
        view = self._hand.view(player, scores=self.scores, hand_number=self.hand_number)
        if self._over and view.current_player is not None:
            # resigned mid-hand: nobody is to act any more
            view = replace(view, current_player=None, legal_actions=())
        return view

    def _state_key(self) -> tuple[object, ...]:
        return (
            self.rules, self.first_dealer, self.dealer, self.hand_number, self.scores, self.hands_won,
            self._hand, self._events, self._results, self._over, self._winner, self._final,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MatchState):
            return NotImplemented
        return self._state_key() == other._state_key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"<MatchState hand={self.hand_number} dealer={self.dealer} scores={self.scores} "
            f"over={self._over} winner={self._winner}>"
        )

    def clone(self) -> MatchState:
        """An independent copy (events and results lists copied, the hand cloned)."""
        new = MatchState.__new__(MatchState)
        new.rules = self.rules
        new.first_dealer = self.first_dealer
        new.dealer = self.dealer
        new.hand_number = self.hand_number
        new.scores = self.scores
        new.hands_won = self.hands_won
        new._hand = None if self._hand is None else self._hand.clone()
        new._events = self._events[:]
        new._results = self._results[:]
        new._over = self._over
        new._winner = self._winner
        new._final = self._final
        return new

    # ----------------------------------------------------------------------------- steps

    def cut(self, cuts: Sequence[tuple[Card, Card]]) -> CutEvent:
        """Record the cut for the first deal (``rules.first_dealer == "cut"``): ``cuts`` are the rounds
        ``(seat 0's card, seat 1's card)``, see :func:`cut_for_deal`. The higher rank of the last round
        (king high, ace low) must be :attr:`first_dealer`. Optional (a match may start without one),
        but when present it is checked, so a stored cut always agrees with the first dealer.

        :raises IllegalActionError: ``wrong_phase`` (not before the first deal, or the rules do not
            cut), ``bad_cut`` (a round of equal ranks last, unequal ranks before, a card repeated
            within a round, or a winner other than ``first_dealer``).
        """
        if self.rules.first_dealer != "cut" or self._events:
            raise IllegalActionError(
                "a cut for the deal comes first, under rules that cut", code="wrong_phase"
            )
        rounds = tuple((a, b) for a, b in cuts)
        for i, (a, b) in enumerate(rounds):
            if type(a) is not int or type(b) is not int or not (0 <= a < 52 and 0 <= b < 52) or a == b:
                raise IllegalActionError(f"cut {i + 1} is not two different cards", code="bad_cut")
            tie = a % 13 == b % 13
            if tie != (i < len(rounds) - 1):
                raise IllegalActionError("only the last cut may (and must) differ in rank", code="bad_cut")
        if not rounds:
            raise IllegalActionError("a cut needs at least one round", code="bad_cut")
        a, b = rounds[-1]
        dealer = 0 if a % 13 > b % 13 else 1
        if dealer != self.first_dealer:
            raise IllegalActionError(f"the cut gives seat {dealer} the deal, not {self.first_dealer}",
                                     code="bad_cut")
        event = CutEvent(rounds, dealer)
        self._events.append(event)
        return event

    def deal(self, deck: Sequence[Card], *, limit_card: Card | None = None) -> DealEvent:
        """Start the next hand, dealt by :attr:`dealer` from the 52-card order ``deck``;
        ``limit_card``: the card turned from a second deck (``rules.knock_limit_from_second_deck``).

        :raises IllegalActionError: ``match_over``, or ``wrong_phase`` while a hand is on.
        :raises InvalidCardError: ``deck`` is not 52 cards. :raises DuplicateCardError: a card repeats.
        :raises EngineError: ``limit_card`` missing or given against the rules.
        """
        if self._over:
            raise IllegalActionError("the match is over", code="match_over")
        if not self.awaiting_deal:
            raise IllegalActionError("a hand is being played: no deal now", code="wrong_phase")
        hand = HandState(self.rules, self.dealer, deck, limit_card)
        self._hand = hand
        self.hand_number += 1
        event = DealEvent(self.hand_number, self.dealer, hand.deck, self.rules.deal == "eleven", limit_card)
        self._events.append(event)
        return event

    def apply(self, action: Action | str, player: int | None = None) -> list[Event]:
        """Play ``action`` in the current hand (checked against ``player`` when given).

        Returns the new events: the :class:`ActionEvent`, then a :class:`HandEndEvent` if the hand
        ended, then a :class:`MatchEndEvent` if the match did.

        :raises IllegalActionError: ``match_over``; ``wrong_phase`` while awaiting a deal; or any
            code of :meth:`HandState.apply`. The state is unchanged.
        """
        if self._over:
            raise IllegalActionError("the match is over", code="match_over")
        hand = self._hand
        if hand is None or hand.is_over:
            raise IllegalActionError("no hand is being played: deal first", code="wrong_phase")
        event: ActionEvent = hand.apply(action, player)
        self._events.append(event)
        if not hand.is_over:
            return [event]
        start = len(self._events) - 1
        self._end_hand(hand)
        return self._events[start:]

    def resign(self, player: int) -> list[Event]:
        """Seat ``player`` resigns: the match ends, the other seat wins, scores stand (no bonuses).

        Returns ``[ResignEvent, MatchEndEvent]``.

        :raises IllegalActionError: ``match_over``. :raises EngineError: ``invalid_player``.
        """
        _seat(player, "player")
        if self._over:
            raise IllegalActionError("the match is over", code="match_over")
        self._events.append(ResignEvent(player))
        self._finish(1 - player, "resign", self.scores)
        return self._events[-2:]

    # ----------------------------------------------------------------------------- between hands

    def _end_hand(self, hand: HandState) -> None:
        result = hand.result
        assert result is not None
        self._results.append(result)
        winner = result.winner
        if winner is not None:
            scores = list(self.scores)
            scores[winner] += result.points
            self.scores = (scores[0], scores[1])
            won = list(self.hands_won)
            won[winner] += 1
            self.hands_won = (won[0], won[1])
            rotation = self.rules.next_dealer
            if rotation == "alternate":
                self.dealer = 1 - self.dealer
            elif rotation == "loser":
                self.dealer = 1 - winner
            else:
                self.dealer = winner
        self._events.append(HandEndEvent(self.hand_number, result.to_dict(), self.scores))
        if winner is not None and self.scores[winner] >= self.rules.target:
            self._finish(winner, "target", self._with_bonuses(winner))

    def _with_bonuses(self, winner: int) -> tuple[int, int]:
        rules = self.rules
        final = [self.scores[s] + rules.hand_bonus * self.hands_won[s] for s in (0, 1)]
        final[winner] += rules.game_bonus
        shutout = self.hands_won[1 - winner] == 0
        if shutout:
            final[winner] += rules.shutout_bonus
            if rules.shutout_doubles:
                final[winner] *= 2
        return (final[0], final[1])

    def _finish(self, winner: int, reason: str, final: tuple[int, int]) -> None:
        self._over = True
        self._winner = winner
        self._final = final
        self._events.append(MatchEndEvent(winner, reason, self.scores, final))


# --------------------------------------------------------------------------------------------- replay


def _disagrees(index: int, event: Event, expected: Event) -> InvalidEventError:
    return InvalidEventError(f"event {index}: {event!r} disagrees with the rules, which give {expected!r}")


def apply_event(match: MatchState, event: Event, index: int) -> None:
    """Advance ``match`` by ``event``, number ``index`` (from 0) of the event log it is being rebuilt
    from, the log's events before it having been applied (the one step of :func:`replay`, and of
    ``games.live``'s rebuild of a stored match, which goes on from a cached state).

    An input event (cut, deal, action, resignation) is played; a derived one (hand end, match end) is
    checked against what the rules produced. Either way ``match.events[index]`` then equals ``event``
    (drawn cards and the deal's deck included).

    :raises InvalidEventError: an event out of place (an action with no hand dealt, a deal whose hand
        number or dealer is not the expected one, an illegal action, a derived event or drawn card
        that disagrees with the rules); the message names ``index``. ``match`` may then be half-way
        through the event: drop it.
    """
    produced = match._events  # the live list: derived events appear as they are produced
    if index < len(produced):
        if produced[index] != event:
            raise _disagrees(index, event, produced[index])
        return
    try:
        if isinstance(event, DealEvent):
            if event.hand != match.hand_number + 1 or event.dealer != match.dealer:
                raise InvalidEventError(
                    f"event {index}: expected hand {match.hand_number + 1} dealt by seat {match.dealer}, "
                    f"got hand {event.hand} dealt by seat {event.dealer}"
                )
            match.deal(event.deck, limit_card=event.limit_card)
        elif isinstance(event, CutEvent):
            match.cut(event.cuts)
        elif isinstance(event, ActionEvent):
            match.apply(event.action, event.seat)
        elif isinstance(event, ResignEvent):
            match.resign(event.seat)
        else:
            raise InvalidEventError(f"event {index}: {event!r} is not what the rules give here")
    except InvalidEventError:
        raise
    except EngineError as exc:
        raise InvalidEventError(f"event {index}: {event!r}: {exc}") from None
    if produced[index] != event:
        raise _disagrees(index, event, produced[index])


def replay(rules: RuleSet, first_dealer: int, events: Sequence[Event]) -> MatchState:
    """Rebuild the match whose log is ``events`` (a full, unredacted log) from its start, applying
    each event with :func:`apply_event`.

    Deals and actions are applied in order; derived events (hand ends, match end) and drawn cards
    must equal what the rules give, so the returned state equals the original match's state. Any
    prefix of a log replays to the state at that point.

    :raises InvalidEventError: an event out of place (see :func:`apply_event`); the message names the
        event's index.
    """
    match = MatchState(rules, first_dealer)
    for i, event in enumerate(events):
        apply_event(match, event, i)
    # A log cut just after a hand-ending action lacks its derived events; the state is the same.
    return match


def cut_for_deal(rng: random.Random | None = None) -> tuple[tuple[tuple[Card, Card], ...], int]:
    """Cut for the first deal (seed 003: "cada jogador tira uma carta e quem ficar com a maior será o
    dealer"): each round both seats draw a card from a freshly shuffled deck; the higher rank (king
    high, ace low; suits equal) deals, equal ranks cut again. ``rng``: ``None`` = a secure shuffle.

    :returns: ``(rounds, dealer)``, ``rounds`` as :meth:`MatchState.cut` takes them.
    """
    rounds: list[tuple[Card, Card]] = []
    while True:
        deck = shuffled_deck(rng)
        a, b = deck[0], deck[1]
        rounds.append((a, b))
        if a % 13 != b % 13:
            return tuple(rounds), 0 if a % 13 > b % 13 else 1

