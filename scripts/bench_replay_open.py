"""Benchmark: what ``/replay/open/`` costs the server (issue 20, finding 3), by hand.

    .venv/bin/python scripts/bench_replay_open.py --write var/bench    # the two files only
    .venv/bin/python scripts/bench_replay_open.py --url http://127.0.0.1:8850 [--parallel 4]
    .venv/bin/python scripts/bench_replay_open.py --engine              # engine verification alone

Two replay files (docs/replay-format.md), both valid:

- ``dead``: 2,000 dead hands (``MAX_HANDS``, the documented maximum) under ``stock_floor`` 20 (a
  hand is dead after 11 stock draws), the last one resigned: about 2.9 MB, the attack file of issue 20.
- ``normal``: a classic match to 100 played by random legal moves (seed 5), a few dozen KB.

``--url``: POSTs each file to a running server's ``/replay/open/`` (log in first with ``--user``
and ``--password`` when the page is for members; the bench resets nothing, so mind the page's rate
limit: ``REPLAYS_OPEN_RATE`` / ``REPLAYS_OPEN_USER_RATE``), once alone and then ``--parallel`` at once,
and prints for each answer its status, wall time (ms) and size (bytes), then, when the page loads
hands on demand, one hand's JSON (time, size). ``--engine``: CPU seconds of
``engine.replay_format.verify`` with and without the viewer's frames, in this process, for the two
files and two long real matches (classic to 500 and to 2,000, random legal moves).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from engine.actions import ActionKind  # noqa: E402
from engine.deck import deck_commitment, shuffled_deck  # noqa: E402
from engine.events import DealEvent  # noqa: E402
from engine.match import MatchState  # noqa: E402
from engine.replay_format import MAX_HANDS, record_from_events  # noqa: E402
from engine.rules import preset  # noqa: E402
from engine.tools.playout import random_playout  # noqa: E402

PLAYERS = [{"name": "alice", "bot_level": None}, {"name": "bob", "bot_level": None}]


def _record(match: MatchState) -> dict[str, Any]:
    deals = [e for e in match.events if isinstance(e, DealEvent)]
    secrets = []
    for i, deal in enumerate(deals):
        salt = f"{i:032x}"
        secrets.append((salt, deck_commitment(deal.deck, salt)))
    return record_from_events(rules=match.rules, first_dealer=match.first_dealer, events=match.events,
                              secrets=secrets, players=PLAYERS, match={"preset": "bench"})


def dead_hands_file(hands: int = MAX_HANDS, seed: int = 1) -> bytes:
    """A valid replay file of ``hands`` dead hands (nobody ever knocks; the last hand resigned), as the
    site writes its files (``json.dumps`` default separators, UTF-8)."""
    rng = random.Random(seed)
    match = MatchState(preset("classic").replace(stock_floor=20), 0)
    for _ in range(hands):
        match.deal(shuffled_deck(rng))
        hand = match.hand
        assert hand is not None
        while not hand.is_over:
            legal = hand.legal_actions()
            kinds = {a.kind: a for a in legal}
            if ActionKind.PASS in kinds:
                match.apply(kinds[ActionKind.PASS])
            elif ActionKind.DRAW_STOCK in kinds:
                match.apply(kinds[ActionKind.DRAW_STOCK])
            else:
                match.apply(next(a for a in legal if a.kind == ActionKind.DISCARD))
    match.resign(0)
    return json.dumps(_record(match)).encode()


def normal_file(seed: int = 5) -> bytes:
    """A classic match to 100 by random legal moves (a real match's size)."""
    return json.dumps(_record(random_playout(preset("classic"), seed))).encode()


def _post(url: str, session: Any, content: bytes, out: list[tuple[int, float, int, str]]) -> None:
    session.get(f"{url}/replay/open/")
    token = session.cookies.get("csrftoken", "")
    start = time.perf_counter()
    answer = session.post(f"{url}/replay/open/", data={"csrfmiddlewaretoken": token},
                          files={"file": ("match.json", content, "application/json")},
                          headers={"Referer": f"{url}/replay/open/"})
    out.append((answer.status_code, (time.perf_counter() - start) * 1000, len(answer.content), answer.text))


def _session(args: argparse.Namespace) -> Any:
    import requests

    session = requests.Session()
    if args.user:
        session.get(f"{args.url}/accounts/login/")
        session.post(f"{args.url}/accounts/login/", data={
            "username": args.user, "password": args.password,
            "csrfmiddlewaretoken": session.cookies.get("csrftoken", "")},
            headers={"Referer": f"{args.url}/accounts/login/"})
    return session


def _hand_url(html: str) -> str | None:
    found = re.search(r'data-hands-url="([^"]+)"', html)
    return found.group(1) if found else None


def bench_url(args: argparse.Namespace, files: dict[str, bytes]) -> None:
    for name, content in files.items():
        out: list[tuple[int, float, int, str]] = []
        _post(args.url, _session(args), content, out)
        status, ms, size, html = out[0]
        print(f"{name} ({len(content):,} bytes) alone: {status}, {ms:,.0f} ms, {size:,} bytes")
        hands = _hand_url(html)
        if status == 200 and hands:
            import requests

            start = time.perf_counter()
            hand = requests.get(f"{args.url}{hands}2.json", timeout=60)
            print(f"  hand 2 on demand: {hand.status_code}, {(time.perf_counter() - start) * 1000:,.0f} ms, "
                  f"{len(hand.content):,} bytes")
        out = []
        threads = [threading.Thread(target=_post, args=(args.url, _session(args), content, out))
                   for _ in range(args.parallel)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        row = ", ".join(f"{s} {ms:,.0f} ms {size:,} B" for s, ms, size, _ in sorted(out, key=lambda r: r[1]))
        print(f"{name} x{args.parallel} at once: {row}")


def bench_engine(files: dict[str, bytes]) -> None:
    from engine.replay_format import loads, verify

    for target in (500, 2000):  # long real matches: what the CPU budget must never refuse
        files = {f"classic to {target}": json.dumps(_record(random_playout(
            preset("classic").replace(target=target), 5))).encode(), **files}
    for name, content in files.items():
        data = loads(content)
        for frames in (False, True):
            start = time.process_time()
            verify(data, frames=frames)
            print(f"{name} ({len(content):,} bytes): verify(frames={frames}) "
                  f"{time.process_time() - start:.2f} s CPU")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", type=Path, help="write dead.json and normal.json to this folder")
    parser.add_argument("--url", help="server to POST to, e.g. http://127.0.0.1:8850")
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--user", help="log in as this user first")
    parser.add_argument("--password", default="")
    parser.add_argument("--engine", action="store_true", help="time the engine's verification alone")
    args = parser.parse_args()
    files = {"dead": dead_hands_file(), "normal": normal_file()}
    if args.write:
        args.write.mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            (args.write / f"{name}.json").write_bytes(content)
            print(f"{args.write / name}.json: {len(content):,} bytes")
    if args.engine:
        bench_engine(files)
    if args.url:
        bench_url(args, files)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
