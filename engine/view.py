"""What one player may see of a hand: :class:`PlayerView` (rules.md "One hand"; issue 2, point 6).

A view is a frozen value built by ``HandState.view`` / ``MatchState.view``. It holds no reference to
the state it came from, and never the opponent's concealed cards or the stock order while the hand is
on: only the player's own cards, the discard pile, the cards the opponent is known to hold (taken
from the discard pile and not discarded since), sizes, scores and the public history. Once the hand
has ended everything is face up (``result``, ``opponent_hand``). Bots receive only this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.actions import Action
from engine.cards import Card, card_name, card_names, parse_card
from engine.errors import EngineError
from engine.events import ActionEvent
from engine.phase import Phase
from engine.rules import RuleSet
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
        """JSON-ready dict (read back by :meth:`from_dict`): cards in poker notation, actions as their
        canonical strings, the rule set as ``RuleSet.to_dict()``, the phase as its value, ``history``
        items as ``{"seat", "action", "card"}`` (``card`` null when not drawn or hidden), ``result``
        as ``HandResult.to_dict()`` or null."""
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

    @classmethod
    def from_dict(cls, data: Any) -> PlayerView:
        """The view written by :meth:`to_dict`: ``PlayerView.from_dict(v.to_dict()) == v``, also after a
        JSON round trip. This is how a program outside the server (``botclient``, docs/bot-api.md)
        rebuilds the view a bot's ``choose`` reads. Keys ``to_dict`` does not write are ignored (a
        newer server may add some); cards are read as by ``parse_card`` (any case, ``10`` for ``T``).

        :raises ValueError: an ``EngineError`` with code ``invalid_view`` (or ``invalid_rules``,
            ``invalid_result`` for those parts) naming the key: not a dict, a key missing, a value of
            the wrong type or out of range, an unknown phase, a bad card or action text.
        """
        if not isinstance(data, dict):
            raise _bad(f"a player view must be an object, got {type(data).__name__}")
        rules_data = _key(data, "rules", dict)
        phase_text = _key(data, "phase", str)
        try:
            phase = Phase(phase_text)
        except ValueError:
            raise _bad(
                f"unknown phase {phase_text!r}; phases: {', '.join(p.value for p in Phase)}"
            ) from None
        scores = _key(data, "scores", list)
        if len(scores) != 2 or any(type(x) is not int for x in scores):
            raise _bad(f"view field 'scores' must be two integers, got {scores!r}")
        history = []
        for item in _key(data, "history", list):
            if not isinstance(item, dict):
                raise _bad(f"a history item is {{\"seat\", \"action\", \"card\"}}, got {item!r}")
            history.append(ActionEvent(
                _seat(item, "seat"), _action(_key(item, "action", str)), _card_or_none(item, "card"),
            ))
        result = _key(data, "result", dict, nullable=True)
        opponent_hand = _key(data, "opponent_hand", list, nullable=True)
        return cls(
            player=_seat(data, "player"),
            rules=RuleSet.from_dict(rules_data),
            phase=phase,
            current_player=_seat(data, "current_player", nullable=True),
            dealer=_seat(data, "dealer"),
            hand=_cards(data, "hand"),
            discard_pile=_cards(data, "discard_pile"),
            upcard=_card_or_none(data, "upcard"),
            first_upcard=_card_or_none(data, "first_upcard"),
            stock_size=_count(data, "stock_size"),
            opponent_hand_size=_count(data, "opponent_hand_size"),
            opponent_known=_cards(data, "opponent_known"),
            knock_limit=_count(data, "knock_limit"),
            multiplier=_count(data, "multiplier"),
            taken_card=_card_or_none(data, "taken_card"),
            scores=(scores[0], scores[1]),
            hand_number=_count(data, "hand_number"),
            history=tuple(history),
            legal_actions=tuple(_action(text) for text in _strings(data, "legal_actions")),
            result=None if result is None else HandResult.from_dict(result),
            opponent_hand=None if opponent_hand is None else _cards(data, "opponent_hand"),
        )


def _bad(message: str) -> EngineError:
    return EngineError(message, code="invalid_view")


def _key(data: dict[str, Any], key: str, kind: type, *, nullable: bool = False) -> Any:
    if key not in data:
        raise _bad(f"view lacks {key!r}")
    value = data[key]
    if (value is None and nullable) or type(value) is kind:
        return value
    raise _bad(f"view field {key!r} must be {kind.__name__}{' or null' if nullable else ''}, got {value!r}")


def _seat(data: dict[str, Any], key: str, *, nullable: bool = False) -> Any:
    value = _key(data, key, int, nullable=nullable)
    if value not in (0, 1, None):
        raise _bad(f"view field {key!r} must be a seat, 0 or 1, got {value!r}")
    return value


def _count(data: dict[str, Any], key: str) -> int:
    value: int = _key(data, key, int)
    if value < 0:
        raise _bad(f"view field {key!r} must not be negative, got {value!r}")
    return value


def _card(token: Any, key: str) -> Card:
    try:
        return parse_card(token)
    except EngineError as exc:
        raise _bad(f"view field {key!r}: {exc}") from None


def _card_or_none(data: dict[str, Any], key: str) -> Card | None:
    value = _key(data, key, str, nullable=True)
    return None if value is None else _card(value, key)


def _strings(data: dict[str, Any], key: str) -> list[str]:
    values: list[Any] = _key(data, key, list)
    for value in values:
        if not isinstance(value, str):
            raise _bad(f"view field {key!r} holds strings, got {value!r}")
    return values


def _cards(data: dict[str, Any], key: str) -> tuple[Card, ...]:
    return tuple(_card(token, key) for token in _strings(data, key))


def _action(text: str) -> Action:
    try:
        return Action.parse(text)
    except EngineError as exc:
        raise _bad(f"view: {exc}") from None
