"""``python -m engine deadwood|score --jsonl`` through a real subprocess (issue 2, point 8)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(command: str, *lines: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "engine", command, "--jsonl"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=ROOT, timeout=60, check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_deadwood_lines_with_bad_lines_in_between() -> None:
    out = run(
        "deadwood",
        json.dumps({"hand": ["Jc", "9d", "8s", "6d", "Js", "8h", "Td", "8d", "7d", "Jd"]}),
        "this is not json",
        json.dumps({"hand": ["As", "Zz"]}),
        json.dumps({"hand": ["As", "as"]}),
        "",
        json.dumps(["As"]),
        json.dumps({"cards": ["As"]}),
        json.dumps({"hand": "Js Jh Jd 8c 7s 7h 7d 4s 3d 2s Ac"}),
        json.dumps({"hand": "As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs"}),
        json.dumps({"hand": []}),
    )
    assert out == [
        {
            "deadwood": 16, "melds": [["Jc", "Jd", "Js"], ["6d", "7d", "8d", "9d", "Td"]],
            "unmatched": ["8h", "8s"],
        },
        {"error": "not JSON: Expecting value: line 1 column 1 (char 0)", "code": "bad_json"},
        {"error": "not a card: 'Zz' (expected rank A23456789TJQK + suit cdhs)", "code": "invalid_card"},
        {"error": "duplicate card: 'as'", "code": "duplicate_card"},
        {"error": "each line must be a JSON object", "code": "bad_request"},
        {"error": "missing field 'hand'", "code": "bad_request"},
        {
            "deadwood": 18, "melds": [["7d", "7h", "7s"], ["Jd", "Jh", "Js"]],
            "unmatched": ["Ac", "8c", "3d", "2s", "4s"], "best_discard": "8c", "best_discard_deadwood": 10,
        },
        {"error": "a hand holds 0-11 cards, got 12", "code": "hand_size"},
        {"deadwood": 0, "melds": [], "unmatched": []},
    ]


def hands(knocker: str, defender: str) -> dict[str, str]:
    return {"knocker_hand": knocker, "defender_hand": defender}


def test_score_lines_issue_cases_and_errors() -> None:
    big_gin = {
        "knocker_hand": "2h 3h 4h 5h 7c 7d 7s Jc Jd Jh Js", "defender_hand": "Qc Qd Qh Qs 8d 9d Td Ks 9s 4s",
    }
    out = run(
        "score",
        json.dumps(hands("Ks Kc Kd 5s 6s 7s 9c Tc Jc Jd", "2s 2c 2d 2h 8s 8c 8d 9s 7c Ac")),
        json.dumps({**big_gin, "rules": "oklahoma"}),
        json.dumps({**big_gin, "rules": {"preset": "classic"}}),
        json.dumps({**big_gin, "rules": {"preset": "classic", "big_gin_bonus": 50}}),
        json.dumps({**big_gin, "rules": {"preset": "classic", "big_gin_bonus": "lots"}}),
        json.dumps({
            "knocker_hand": "5s 6s 7s 5c 6c 7c 5d 6d 7d As", "defender_hand": "3s 4s 4c 4d 8s 8c 8d 5h 6h 7h",
            "knocker_melds": [["5s", "6s", "7s"], ["5c", "6c", "7c"], ["5d", "6d", "7d"]],
        }),
        json.dumps(hands("2c 3c 4c 5d 5h 5s 9h Th Qh Js", "Qc Qd Qs 6d 7d 8d 9d Ah 2s 2d")),
        json.dumps({
            "knocker_hand": "2c 3c 4c 5d 5h 5s 9h Th Jh 4s", "defender_hand": "Qc Qd Qs 6s 7s 8s 9d 6c 2h 2d",
            "rules": "oklahoma", "upcard": "4s",
        }),
        json.dumps({"knocker_hand": "2c 3c 4c 5d 5h 5s 9h Th Jh 4s"}),
    )
    first = out[0]
    assert (first["kind"], first["winner"], first["points"]) == ("undercut", "defender", 26)
    assert (first["knocker_deadwood"], first["defender_deadwood"]) == (10, 9)
    assert first["knocker_melds"] == [["9c", "Tc", "Jc"], ["Kc", "Kd", "Ks"], ["5s", "6s", "7s"]]
    assert sorted(x["card"] for x in first["layoffs"]) == ["7c", "8c", "8s", "9s"]  # type: ignore[index, union-attr]
    assert [(o["kind"], o["winner"], o["points"], o["bonus"]) for o in out[1:4]] == [
        ("big_gin", "knocker", 54, 31), ("big_gin", "knocker", 48, 25), ("big_gin", "knocker", 73, 50),
    ]
    assert out[4]["code"] == "invalid_rules" and "big_gin_bonus" in str(out[4]["error"])
    assert (out[5]["kind"], out[5]["winner"], out[5]["points"], out[5]["defender_deadwood"]) == (
        "undercut", "defender", 26, 0,
    )
    assert out[6] == {"error": "deadwood 39 is over the knock limit 10", "code": "knock_over_limit"}
    # oklahoma, a 4 of spades first upcard: limit 4, points doubled (19 - 4 = 15 -> 30)
    assert (out[7]["kind"], out[7]["points"], out[7]["multiplier"]) == ("knock", 30, 2)
    assert out[8] == {"error": "missing field 'defender_hand'", "code": "bad_request"}
    assert len(out) == 9


def test_many_random_hands_agree_with_the_reference() -> None:
    import random

    from engine.cards import card_names, card_value
    from tests.engine import reference

    rng = random.Random(11)
    hands = [rng.sample(range(52), rng.choice([10, 11])) for _ in range(300)]
    out = run("deadwood", *(json.dumps({"hand": card_names(h)}) for h in hands))
    assert len(out) == len(hands)
    for hand, answer in zip(hands, out, strict=True):
        assert answer["deadwood"] == reference.deadwood(hand)
        if len(hand) == 11:
            after = {c: reference.deadwood([x for x in hand if x != c]) for c in hand}
            least = min(after.values())
            assert answer["best_discard_deadwood"] == least
            best = [c for c in hand if after[c] == least]
            top = max(card_value(c) for c in best)
            assert answer["best_discard"] == card_names([min(c for c in best if card_value(c) == top)])[0]
        else:
            assert "best_discard" not in answer
