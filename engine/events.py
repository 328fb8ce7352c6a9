"""Match events: the serializable record of every step, its JSON form, and replay.

A match is exactly "rule set + first dealer + events" (OpenSpiel style: chance is explicit). The
*input* events are :class:`DealEvent` (the chance outcome: the 52-card order of one hand),
:class:`ActionEvent` (a player's action) and :class:`ResignEvent`; :class:`HandEndEvent` and
:class:`MatchEndEvent` are *derived*: :class:`~engine.match.MatchState` emits them, and
:func:`engine.match.replay` checks that the ones in a log match what the rules give. This module is a
leaf: it imports no state machine (the replay lives beside ``MatchState`` in ``engine.match``).

JSON form (``to_json`` / ``from_json``): one dict per event with only JSON types, cards in poker
notation, the schema version under ``"v"`` and the kind under ``"type"``::

    {"v": 1, "type": "deal", "hand": 1, "dealer": 0, "deck": ["7h", "As", ...52 cards]}
    {"v": 1, "type": "deal", ..., "no_upcard": true, "limit_card": "8d"}   (seed 003's table)
    {"v": 1, "type": "cut", "cuts": [["7h", "7s"], ["Kd", "2c"]], "dealer": 0}
    {"v": 1, "type": "action", "seat": 1, "action": "draw stock", "card": "Kc"}
    {"v": 1, "type": "action", "seat": 1, "action": "discard 2d"}
    {"v": 1, "type": "hand_end", "hand": 1, "result": {...HandResult.to_dict()}, "scores": [0, 15]}
    {"v": 1, "type": "resign", "seat": 0}
    {"v": 1, "type": "match_end", "winner": 1, "reason": "target", "scores": [40, 104],
     "final_scores": [40, 104]}

``card`` on an action event is the card drawn (``take``, ``draw stock``, ``draw discard``). The full
log holds hidden information (deck orders, stock draws): it is for the server's database. A player or
spectator gets :func:`redact_for`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeAlias

from engine.actions import Action, ActionKind
from engine.cards import Card, card_name, card_names, parse_card
from engine.errors import EngineError, InvalidCardError, InvalidEventError

SCHEMA_VERSION = 1
"""Version of the JSON event schema; :func:`from_json` rejects any other."""

_DRAWS = frozenset((ActionKind.TAKE_UPCARD, ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD))


@dataclass(frozen=True, slots=True)
class DealEvent:
    """Hand number ``hand`` (1-based, dead hands count) is dealt by seat ``dealer`` from ``deck``
    (the 52-card order, docs/engine.md "Dealing convention"). ``no_upcard``: dealt by the ``eleven``
    deal (``deck[20]`` is the non-dealer's 11th card); ``limit_card``: the card turned from a second
    deck that sets the hand's knock limit (a chance outcome, so replays reproduce it), else ``None``.
    Both are in the JSON only when set, so older logs read unchanged."""

    hand: int
    dealer: int
    deck: tuple[Card, ...]
    no_upcard: bool = False
    limit_card: Card | None = None


@dataclass(frozen=True, slots=True)
class CutEvent:
    """Before hand 1 (``first_dealer`` ``"cut"``): each round of the cut for the deal, ``(seat 0's
    card, seat 1's card)``; equal ranks cut again, so only the last round differs in rank; ``dealer``
    is the seat whose last card ranks higher (king high, ace low)."""

    cuts: tuple[tuple[Card, Card], ...]
    dealer: int


@dataclass(frozen=True, slots=True)
class ActionEvent:
    """Seat ``seat`` played ``action``; ``card`` is the card it drew for ``take`` / ``draw stock`` /
    ``draw discard`` (``None`` for other actions, and in a redacted view of the opponent's stock draw)."""

    seat: int
    action: Action
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class HandEndEvent:
    """Hand ``hand`` ended with ``result`` (``HandResult.to_dict()``); ``scores`` are the match
    scores (seat 0, seat 1) after it."""

    hand: int
    result: dict[str, Any]
    scores: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ResignEvent:
    """Seat ``seat`` resigned the match."""

    seat: int


@dataclass(frozen=True, slots=True)
class MatchEndEvent:
    """The match is over: ``winner`` seat, ``reason`` (``"target"`` or ``"resign"``), ``scores``
    before and ``final_scores`` after the end bonuses (seat 0, seat 1)."""

    winner: int
    reason: str
    scores: tuple[int, int]
    final_scores: tuple[int, int]


Event: TypeAlias = DealEvent | ActionEvent | HandEndEvent | ResignEvent | MatchEndEvent | CutEvent


def to_json(event: Event) -> dict[str, Any]:
    """The JSON-ready dict of ``event`` (see the module docstring); ``from_json`` reverses it.

    :raises InvalidEventError: ``event`` is not an event.
    """
    head: dict[str, Any] = {"v": SCHEMA_VERSION}
    if isinstance(event, ActionEvent):
        head.update(type="action", seat=event.seat, action=str(event.action))
        if event.card is not None:
            head["card"] = card_name(event.card)
    elif isinstance(event, DealEvent):
        head.update(type="deal", hand=event.hand, dealer=event.dealer, deck=card_names(event.deck))
        if event.no_upcard:
            head["no_upcard"] = True
        if event.limit_card is not None:
            head["limit_card"] = card_name(event.limit_card)
    elif isinstance(event, CutEvent):
        head.update(type="cut", cuts=[card_names(pair) for pair in event.cuts], dealer=event.dealer)
    elif isinstance(event, HandEndEvent):
        head.update(type="hand_end", hand=event.hand, result=event.result, scores=list(event.scores))
    elif isinstance(event, ResignEvent):
        head.update(type="resign", seat=event.seat)
    elif isinstance(event, MatchEndEvent):
        head.update(
            type="match_end", winner=event.winner, reason=event.reason,
            scores=list(event.scores), final_scores=list(event.final_scores),
        )
    else:
        raise InvalidEventError(f"not an event: {event!r}")
    return head


def _field(data: dict[str, Any], key: str, kind: type) -> Any:
    if key not in data:
        raise InvalidEventError(f"{data.get('type')} event lacks {key!r}: {data!r}")
    value = data[key]
    if type(value) is not kind:
        raise InvalidEventError(
            f"{data.get('type')} event field {key!r} must be {kind.__name__}, got {value!r}"
        )
    return value


def _seat(data: dict[str, Any], key: str) -> int:
    seat = _field(data, key, int)
    if seat not in (0, 1):
        raise InvalidEventError(f"{key} must be 0 or 1, got {seat!r}")
    return int(seat)


def _pair(data: dict[str, Any], key: str) -> tuple[int, int]:
    value = _field(data, key, list)
    if len(value) != 2 or any(type(v) is not int for v in value):
        raise InvalidEventError(f"{key} must be two integers, got {value!r}")
    return (value[0], value[1])


def _card(token: Any) -> Card:
    try:
        return parse_card(token)
    except InvalidCardError as exc:
        raise InvalidEventError(f"bad card in event: {exc}") from None


_KEYS: dict[str, frozenset[str]] = {
    "deal": frozenset(("v", "type", "hand", "dealer", "deck", "no_upcard", "limit_card")),
    "cut": frozenset(("v", "type", "cuts", "dealer")),
    "action": frozenset(("v", "type", "seat", "action", "card")),
    "hand_end": frozenset(("v", "type", "hand", "result", "scores")),
    "resign": frozenset(("v", "type", "seat")),
    "match_end": frozenset(("v", "type", "winner", "reason", "scores", "final_scores")),
}


def from_json(data: Any) -> Event:
    """The event encoded by ``data`` (a dict from :func:`to_json`, e.g. after ``json.loads``).

    :raises InvalidEventError: not a dict, another schema version, unknown type, missing, extra or
        badly typed fields, bad cards or action text.
    """
    if not isinstance(data, dict):
        raise InvalidEventError(f"an event must be an object, got {data!r}")
    if data.get("v") != SCHEMA_VERSION or type(data.get("v")) is not int:
        raise InvalidEventError(
            f"unsupported event schema version {data.get('v')!r} (expected {SCHEMA_VERSION})"
        )
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _KEYS:
        raise InvalidEventError(f"unknown event type {kind!r}")
    extra = set(data) - _KEYS[kind]
    if extra:
        raise InvalidEventError(f"{kind} event has unknown field(s) {sorted(extra)}")
    if kind == "action":
        try:
            action = Action.parse(_field(data, "action", str))
        except EngineError as exc:
            raise InvalidEventError(str(exc)) from None
        card = _card(data["card"]) if "card" in data else None
        if card is not None and action.kind not in _DRAWS:
            raise InvalidEventError(f"a {action} event carries no drawn card: {data!r}")
        return ActionEvent(_seat(data, "seat"), action, card)
    if kind == "deal":
        hand = _field(data, "hand", int)
        if hand < 1:
            raise InvalidEventError(f"hand numbers start at 1, got {hand}")
        deck = tuple(_card(t) for t in _field(data, "deck", list))
        if len(deck) != 52 or len(set(deck)) != 52:
            raise InvalidEventError("a deal event's deck must hold the 52 distinct cards")
        no_upcard = False
        if "no_upcard" in data:
            if data["no_upcard"] is not True:
                raise InvalidEventError(f"no_upcard is true when present, got {data['no_upcard']!r}")
            no_upcard = True
        limit_card = _card(data["limit_card"]) if "limit_card" in data else None
        return DealEvent(hand, _seat(data, "dealer"), deck, no_upcard, limit_card)
    if kind == "cut":
        rounds = _field(data, "cuts", list)
        cuts = []
        for pair in rounds:
            if not isinstance(pair, list) or len(pair) != 2:
                raise InvalidEventError(f"each cut is two cards, got {pair!r}")
            cuts.append((_card(pair[0]), _card(pair[1])))
        if not cuts:
            raise InvalidEventError("a cut event holds at least one cut")
        return CutEvent(tuple(cuts), _seat(data, "dealer"))
    if kind == "hand_end":
        return HandEndEvent(_field(data, "hand", int), _field(data, "result", dict), _pair(data, "scores"))
    if kind == "resign":
        return ResignEvent(_seat(data, "seat"))
    reason = _field(data, "reason", str)
    if reason not in ("target", "resign"):
        raise InvalidEventError(f"match_end reason must be 'target' or 'resign', got {reason!r}")
    return MatchEndEvent(_seat(data, "winner"), reason, _pair(data, "scores"), _pair(data, "final_scores"))


def log_to_json(events: Iterable[Event]) -> list[dict[str, Any]]:
    """:func:`to_json` of each event, in order."""
    return [to_json(e) for e in events]


def log_from_json(data: Any) -> list[Event]:
    """:func:`from_json` of each item of the list ``data``.

    :raises InvalidEventError: ``data`` is not a list, or an item is malformed (its index is named).
    """
    if not isinstance(data, list):
        raise InvalidEventError(f"an event log must be a list, got {type(data).__name__}")
    events: list[Event] = []
    for i, item in enumerate(data):
        try:
            events.append(from_json(item))
        except InvalidEventError as exc:
            raise InvalidEventError(f"event {i}: {exc}") from None
    return events


def redact_for(player: int | None, event: Event) -> dict[str, Any]:
    """The JSON of ``event`` as ``player`` (0 or 1; ``None`` for a spectator) may see it live.

    A deal loses its deck order and gains ``"hand_cards"`` (the player's own 10 cards; omitted for a
    spectator) and ``"upcard"``; a stock draw by anyone else loses its ``"card"``. Other events are
    public. Not for :func:`engine.match.replay` (the hidden cards are gone).
    """
    data = to_json(event)
    if isinstance(event, DealEvent):
        del data["deck"]
        data["upcard"] = None if event.no_upcard else card_name(event.deck[20])
        if player is not None:
            if player == event.dealer:
                cards = event.deck[1:20:2]
            else:
                cards = event.deck[0:21:2] if event.no_upcard else event.deck[0:20:2]
            data["hand_cards"] = card_names(sorted(cards))
    elif (
        isinstance(event, ActionEvent)
        and event.action.kind is ActionKind.DRAW_STOCK
        and event.seat != player
    ):
        data.pop("card", None)
    return data
