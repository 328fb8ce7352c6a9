"""The replay file: a whole match as one versioned JSON document, verified by re-playing it (like PGN).

Format (``docs/replay-format.md`` is the reference)::

    {"format": "gin-rummy-replay", "version": 1,
     "match": {...free metadata: id, site, preset, dates...},
     "rules": {...RuleSet.to_dict()}, "first_dealer": 0, "cut": [["7h", "Ks"]] (only when the rules cut),
     "players": [{"seat": 0, "name": "alice", "bot_level": null}, {"seat": 1, ...}],
     "hands": [{"number": 1, "dealer": 0, "deck": ["7h", ...52], "salt": "...", "commitment": "...",
                "actions": [{"seat": 1, "action": "pass"}, {"seat": 0, "action": "draw stock"},
                            {"seat": 0, "action": "discard Kc", "auto": true}, ...],
                "result": {...HandResult.to_dict()} | null, "scores_after": [0, 25] | null}, ...],
     "end": {"winner": 1, "reason": "target" | "resign", "resigned": null | seat,
             "scores": [40, 104], "final_scores": [40, 154], "timeout": false}}

:func:`verify` re-plays the record through :class:`~engine.match.MatchState` and checks every deck
against its commitment, every action's legality, every hand's result and scores and the match's end.
Anything wrong raises :class:`ReplayVerificationError` naming the event: events are numbered as in the
engine's log (1 = the cut for the deal when the file has one, else the first hand's deal; then one
number per deal, action, hand end, resignation and match end, see ``engine.events``); event 0 is the
file itself (not JSON, wrong format or version, a missing or malformed field).
Every string of the file must be text (:func:`check_text`: no lone surrogate, no control character),
and :func:`loads` reads strict UTF-8 with at most one leading byte order mark. :func:`verify` takes an
optional CPU ``budget`` (:class:`ReplayBudgetError` past it); :func:`hand_frames` draws one verified
hand's viewer frames on its own. :func:`record_from_events` writes a record from an engine log.

Framework-free (no Django), ``mypy --strict``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.actions import Action
from engine.cards import ALL_CARDS, Card, card_name, card_names
from engine.deck import deck_commitment
from engine.errors import EngineError
from engine.events import ActionEvent, CutEvent, DealEvent, Event, HandEndEvent, MatchEndEvent, ResignEvent
from engine.hand import HandState
from engine.match import MatchState
from engine.melds import best_arrangement_of_mask
from engine.rules import RuleSet

FORMAT = "gin-rummy-replay"
"""The ``format`` field of every replay file."""
VERSION = 1
"""The ``version`` this module writes and reads; any other is refused (event 0)."""
MAX_HANDS = 2000
"""More hands than this is refused as a malformed file (a real match to 500 has far fewer)."""
MAX_NAME = 150
"""Longest player name (characters)."""

Json = dict[str, Any]

_NAMES = tuple(card_name(c) for c in ALL_CARDS)  # the viewer's frames name thousands of cards: no checks

_TOP = frozenset(("format", "version", "match", "rules", "first_dealer", "cut", "players", "hands", "end"))
_HAND = frozenset(("number", "dealer", "deck", "salt", "commitment", "actions", "result", "scores_after",
                   "limit_card"))  # limit_card: optional, the second deck's card (two_deck preset)
_ACTION = frozenset(("seat", "action", "auto"))
_END = frozenset(("winner", "reason", "resigned", "scores", "final_scores", "timeout"))
_PLAYER = frozenset(("seat", "name", "bot_level"))


class ReplayVerificationError(EngineError):
    """The record does not re-play: ``event`` is the number of the first bad event (0 = the file
    itself); ``str()`` is ``"failed verification at event N: reason"``."""

    code = "replay_failed"

    def __init__(self, event: int, reason: str) -> None:
        super().__init__(f"failed verification at event {event}: {reason}")
        self.event = event
        self.reason = reason


class ReplayBudgetError(ReplayVerificationError):
    """Verification stopped after its CPU ``budget`` (seconds), at ``event`` (the next one it would
    have checked) in hand ``hand`` of ``hands``: the record is neither verified nor refused as false.
    ``str()`` is ``"failed verification at event N: ..."`` like its parent's."""

    code = "replay_budget"

    def __init__(self, event: int, budget: float, hand: int, hands: int) -> None:
        super().__init__(event, f"verifying this file takes more than {budget:g} s of server time "
                                f"(stopped in hand {hand} of {hands})")
        self.budget = budget
        self.hand = hand
        self.hands = hands


@dataclass(slots=True)
class HandReplay:
    """One verified hand: its record, the engine's result and, with ``frames=True``, one frame per
    position (frame 0 = just dealt, frame k = after the k-th action; see :func:`frame`) and the
    distinct hands those frames show (``arrangements``, indexed by the frames' ``hands``)."""

    number: int
    dealer: int
    deck: tuple[Card, ...]
    salt: str
    commitment: str
    actions: list[tuple[int, str, bool]]
    result: Json | None
    scores_after: tuple[int, int]
    first_event: int
    """Engine log number of this hand's deal event."""
    limit_card: Card | None = None
    """The second deck's card (``two_deck`` rules), else None."""
    knock_limit: int = 10
    multiplier: int = 1
    frames: list[Json] = field(default_factory=list)
    arrangements: list[Json] = field(default_factory=list)


class _Arrangements:
    """Each distinct hand (card mask) a hand's frames show, arranged once: best melds, deadwood."""

    def __init__(self, shared: dict[int, Json], into: list[Json]) -> None:
        self.shared = shared
        self.into = into
        self.index: dict[int, int] = {}

    def __call__(self, mask: int) -> int:
        i = self.index.get(mask)
        if i is None:
            i = self.index[mask] = len(self.into)
            self.into.append(_arranged(mask, self.shared))
        return i


@dataclass(slots=True)
class VerifiedReplay:
    """A record that re-played: ``state`` is the final engine state; ``hands`` in order; ``end`` the
    record's end (``winner``, ``reason``, ``resigned``, ``scores``, ``final_scores``, ``timeout``)."""

    record: Json
    state: MatchState
    hands: list[HandReplay]
    end: Json


def _fail(event: int, reason: str) -> ReplayVerificationError:
    return ReplayVerificationError(event, reason)


def _get(obj: Json, key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise _fail(0, f"{where} lacks {key!r}")
    value = obj[key]
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise _fail(0, f"{where}.{key} has the wrong type ({json.dumps(value)})")
    if not isinstance(value, kinds):
        raise _fail(0, f"{where}.{key} has the wrong type ({json.dumps(value)[:60]})")
    return value


def _keys(obj: Any, allowed: frozenset[str], where: str) -> Json:
    if not isinstance(obj, dict):
        raise _fail(0, f"{where} must be an object")
    extra = set(obj) - allowed
    if extra:
        raise _fail(0, f"{where} has unknown field(s) {sorted(extra)}")
    return obj


def _pair(value: Any, where: str) -> tuple[int, int]:
    if (
        not isinstance(value, list) or len(value) != 2
        or any(type(v) is not int for v in value)
    ):
        raise _fail(0, f"{where} must be two integers")
    return (value[0], value[1])


def _seat(value: Any, where: str) -> int:
    if type(value) is not int or value not in (0, 1):
        raise _fail(0, f"{where} must be seat 0 or 1")
    return int(value)


class _DuplicateKey(ValueError):
    pass


def _object(pairs: list[tuple[str, Any]]) -> Json:
    """``object_pairs_hook``: a JSON object, refused when it names a key twice (``json`` keeps the last
    one silently, so a file could show one reader ``players`` and another a second ``players``)."""
    obj: Json = {}
    for key, value in pairs:
        if key in obj:
            raise _DuplicateKey(key)
        obj[key] = value
    return obj


def loads(text: str | bytes) -> Json:
    """The JSON object of a replay file's text (only the outer shape is checked here). Bytes are
    UTF-8 (strictly: no encoded surrogates); one leading byte order mark (U+FEFF, as some editors save)
    is accepted and ignored, a second one is refused.

    :raises ReplayVerificationError: event 0, not UTF-8, more than one byte order mark, not JSON (also
        a key given twice in one object) or not an object.
    """
    if isinstance(text, bytes):
        try:
            text = text.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _fail(0, f"not UTF-8 (byte {exc.start} cannot be read)") from None
    else:
        text = text.removeprefix("\ufeff")
    if text.startswith("\ufeff"):
        raise _fail(0, "more than one byte order mark (U+FEFF) at the start: one is allowed")
    try:
        data = json.loads(text, object_pairs_hook=_object)
    except _DuplicateKey as exc:
        raise _fail(0, f"duplicate key {str(exc)[:40]!r} in one JSON object") from None
    except (ValueError, RecursionError) as exc:
        raise _fail(0, f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise _fail(0, "a replay file is a JSON object")
    return data


# Lone surrogates (a JSON "\ud800" escape: not Unicode text, no UTF-8 for it) and control characters
# (C0 including NUL, DEL, C1): no field of a replay file holds them, and names and metadata are shown
# on pages and stored in databases (PostgreSQL refuses NUL).
_NOT_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _strings(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every string of a parsed JSON document, keys included, with where it is (``players[0].name``;
    a key: ``a key of players[0]``)."""
    stack = [(value, where)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, str):
            yield node, at
        elif isinstance(node, dict):
            for key, item in node.items():
                yield key, f"a key of {at or 'the file'}"
                stack.append((item, f"{at}.{key}" if at else key))
        elif isinstance(node, list):
            stack.extend((item, f"{at}[{i}]") for i, item in enumerate(node))


def check_text(data: Any) -> None:
    """Refuse a parsed replay file holding a string that is not text: a lone surrogate (not valid
    Unicode) or a control character (U+0000-U+001F, U+007F-U+009F), in any value or key.

    :raises ReplayVerificationError: event 0, naming the field and the code point.
    """
    for text, where in _strings(data, ""):
        bad = _NOT_TEXT.search(text)
        if bad is None:
            continue
        point = ord(bad.group())
        shown = where if len(where) <= 80 else where[:80] + "..."
        if 0xD800 <= point <= 0xDFFF:
            raise _fail(0, f"{shown} is not valid Unicode: a lone surrogate (U+{point:04X})")
        if point == 0:
            raise _fail(0, f"{shown} must not contain NUL (U+0000)")
        raise _fail(0, f"{shown} must not contain a control character (U+{point:04X})")


def _header(data: Any) -> tuple[RuleSet, int, list[Any], Json]:
    data = _keys(data, _TOP, "the file")
    if data.get("format") != FORMAT:
        raise _fail(0, f"not a replay file (format must be {FORMAT!r})")
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        shown = json.dumps(version)[:20]
        raise _fail(0, f"unsupported version {shown} (this reader knows version {VERSION})")
    if "match" in data and not isinstance(data["match"], dict):
        raise _fail(0, "match must be an object")
    try:
        rules = RuleSet.from_dict(_get(data, "rules", dict, "the file"))
    except EngineError as exc:
        raise _fail(0, f"bad rules: {exc}") from None
    first_dealer = _seat(data.get("first_dealer"), "first_dealer")
    players = _get(data, "players", list, "the file")
    if len(players) != 2:
        raise _fail(0, "players must list the two seats")
    for seat, p in enumerate(players):
        p = _keys(p, _PLAYER, f"players[{seat}]")
        if p.get("seat") != seat or type(p.get("seat")) is not int:
            raise _fail(0, f"players[{seat}].seat must be {seat}")
        name = _get(p, "name", str, f"players[{seat}]")
        if not 0 < len(name) <= MAX_NAME:
            raise _fail(0, f"players[{seat}].name must be 1..{MAX_NAME} characters")
        level = p.get("bot_level")
        if level is not None and (type(level) is not int or not 1 <= level <= 5):
            raise _fail(0, f"players[{seat}].bot_level must be null or 1..5")
    hands = _get(data, "hands", list, "the file")
    if not 1 <= len(hands) <= MAX_HANDS:
        raise _fail(0, f"hands must list 1..{MAX_HANDS} hands")
    end = _keys(data.get("end"), _END, "end")
    return rules, first_dealer, hands, end


def _arranged(mask: int, cache: dict[int, Json]) -> Json:
    hit = cache.get(mask)
    if hit is None:
        arrangement = best_arrangement_of_mask(mask)
        names = _NAMES
        melds = [[names[c] for c in m.cards] for m in arrangement.melds]
        rest = [names[c] for c in sorted(arrangement.unmatched, key=lambda c: (c % 13, c // 13))]
        hit = {
            "cards": [c for m in melds for c in m] + rest,
            "melds": melds,
            "deadwood_cards": rest,
            "deadwood": arrangement.deadwood,
        }
        cache[mask] = hit
    return hit


def frame(
    hand: HandState, step: int, last: ActionEvent | None, auto: bool, arranged: Callable[[int], int]
) -> Json:
    """The viewer's picture of ``hand`` after its ``step``-th action (0 = just dealt), all cards face up::

        {"step", "seat", "action", "card" (drawn card or null), "auto", "phase", "to_act",
         "hands": [i0, i1] (indexes into the hand's ``arrangements``: {"cards" (melds first, then
         deadwood by rank), "melds", "deadwood_cards", "deadwood"}), "stock_size" (the stock is the
         deck's last stock_size cards, top first), "discard_pile" (bottom -> top), "upcard",
         "taken_card"}
    """
    names = _NAMES
    upcard, taken = hand.upcard, hand.taken_card
    return {
        "step": step,
        "seat": None if last is None else last.seat,
        "action": None if last is None else str(last.action),
        "card": None if last is None or last.card is None else names[last.card],
        "auto": auto,
        "phase": hand.phase.value,
        "to_act": hand.current_player,
        "hands": [arranged(hand.hand_mask(0)), arranged(hand.hand_mask(1))],
        "stock_size": hand.stock_size,
        "discard_pile": [names[c] for c in hand.discard_pile],
        "upcard": None if upcard is None else names[upcard],
        "taken_card": None if taken is None else names[taken],
    }


_BY_FILE_NAME = {name: card for card, name in zip(ALL_CARDS, _NAMES, strict=True)}


def _card(token: Any, where: str, event: int) -> Card:
    """A card as files write it: exactly its canonical name (``"Ad"``, ``"Tc"``). The engine's own parser
    reads any case and ``10``; a file has one spelling, so that a record reads the same to every reader.

    :raises ReplayVerificationError: at ``event``, naming ``where`` and the token.
    """
    card = _BY_FILE_NAME.get(token) if isinstance(token, str) else None
    if card is None:
        shown = repr(token)[:20]
        raise _fail(event, f"{where}: {shown} is not a card as replay files write it "
                           "(rank A23456789TJQK then suit cdhs, e.g. 'Ad')")
    return card


def _parse_deck(tokens: Any, event: int, where: str) -> tuple[Card, ...]:
    if not isinstance(tokens, list) or len(tokens) != 52:
        raise _fail(event, "a deck is the list of the 52 cards")
    deck = tuple(_card(t, f"{where}.deck[{i}]", event) for i, t in enumerate(tokens))
    if len(set(deck)) != 52:
        raise _fail(event, "the deck repeats a card")
    return deck


class _Run:
    """One verification's running state: the engine's match, the number of events so far (the
    engine's ``match.events`` copies the whole log on each read), the arrangement cache and the CPU
    deadline (``clock`` seconds; None: no budget)."""

    def __init__(
        self, match: MatchState, hands: int, budget: float | None, clock: Callable[[], float],
        started: float,
    ) -> None:
        self.match = match
        self.events = len(match.events)
        self.hands = hands
        self.cache: dict[int, Json] = {}
        self.budget = budget
        self.clock = clock
        self.deadline = None if budget is None else started + budget

    def check_time(self, hand: int) -> None:
        """:raises ReplayBudgetError: the deadline has passed (checked between actions)."""
        if self.deadline is not None and self.clock() > self.deadline:
            assert self.budget is not None
            raise ReplayBudgetError(self.events + 1, self.budget, hand, self.hands)


_CHECK_EVERY = 64
"""Actions between two looks at the clock inside one hand (a hand has at most about 2,100)."""


def _hand(run: _Run, index: int, raw: Any, *, frames: bool) -> HandReplay:
    match = run.match
    hand = _keys(raw, _HAND, f"hands[{index}]")
    where = f"hands[{index}]"
    event = run.events + 1  # this hand's deal
    if match.is_over:
        raise _fail(event, f"hand {index + 1} comes after the match ended")
    run.check_time(index + 1)
    number = _get(hand, "number", int, where)
    dealer = _seat(hand.get("dealer"), f"{where}.dealer")
    if number != match.hand_number + 1 or dealer != match.dealer:
        raise _fail(event, f"expected hand {match.hand_number + 1} dealt by seat {match.dealer}, "
                           f"got hand {number} dealt by seat {dealer}")
    deck = _parse_deck(hand.get("deck"), event, where)
    salt = _get(hand, "salt", str, where)
    commitment = _get(hand, "commitment", str, where)
    if deck_commitment(deck, salt) != commitment:
        raise _fail(event, f"hand {number}'s deck does not match its commitment")
    limit_card = None
    if "limit_card" in hand:
        limit_card = _card(hand["limit_card"], f"{where}.limit_card", event)
    match.deal(deck, limit_card=limit_card)
    run.events += 1
    state = match.hand
    assert state is not None
    record = HandReplay(number, dealer, deck, salt, commitment, [], None, match.scores, event,
                        limit_card=limit_card, knock_limit=state.knock_limit, multiplier=state.multiplier)
    arranged = _Arrangements(run.cache, record.arrangements)
    if frames:
        record.frames.append(frame(state, 0, None, False, arranged))
    actions = _get(hand, "actions", list, where)
    end_event: HandEndEvent | None = None
    end_number = 0
    for k, item in enumerate(actions):
        if k % _CHECK_EVERY == _CHECK_EVERY - 1:
            run.check_time(index + 1)
        event = run.events + 1
        act = _keys(item, _ACTION, f"{where}.actions[{k}]")
        seat = _seat(act.get("seat"), f"{where}.actions[{k}].seat")
        text = _get(act, "action", str, f"{where}.actions[{k}]")
        auto = act.get("auto", False)
        if type(auto) is not bool:
            raise _fail(0, f"{where}.actions[{k}].auto must be true or false")
        if state.is_over:
            raise _fail(event, f"hand {number} is over: no more actions")
        try:
            produced = match.apply(Action.parse(text), seat)
        except EngineError as exc:
            what = f"hand {number}, action {k + 1} (seat {seat}: {text[:40]!r})"
            raise _fail(event, f"{what} is illegal: {exc}") from None
        last = produced[0]
        assert isinstance(last, ActionEvent)
        if str(last.action) != text:  # legal, but spelled otherwise (case, 10 for T...): one spelling
            raise _fail(event, f"hand {number}, action {k + 1} (seat {seat}: {text[:40]!r}) is not written "
                               f"as replay files write it: {str(last.action)!r}")
        for i, e in enumerate(produced):
            if isinstance(e, HandEndEvent):
                end_event, end_number = e, run.events + 1 + i
        run.events += len(produced)
        record.actions.append((seat, str(last.action), auto))
        if frames:
            record.frames.append(frame(state, k + 1, last, auto, arranged))
    result = hand.get("result")
    scores_after = hand.get("scores_after")
    if state.is_over:
        assert end_event is not None
        if not isinstance(result, dict) or result != end_event.result:
            raise _fail(end_number, f"hand {number}'s result disagrees with the rules")
        if _pair(scores_after, f"{where}.scores_after") != end_event.scores:
            given = list(end_event.scores)
            raise _fail(end_number, f"hand {number}'s scores disagree with the rules, which give {given}")
        record.result = end_event.result
        record.scores_after = end_event.scores
    elif result is not None or scores_after is not None:
        raise _fail(run.events + 1, f"hand {number} has a result but its actions stop before its end")
    return record


def hand_frames(
    rules: RuleSet, dealer: int, deck: Sequence[Card], limit_card: Card | None,
    actions: Sequence[tuple[int, str, bool]],
) -> tuple[list[Json], list[Json]]:
    """The viewer's frames (:func:`frame`) and ``arrangements`` of one hand that :func:`verify` has
    verified, built on their own: the hand is dealt afresh under ``rules`` by ``dealer`` from ``deck``
    (``limit_card``: the second deck's card, or None) and ``actions`` (``(seat, action, auto)``, as in
    :attr:`HandReplay.actions`) are applied again. The same values as ``verify(..., frames=True)`` gives
    that hand, at the cost of that one hand (a page shows one hand at a time).

    :raises EngineError: the hand is not a verified one (an action is illegal).
    """
    state = HandState(rules, dealer, deck, limit_card)
    arrangements: list[Json] = []
    arranged = _Arrangements({}, arrangements)
    frames = [frame(state, 0, None, False, arranged)]
    for k, (seat, text, auto) in enumerate(actions):
        last = state.apply(Action.parse(text), seat)
        frames.append(frame(state, k + 1, last, auto, arranged))
    return frames, arrangements


def verify(
    data: Any, *, frames: bool = False, budget: float | None = None,
    clock: Callable[[], float] = time.thread_time, since: float | None = None,
) -> VerifiedReplay:
    """Re-play the record ``data`` (a parsed replay file) and check it all (module docstring).

    :param frames: also build each hand's viewer frames (:func:`frame`).
    :param budget: most seconds of ``clock`` the verification may take (None: no limit); the clock
        is read before each hand and every 64 actions, so a run may pass it by one hand's share at most.
    :param clock: a clock in seconds; by default the calling thread's CPU time (time spent waiting for
        the processor on a busy machine does not count against the budget).
    :param since: the ``clock`` reading the budget counts from (default: its reading at the call).
    :raises ReplayBudgetError: past ``budget`` (a :class:`ReplayVerificationError`).
    :raises ReplayVerificationError: the first event that fails, with its number.
    """
    started = 0.0 if budget is None else clock() if since is None else since
    check_text(data)
    rules, first_dealer, hands, end = _header(data)
    match = MatchState(rules, first_dealer)
    if data.get("cut") is not None:  # event 1: the cut for the first deal (rules.first_dealer "cut")
        rounds = data["cut"]
        try:
            if not isinstance(rounds, list) or not all(isinstance(r, list) and len(r) == 2 for r in rounds):
                raise EngineError("cut must be a list of [seat 0's card, seat 1's card] rounds")
            match.cut([(_card(a, f"cut[{i}][0]", 1), _card(b, f"cut[{i}][1]", 1))
                       for i, (a, b) in enumerate(rounds)])
        except EngineError as exc:
            raise _fail(1, f"bad cut for the deal: {exc}") from None
    run = _Run(match, len(hands), budget, clock, started)
    replays = [_hand(run, i, raw, frames=frames) for i, raw in enumerate(hands)]
    resigned = end.get("resigned")
    event = run.events + 1
    if resigned is not None:
        seat = _seat(resigned, "end.resigned")
        if match.is_over:
            raise _fail(event, "a resignation after the match ended")
        run.events += len(match.resign(seat))
    if not match.is_over:
        raise _fail(event, "the record ends before the match is over")
    last = match.events[-1]
    assert isinstance(last, MatchEndEvent)
    event = run.events
    if end.get("reason") != last.reason or end.get("winner") != last.winner:
        raise _fail(event, f"the end disagrees with the rules: seat {last.winner} wins ({last.reason})")
    if _pair(end.get("scores"), "end.scores") != last.scores:
        raise _fail(event, f"the match's scores disagree with the rules, which give {list(last.scores)}")
    if _pair(end.get("final_scores"), "end.final_scores") != last.final_scores:
        raise _fail(event, f"the final scores disagree with the rules, which give {list(last.final_scores)}")
    if type(end.get("timeout", False)) is not bool or (end.get("timeout") and resigned is None):
        raise _fail(0, "end.timeout must be a boolean, true only for a resignation")
    return VerifiedReplay(data, match, replays, end)


def verify_text(
    text: str | bytes, *, frames: bool = False, budget: float | None = None,
    clock: Callable[[], float] = time.thread_time,
) -> VerifiedReplay:
    """:func:`verify` of a file's text (:func:`loads`); ``budget`` counts the parsing too.
    :raises ReplayVerificationError: as :func:`verify` and :func:`loads`."""
    started = clock() if budget is not None else None
    return verify(loads(text), frames=frames, budget=budget, clock=clock, since=started)


def record_from_events(
    *, rules: RuleSet, first_dealer: int, events: Sequence[Event], secrets: Sequence[tuple[str, str]],
    players: Sequence[Json], match: Json | None = None, auto: Callable[[int], bool] = lambda i: False,
    timeout: bool = False,
) -> Json:
    """The replay record of a finished match's engine log ``events``.

    :param secrets: ``(salt, commitment)`` of each deal, in order.
    :param players: ``{"seat", "name", "bot_level"}`` of seats 0 and 1.
    :param auto: whether the action at index ``i`` of ``events`` was made by a turn timer.
    :param timeout: the resignation was a loss on time.
    :raises ValueError: ``secrets`` does not give one pair per deal.
    """
    hands: list[Json] = []
    cut: list[list[str]] | None = None
    end: Json = {"winner": None, "reason": None, "resigned": None, "scores": None, "final_scores": None}
    deals = 0
    for i, e in enumerate(events):
        if isinstance(e, DealEvent):
            if deals >= len(secrets):
                raise ValueError("one (salt, commitment) pair per deal is needed")
            salt, commitment = secrets[deals]
            deals += 1
            hands.append({
                "number": e.hand, "dealer": e.dealer, "deck": card_names(e.deck), "salt": salt,
                "commitment": commitment, "actions": [], "result": None, "scores_after": None,
            })
            if e.limit_card is not None:
                hands[-1]["limit_card"] = card_name(e.limit_card)
        elif isinstance(e, ActionEvent):
            act: Json = {"seat": e.seat, "action": str(e.action)}
            if auto(i):
                act["auto"] = True
            hands[-1]["actions"].append(act)
        elif isinstance(e, HandEndEvent):
            hands[-1]["result"] = e.result
            hands[-1]["scores_after"] = list(e.scores)
        elif isinstance(e, ResignEvent):
            end["resigned"] = e.seat
        elif isinstance(e, CutEvent):
            cut = [[card_name(a), card_name(b)] for a, b in e.cuts]
        elif isinstance(e, MatchEndEvent):
            end.update(winner=e.winner, reason=e.reason, scores=list(e.scores),
                       final_scores=list(e.final_scores))
    if deals != len(secrets):
        raise ValueError("one (salt, commitment) pair per deal is needed")
    if timeout:
        end["timeout"] = True
    record: Json = {"format": FORMAT, "version": VERSION}
    if match is not None:
        record["match"] = dict(match)
    record.update(
        rules=rules.to_dict(), first_dealer=first_dealer,
        **({"cut": cut} if cut is not None else {}),
        players=[
            {"seat": s, "name": str(p["name"]), "bot_level": p.get("bot_level")}
            for s, p in enumerate(players)
        ],
        hands=hands, end=end,
    )
    return record


_VERBS = {"knock": "knocks", "gin": "goes gin", "big_gin": "goes big gin", "undercut": "knocks, undercut"}
_REASONS = {"resign": "resignation", "target": "target reached"}


def summary_lines(replay: VerifiedReplay) -> list[str]:
    """One line for the cut for the deal (when the file has one), one per hand (``hand 3: seat 1
    knocks, 17 points (scores 25-42), deck commitment ok``) and one for the match, for the command line."""
    names = [str(p["name"]) for p in replay.record["players"]]
    lines = []
    cut = replay.state.events[0] if replay.state.events else None
    if isinstance(cut, CutEvent):
        rounds = ", ".join(f"{card_name(a)}-{card_name(b)}" for a, b in cut.cuts)
        lines.append(f"cut for the deal ({names[0]}-{names[1]}): {rounds}; {names[cut.dealer]} deals first")
    for h in replay.hands:
        r = h.result
        if r is None:
            what = "not finished (resignation)"
        elif r["kind"] == "dead":
            what = "dead hand, no score"
        else:
            who = names[r["knocker"]] if r["knocker"] is not None else "?"
            verb = _VERBS.get(r["kind"], r["kind"])
            what = f"{who} {verb}: {names[r['winner']]} scores {r['points']}"
        lines.append(
            f"hand {h.number} (dealer {names[h.dealer]}, {len(h.actions)} actions): {what}; "
            f"scores {h.scores_after[0]}-{h.scores_after[1]}; deck matches its commitment"
        )
    end = replay.end
    how = "lost on time" if end.get("timeout") else _REASONS[end["reason"]]
    final = end["final_scores"]
    lines.append(f"match: {names[end['winner']]} wins ({how}), final {final[0]}-{final[1]}")
    return lines
