"""engine.match.apply_event, the one step of every rebuild from an event log (``replay``, and
``games.live`` going on from a cached state): on seeded bot-vs-bot matches of every preset, applying
the log's events one by one gives, after each step of play, the very state live play had then."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from engine.actions import Action
from engine.errors import InvalidEventError
from engine.events import ActionEvent, DealEvent, HandEndEvent, MatchEndEvent
from engine.match import MatchState, apply_event, replay
from engine.rules import PRESETS, preset
from engine.tools.playout import random_playout
from tests.engine.recorded import Recorded, bot_match

MATCHES = [
    pytest.param(name, seed, levels, resign, id=f"{name}-{seed}-{levels[0]}v{levels[1]}"
                 + ("-resign" if resign else ""))
    for name in PRESETS
    for seed, levels, resign in ((1, (2, 3), None), (2, (3, 1), None), (3, (1, 2), 40))
]


@pytest.fixture(scope="module")
def recorded() -> dict[tuple[str, int], Recorded]:
    return {}


def _match(cache: dict[tuple[str, int], Recorded], name: str, seed: int, levels: tuple[int, int],
           resign: int | None) -> Recorded:
    key = (name, seed)
    if key not in cache:
        cache[key] = bot_match(preset(name), seed, levels, resign_after=resign)
    return cache[key]


@pytest.mark.parametrize(("name", "seed", "levels", "resign"), MATCHES)
def test_one_event_at_a_time_gives_each_state_of_play(
    recorded: dict[tuple[str, int], Recorded], name: str, seed: int, levels: tuple[int, int],
    resign: int | None,
) -> None:
    rec = _match(recorded, name, seed, levels, resign)
    assert rec.state.is_over and len(rec.states) > 20
    if resign is not None:
        assert isinstance(rec.events[-1], MatchEndEvent) and rec.events[-1].reason == "resign"
    if rec.rules.first_dealer == "cut":
        assert type(rec.events[0]).__name__ == "CutEvent"
    # step k's input event is event number (events before step k); once it is applied, the state is the
    # one play had after step k (its hand and match ends are produced with it; applying them only checks)
    after_step = {before: state for (before, _), (_, state) in itertools.pairwise(rec.states)}
    match = MatchState(rec.rules, rec.first_dealer)
    assert match == rec.states[0][1]
    expected = rec.states[0][1]
    for i, event in enumerate(rec.events):
        apply_event(match, event, i)
        assert match.events[i] == event
        expected = after_step.get(i, expected)
        assert match == expected, (i, event)
    assert len(after_step) == len(rec.states) - 1
    assert match == rec.state == replay(rec.rules, rec.first_dealer, rec.events)


@pytest.mark.parametrize(("name", "seed", "levels", "resign"), MATCHES[:4])
def test_going_on_from_any_step_gives_the_same_state(
    recorded: dict[tuple[str, int], Recorded], name: str, seed: int, levels: tuple[int, int],
    resign: int | None,
) -> None:
    """What ``games.live`` does with a cached state: a clone at step k, then the events after it."""
    rec = _match(recorded, name, seed, levels, resign)
    for done, state in rec.states[:: max(1, len(rec.states) // 25)]:
        match = state.clone()
        for i in range(done, len(rec.events)):
            apply_event(match, rec.events[i], i)
        assert match == rec.state, done
        assert replay(rec.rules, rec.first_dealer, rec.events[:done]) == state


@pytest.mark.parametrize("rules", list(PRESETS.values()), ids=list(PRESETS))
def test_random_playouts_rebuild_event_by_event(rules: object) -> None:
    for seed in range(3):
        played = random_playout(rules, seed)  # type: ignore[arg-type]
        match = MatchState(played.rules, played.first_dealer)
        for i, event in enumerate(played.events):
            apply_event(match, event, i)
        assert match == played


def test_a_bad_event_names_its_index_and_is_an_invalid_event(
    recorded: dict[tuple[str, int], Recorded],
) -> None:
    rec = _match(recorded, "classic", 1, (2, 3), None)
    events = list(rec.events)
    end = next(i for i, e in enumerate(events) if isinstance(e, HandEndEvent))
    deal = next(i for i, e in enumerate(events) if isinstance(e, DealEvent))
    action = deal + 1
    first = events[action]
    assert isinstance(first, ActionEvent)

    def rebuilt_until(index: int, bad: object) -> None:
        match = MatchState(rec.rules, rec.first_dealer)
        for i in range(index):
            apply_event(match, events[i], i)
        apply_event(match, bad, index)  # type: ignore[arg-type]

    tampered_end = dataclasses.replace(events[end], scores=(999, 0))  # type: ignore[type-var]
    with pytest.raises(InvalidEventError, match=f"^event {end}: .* disagrees with the rules"):
        rebuilt_until(end, tampered_end)
    with pytest.raises(InvalidEventError, match=f"^event {action}: .*"):
        rebuilt_until(action, ActionEvent(1 - first.seat, first.action, first.card))
    with pytest.raises(InvalidEventError, match=f"^event {deal}: expected hand 1"):
        rebuilt_until(deal, dataclasses.replace(events[deal], hand=2))  # type: ignore[type-var]
    with pytest.raises(InvalidEventError, match=f"^event {deal}: .* is not what the rules give here"):
        rebuilt_until(deal, events[end])
    with pytest.raises(InvalidEventError, match=f"^event {action}: "):
        rebuilt_until(action, ActionEvent(first.seat, Action.big_gin()))
