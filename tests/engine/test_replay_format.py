"""The replay file (engine.replay_format, docs/replay-format.md): a record written from an engine log
re-plays to the same match for every preset; any tampering is refused with the number of the first
bad event; ``python -m engine replay verify FILE`` prints each hand and exits non-zero on a bad file."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cards import card_names
from engine.deck import deck_commitment
from engine.events import DealEvent, HandEndEvent, MatchEndEvent
from engine.match import MatchState
from engine.replay_format import (
    FORMAT,
    VERSION,
    ReplayBudgetError,
    ReplayVerificationError,
    hand_frames,
    record_from_events,
    summary_lines,
    verify,
    verify_text,
)
from engine.rules import PRESETS, preset
from engine.tools.playout import random_playout

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = [{"name": "alice", "bot_level": None}, {"name": "Bot 3", "bot_level": 3}]


def record_of(m: MatchState) -> dict[str, Any]:
    deals = [e for e in m.events if isinstance(e, DealEvent)]
    secrets = [(f"salt{i}", deck_commitment(e.deck, f"salt{i}")) for i, e in enumerate(deals)]
    return record_from_events(
        rules=m.rules, first_dealer=m.first_dealer, events=m.events, secrets=secrets, players=PLAYERS,
        match={"id": 7},
    )


def resigned(seed: int) -> MatchState:
    m = random_playout(preset("classic"), seed, max_hands=2)
    if not m.is_over:
        if m.awaiting_deal:
            m.deal(random_playout(preset("classic"), seed + 1).hand.deck)  # type: ignore[union-attr]
        m.resign(0)
    return m


@pytest.fixture(scope="module")
def classic() -> tuple[MatchState, dict[str, Any]]:
    m = random_playout(preset("classic"), 11)
    return m, record_of(m)


def failing_event(data: Any) -> int:
    with pytest.raises(ReplayVerificationError) as info:
        verify(data)
    assert str(info.value).startswith(f"failed verification at event {info.value.event}: ")
    return info.value.event


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_export_then_import_round_trips_for_every_preset(name: str) -> None:
    for seed in (1, 2, 3):
        m = random_playout(preset(name), seed)
        record = json.loads(json.dumps(record_of(m)))
        assert record["format"] == FORMAT and record["version"] == VERSION == 1
        replay = verify(record, frames=True)
        assert replay.state == m
        assert [h.result for h in replay.hands] == [e.result for e in m.events if isinstance(e, HandEndEvent)]
        assert replay.end["final_scores"] == list(m.final_scores or ())
        # frames: one per position; the last one of each ended hand shows the deal's cards all accounted for
        for h in replay.hands:
            assert len(h.frames) == len(h.actions) + 1
            for f in h.frames:
                held = h.arrangements[f["hands"][0]]["cards"] + h.arrangements[f["hands"][1]]["cards"]
                stock = card_names(h.deck[52 - f["stock_size"]:]) if f["stock_size"] else []
                assert sorted(held + f["discard_pile"] + stock) == sorted(card_names(h.deck))


def test_a_resigned_match_round_trips() -> None:
    m = resigned(5)
    assert m.is_over
    replay = verify(record_of(m))
    assert replay.state == m and replay.end["reason"] == "resign"


def test_frames_show_the_engine_state_after_each_action(classic: tuple[MatchState, dict[str, Any]]) -> None:
    m, record = classic
    replay = verify(record, frames=True)
    hand = replay.hands[0]
    # re-play hand 1 by hand and compare every frame with the engine's own state
    from engine.hand import HandState

    state = HandState(m.rules, hand.dealer, hand.deck)
    for k, (seat, action, _auto) in enumerate(hand.actions):
        state.apply(action, seat)
        f = hand.frames[k + 1]
        assert f["seat"] == seat and f["action"] == action
        shown = [sorted(hand.arrangements[i]["cards"]) for i in f["hands"]]
        assert shown == [sorted(card_names(h)) for h in state.hands]
        assert f["discard_pile"] == card_names(state.discard_pile)
        assert f["stock_size"] == state.stock_size


def test_summary_lines_name_each_hand_and_the_winner(classic: tuple[MatchState, dict[str, Any]]) -> None:
    m, record = classic
    lines = summary_lines(verify(record))
    assert len(lines) == len(record["hands"]) + 1
    assert lines[0].startswith("hand 1 (dealer ")
    assert lines[-1].startswith(f"match: {PLAYERS[m.winner or 0]['name']} wins")


@pytest.mark.parametrize(
    "tamper, event",
    [
        (lambda r: r.update(version=2), 0),
        (lambda r: r.update(format="pgn"), 0),
        (lambda r: r.pop("rules"), 0),
        (lambda r: r.update(rules={"target": -4}), 0),
        (lambda r: r.update(extra=1), 0),
        (lambda r: r["players"][0].update(name=""), 0),
        (lambda r: r["hands"][0].update(salt="other"), 1),
        (lambda r: r["hands"][0]["deck"].reverse(), 1),
        (lambda r: r["hands"][0].update(dealer=1 - r["hands"][0]["dealer"]), 1),
        (lambda r: r["hands"][0].update(number=2), 1),
        (lambda r: r["hands"][0]["actions"][0].update(action="knock"), 2),
        (lambda r: r["hands"][0]["actions"][0].update(seat=1 - r["hands"][0]["actions"][0]["seat"]), 2),
        (lambda r: r["hands"][0]["actions"][0].update(action="discard Zz"), 2),
        (lambda r: r["end"].update(winner=1 - r["end"]["winner"]), -1),
        (lambda r: r["end"].update(final_scores=[999, 0]), -1),
    ],
)
def test_tampered_records_fail_at_the_named_event(
    classic: tuple[MatchState, dict[str, Any]], tamper: Any, event: int
) -> None:
    m, record = classic
    bad = copy.deepcopy(record)
    tamper(bad)
    assert failing_event(bad) == (len(m.events) if event == -1 else event)


def test_an_edited_result_fails_at_that_hand_end(classic: tuple[MatchState, dict[str, Any]]) -> None:
    m, record = classic
    bad = copy.deepcopy(record)
    bad["hands"][0]["result"]["points"] += 1
    end = next(i for i, e in enumerate(m.events) if isinstance(e, HandEndEvent)) + 1
    assert failing_event(bad) == end
    bad = copy.deepcopy(record)
    bad["hands"][0]["scores_after"] = [500, 500]
    assert failing_event(bad) == end


def test_a_dropped_action_or_hand_is_caught(classic: tuple[MatchState, dict[str, Any]]) -> None:
    m, record = classic
    bad = copy.deepcopy(record)
    bad["hands"][0]["actions"].pop()
    assert failing_event(bad) == len(bad["hands"][0]["actions"]) + 2  # where the hand end should be
    bad = copy.deepcopy(record)
    bad["hands"].pop()
    assert failing_event(bad) > 1
    bad = copy.deepcopy(record)
    bad["hands"].append(copy.deepcopy(bad["hands"][-1]))
    assert failing_event(bad) == len(m.events) + 1  # a deal after the match-end event


BROKEN = [b"", b"{", b"[]", b"null", b'"x"', b"[" * 100_000, '{"format": "\\ud800"}']


@pytest.mark.parametrize("text", BROKEN)
def test_broken_json_is_event_0(text: Any) -> None:
    with pytest.raises(ReplayVerificationError) as info:
        verify_text(text)
    assert info.value.event == 0


def test_cli_prints_each_hand_and_fails_on_a_tampered_file(
    classic: tuple[MatchState, dict[str, Any]], tmp_path: Path
) -> None:
    _, record = classic
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    run = subprocess.run([sys.executable, "-m", "engine", "replay", "verify", str(good)],
                         cwd=ROOT, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == len(record["hands"]) + 2
    assert lines[0].startswith("hand 1 ") and "verified" in lines[-1]
    bad = copy.deepcopy(record)
    bad["hands"][0]["actions"][0]["action"] = "knock"
    tampered = tmp_path / "bad.json"
    tampered.write_text(json.dumps(bad))
    run = subprocess.run([sys.executable, "-m", "engine", "replay", "verify", str(tampered)],
                         cwd=ROOT, capture_output=True, text=True, check=False)
    assert run.returncode == 1
    assert "failed verification at event 2" in run.stderr and run.stdout == ""
    nope = str(tmp_path / "nope.json")
    missing = subprocess.run([sys.executable, "-m", "engine", "replay", "verify", nope],
                             cwd=ROOT, capture_output=True, text=True, check=False)
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_match_end_event_is_last(classic: tuple[MatchState, dict[str, Any]]) -> None:
    m, _ = classic
    assert isinstance(m.events[-1], MatchEndEvent)


def cut_match(seed: int) -> MatchState:
    """A two_deck match that starts with its cut for the deal (as the site plays it: services), played
    to the end by the seeded random playout's own policy."""
    import random

    from engine.deck import shuffled_deck
    from engine.match import cut_for_deal
    from engine.tools.playout import choose_action

    rng = random.Random(seed)
    rules = preset("two_deck")
    cuts, dealer = cut_for_deal(rng)
    m = MatchState(rules, dealer)
    m.cut(cuts)
    while not m.is_over:
        m.deal(shuffled_deck(rng), limit_card=rng.randrange(52))
        hand = m.hand
        assert hand is not None
        while not hand.is_over:
            m.apply(choose_action(rng, hand, knock_bias=0.5, greedy=0.8))
    return m


@pytest.mark.parametrize("seed", [1, 2, 7])
def test_the_cut_for_the_deal_round_trips_as_event_1(seed: int) -> None:
    m = cut_match(seed)
    record = json.loads(json.dumps(record_of(m)))
    cut = m.events[0]
    assert record["cut"] == [card_names(pair) for pair in cut.cuts]  # type: ignore[union-attr]
    assert record["first_dealer"] == cut.dealer  # type: ignore[union-attr]
    replay = verify(record)
    assert replay.state == m and replay.state.events[0] == cut
    assert replay.hands[0].first_event == 2  # the deal of hand 1 comes after the cut
    first = summary_lines(replay)[0]
    rounds = ", ".join("-".join(pair) for pair in record["cut"])
    dealer = PLAYERS[cut.dealer]["name"]  # type: ignore[union-attr]
    assert first == f"cut for the deal (alice-Bot 3): {rounds}; {dealer} deals first"
    # a cut that gives the other seat the deal, a repeated card, a malformed round: event 1
    for tamper in (
        lambda c: c[-1].reverse(),  # the last round's cards swapped: the other seat cuts higher
        lambda c: c[-1].__setitem__(1, c[-1][0]),  # one card for both seats
        lambda c: c.append("7h"),  # a round that is not two cards
    ):
        bad = copy.deepcopy(record)
        tamper(bad["cut"])
        assert failing_event(bad) == 1


def test_a_file_written_before_the_cut_was_recorded_still_verifies() -> None:
    m = cut_match(3)
    record = record_of(m)
    del record["cut"]  # version 1 files of two_deck matches exported before the cut field existed
    replay = verify(record)
    assert replay.state.events[0] == m.events[1]  # the first deal is event 1 again
    assert replay.state.final_scores == m.final_scores and replay.state.winner == m.winner


# ------------------------------------------------------------------------------------ strict spelling


def refusal(data: Any) -> str:
    with pytest.raises(ReplayVerificationError) as info:
        verify_text(data) if isinstance(data, (str, bytes)) else verify(data)
    return str(info.value)


def test_cards_are_written_as_files_write_them(classic: tuple[MatchState, dict[str, Any]]) -> None:
    _, record = classic
    for where in ("deck", "limit"):
        bad = copy.deepcopy(record)
        if where == "deck":
            bad["hands"][0]["deck"][3] = bad["hands"][0]["deck"][3].lower()  # e.g. "ad" for "Ad"
            token = bad["hands"][0]["deck"][3]
            if token == record["hands"][0]["deck"][3]:  # a card with a digit rank and no letter to lower
                bad["hands"][0]["deck"][3] = token = record["hands"][0]["deck"][3].upper()
        else:
            bad["hands"][0]["limit_card"] = token = "10d"
        message = refusal(bad)
        deal = 2 if record.get("cut") else 1
        assert message == (
            f"failed verification at event {deal}: hands[0].{'deck[3]' if where == 'deck' else 'limit_card'}"
            f": {token!r} is not a card as replay files write it (rank A23456789TJQK then suit cdhs, e.g. "
            "'Ad')"
        )


def test_actions_are_written_canonically(classic: tuple[MatchState, dict[str, Any]]) -> None:
    _, record = classic
    bad = copy.deepcopy(record)
    actions = bad["hands"][0]["actions"]
    k = next(i for i, a in enumerate(actions) if a["action"].startswith("discard "))
    written = actions[k]["action"]
    actions[k]["action"] = written.upper()
    message = refusal(bad)
    assert f"is not written as replay files write it: {written!r}" in message


def test_duplicate_keys_are_refused(classic: tuple[MatchState, dict[str, Any]]) -> None:
    _, record = classic
    text = json.dumps(record)
    mallory = json.dumps([{"seat": 0, "name": "MALLORY", "bot_level": None}, record["players"][1]])
    doubled = text[:-1] + f', "players": {mallory}}}'
    assert json.loads(doubled)["players"][0]["name"] == "MALLORY"  # what a plain reader would show
    assert refusal(doubled) == "failed verification at event 0: duplicate key 'players' in one JSON object"
    nested = text.replace('"seat": 0,', '"seat": 0, "seat": 0,', 1)
    assert refusal(nested) == "failed verification at event 0: duplicate key 'seat' in one JSON object"


def test_a_byte_order_mark_is_accepted(classic: tuple[MatchState, dict[str, Any]]) -> None:
    m, record = classic
    text = json.dumps(record)
    for with_bom in (b"\xef\xbb\xbf" + text.encode(), "\ufeff" + text):
        assert verify_text(with_bom).state.scores == m.scores
    assert "not JSON" in refusal(text.replace("{", "{\ufeff", 1))  # one mark, at the start only


def test_two_byte_order_marks_are_refused(classic: tuple[MatchState, dict[str, Any]]) -> None:
    """docs/replay-format.md allows one leading mark; two were read (``json.loads`` of bytes decodes a
    marked text as utf-8-sig, which drops the second one), as text or bytes, mixed or not."""
    _, record = classic
    text = json.dumps(record)
    two = ("failed verification at event 0: more than one byte order mark (U+FEFF) at the start: "
           "one is allowed")
    for doubled in (b"\xef\xbb\xbf" * 2 + text.encode(), "\ufeff\ufeff" + text,
                    b"\xef\xbb\xbf" + ("\ufeff" + text).encode()):
        assert refusal(doubled) == two


def test_bytes_are_strict_utf_8(classic: tuple[MatchState, dict[str, Any]]) -> None:
    """An encoded surrogate (ED A0 80, which ``json.loads`` of bytes let through) or a UTF-16 file is not
    UTF-8: refused at event 0 with the byte."""
    _, record = classic
    text = json.dumps(record, ensure_ascii=False)
    encoded = text.replace("alice", "ali", 1).encode().replace(b'"ali"', b'"ali\xed\xa0\x80"', 1)
    at = encoded.index(b"\xed")
    assert refusal(encoded) == f"failed verification at event 0: not UTF-8 (byte {at} cannot be read)"
    assert "not UTF-8" in refusal(text.encode("utf-16"))


@pytest.mark.parametrize(
    "path, value, message",
    [
        (("players", 0, "name"), "\ud800", "players[0].name is not valid Unicode: a lone surrogate (U+D800)"),
        (("players", 1, "name"), "\udfff", "players[1].name is not valid Unicode: a lone surrogate (U+DFFF)"),
        (("match", "preset"), "\ud800", "match.preset is not valid Unicode: a lone surrogate (U+D800)"),
        (("match", "preset"), "a\x00b", "match.preset must not contain NUL (U+0000)"),
        (("players", 0, "name"), "a\nb", "players[0].name must not contain a control character (U+000A)"),
        (("players", 0, "name"), "a\x7fb", "players[0].name must not contain a control character (U+007F)"),
        (("players", 0, "name"), "a\x85b", "players[0].name must not contain a control character (U+0085)"),
        (("hands", 0, "salt"), "s\tlt", "hands[0].salt must not contain a control character (U+0009)"),
    ],
)
def test_strings_that_are_not_text_are_refused(
    classic: tuple[MatchState, dict[str, Any]], tmp_path: Path, path: tuple[Any, ...], value: str,
    message: str,
) -> None:
    """Lone surrogates (the "\\ud800" escape) and control characters, anywhere in the file: the engine's
    verify refuses them at event 0 naming the field, and so does the command line (it called such a
    file verified, while the site's page failed with a 500 writing it out)."""
    _, record = classic
    bad = copy.deepcopy(record)
    node: Any = bad
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    expected = f"failed verification at event 0: {message}"
    assert refusal(bad) == expected
    assert refusal(json.dumps(bad)) == expected  # the file as written: "\ud800" escaped
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(bad))
    run = subprocess.run([sys.executable, "-m", "engine", "replay", "verify", str(file)],
                         cwd=ROOT, capture_output=True, text=True, check=False)
    assert (run.returncode, run.stdout, run.stderr) == (1, "", f"{file}: {expected}\n")


def test_a_key_that_is_not_text_is_refused(classic: tuple[MatchState, dict[str, Any]]) -> None:
    _, record = classic
    bad = copy.deepcopy(record)
    bad["match"]["\ud800"] = 1
    assert refusal(bad) == (
        "failed verification at event 0: a key of match is not valid Unicode: a lone surrogate (U+D800)")


def test_a_valid_pair_and_accents_are_text(classic: tuple[MatchState, dict[str, Any]]) -> None:
    _, record = classic
    good = copy.deepcopy(record)
    good["players"][0]["name"] = "José 🃏"
    text = json.dumps(good)  # ensure_ascii: "\ud83c\udccf", a pair, read back as one character
    assert "\\ud83c\\udccf" in text
    assert verify_text(text).record["players"][0]["name"] == "José 🃏"


def test_a_nul_in_a_name_has_its_own_message(classic: tuple[MatchState, dict[str, Any]]) -> None:
    _, record = classic
    bad = copy.deepcopy(record)
    bad["players"][1]["name"] = "Bot\x003"
    assert refusal(bad) == "failed verification at event 0: players[1].name must not contain NUL (U+0000)"
    bad["players"][1]["name"] = ""
    assert refusal(bad) == "failed verification at event 0: players[1].name must be 1..150 characters"


class _Ticks:
    """A clock that moves one second each time it is read (no wall-clock in tests)."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return float(self.reads)


def _reads_until(record: dict[str, Any], hand: int) -> int:
    """Clock reads of a verification before hand ``hand`` (1-based) is dealt: the start, then per hand
    one before its deal and one after every 64th action."""
    return 1 + sum(1 + len(h["actions"]) // 64 for h in record["hands"][: hand - 1])


def test_the_cpu_budget_stops_verification_with_its_own_error(
    classic: tuple[MatchState, dict[str, Any]]
) -> None:
    """``budget`` seconds of ``clock``: read at the start, before each hand and every 64 actions. With a
    clock ticking 1 s per read and a budget that ends between the reads before hands 2 and 3, hand 3
    stops, at its deal's event number; no budget (the command line's) never stops."""
    m, record = classic
    hands = len(record["hands"])
    assert hands >= 3
    budget = _reads_until(record, 3) - 0.5  # the read before hand 3's deal: 1 + budget + 0.5
    with pytest.raises(ReplayBudgetError) as info:
        verify(record, budget=budget, clock=_Ticks())
    deal_3 = next(e for e in m.events if isinstance(e, DealEvent) and e.hand == 3)
    assert info.value.event == m.events.index(deal_3) + 1
    assert (info.value.hand, info.value.hands, info.value.budget) == (3, hands, budget)
    assert str(info.value) == (
        f"failed verification at event {info.value.event}: verifying this file takes more than {budget:g} s "
        f"of server time (stopped in hand 3 of {hands})")
    assert isinstance(info.value, ReplayVerificationError)
    ticks = _Ticks()
    assert verify(record, budget=1000.0, clock=ticks).state == m
    assert ticks.reads == _reads_until(record, hands + 1)
    assert verify(record).state == m
    with pytest.raises(ReplayBudgetError) as parsed:  # verify_text's budget starts before the parsing
        verify_text(json.dumps(record), budget=budget, clock=_Ticks())
    assert (parsed.value.hand, parsed.value.budget) == (3, budget)


def test_a_long_hand_is_checked_inside_its_actions() -> None:
    """A hand's actions read the clock every 64: a long hand cannot run past the budget by much. Reads:
    1 at the start (deadline 1 + 1.5), 2 before hand 1, 3 after its 64th action: stop at event 65
    (the deal is event 1, actions 1..63 are events 2..64)."""
    m = random_playout(preset("classic"), 1, knock_bias=0, greedy=0, max_hands=1)  # nobody knocks
    m.resign(0)
    record = record_of(m)
    assert len(record["hands"][0]["actions"]) >= 64
    with pytest.raises(ReplayBudgetError) as info:
        verify(record, budget=1.5, clock=_Ticks())
    assert (info.value.hand, info.value.event) == (1, 65)


def test_hand_frames_are_the_frames_verify_builds(classic: tuple[MatchState, dict[str, Any]]) -> None:
    """One hand's frames built on their own (what the open page serves on demand) equal the frames of
    the whole-file verification, hand by hand, for a cut-for-deal two-deck match too."""
    for record in (classic[1], record_of(cut_match(4))):
        rules = verify(record).state.rules
        for hand in verify(record, frames=True).hands:
            frames, arrangements = hand_frames(rules, hand.dealer, hand.deck, hand.limit_card, hand.actions)
            assert frames == hand.frames
            assert arrangements == hand.arrangements
