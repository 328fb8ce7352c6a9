"""What one player may see of a hand: :class:`PlayerView` (rules.md "One hand"; issue 2, point 6).

A view is a frozen value built by ``HandState.view`` / ``MatchState.view``. It holds no reference to
the state it came from, and never the opponent's concealed cards or the stock order while the hand is
on: only the player's own cards, the discard pile, the cards the opponent is known to hold (taken
from the discard pile and not discarded since), sizes, scores and the public history. Once the hand
has ended everything is face up (``result``, ``opponent_hand``). Bots receive only this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.actions import Action
from engine.cards import Card, card_name, card_names
from engine.events import ActionEvent
from engine.phase import Phase
from engine.rules import RuleSet

if TYPE_CHECKING:
    from engine.scoring import HandResult


def _name(card: Card | None) -> str | None:
    return None if card is None else card_name(card)


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One player's observation of the current hand.

    - ``player``: the seat (0 or 1) this view is for; ``rules``: the rule set.
    - ``phase``, ``current_player`` (``None`` once ended), ``dealer``.
    - ``hand``: own cards, ascending (suit, then rank).
    - ``discard_pile``: bottom to top; ``upcard`` its top card (``None`` if empty);
      ``first_upcard``: the 21st card dealt (sets oklahoma's knock limit and spade doubling);
      ``None`` with the ``eleven`` deal (no upcard).
    - ``stock_size``, ``opponent_hand_size``: card counts.
    - ``opponent_known``: cards the opponent took from the discard pile and still holds, ascending.
    - ``knock_limit``: this hand's knock limit (deadwood points); ``multiplier``: 2 when the hand's
      points are doubled (oklahoma spade upcard), else 1.
    - ``taken_card``: the card this player just took from the discard pile this turn, if any.
    - ``scores``: match scores (seat 0, seat 1) in points; ``hand_number``: 1-based.
    - ``history``: every action of this hand in order, as this player may see it; ``card`` is the
      card drawn, ``None`` for the opponent's stock draws.
    - ``legal_actions``: this player's legal actions, sorted (empty when it is not its turn).
    - ``result``: the ``HandResult`` once the hand has ended, else ``None``; then ``opponent_hand``
      holds the opponent's cards (ascending), else ``None``.
    """

    player: int
    rules: RuleSet
    phase: Phase
    current_player: int | None
    dealer: int
    hand: tuple[Card, ...]
    discard_pile: tuple[Card, ...]
    upcard: Card | None
    first_upcard: Card | None
    stock_size: int
    opponent_hand_size: int
    opponent_known: tuple[Card, ...]
    knock_limit: int
    multiplier: int
    taken_card: Card | None
    scores: tuple[int, int]
    hand_number: int
    history: tuple[ActionEvent, ...]
    legal_actions: tuple[Action, ...]
    result: HandResult | None
    opponent_hand: tuple[Card, ...] | None

    @property
    def opponent(self) -> int:
        """The other seat."""
        return 1 - self.player

    @property
    def is_my_turn(self) -> bool:
        """Whether this player is to act."""
        return self.current_player == self.player

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: cards in poker notation, actions as their canonical strings, the rule set
        as ``RuleSet.to_dict()``, the phase as its value, ``history`` items as
        ``{"seat", "action", "card"}`` (``card`` null when not drawn or hidden), ``result`` as
        ``HandResult.to_dict()`` or null."""
        return {
            "player": self.player,
            "rules": self.rules.to_dict(),
            "phase": self.phase.value,
            "current_player": self.current_player,
            "dealer": self.dealer,
            "hand": card_names(self.hand),
            "discard_pile": card_names(self.discard_pile),
            "upcard": _name(self.upcard),
            "first_upcard": _name(self.first_upcard),
            "stock_size": self.stock_size,
            "opponent_hand_size": self.opponent_hand_size,
            "opponent_known": card_names(self.opponent_known),
            "knock_limit": self.knock_limit,
            "multiplier": self.multiplier,
            "taken_card": _name(self.taken_card),
            "scores": list(self.scores),
            "hand_number": self.hand_number,
            "history": [
                {"seat": e.seat, "action": str(e.action), "card": _name(e.card)} for e in self.history
            ],
            "legal_actions": [str(a) for a in self.legal_actions],
            "result": None if self.result is None else self.result.to_dict(),
            "opponent_hand": None if self.opponent_hand is None else card_names(self.opponent_hand),
        }
