"""games.live rebuilds a stored match with the engine's own step (``engine.match.apply_event``): on
seeded bot-vs-bot matches of every preset, stored as rows (deal secrets, timer markers between), the
rebuild gives the state live play had after each step, the same state and previous hand as the
rebuild's own loop before issue 24 (kept below as the reference), and the same when it goes on from a
cached state. No database: ``rebuild`` reads only the rows it is given."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest

from engine.errors import InvalidEventError
from engine.events import ActionEvent, CutEvent, DealEvent, HandEndEvent, ResignEvent, to_json
from engine.hand import HandState
from engine.match import MatchState
from engine.rules import PRESETS, RuleSet, preset
from games import live
from tests.engine.recorded import Recorded, bot_match

MATCHES = [
    pytest.param(name, seed, levels, resign, id=f"{name}-{seed}" + ("-resign" if resign else ""))
    for name in PRESETS
    for seed, levels, resign in ((1, (2, 3), None), (3, (1, 2), 40))
]


def _stored(rec: Recorded) -> tuple[Any, list[Any], list[int]]:
    """The match row and its event rows as ``games`` stores them, and the seq of the last row of each
    step (what ``match.last_seq`` can be)."""
    match = SimpleNamespace(pk=7, rules=rec.rules.to_dict(), first_dealer=rec.first_dealer)
    rows: list[Any] = []
    ends: list[int] = []
    step_ends = {done for done, _ in rec.states[1:]}
    for i, event in enumerate(rec.events):
        payload = to_json(event)
        if isinstance(event, DealEvent):
            payload |= {"salt": f"salt{i}", "commitment": f"commitment{i}"}
        rows.append(SimpleNamespace(seq=len(rows) + 1, type=payload["type"], payload=payload,
                                    auto=i % 5 == 0 and isinstance(event, ActionEvent)))
        if i + 1 in step_ends:
            ends.append(len(rows))
            if i % 7 == 0:  # a platform marker between steps (not an engine event)
                marker = {"seat": 0}
                rows.append(SimpleNamespace(seq=len(rows) + 1, type="timeout", payload=marker, auto=True))
                ends.append(len(rows))
    return match, rows, ends


def _old_rebuild(match: Any, rows: list[Any]) -> tuple[MatchState, HandState | None]:
    """games.live's loop before issue 24 (its own dispatch of each event), the reference."""
    state = MatchState(RuleSet.from_dict(match.rules), match.first_dealer)
    previous: HandState | None = None
    for row in rows:
        if row.type not in live.ENGINE_TYPES:
            continue
        event = live.engine_event(row.payload)
        if isinstance(event, DealEvent):
            if state.hand is not None:
                previous = state.hand
            state.deal(list(event.deck), limit_card=event.limit_card)
        elif isinstance(event, CutEvent):
            state.cut(event.cuts)
        elif isinstance(event, ActionEvent):
            state.apply(event.action, event.seat)
        elif isinstance(event, ResignEvent):
            state.resign(event.seat)
        elif event not in state.events:
            raise InvalidEventError(f"match {match.pk} seq {row.seq}: {event!r} disagrees with the rules")
    return state, previous


@pytest.fixture(scope="module")
def matches() -> dict[tuple[str, int], Recorded]:
    return {}


def _match(cache: dict[tuple[str, int], Recorded], name: str, seed: int, levels: tuple[int, int],
           resign: int | None) -> Recorded:
    if (name, seed) not in cache:
        cache[(name, seed)] = bot_match(preset(name), seed, levels, resign_after=resign)
    return cache[(name, seed)]


@pytest.mark.parametrize(("name", "seed", "levels", "resign"), MATCHES)
def test_the_rebuild_at_each_step_is_the_state_of_play_and_the_old_rebuilds(
    matches: dict[tuple[str, int], Recorded], name: str, seed: int, levels: tuple[int, int],
    resign: int | None,
) -> None:
    rec = _match(matches, name, seed, levels, resign)
    match, rows, ends = _stored(rec)
    by_events = dict(rec.states)
    # the seqs around each deal (where the previous hand changes) and a sample of the others
    near_deals = [e for e in ends if rows[e - 1].type in ("deal", "hand_end", "match_end", "timeout")]
    kept_hands = 0
    for end in sorted({*near_deals[:30], *ends[:: max(1, len(ends) // 15)], ends[-1]}):
        got = live.rebuild(match, rows[:end])
        old_state, old_previous = _old_rebuild(match, rows[:end])
        assert got.state == old_state == by_events[len(got.state.events)], end
        assert got.previous_hand == old_previous
        kept_hands += got.previous_hand is not None
        assert (got.previous_hand is None) == (old_previous is None)
        deals = [r for r in rows[:end] if r.type == "deal"]
        assert [d.seq for d in got.deals] == [d.seq for d in deals[::-1][:2]]
        assert got.auto_seqs == {r.seq for r in rows[:end] if r.type == "action" and r.auto}
    assert live.rebuild(match, rows).state == rec.state
    assert kept_hands > 0 or rec.state.hand_number == 1


@pytest.mark.parametrize(("name", "seed", "levels", "resign"), MATCHES[:4])
def test_going_on_from_a_cached_state_is_the_rebuild_from_the_start(
    matches: dict[tuple[str, int], Recorded], name: str, seed: int, levels: tuple[int, int],
    resign: int | None,
) -> None:
    """What ``games.live.load`` does when an earlier seq of the match is cached."""
    rec = _match(matches, name, seed, levels, resign)
    match, rows, ends = _stored(rec)
    whole = live.rebuild(match, rows)
    for end in ends[:: max(1, len(ends) // 20)]:
        cached = live.rebuild(match, rows[:end])
        went_on = live._replay(match, cached.clone(), rows[end:])  # type: ignore[arg-type]
        assert went_on.state == whole.state and went_on.previous_hand == whole.previous_hand, end
        assert went_on.deals == whole.deals and went_on.auto_seqs == whole.auto_seqs


def test_a_row_that_disagrees_names_the_match_and_its_seq(matches: dict[tuple[str, int], Recorded]) -> None:
    rec = _match(matches, "classic", 1, (2, 3), None)
    match, rows, _ = _stored(rec)
    at = next(i for i, r in enumerate(rows) if r.type == "hand_end")
    event = live.engine_event(rows[at].payload)
    assert isinstance(event, HandEndEvent)
    bad = SimpleNamespace(**{**vars(rows[at]), "payload": to_json(dataclasses.replace(event, scores=(9, 0)))})
    with pytest.raises(InvalidEventError, match=rf"^match 7 seq {bad.seq}: event \d+: .* disagrees with"):
        live.rebuild(match, [*rows[:at], bad])
