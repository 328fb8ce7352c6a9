"""Red-team rerun of issue 20, finding 1: a flood of analysis requests while a level-5 match is played.

Measures, on a running site, the level-5 bot's reply time (the WebSocket frame of the move that hands it
the turn to the ``state`` carrying its reply: the server's scheduling, the worker's choice, the bot's
human-like pause ``GAMES_BOT_DELAY``, the write and the broadcast) and a rated match's rating time (its
``resign`` acked over the WebSocket to the ``RatingChange`` rows in the database), first on a quiet site,
then right after ``--requests`` analysis requests (``POST /replay/<id>/analyse/``, JSON, each from its own
member account, all from this one IP, on distinct finished public matches), and counts how many requests
the site accepted (202/200) and refused (by status and error code).

    DATABASE_URL=... REDIS_URL=... .venv/bin/python scripts/redteam_analyses.py \\
        --url http://127.0.0.1:8830 --requests 8 [--replies 4] [--wait 180] [--json FILE]

Run it with the site's environment (it creates members, finished matches and sessions in the site's
database, as scripts/bench_bot_latency.py does). Loopback only: any other host is refused. Bounded: each
awaited reply or rating gives up after ``--wait`` seconds (recorded as ``null`` with ``timed_out``), and
the whole run after ``--budget`` seconds. Prints a JSON summary (and writes it to ``--json``).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import contextlib
import json
import os
import secrets
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def session_cookie(user: Any) -> str:
    """A logged-in session of ``user`` (written to the site's session store) and a CSRF pair: the
    cookie header value."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    csrf = secrets.token_hex(16)  # any 32-character secret is a valid CSRF cookie + token pair
    return (f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}; "
            f"{settings.CSRF_COOKIE_NAME}={csrf}")


def ask_analysis(base: str, cookie: str, match_id: int) -> tuple[int, str]:
    """``POST /replay/<id>/analyse/`` (JSON); returns (status, ``status`` or ``error`` of the answer)."""
    csrf = cookie.rsplit("=", 1)[1]
    request = urllib.request.Request(
        f"{base}/replay/{match_id}/analyse/", method="POST",
        data=urllib.parse.urlencode({"csrfmiddlewaretoken": csrf}).encode(),
        headers={"Cookie": cookie, "Accept": "application/json", "Origin": base,
                 "Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    try:
        answer = json.loads(body)
    except ValueError:
        return status, "not-json"
    return status, str(answer.get("error") or answer.get("status"))


def choose(hand: dict[str, Any]) -> str:
    """Pass the upcard, draw the stock, discard the least deadwood (never knock: many bot turns)."""
    legal = hand["legal_actions"]
    for simple in ("pass", "draw stock"):
        if simple in legal:
            return simple
    after = hand["deadwood_if_discarded"]
    return min((a for a in legal if a.startswith("discard")), key=lambda a: (after[a.split()[1]], a))


def bot_replies(ws: Any, count: int, wait: float) -> list[float | None]:
    """Play on until ``count`` bot replies were timed (seconds; None: none within ``wait``)."""
    samples: list[float | None] = []
    sent_at: float | None = None
    while len(samples) < count:
        try:
            msg = json.loads(ws.recv(timeout=wait))
        except TimeoutError:
            samples.append(None)
            return samples
        if msg["type"] != "state":
            continue
        if msg["match"]["status"] != "active":
            break
        hand = msg["hand"]
        last = hand and hand["last_action"]
        if sent_at is not None and last and last["seat"] != msg["match"]["you"]:
            samples.append(time.perf_counter() - sent_at)
            sent_at = None
        if hand and hand["your_turn"]:
            action = choose(hand)
            if action.startswith("discard") or action == "pass":
                sent_at = time.perf_counter()
            ws.send(json.dumps({"type": "action", "action": action, "seq": msg["seq"],
                                "id": f"r{msg['seq']}"}))
    return samples


def rating_seconds(base: str, a: Any, b: Any, wait: float) -> float | None:
    """A rated friend match of ``a`` and ``b`` (each one move, here), resigned by ``b`` over the site's
    WebSocket: seconds from the ``ack`` until its two rating changes exist (None after ``wait``)."""
    from websockets.sync.client import connect

    from games import services
    from games.live import load
    from games.models import Match
    from ratings.models import RatingChange

    table = services.table_create(user=a, rules_preset="classic", target=100, turn_timer=None, rated=True)
    match = services.table_join(user=b, token=table.invite_token)
    users, moved = {0: match.player0, 1: match.player1}, set()
    while moved != {0, 1}:
        fresh = Match.objects.get(pk=match.pk)
        seat = load(fresh).state.current_player
        assert seat is not None
        moved.add(seat)
        legal = [str(x) for x in load(fresh).state.legal_actions(seat)]
        action = next((x for x in ("pass", "draw stock") if x in legal), legal[0])
        services.match_apply_action(match_id=match.pk, user=users[seat], action_text=action,
                                    client_seq=fresh.last_seq, msg_id=f"rt-{seat}-{fresh.last_seq}")
    with connect(f"{base.replace('http', 'ws', 1)}/ws/match/{match.pk}/", origin=base,
                 additional_headers={"Cookie": session_cookie(b)}, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "resign", "id": "rt-resign"}))
        while json.loads(ws.recv(timeout=30)).get("type") != "ack":
            pass
        acked = time.perf_counter()
    while time.perf_counter() - acked < wait:
        if RatingChange.objects.filter(match_id=match.pk).count() == 2:
            return time.perf_counter() - acked
        time.sleep(0.05)
    return None


def finished_matches(players: list[Any], count: int) -> list[int]:
    """``count`` finished bot matches of members (level 1, target 50: public, docs/replay-format.md),
    made here through the services (this process plays the bot's turns; the tests' driver)."""
    from games import services
    from tests.games.play import play_until

    ids = []
    for i in range(count):
        user = players[i % len(players)]
        match = services.match_create_vs_bot(user=user, level=1, rules_preset="classic", target=50,
                                             rated=False)
        done = play_until(match.pk, {0: user})
        assert done.status == "finished"
        ids.append(done.pk)
    return ids


def summary(samples: list[float | None]) -> dict[str, Any]:
    done = [s for s in samples if s is not None]
    return {"replies": len(done), "timed_out": len(samples) - len(done),
            "p50_s": round(statistics.median(done), 2) if done else None,
            "max_s": round(max(done), 2) if done else None, "all_s": [None if s is None else round(s, 2)
                                                                      for s in samples]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the site, e.g. http://127.0.0.1:8830 (loopback only)")
    parser.add_argument("--requests", type=int, default=8, help="analysis requests (1..200)")
    parser.add_argument("--replies", type=int, default=4,
                        help="level-5 replies timed before and after (1..50)")
    parser.add_argument("--wait", type=float, default=180.0, help="seconds to wait for one reply or rating")
    parser.add_argument("--budget", type=float, default=900.0, help="seconds for the whole run")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    host = urllib.parse.urlsplit(args.url).hostname
    if host not in LOOPBACK:
        parser.error(f"--url must be a loopback address, not {host!r}")
    if not 1 <= args.requests <= 200 or not 1 <= args.replies <= 50:
        parser.error("--requests 1..200, --replies 1..50")
    started = time.monotonic()
    base = args.url.rstrip("/")

    import django

    django.setup()
    from websockets.sync.client import connect

    from accounts.models import User
    from accounts.services import house_bots_ensure
    from games import scheduling, services
    from replays.models import MatchAnalysis

    if scheduling.in_process():  # the site drives the server's moves, never this process
        scheduling.schedule = lambda *a, **k: None
    house_bots_ensure()
    run = secrets.token_hex(3)

    def member(name: str) -> Any:
        return User.objects.create_user(username=f"rt{run}-{name}", password=secrets.token_urlsafe(12))

    attackers = [member(f"a{i}") for i in range(args.requests)]
    print(f"making {args.requests} finished matches ...", file=sys.stderr, flush=True)
    targets = finished_matches(attackers, args.requests)
    player, rater_a, rater_b = member("player"), member("ra"), member("rb")
    level5 = services.match_create_vs_bot(user=player, level=5, rules_preset="classic", target=100,
                                          rated=False)
    result: dict[str, Any] = {"url": base, "requests": args.requests}
    with connect(f"{base.replace('http', 'ws', 1)}/ws/match/{level5.pk}/", origin=base,
                 additional_headers={"Cookie": session_cookie(player)}, open_timeout=10) as ws:
        print("quiet: level-5 replies and one rating ...", file=sys.stderr, flush=True)
        result["quiet"] = {"level5": summary(bot_replies(ws, args.replies, args.wait)),
                           "rating_s": rating_seconds(base, rater_a, rater_b, args.wait)}
        cookies = [session_cookie(user) for user in attackers]
        print(f"{args.requests} analysis requests ...", file=sys.stderr, flush=True)
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(16, args.requests)) as pool:
            pairs = zip(cookies, targets, strict=True)
            answers = list(pool.map(lambda pair: ask_analysis(base, *pair), pairs))
        counts = collections.Counter(f"{status} {code}" for status, code in answers)
        result["answers"] = dict(sorted(counts.items()))
        result["accepted"] = sum(1 for status, _ in answers if status in (200, 202))
        result["refused"] = args.requests - result["accepted"]
        result["analyses_active_after_requests"] = MatchAnalysis.objects.filter(
            status__in=("queued", "running")).count()
        print("under load: level-5 replies and one rating ...", file=sys.stderr, flush=True)
        def left() -> float:
            return float(min(args.wait, max(1.0, args.budget - (time.monotonic() - started))))

        replies = bot_replies(ws, args.replies, left())
        running = MatchAnalysis.objects.filter(status="running").count()
        result["loaded"] = {"level5": summary(replies), "analyses_running_meanwhile": running}
        result["loaded"]["rating_s"] = rating_seconds(base, rater_a, rater_b, left())
        result["loaded"]["analyses_active_after"] = MatchAnalysis.objects.filter(
            status__in=("queued", "running")).count()
    with contextlib.suppress(services.GameError):
        services.match_resign(match_id=level5.pk, user=player)
    for key in ("quiet", "loaded"):
        if result[key]["rating_s"] is not None:
            result[key]["rating_s"] = round(result[key]["rating_s"], 2)
    result["elapsed_s"] = round(time.monotonic() - started, 1)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
