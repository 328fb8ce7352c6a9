"""One hand's state machine (rules.md "One hand"; docs/engine.md "Dealing convention", "Phases").

:class:`HandState` deals a given 52-card order, tracks the phase, the player to act, both hands, the
stock and the discard pile, lists the legal actions and applies them. ``apply`` validates an action
completely before touching anything, so an illegal action raises :class:`IllegalActionError` with a
specific code and leaves the state exactly as it was.

>>> from engine.rules import preset
>>> from engine.deck import seeded_deck
>>> h = HandState(preset("classic"), 0, seeded_deck(1))
>>> h.phase, h.current_player, [str(a) for a in h.legal_actions()]
(<Phase.OFFER_NONDEALER: 'offer_nondealer'>, 1, ['take', 'pass'])
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    TAKE,
    Action,
    ActionKind,
)
from engine.cards import Card, CardMask, from_mask
from engine.deck import validate_deck
from engine.errors import EngineError, IllegalActionError
from engine.events import ActionEvent
from engine.melds import deadwood_after_discards_of_mask, deadwood_of_mask
from engine.phase import Phase
from engine.rules import RuleSet
from engine.scoring import HandResult, dead_hand, score_knock
from engine.view import PlayerView

__all__ = ["HandState", "Phase"]

_OFFERS = (Phase.OFFER_NONDEALER, Phase.OFFER_DEALER)
_VALUE: tuple[int, ...] = tuple(min(c % 13 + 1, 10) for c in range(52))
_ILLEGAL_KIND_MESSAGE = {
    Phase.OFFER_NONDEALER: "the upcard offer allows only take or pass",
    Phase.OFFER_DEALER: "the upcard offer allows only take or pass",
    Phase.DRAW: "draw first: draw stock or draw discard",
    Phase.DISCARD: "discard, knock or (all 11 melded) big gin",
}


# Per suit, per 13-bit suit mask: the discard actions of those cards (filled lazily). Building the
# legal discards from four lookups instead of a loop over cards keeps playouts fast.
_SUIT_DISCARDS: list[list[tuple[Action, ...] | None]] = [[None] * 8192 for _ in range(4)]


def _suit_discards(suit: int, suit_mask: int) -> tuple[Action, ...]:
    table = _SUIT_DISCARDS[suit]
    found = table[suit_mask]
    if found is None:
        base = 13 * suit
        found = tuple(DISCARDS[base + r] for r in range(13) if suit_mask >> r & 1)
        table[suit_mask] = found
    return found


def _discards(mask: CardMask) -> list[Action]:
    """The discard actions of the cards in ``mask``, ascending."""
    return [
        *_suit_discards(0, mask & 0x1FFF), *_suit_discards(1, mask >> 13 & 0x1FFF),
        *_suit_discards(2, mask >> 26 & 0x1FFF), *_suit_discards(3, mask >> 39),
    ]


def _illegal(code: str, message: str) -> IllegalActionError:
    return IllegalActionError(message, code=code)


class HandState:
    """The full state of one hand: both hands, stock order, discard pile, phase, history, result.

    :param rules: the rule set.
    :param dealer: seat 0 or 1 that deals; the other seat (non-dealer) is offered the upcard first.
    :param deck: the 52-card order, dealt per docs/engine.md: non-dealer ``deck[0:20:2]``, dealer
        ``deck[1:20:2]``, first upcard ``deck[20]``, stock ``deck[21:]`` with ``deck[21]`` on top. With
        ``rules.deal == "eleven"`` ``deck[20]`` is the non-dealer's 11th card instead: no upcard, the
        pile starts empty and the hand starts with the non-dealer's discard.
    :param limit_card: the card turned from a second deck (``rules.knock_limit_from_second_deck``;
        sets this hand's knock limit), else ``None``.
    :raises InvalidCardError: ``deck`` is not 52 cards. :raises DuplicateCardError: a card repeats.
    :raises EngineError: code ``invalid_dealer`` when ``dealer`` is not 0 or 1; code ``limit_card``
        when ``limit_card`` is missing (or given) against the rules, or not a card.
    """

    __slots__ = (
        "_after",
        "_current",
        "_deck",
        "_hands",
        "_history",
        "_known",
        "_phase",
        "_pile",
        "_pile_draws",
        "_result",
        "_stock_only",
        "_stock_pos",
        "_taken",
        "dealer",
        "knock_limit",
        "limit_card",
        "multiplier",
        "rules",
    )

    rules: RuleSet
    dealer: int
    knock_limit: int
    limit_card: Card | None
    multiplier: int
    _deck: tuple[Card, ...]
    _stock_pos: int
    _hands: list[CardMask]
    _known: list[CardMask]
    _pile: list[Card]
    _pile_draws: int
    _phase: Phase
    _current: int
    _taken: Card | None
    _stock_only: bool
    _history: list[ActionEvent]
    _result: HandResult | None
    _after: dict[Card, int] | None

    def __init__(
        self, rules: RuleSet, dealer: int, deck: Sequence[Card], limit_card: Card | None = None
    ) -> None:
        if dealer not in (0, 1) or type(dealer) is not int:
            raise EngineError(f"dealer must be seat 0 or 1, got {dealer!r}", code="invalid_dealer")
        if rules.knock_limit_from_second_deck != (limit_card is not None):
            want = "needs" if rules.knock_limit_from_second_deck else "takes no"
            raise EngineError(f"these rules {want} a second-deck card for the knock limit", code="limit_card")
        if limit_card is not None and (type(limit_card) is not int or not 0 <= limit_card < 52):
            raise EngineError(f"limit_card must be a card 0..51, got {limit_card!r}", code="limit_card")
        validate_deck(deck)
        deck = tuple(deck)
        self.rules = rules
        self.dealer = dealer
        self._deck = deck
        eleven = rules.deal == "eleven"
        nondealer_mask = dealer_mask = 0
        for c in deck[0:21:2] if eleven else deck[0:20:2]:
            nondealer_mask |= 1 << c
        for c in deck[1:20:2]:
            dealer_mask |= 1 << c
        hands = [0, 0]
        hands[1 - dealer] = nondealer_mask
        hands[dealer] = dealer_mask
        self._hands = hands
        self._known = [0, 0]
        first = None if eleven else deck[20]
        self._pile = [] if first is None else [first]
        self._pile_draws = 0
        self._stock_pos = 21
        self._phase = Phase.DISCARD if eleven else Phase.OFFER_NONDEALER
        self._current = 1 - dealer
        self._taken = None
        self._stock_only = False
        self._history = []
        self._result = None
        self._after = None
        self.limit_card = limit_card
        self.knock_limit = rules.hand_knock_limit(first, limit_card)
        self.multiplier = rules.hand_multiplier(first)

    # ----------------------------------------------------------------------------- reading the state

    @property
    def phase(self) -> Phase:
        """The current :class:`Phase`."""
        return self._phase

    @property
    def current_player(self) -> int | None:
        """The seat to act, ``None`` once the hand has ended."""
        return None if self._phase is Phase.ENDED else self._current

    @property
    def is_over(self) -> bool:
        """Whether the hand has ended (``result`` is set)."""
        return self._phase is Phase.ENDED

    @property
    def hands(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """Both players' cards (seat 0, seat 1), each ascending."""
        return (tuple(from_mask(self._hands[0])), tuple(from_mask(self._hands[1])))

    def hand_mask(self, seat: int) -> CardMask:
        """Seat ``seat``'s cards as a bitmask (fast path for search bots and tests)."""
        return self._hands[seat]

    @property
    def deck(self) -> tuple[Card, ...]:
        """The 52-card order this hand was dealt from."""
        return self._deck

    @property
    def stock(self) -> tuple[Card, ...]:
        """The stock, top (next drawn) first."""
        return self._deck[self._stock_pos:]

    @property
    def stock_size(self) -> int:
        """Cards left in the stock."""
        return 52 - self._stock_pos

    @property
    def discard_pile(self) -> tuple[Card, ...]:
        """The discard pile, bottom to top."""
        return tuple(self._pile)

    @property
    def upcard(self) -> Card | None:
        """The top of the discard pile (``None`` when empty, just after the first upcard was taken)."""
        return self._pile[-1] if self._pile else None

    @property
    def first_upcard(self) -> Card | None:
        """The first upcard, ``deck[20]`` (``None`` with the ``eleven`` deal: there is none)."""
        return None if self.rules.deal == "eleven" else self._deck[20]

    @property
    def discard_draws(self) -> int:
        """How many times the discard pile was drawn from in this hand (takes of the first upcard
        included): the count ``rules.discard_draw_limit`` caps."""
        return self._pile_draws

    @property
    def taken_card(self) -> Card | None:
        """The card the player to act took from the discard pile this turn (``None`` otherwise)."""
        return self._taken

    @property
    def known(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """Per seat, the cards it took from the discard pile and still holds (public knowledge)."""
        return (tuple(from_mask(self._known[0])), tuple(from_mask(self._known[1])))

    @property
    def stock_only(self) -> bool:
        """Whether the coming draw must be from the stock (both passed the upcard; rules.md point 2)."""
        return self._stock_only

    @property
    def history(self) -> tuple[ActionEvent, ...]:
        """Every action of the hand in order, with the drawn cards (full information)."""
        return tuple(self._history)

    @property
    def result(self) -> HandResult | None:
        """The hand's result once it has ended, else ``None``."""
        return self._result

    def _state_key(self) -> tuple[object, ...]:
        return (
            self.rules, self.dealer, self._deck, self.limit_card, self._stock_pos, tuple(self._hands),
            tuple(self._known),
            tuple(self._pile), self._phase, self._current, self._taken, self._stock_only,
            tuple(self._history), self._result,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandState):
            return NotImplemented
        return self._state_key() == other._state_key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"<HandState dealer={self.dealer} phase={self._phase.value} current={self.current_player} "
            f"stock={self.stock_size} actions={len(self._history)}>"
        )

    def clone(self) -> HandState:
        """An independent copy (the deck tuple and immutable values are shared)."""
        new = HandState.__new__(HandState)
        new.rules = self.rules
        new.dealer = self.dealer
        new.knock_limit = self.knock_limit
        new.limit_card = self.limit_card
        new.multiplier = self.multiplier
        new._deck = self._deck
        new._stock_pos = self._stock_pos
        new._hands = self._hands[:]
        new._known = self._known[:]
        new._pile = self._pile[:]
        new._pile_draws = self._pile_draws
        new._phase = self._phase
        new._current = self._current
        new._taken = self._taken
        new._stock_only = self._stock_only
        new._history = self._history[:]
        new._result = self._result
        new._after = self._after
        return new

    # ----------------------------------------------------------------------------- legal actions

    def _deadwood_after(self) -> dict[Card, int]:
        """Discard phase: card -> deadwood of the 10 left, or ``{}`` when no knock can be legal.

        Removing a card of value v lowers the least deadwood by at most v, so when the 11-card
        deadwood exceeds limit + 10 no discard can allow a knock and the full table is skipped.
        """
        after = self._after
        if after is None:
            mask = self._hands[self._current]
            if deadwood_of_mask(mask) - 10 > self.knock_limit:
                after = {}
            else:
                after = deadwood_after_discards_of_mask(mask)
            self._after = after
        return after

    def deadwood_after_discards(self) -> dict[Card, int]:
        """Discard phase: each card of the player to act -> least deadwood (points) of the 10 cards
        left without it (cached until the hand changes; the UI and bots show or use it).

        :raises IllegalActionError: code ``wrong_phase`` outside the discard phase.
        """
        if self._phase is not Phase.DISCARD:
            raise _illegal("wrong_phase", "deadwood after each discard exists only in the discard phase")
        after = self._after
        if not after:
            after = self._after = deadwood_after_discards_of_mask(self._hands[self._current])
        return after

    def _is_big_gin(self) -> bool:
        return deadwood_of_mask(self._hands[self._current]) == 0

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """The legal actions of the player to act, sorted (by kind, then card).

        With ``player`` given, ``[]`` unless that seat is to act. ``[]`` once the hand has ended.
        """
        phase = self._phase
        if phase is Phase.ENDED or (player is not None and player != self._current):
            return []
        if phase is Phase.DRAW:
            return [DRAW_STOCK] if self._stock_only else [DRAW_STOCK, DRAW_DISCARD]
        if phase is not Phase.DISCARD:
            return [TAKE, PASS]
        mask = self._hands[self._current]
        taken = None if self.rules.may_discard_taken_card else self._taken
        actions = _discards(mask if taken is None else mask & ~(1 << taken))
        after = self._deadwood_after()
        if after:
            limit = self.knock_limit
            actions.extend(sorted(KNOCKS[c] for c, left in after.items() if left <= limit and c != taken))
            if self._is_big_gin():
                actions.append(BIG_GIN)
        return actions

    # ----------------------------------------------------------------------------- applying actions

    def check(self, action: Action, player: int | None = None) -> None:
        """Raise the error :meth:`apply` would raise for ``action``; do nothing if it is legal.

        :raises IllegalActionError: see :meth:`apply`.
        """
        if not isinstance(action, Action):
            raise _illegal("malformed_action", f"not an action: {action!r}")
        phase = self._phase
        if phase is Phase.ENDED:
            raise _illegal("hand_over", f"{action}: the hand is over")
        seat = self._current
        if player is not None and player != seat:
            raise _illegal("out_of_turn", f"{action}: it is seat {seat}'s turn, not seat {player}'s")
        kind = action.kind
        if phase is Phase.DISCARD:
            if kind is ActionKind.BIG_GIN:
                if not self._is_big_gin():
                    raise _illegal("not_big_gin", "knock without a discard needs all 11 cards melded")
                return
            if kind is not ActionKind.DISCARD and kind is not ActionKind.KNOCK:
                raise _illegal("wrong_phase", f"{action}: {_ILLEGAL_KIND_MESSAGE[phase]}")
            card = action.card
            assert card is not None
            if not self._hands[seat] >> card & 1:
                raise _illegal("card_not_held", f"{action}: seat {seat} does not hold that card")
            if card == self._taken and not self.rules.may_discard_taken_card:
                raise _illegal("taken_card", f"{action}: the card just taken stays this turn")
            if kind is ActionKind.KNOCK:
                left = deadwood_of_mask(self._hands[seat] & ~(1 << card))
                if left > self.knock_limit:
                    raise _illegal(
                        "knock_over_limit",
                        f"{action}: deadwood after the discard is {left}, over this hand's knock limit "
                        f"{self.knock_limit}",
                    )
            return
        if phase is Phase.DRAW:
            if kind is ActionKind.DRAW_STOCK:
                return
            if kind is ActionKind.DRAW_DISCARD:
                if self._stock_only:
                    raise _illegal("stock_only", "both passed the upcard: the first draw is from the stock")
                return
        elif kind is ActionKind.TAKE_UPCARD or kind is ActionKind.PASS:
            return
        raise _illegal("wrong_phase", f"{action}: {_ILLEGAL_KIND_MESSAGE[phase]}")

    def apply(self, action: Action | str, player: int | None = None) -> ActionEvent:
        """Play ``action`` for the player to act (checked against ``player`` when given).

        Returns the :class:`ActionEvent` (with the drawn card for take / draw). After a discard that
        leaves the stock at ``rules.stock_floor`` cards or fewer the hand ends dead (rules.md point 8),
        and so does a discard once the discard pile has been drawn ``rules.discard_draw_limit`` times;
        a knock or big gin ends it scored by ``score_knock`` (rules.md "Scoring one hand").

        :raises IllegalActionError: the state is unchanged; ``code`` is ``malformed_action`` (bad
            text), ``hand_over``, ``out_of_turn``, ``wrong_phase`` (action kind not allowed in this
            phase), ``stock_only``, ``card_not_held``, ``taken_card`` (the card just taken from the
            discard pile, when the rule forbids), ``knock_over_limit`` or ``not_big_gin``.
        """
        if isinstance(action, str):
            action = Action.parse(action)
        self.check(action, player)
        seat = self._current
        kind = action.kind
        card: Card | None = None
        if kind is ActionKind.DRAW_STOCK:
            card = self._deck[self._stock_pos]
            self._stock_pos += 1
            self._hands[seat] |= 1 << card
            self._stock_only = False
            self._phase = Phase.DISCARD
        elif kind is ActionKind.DISCARD:
            card = action.card
            assert card is not None
            bit = 1 << card
            self._hands[seat] &= ~bit
            self._known[seat] &= ~bit
            self._pile.append(card)
            self._taken = None
            self._after = None
            event = ActionEvent(seat, action)
            self._history.append(event)
            limit = self.rules.discard_draw_limit
            if 52 - self._stock_pos <= self.rules.stock_floor or (
                limit is not None and self._pile_draws >= limit
            ):
                self._phase = Phase.ENDED
                self._result = dead_hand()
            else:
                self._phase = Phase.DRAW
                self._current = 1 - seat
            return event
        elif kind is ActionKind.DRAW_DISCARD or kind is ActionKind.TAKE_UPCARD:
            card = self._pile.pop()
            self._pile_draws += 1
            self._hands[seat] |= 1 << card
            self._known[seat] |= 1 << card
            self._taken = card
            self._phase = Phase.DISCARD
        elif kind is ActionKind.PASS:
            if self._phase is Phase.OFFER_NONDEALER:
                self._phase = Phase.OFFER_DEALER
            else:
                self._phase = Phase.DRAW
                self._stock_only = True
            self._current = 1 - seat
        else:
            self._end_by_knock(seat, action)
        event = ActionEvent(seat, action, card)
        self._history.append(event)
        return event

    def _end_by_knock(self, seat: int, action: Action) -> None:
        """Knock or big gin by ``seat``: score it and end the hand (the discard goes on the pile)."""
        knocker_mask = self._hands[seat]
        if action.card is not None:
            knocker_mask &= ~(1 << action.card)
        result = score_knock(
            from_mask(knocker_mask), from_mask(self._hands[1 - seat]), self.rules,
            knocker=seat, knock_limit=self.knock_limit, multiplier=self.multiplier,
        )
        if action.card is not None:
            self._hands[seat] = knocker_mask
            self._known[seat] &= ~(1 << action.card)
            self._pile.append(action.card)
        self._taken = None
        self._after = None
        self._result = result
        self._phase = Phase.ENDED

    # ----------------------------------------------------------------------------- observation

    def view(self, player: int, *, scores: tuple[int, int] = (0, 0), hand_number: int = 1) -> PlayerView:
        """What seat ``player`` may see (:class:`PlayerView`); ``scores`` and ``hand_number`` come
        from the match.

        :raises EngineError: code ``invalid_player`` when ``player`` is not 0 or 1.
        """
        if player not in (0, 1) or type(player) is not int:
            raise EngineError(f"player must be seat 0 or 1, got {player!r}", code="invalid_player")
        other = 1 - player
        ended = self._phase is Phase.ENDED
        if ended:
            history = tuple(self._history)
        else:
            history = tuple(
                ActionEvent(e.seat, e.action) if e.seat == other and e.action.kind is ActionKind.DRAW_STOCK
                else e
                for e in self._history
            )
        return PlayerView(
            player=player,
            rules=self.rules,
            phase=self._phase,
            current_player=self.current_player,
            dealer=self.dealer,
            hand=tuple(from_mask(self._hands[player])),
            discard_pile=tuple(self._pile),
            upcard=self.upcard,
            first_upcard=self.first_upcard,
            stock_size=52 - self._stock_pos,
            opponent_hand_size=self._hands[other].bit_count(),
            opponent_known=tuple(from_mask(self._known[other])),
            knock_limit=self.knock_limit,
            multiplier=self.multiplier,
            taken_card=self._taken if self._current == player else None,
            scores=scores,
            hand_number=hand_number,
            history=history,
            legal_actions=tuple(self.legal_actions(player)),
            result=self._result,
            opponent_hand=tuple(from_mask(self._hands[other])) if ended else None,
        )
