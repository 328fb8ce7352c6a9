"""How long a house bot takes to answer over a real site: from the WebSocket frame of the move that hands
it the turn to the ``state`` carrying its reply, minus nothing (run the site with ``GAMES_BOT_DELAY=0,0``
and ``GAMES_HAND_PAUSE=0`` to measure the server's own latency: scheduling + the bot's choice + the write
+ the broadcast).

    GIN_VAR_DIR=... (or DATABASE_URL=... REDIS_URL=...) python scripts/bench_bot_latency.py \\
        --url http://127.0.0.1:8040 --level 3 --replies 60 [--json]

Run it with the same environment as the site (it creates a guest and a bot match in the site's database
and logs the guest in with a session row). Prints p50 / p90 / p99 / max milliseconds, or JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def choose(hand: dict[str, Any]) -> str:
    """Pass the upcard, draw the stock, discard the card leaving the least deadwood (never knock, so
    hands last and the bot gets many turns)."""
    legal = hand["legal_actions"]
    for simple in ("pass", "draw stock"):
        if simple in legal:
            return simple
    after = hand["deadwood_if_discarded"]
    discards = [a for a in legal if a.startswith("discard")]
    return min(discards, key=lambda a: (after[a.split()[1]], a))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the site, e.g. http://127.0.0.1:8040")
    parser.add_argument("--level", type=int, choices=range(1, 6), default=3)
    parser.add_argument("--replies", type=int, default=60, help="bot replies to time (1..10000)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.replies <= 10000:
        parser.error("--replies must be 1..10000")

    import django

    django.setup()
    from django.conf import settings
    from django.test import Client
    from websockets.sync.client import connect

    from accounts.services import guest_create, house_bots_ensure
    from games import scheduling, services

    if scheduling.in_process():
        # The site's Daphne drives the moves (it learns of the match when the socket opens): this process
        # must not play the bot itself.
        scheduling.schedule = lambda *args, **kwargs: None  # type: ignore[assignment]
    house_bots_ensure()
    samples: list[float] = []
    ws_url = args.url.replace("http", "ws", 1)
    while len(samples) < args.replies:
        user = guest_create()
        match = services.match_create_vs_bot(user=user, level=args.level, rules_preset="classic",
                                             target=100, rated=False)
        client = Client()
        client.force_login(user)
        cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
        with connect(f"{ws_url}/ws/match/{match.pk}/", origin=args.url,
                     additional_headers={"Cookie": cookie}, open_timeout=10) as ws:
            sent_at: float | None = None
            while len(samples) < args.replies:
                msg = json.loads(ws.recv(timeout=30))
                if msg["type"] != "state":
                    continue
                if msg["match"]["status"] != "active":
                    break
                hand = msg["hand"]
                last = hand and hand["last_action"]
                if sent_at is not None and last and last["seat"] != msg["match"]["you"]:
                    samples.append((time.perf_counter() - sent_at) * 1000)
                    sent_at = None
                if hand and hand["your_turn"]:
                    action = choose(hand)
                    if action.startswith("discard") or action == "pass":
                        sent_at = time.perf_counter()  # this move hands the turn to the bot
                    ws.send(json.dumps({"type": "action", "action": action, "seq": msg["seq"],
                                        "id": f"b{msg['seq']}"}))
        with contextlib.suppress(services.GameError):  # the match may have ended by itself
            services.match_resign(match_id=match.pk, user=user)
    samples.sort()

    def pct(p: float) -> float:
        return samples[min(len(samples) - 1, int(p * len(samples)))]

    result = {"level": args.level, "replies": len(samples), "p50_ms": round(statistics.median(samples), 1),
              "p90_ms": round(pct(0.9), 1), "p99_ms": round(pct(0.99), 1), "max_ms": round(samples[-1], 1)}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"bot level {args.level}, {len(samples)} replies: p50 {result['p50_ms']} ms, p90 "
              f"{result['p90_ms']} ms, p99 {result['p99_ms']} ms, max {result['max_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
