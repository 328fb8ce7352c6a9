"""Command line: check the engine from other tools, one JSON object a line (issue 2, point 8).

``python -m engine deadwood --jsonl``: each input line ``{"hand": ["As", ...]}`` (0-11 cards; a string
``"As Td 7h"`` is accepted too) gives ``{"deadwood": N, "melds": [[...]], "unmatched": [...]}``; for 11
cards also ``"best_discard": "Kc", "best_discard_deadwood": N`` (the discard leaving the least
deadwood; ties go to the higher-valued card, then the first in card order c d h s, A..K).

``python -m engine score --jsonl``: each input line ``{"knocker_hand": [10 cards after the discard, or
11 for big gin], "defender_hand": [10 cards], "rules": "classic" | {"preset": "hoyle", ...overrides},
"knocker_melds": [[...], ...] (optional), "knock_limit": N (optional), "upcard": "7s" (optional: the
first upcard; sets the oklahoma knock limit and spade doubling)}`` gives ``{"kind", "winner": "knocker"
| "defender", "points", "bonus", "multiplier", "knocker_deadwood", "defender_deadwood",
"knocker_melds", "knocker_unmatched", "defender_melds", "defender_unmatched", "layoffs": [{"card":
"Qs", "meld": i}]}`` where ``meld`` indexes ``knocker_melds``. A knocker over its limit is an error
line.

``python -m engine replay verify FILE``: re-play a replay file (``docs/replay-format.md``,
``engine.replay_format``) offline and print each hand's result and the match's; a file that does not
verify prints ``FILE: failed verification at event N: reason`` on stderr and exits with 1 (2 when the
file cannot be read).

A bad line gives ``{"error": message, "code": code}`` on its own line and processing goes on; blank
lines are skipped. Codes are the engine's error codes plus ``bad_json`` and ``bad_request``. The exit
status is 0 when the input was read to its end.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from engine.cards import card_name, card_value, parse_card, parse_cards
from engine.errors import EngineError
from engine.melds import best_arrangement, deadwood_after_discards
from engine.rules import RuleSet, preset
from engine.scoring import score_knock

Json = dict[str, Any]


class BadRequest(EngineError):
    """A line that is JSON but not the request the command expects."""

    code = "bad_request"


def _cards(request: Json, field: str) -> list[int]:
    if field not in request:
        raise BadRequest(f"missing field {field!r}")
    value = request[field]
    if not isinstance(value, str) and not (
        isinstance(value, list) and all(isinstance(token, str) for token in value)
    ):
        raise BadRequest(f"{field} must be a list of card names or a string such as 'As Td 7h'")
    return parse_cards(value)


def _rules(request: Json) -> RuleSet:
    value = request.get("rules", "classic")
    if isinstance(value, str):
        return preset(value)
    if isinstance(value, dict):
        return RuleSet.from_dict(value)
    raise BadRequest("rules must be a preset name or an object {\"preset\": ..., overrides}")


def deadwood_request(request: Json) -> Json:
    """Answer one ``deadwood`` request (module docstring).

    :raises EngineError: bad cards (``invalid_card``, ``duplicate_card``), a hand of more than 11
        cards (``hand_size``), a missing or mistyped field (``bad_request``).
    """
    hand = _cards(request, "hand")
    if len(hand) > 11:
        raise EngineError(f"a hand holds 0-11 cards, got {len(hand)}", code="hand_size")
    arrangement = best_arrangement(hand)
    answer: Json = {
        "deadwood": arrangement.deadwood,
        "melds": [m.names() for m in arrangement.melds],
        "unmatched": [card_name(c) for c in arrangement.unmatched],
    }
    if len(hand) == 11:
        after = deadwood_after_discards(hand)
        best = min(after, key=lambda c: (after[c], -card_value(c), c))
        answer["best_discard"] = card_name(best)
        answer["best_discard_deadwood"] = after[best]
    return answer


def score_request(request: Json) -> Json:
    """Answer one ``score`` request (module docstring).

    :raises EngineError: bad cards or melds, rules, a knock over the limit (``knock_over_limit``),
        11 cards not all melded (``not_big_gin``), wrong hand sizes (``hand_size``), a missing or
        mistyped field (``bad_request``).
    """
    knocker_hand = _cards(request, "knocker_hand")
    defender_hand = _cards(request, "defender_hand")
    rules = _rules(request)
    knock_limit = request.get("knock_limit")
    if knock_limit is not None and (type(knock_limit) is not int or knock_limit < 0):
        raise BadRequest("knock_limit must be a non-negative integer")
    multiplier = 1
    if request.get("upcard") is not None:
        if not isinstance(request["upcard"], str):
            raise BadRequest("upcard must be a card name such as '7s'")
        upcard = parse_card(request["upcard"])
        multiplier = rules.hand_multiplier(upcard)
        if knock_limit is None:
            knock_limit = rules.hand_knock_limit(upcard)
    melds = request.get("knocker_melds")
    knocker_melds = None
    if melds is not None:
        if not isinstance(melds, list):
            raise BadRequest("knocker_melds must be a list of melds, each a list of card names")
        knocker_melds = [_cards({"meld": m}, "meld") for m in melds]
    result = score_knock(
        knocker_hand, defender_hand, rules,
        knocker=0, knock_limit=knock_limit, multiplier=multiplier, knocker_melds=knocker_melds,
    )
    answer = result.to_dict()
    answer["winner"] = "knocker" if result.winner == 0 else "defender"
    del answer["knocker"]
    return answer


COMMANDS: dict[str, Callable[[Json], Json]] = {"deadwood": deadwood_request, "score": score_request}


def answer_line(command: str, line: str) -> Json:
    """The JSON answer to one input line: the command's answer, or ``{"error", "code"}``."""
    try:
        request = json.loads(line)
    except ValueError as exc:
        return {"error": f"not JSON: {exc}", "code": "bad_json"}
    if not isinstance(request, dict):
        return {"error": "each line must be a JSON object", "code": "bad_request"}
    try:
        return COMMANDS[command](request)
    except EngineError as exc:
        return {"error": str(exc), "code": exc.code}


def run(command: str, stdin: TextIO, stdout: TextIO) -> None:
    """Answer every non-blank line of ``stdin`` on ``stdout``, one line each, flushed."""
    for line in stdin:
        if line.strip():
            stdout.write(json.dumps(answer_line(command, line)) + "\n")
            stdout.flush()


def replay_verify(path: str, stdout: TextIO, stderr: TextIO) -> int:
    """``replay verify``: 0 and one line per hand when ``path`` verifies, 1 (message on ``stderr``)
    when it does not, 2 when it cannot be read."""
    from engine.replay_format import ReplayVerificationError, summary_lines, verify_text

    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError as exc:
        stderr.write(f"{path}: cannot read: {exc.strerror or exc}\n")
        return 2
    try:
        replay = verify_text(text)
    except ReplayVerificationError as exc:
        stderr.write(f"{path}: {exc}\n")
        return 1
    for line in summary_lines(replay):
        stdout.write(line + "\n")
    stdout.write(f"{path}: verified ({len(replay.hands)} hands, {len(replay.state.events)} events)\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m engine``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    replay = sub.add_parser("replay", help="replay files (docs/replay-format.md)")
    replay_sub = replay.add_subparsers(dest="replay_command", required=True)
    check = replay_sub.add_parser("verify", help="re-play a replay file and print each hand's result")
    check.add_argument("file", help="the replay file (JSON)")
    for name, helptext in (
        ("deadwood", "least deadwood of each hand (and the best discard of 11 cards)"),
        ("score", "score each knock, gin or big gin"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--jsonl", action="store_true", required=True, help="one JSON object a line")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay_verify(args.file, sys.stdout, sys.stderr)
    run(args.command, sys.stdin, sys.stdout)
    return 0
