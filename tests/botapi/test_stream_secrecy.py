"""A BOT never receives a concealed card on its match stream (docs/bot-api.md "Never a concealed card").

A match between two BOT accounts over many seeded hands, each seat's moves chosen from the ``view`` its
own stream sent; afterwards every line each seat received is checked against the engine's state rebuilt
from the event log (``games.models.MatchEvent``) at that line's seq: no card that was then in the
opponent's concealed hand or in the stock appears anywhere in the line (the ended hand's ``last_hand``
aside, which shows a previous deal's cards: it is checked against that hand's final cards instead)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from engine.cards import card_name, card_names
from engine.deck import seeded_deck
from engine.match import MatchState, apply_event
from engine.rules import RuleSet
from games import services
from games.live import ENGINE_TYPES, cache_clear, engine_event
from games.models import Match, MatchEvent
from tests.botapi.conftest import Bot
from tests.botapi.streamreader import Stream, open_stream
from tests.botapi.test_streams import choose, match_path

pytestmark = pytest.mark.django_db(transaction=True)

HANDS = 12
in_thread = sync_to_async


@pytest.fixture
def seeded_decks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every deal from ``seeded_deck(2000 + n)``; the seeds used so far."""
    from games.services import play

    used: list[int] = []
    counter = itertools.count(2000)

    def deck() -> list[int]:
        seed = next(counter)
        used.append(seed)
        return seeded_deck(seed)

    monkeypatch.setattr(play, "new_deck", deck)
    return used


def strings(obj: Any) -> list[str]:
    """Every string in ``obj`` (keys too), ``last_hand`` left out."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() if k != "last_hand" for s in [k, *strings(v)]]
    if isinstance(obj, list):
        return [s for v in obj for s in strings(v)]
    return []


def replay(match: Match) -> tuple[dict[int, dict[str, Any]], dict[int, list[list[str]]]]:
    """From the event log: for every seq, each seat's secret cards then (the opponent's concealed cards
    and the stock; none once the hand or the match is over) and own hand; and each ended hand's final
    cards by its number."""
    state = MatchState(RuleSet.from_dict(match.rules), match.first_dealer)
    index = 0
    at: dict[int, dict[str, Any]] = {}
    ended: dict[int, list[list[str]]] = {}
    for row in MatchEvent.objects.filter(match_id=match.pk).order_by("seq"):
        if row.type in ENGINE_TYPES:
            apply_event(state, engine_event(row.payload), index)
            index += 1
        hand = state.hand
        if hand is None:
            continue
        if hand.is_over or state.is_over:
            ended[state.hand_number] = [card_names(sorted(h)) for h in hand.hands]
            at[row.seq] = {"secret": [set(), set()], "own": [None, None], "hand": state.hand_number}
            continue
        stock = {card_name(c) for c in hand.stock}
        at[row.seq] = {
            "secret": [{card_name(c) for c in hand.hands[1 - seat] if c not in hand.known[1 - seat]} | stock
                       for seat in (0, 1)],
            "own": [card_names(hand.hands[seat]) for seat in (0, 1)],
            "hand": state.hand_number,
        }
    return at, ended


async def test_no_concealed_card_on_either_seats_stream(bot_a: Bot, bot_b: Bot,
                                                        seeded_decks: list[int]) -> None:
    match = await in_thread(services.match_create_seated)(player0=bot_a.user, player1=bot_b.user,
                                                          rules_preset="oklahoma")
    # A long match: HANDS hands are played, then a resignation ends it.
    await in_thread(Match.objects.filter(pk=match.pk).update)(rules={**match.rules, "target": 10_000})
    await in_thread(cache_clear)()  # the cached state was built with the old rules
    bots = {0: bot_a, 1: bot_b}
    streams: dict[int, Stream] = {}
    received: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
    latest: dict[int, dict[str, Any]] = {}
    for seat in (0, 1):
        _, stream = await open_stream(match_path(match.pk), bots[seat].token)
        assert stream is not None
        streams[seat] = stream
        full = await stream.obj()
        assert full is not None and full["type"] == "matchFull"
        received[seat].append(full)
        latest[seat] = full["state"]

    async def state_at(seat: int, seq: int) -> dict[str, Any]:
        while latest[seat]["seq"] < seq:
            line = await streams[seat].obj()
            assert line is not None and line["type"] == "state"
            received[seat].append(line)
            latest[seat] = line
        return latest[seat]

    seq = match.last_seq
    for step in range(5000):
        state = await state_at(0, seq)
        if state["hand_number"] > HANDS:
            break
        mover = state["to_move"]
        view = (await state_at(mover, seq))["view"]
        applied = await in_thread(services.match_apply_action)(
            match_id=match.pk, user=bots[mover].user, action_text=choose(view), client_seq=seq,
            msg_id=f"s{step}")
        seq = applied.last_seq
    await in_thread(services.match_resign)(match_id=match.pk, user=bot_b.user, msg_id="end")
    for seat in (0, 1):
        received[seat] += await streams[seat].rest()  # the final state, then the end
        assert received[seat][-1]["status"] == "finished"

    ended_match = await in_thread(Match.objects.get)(pk=match.pk)
    at, ended = await in_thread(replay)(ended_match)
    checked = reveals = 0
    for seat in (0, 1):
        seqs = []
        for line in received[seat]:
            state = line["state"] if line["type"] == "matchFull" else line
            seen = at[state["seq"]]
            seqs.append(state["seq"])
            tokens = {token for text in strings(line) for token in text.split()}
            assert not tokens & seen["secret"][seat], (seat, state["seq"], tokens & seen["secret"][seat])
            if state["view"] is not None:
                assert state["view"]["hand"] == seen["own"][seat]
                assert state["view"]["player"] == seat and state["hand_number"] == seen["hand"]
            last = state["last_hand"]
            if last is not None:
                assert last["hands"] == ended[last["number"]]
                assert last["number"] in (seen["hand"], seen["hand"] - 1)
                reveals += 1
            checked += 1
        assert seqs == sorted(set(seqs))  # each seq once, increasing
    assert len(seeded_decks) == HANDS + 1
    assert checked > HANDS * 20 and reveals > HANDS
