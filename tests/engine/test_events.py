"""Events: JSON round trip with a schema version, replay rebuilds equal states, malformed or
inconsistent logs raise InvalidEventError, redaction hides what a player may not see (issue 2, point 7)."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from engine.actions import Action
from engine.cards import card_name, parse_card
from engine.deck import seeded_deck
from engine.errors import InvalidEventError
from engine.events import (
    SCHEMA_VERSION,
    ActionEvent,
    DealEvent,
    Event,
    HandEndEvent,
    MatchEndEvent,
    ResignEvent,
    from_json,
    log_from_json,
    log_to_json,
    redact_for,
    to_json,
)
from engine.match import MatchState, replay
from engine.rules import PRESETS, preset
from engine.tools.playout import choose_action, random_playout

CLASSIC = preset("classic")


def json_trip(data: Any) -> Any:
    return json.loads(json.dumps(data))


def test_schema_version_is_one_and_in_every_event() -> None:
    assert SCHEMA_VERSION == 1
    m = random_playout(CLASSIC, 3)
    assert all(to_json(e)["v"] == 1 for e in m.events)


def test_each_event_kind_round_trips_through_json() -> None:
    deck = tuple(seeded_deck(1))
    events: list[Event] = [
        DealEvent(1, 0, deck),
        ActionEvent(1, Action.pass_()),
        ActionEvent(0, Action.draw_stock(), parse_card("Kc")),
        ActionEvent(0, Action.knock("Td")),
        ActionEvent(0, Action.big_gin()),
        HandEndEvent(1, {"kind": "dead", "winner": None, "points": 0, "melds": [["7s", "8s", "9s"]]}, (0, 0)),
        ResignEvent(1),
        MatchEndEvent(0, "resign", (12, 3), (12, 3)),
    ]
    for event in events:
        data = to_json(event)
        assert json_trip(data) == data
        assert from_json(json_trip(data)) == event
    assert to_json(events[2]) == {"v": 1, "type": "action", "seat": 0, "action": "draw stock", "card": "Kc"}
    assert to_json(events[3]) == {"v": 1, "type": "action", "seat": 0, "action": "knock Td"}
    assert to_json(events[0])["deck"] == [card_name(c) for c in deck]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_whole_match_log_round_trips_and_replays_equal(name: str) -> None:
    m = random_playout(preset(name), 21)
    data = json_trip(log_to_json(m.events))
    events = log_from_json(data)
    assert events == list(m.events)
    rebuilt = replay(preset(name), m.first_dealer, events)
    assert rebuilt == m
    assert rebuilt.final_scores == m.final_scores and rebuilt.results == m.results


def test_every_prefix_replays_to_the_state_at_that_point() -> None:
    rng = random.Random(5)
    rules = CLASSIC.replace(target=60)
    m = MatchState(rules, 1)
    snapshots: list[MatchState] = [m.clone()]
    while not m.is_over:
        if m.awaiting_deal:
            m.deal(seeded_deck(rng.randrange(10**6)))
        else:
            assert m.hand is not None
            m.apply(choose_action(rng, m.hand, knock_bias=0.5, greedy=0.8))
        snapshots.append(m.clone())
    events = m.events
    assert replay(rules, 1, []) == snapshots[0]
    for snap in rng.sample(snapshots, 25) + snapshots[-3:]:
        assert replay(rules, 1, events[: len(snap.events)]) == snap


# ----------------------------------------------------------------------------- malformed JSON

GOOD_DEAL = to_json(DealEvent(1, 0, tuple(seeded_deck(2))))
GOOD_ACTION = {"v": 1, "type": "action", "seat": 1, "action": "draw stock", "card": "Kc"}


def changed(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    data = dict(base)
    for key, value in changes.items():
        if value is KeyError:
            del data[key]
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    "data",
    [
        "deal",
        None,
        changed(GOOD_ACTION, v=2),
        changed(GOOD_ACTION, v="1"),
        changed(GOOD_ACTION, v=KeyError),
        changed(GOOD_ACTION, type="shuffle"),
        changed(GOOD_ACTION, type=KeyError),
        changed(GOOD_ACTION, seat=2),
        changed(GOOD_ACTION, seat=True),
        changed(GOOD_ACTION, seat="1"),
        changed(GOOD_ACTION, seat=KeyError),
        changed(GOOD_ACTION, action="draw pile"),
        changed(GOOD_ACTION, action=7),
        changed(GOOD_ACTION, card="Kx"),
        changed(GOOD_ACTION, action="discard 2c"),  # a discard carries no drawn card
        changed(GOOD_ACTION, extra=1),
        changed(GOOD_DEAL, deck=GOOD_DEAL["deck"][:51]),
        changed(GOOD_DEAL, deck=[*GOOD_DEAL["deck"][:51], GOOD_DEAL["deck"][0]]),
        changed(GOOD_DEAL, deck="As Kc"),
        changed(GOOD_DEAL, hand=0),
        changed(GOOD_DEAL, dealer=-1),
        {"v": 1, "type": "hand_end", "hand": 1, "result": [], "scores": [0, 0]},
        {"v": 1, "type": "hand_end", "hand": 1, "result": {}, "scores": [0]},
        {"v": 1, "type": "match_end", "winner": 0, "reason": "timeout", "scores": [0, 0],
         "final_scores": [0, 0]},
        {"v": 1, "type": "resign"},
    ],
)
def test_malformed_events_are_rejected(data: Any) -> None:
    with pytest.raises(InvalidEventError):
        from_json(data)


def test_log_errors_name_the_index() -> None:
    with pytest.raises(InvalidEventError, match="event 1"):
        log_from_json([GOOD_DEAL, {"v": 1}])
    with pytest.raises(InvalidEventError):
        log_from_json({"events": []})


def test_to_json_rejects_non_events() -> None:
    with pytest.raises(InvalidEventError):
        to_json("deal")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- inconsistent logs


@pytest.fixture(scope="module")
def match_log() -> tuple[MatchState, list[Event]]:
    m = random_playout(CLASSIC, 8)
    assert m.hand_number >= 2
    return m, list(m.events)


def first(events: list[Event], kind: type) -> int:
    return next(i for i, e in enumerate(events) if isinstance(e, kind))


def test_inconsistent_logs_are_rejected_naming_the_event(match_log: tuple[MatchState, list[Event]]) -> None:
    m, events = match_log
    deal = events[0]
    assert isinstance(deal, DealEvent)
    action_i = 1
    act = events[action_i]
    assert isinstance(act, ActionEvent)
    end_i = first(events, HandEndEvent)
    end = events[end_i]
    assert isinstance(end, HandEndEvent)
    draw_i = next(i for i, e in enumerate(events) if isinstance(e, ActionEvent) and e.card is not None)
    draw = events[draw_i]
    assert isinstance(draw, ActionEvent) and draw.card is not None
    bad_logs = {
        "action before deal": [act],
        "wrong hand number": [dataclasses.replace(deal, hand=2)],
        "wrong dealer": [dataclasses.replace(deal, dealer=1 - deal.dealer)],
        "out of turn": [deal, dataclasses.replace(act, seat=1 - act.seat)],
        "illegal action": [deal, ActionEvent(act.seat, Action.draw_stock())],
        "wrong drawn card": [*events[:draw_i], dataclasses.replace(draw, card=(draw.card + 1) % 52)],
        "hidden drawn card": [*events[:draw_i], dataclasses.replace(draw, card=None)],
        "wrong result": [*events[:end_i], dataclasses.replace(end, result={**end.result, "points": 999})],
        "wrong scores": [*events[:end_i], dataclasses.replace(end, scores=(1, 1))],
        "hand end too early": [deal, end],
        "deal mid hand": [deal, deal],
        "events after the end": [*events, ResignEvent(0)],
        "match end out of place": [deal, MatchEndEvent(0, "resign", (0, 0), (0, 0))],
    }
    for why, log in bad_logs.items():
        with pytest.raises(InvalidEventError, match=r"event \d+") as info:
            replay(CLASSIC, m.first_dealer, log)
        assert info.value.code == "invalid_event", why
    with pytest.raises(InvalidEventError):
        replay(CLASSIC.replace(target=m.scores[m.winner or 0] + 50), m.first_dealer, events)


def test_resign_replays(match_log: tuple[MatchState, list[Event]]) -> None:
    m, events = match_log
    end_i = first(events, HandEndEvent)
    partial = replay(CLASSIC, m.first_dealer, events[: end_i + 3])
    partial.resign(1)
    again = replay(CLASSIC, m.first_dealer, log_from_json(json_trip(log_to_json(partial.events))))
    assert again == partial and again.winner == 0


# ----------------------------------------------------------------------------- redaction


def test_redact_for_hides_the_deck_and_the_opponents_stock_draws() -> None:
    deck = tuple(seeded_deck(4))
    deal = DealEvent(1, 0, deck)
    mine = redact_for(1, deal)
    assert "deck" not in mine and mine["upcard"] == card_name(deck[20])
    assert mine["hand_cards"] == [card_name(c) for c in sorted(deck[0:20:2])]
    assert redact_for(0, deal)["hand_cards"] == [card_name(c) for c in sorted(deck[1:20:2])]
    assert "hand_cards" not in redact_for(None, deal)
    draw = ActionEvent(1, Action.draw_stock(), deck[21])
    assert redact_for(1, draw)["card"] == card_name(deck[21])
    assert "card" not in redact_for(0, draw) and "card" not in redact_for(None, draw)
    take = ActionEvent(1, Action.draw_discard(), deck[20])
    assert redact_for(0, take)["card"] == card_name(deck[20])
    assert redact_for(0, ResignEvent(1)) == to_json(ResignEvent(1))
