"""Player actions and their canonical string form (docs/engine.md, "Actions").

An :class:`Action` is a small immutable value: a kind and, for ``discard`` and ``knock``, a card.
``str(action)`` is the canonical text used in logs, events and the WebSocket protocol, and
:meth:`Action.parse` reads it back (any case, ``10`` for ``T``, extra spaces allowed).

>>> str(Action.parse("DISCARD 10h"))
'discard Th'
>>> Action.parse("knock") == Action.big_gin()
True
>>> sorted([Action.discard("Kc"), Action.draw_stock(), Action.knock("2c")])
[Action.parse('draw stock'), Action.parse('discard Kc'), Action.parse('knock 2c')]

Actions compare and sort by kind (in the order of :class:`ActionKind`), then by card, which is the
deterministic order of ``legal_actions()``. The constructors return interned instances, so building
actions in a hot loop allocates nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from engine.cards import Card, card_name, parse_card
from engine.errors import IllegalActionError, InvalidCardError


class ActionKind(IntEnum):
    """What an action does (rules.md, "One hand"); the int value fixes the sort order."""

    TAKE_UPCARD = 0
    """``take``: take the first upcard during the upcard offer (then discard)."""
    PASS = 1
    """``pass``: decline the first upcard during the upcard offer."""
    DRAW_STOCK = 2
    """``draw stock``: draw the top card of the stock."""
    DRAW_DISCARD = 3
    """``draw discard``: draw the top card of the discard pile."""
    DISCARD = 4
    """``discard Kc``: discard a card and end the turn."""
    KNOCK = 5
    """``knock Kc``: discard a card and knock (gin when no deadwood is left)."""
    BIG_GIN = 6
    """``knock``: all 11 cards melded, knock without discarding."""


_PLAIN_TEXT: dict[ActionKind, str] = {
    ActionKind.TAKE_UPCARD: "take",
    ActionKind.PASS: "pass",
    ActionKind.DRAW_STOCK: "draw stock",
    ActionKind.DRAW_DISCARD: "draw discard",
    ActionKind.BIG_GIN: "knock",
}
_CARD_VERB: dict[ActionKind, str] = {ActionKind.DISCARD: "discard", ActionKind.KNOCK: "knock"}
_WITH_CARD = frozenset(_CARD_VERB)


def _malformed(text: object, why: str) -> IllegalActionError:
    return IllegalActionError(f"malformed action {text!r}: {why}", code="malformed_action")


@dataclass(frozen=True, slots=True, order=True)
class Action:
    """One action: ``kind`` and, for ``DISCARD`` and ``KNOCK`` only, the ``card``.

    Prefer the constructors (:meth:`take`, :meth:`pass_`, :meth:`draw_stock`, :meth:`draw_discard`,
    :meth:`discard`, :meth:`knock`, :meth:`big_gin`) or :meth:`parse`.

    :raises IllegalActionError: code ``malformed_action`` when a card is missing or superfluous.
    """

    kind: ActionKind
    card: Card | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, ActionKind):
            raise _malformed(self.kind, "unknown action kind")
        if self.kind in _WITH_CARD:
            if not (type(self.card) is int and 0 <= self.card < 52):
                raise _malformed(_CARD_VERB[self.kind], f"needs a card, got {self.card!r}")
        elif self.card is not None:
            raise _malformed(_PLAIN_TEXT[self.kind], f"takes no card, got {self.card!r}")

    def __str__(self) -> str:
        if self.card is None:
            return _PLAIN_TEXT[self.kind]
        return f"{_CARD_VERB[self.kind]} {card_name(self.card)}"

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        """The action written as ``text`` (``take``, ``pass``, ``draw stock``, ``draw discard``,
        ``discard Kc``, ``knock Kc``, ``knock``), any case, ``10`` accepted for ``T``.

        :raises IllegalActionError: code ``malformed_action``, the message naming ``text``.
        """
        if not isinstance(text, str):
            raise _malformed(text, "expected a string such as 'discard Kc'")
        words = text.lower().split()
        action = _BY_TEXT.get(" ".join(words))
        if action is not None:
            return action
        if len(words) == 2 and words[0] in ("discard", "knock"):
            try:
                card = parse_card(words[1])
            except InvalidCardError:
                raise _malformed(text, f"{words[1]!r} is not a card") from None
            return _DISCARDS[card] if words[0] == "discard" else _KNOCKS[card]
        raise _malformed(
            text, "expected take, pass, draw stock, draw discard, discard <card>, knock <card> or knock"
        )

    @classmethod
    def take(cls) -> Action:
        """``take``: take the first upcard."""
        return _TAKE

    @classmethod
    def pass_(cls) -> Action:
        """``pass``: decline the first upcard."""
        return _PASS

    @classmethod
    def draw_stock(cls) -> Action:
        """``draw stock``."""
        return _DRAW_STOCK

    @classmethod
    def draw_discard(cls) -> Action:
        """``draw discard``."""
        return _DRAW_DISCARD

    @classmethod
    def discard(cls, card: Card | str) -> Action:
        """``discard <card>``; ``card`` as an int or in poker notation.

        :raises IllegalActionError: code ``malformed_action`` for a bad card.
        """
        return _DISCARDS[_card_arg(card)]

    @classmethod
    def knock(cls, card: Card | str) -> Action:
        """``knock <card>``: discard ``card`` and knock.

        :raises IllegalActionError: code ``malformed_action`` for a bad card.
        """
        return _KNOCKS[_card_arg(card)]

    @classmethod
    def big_gin(cls) -> Action:
        """``knock`` without a card: big gin."""
        return _BIG_GIN


def _card_arg(card: Card | str) -> Card:
    if isinstance(card, str):
        try:
            return parse_card(card)
        except InvalidCardError:
            raise _malformed(card, "not a card") from None
    if type(card) is not int or not 0 <= card < 52:
        raise _malformed(card, "not a card")
    return card


_TAKE = Action(ActionKind.TAKE_UPCARD)
_PASS = Action(ActionKind.PASS)
_DRAW_STOCK = Action(ActionKind.DRAW_STOCK)
_DRAW_DISCARD = Action(ActionKind.DRAW_DISCARD)
_BIG_GIN = Action(ActionKind.BIG_GIN)
_DISCARDS: tuple[Action, ...] = tuple(Action(ActionKind.DISCARD, c) for c in range(52))
_KNOCKS: tuple[Action, ...] = tuple(Action(ActionKind.KNOCK, c) for c in range(52))
_BY_TEXT: dict[str, Action] = {str(a): a for a in (_TAKE, _PASS, _DRAW_STOCK, _DRAW_DISCARD, _BIG_GIN)}

# Interned instances for hot loops (hand.py builds legal actions from these).
TAKE, PASS, DRAW_STOCK, DRAW_DISCARD, BIG_GIN = _TAKE, _PASS, _DRAW_STOCK, _DRAW_DISCARD, _BIG_GIN
DISCARDS, KNOCKS = _DISCARDS, _KNOCKS
