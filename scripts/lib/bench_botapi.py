"""Benchmark of the bot API (issue 27): N BOT-vs-BOT matches at once through the reference client.

Run through ``scripts/bench_botapi`` (it sets up the venv and import paths); ``--help`` lists the options.

1. 2N BOT accounts (``benchbot-<run>-<i>``) are made straight in the database, each with a token of both
   scopes (``accounts.tokens.token_create``), as ``manage.py bot_accounts_make`` makes them.
2. Each account runs a :class:`botclient.runner.Runner` (its event stream and one thread per match) in
   this process, playing with ``engine.bots.ladder.make_bot(level)``; account ``2k`` challenges
   ``2k+1`` over the API (``POST challenge/<username>/``), which accepts it from its event stream; every
   seat then reads its match stream and posts its moves (``POST match/<id>/action/``) until the end.
3. Then the database is read for what the server did: every acknowledged action must be in the event
   log at the ``seq`` the server answered, by the seat that posted it (``lost`` counts the ones that are
   not: must be 0), every match finished.

Figures: **actions/s** (actions the server acknowledged, over the wall time from the first challenge to
the last match's end), **post -> state** (s, p50/p99/max: from posting an action to reading, on the
poster's match stream, the first state after it: the client's ``Stats.latencies``), **errors** by code
(``stale_seq`` after a reconnection is normal; ``move_in_flight``, ``throttled``, ``stream_gone`` are
not), matches finished, the server's CPU and peak RSS (its process group), the load average. The
clients share this process (one GIL): on a small machine the client's own CPU is part of the latency,
so the figure is an upper bound of the server's.

The server is started as ``scripts/loadtest`` starts it (``scripts/lib/loadtest.py``): embedded (one
Daphne, SQLite in a temporary ``GIN_VAR_DIR``) unless ``DATABASE_URL`` (+ ``REDIS_URL``) select the
production profile (``scripts/serve --production``); ``--url`` uses a running server with the same
``DATABASE_URL``. Output: a progress line every 5 s, a summary, JSON in ``--out`` (default
``var/loadtest/botapi-<time>.json``). Exit status 1 when an acknowledged action was lost or a match did
not finish.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for extra in (ROOT, ROOT / "platform"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from botclient.http import Connection  # noqa: E402
from botclient.runner import Runner  # noqa: E402
from engine.bots.ladder import make_bot  # noqa: E402
from scripts.lib import loadtest  # noqa: E402


class AckedConnection(Connection):
    """A :class:`Connection` that notes every acknowledged action: ``(match_id, seq answered, user_id)``."""

    def __init__(self, *args: Any, user_id: int, acked: list[tuple[int, int, int]], lock: threading.Lock,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user_id, self.acked, self.acked_lock = user_id, acked, lock

    def post_json(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = super().post_json(path, body)
        if path.startswith("match/") and path.endswith("/action/") and not answer.get("repeat"):
            with self.acked_lock:
                self.acked.append((int(path.split("/")[1]), int(answer["seq"]), self.user_id))
        return answer


def make_accounts(count: int, run: str) -> list[tuple[int, str, str]]:
    """``count`` fresh BOT accounts: ``(user id, username, token)``."""
    from accounts.models import User
    from accounts.tokens import SCOPES, token_create

    made = []
    for i in range(count):
        user = User(username=f"benchbot-{run}-{i}", bot_account=True)
        user.set_unusable_password()
        user.save()
        _, token = token_create(user=user, name="bench", scopes=SCOPES)
        made.append((user.pk, user.username, token))
    return made


def lost_actions(acked: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The acknowledged ``(match, seq, user)`` that the event log lacks at that seq, or holds for a seat
    that is not ``user``'s."""
    from games.models import Match, MatchEvent

    match_ids = sorted({m for m, _, _ in acked})
    stored: dict[tuple[int, int], int | None] = {}
    seat_of: dict[tuple[int, int], int] = {}
    for i in range(0, len(match_ids), 500):
        part = match_ids[i:i + 500]
        rows = MatchEvent.objects.filter(match_id__in=part).values_list("match_id", "seq", "seat")
        stored.update({(m, s): seat for m, s, seat in rows})
        for pk, p0, p1 in Match.objects.filter(pk__in=part).values_list("pk", "player0_id", "player1_id"):
            seat_of[(pk, p0)], seat_of[(pk, p1)] = 0, 1
    return [(m, s, u) for m, s, u in acked if (m, s) not in stored or stored[(m, s)] != seat_of.get((m, u))]


def run(args: argparse.Namespace, base: str, watch: loadtest.ProcessWatch | None) -> dict[str, Any]:
    from games.models import Match

    run_id = secrets.token_hex(3)
    accounts = make_accounts(2 * args.matches, run_id)
    acked: list[tuple[int, int, int]] = []
    lock = threading.Lock()
    runners: list[Runner] = []
    for user_id, _, token in accounts:
        connection = AckedConnection(base, token, timeout=60.0, user_id=user_id, acked=acked, lock=lock,
                                     retries=20)
        runners.append(Runner(connection, lambda: make_bot(args.level), max_matches=1))
    threads = [threading.Thread(target=r.run, name=f"runner-{i}", daemon=True) for i, r in enumerate(runners)]
    if watch is not None:
        watch.start()
    started = time.monotonic()
    for thread in threads:
        thread.start()
    settings = {"target": args.target, "turn_timer": args.turn_timer, "rated": not args.casual}
    for k in range(args.matches):
        runners[2 * k].challenge(accounts[2 * k + 1][1], **settings)
    deadline = started + args.timeout
    while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
        time.sleep(5)
        if watch is not None:
            watch.sample()
        finished = sum(r.stats.matches_finished for r in runners) // 2
        posted = sum(r.stats.actions_posted for r in runners)
        print(f"  {time.monotonic() - started:6.0f} s: {finished}/{args.matches} matches over, "
              f"{posted} actions", flush=True)
    wall = time.monotonic() - started
    for r in runners:
        r.stop()
    server = watch.stop() if watch is not None else []
    user_ids = [pk for pk, _, _ in accounts]
    matches = list(Match.objects.filter(player0_id__in=user_ids).values("pk", "status"))
    lost = lost_actions(acked)
    latencies = [x for r in runners for x in r.stats.latencies]
    errors: dict[str, int] = {}
    for r in runners:
        for code, n in r.stats.errors.items():
            errors[code] = errors.get(code, 0) + n
    finished = sum(1 for m in matches if m["status"] == "finished")

    def r3(x: float | None) -> float | None:
        return None if x is None else round(x, 3)

    return {
        "matches": args.matches, "matches_created": len(matches), "matches_finished": finished,
        "actions_acked": len(acked), "actions_lost": len(lost), "lost_sample": lost[:10],
        "wall_s": round(wall, 1), "actions_per_s": round(len(acked) / wall, 1),
        "post_to_state_s": {"n": len(latencies), "p50": r3(loadtest.percentile(latencies, 0.5)),
                            "p99": r3(loadtest.percentile(latencies, 0.99)),
                            "max": r3(max(latencies) if latencies else None)},
        "errors": errors, "server": server,
    }


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="scripts/bench_botapi", description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=100, help="matches played at once (default 100)")
    p.add_argument("--target", type=int, default=100, choices=(50, 100, 150, 250), help="match target")
    p.add_argument("--level", type=int, default=2, choices=range(1, 6),
                   help="house-bot level the clients play (default 2)")
    p.add_argument("--turn-timer", type=int, default=60, help="turn timer of the matches (s)")
    p.add_argument("--casual", action="store_true", help="casual matches (default rated)")
    p.add_argument("--timeout", type=float, default=1800.0, help="give up after this many seconds")
    p.add_argument("--url", help="a running server (same DATABASE_URL) instead of starting one")
    p.add_argument("--out", help="JSON results (default var/loadtest/botapi-<time>.json)")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    profile = "production" if os.environ.get("DATABASE_URL") else "embedded"
    var_dir = None
    if not args.url and profile == "embedded":
        var_dir = tempfile.mkdtemp(prefix="gin-bench-botapi-")
        os.environ["GIN_VAR_DIR"] = var_dir
    proc = None
    if args.url:
        base, watch = args.url.rstrip("/"), None
    else:
        port = loadtest.free_port()
        log = ROOT / "var" / "loadtest" / f"server-{port}.log"
        if profile == "production":
            os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
            os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
        print(f"Starting the {profile} profile on 127.0.0.1:{port} (log: {log}) ...", flush=True)
        env = loadtest.server_env(var_dir)
        # 2N accounts post from one address with one token each: the per-token limit is what is measured.
        env.setdefault("BOTAPI_TOKEN_RATE", "600/min")
        proc = loadtest.start_server(port, env, log, production=profile == "production")
        base = f"http://127.0.0.1:{port}"
        watch = loadtest.ProcessWatch([proc.pid], follow_children=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    try:
        meta = {"profile": profile, "url": base, "cpus": os.cpu_count(),
                "loadavg": [round(x, 2) for x in os.getloadavg()],
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "command": "scripts/bench_botapi " + " ".join(argv)}
        result = run(args, base, watch)
        out = (Path(args.out) if args.out
               else ROOT / "var" / "loadtest" / time.strftime("botapi-%Y%m%d-%H%M%S.json"))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"meta": meta, "result": result}, indent=2) + "\n")
        lat = result["post_to_state_s"]
        print(f"\n{profile} profile, {args.matches} matches at once (target {args.target}, "
              f"level {args.level}), loadavg at start {meta['loadavg']}")
        print(f"  matches finished {result['matches_finished']}/{args.matches}, wall {result['wall_s']} s")
        print(f"  actions acknowledged {result['actions_acked']}, {result['actions_per_s']}/s, "
              f"lost {result['actions_lost']}")
        print(f"  post -> state: p50 {lat['p50']} s, p99 {lat['p99']} s, max {lat['max']} s (n {lat['n']})")
        print(f"  errors {result['errors']}")
        for s in result["server"]:
            print(f"  server pid {s['pid']} {s['command']}: {s['cpu_seconds']} s CPU "
                  f"({s['cpu_percent']}%), peak {s['rss_mib_peak']} MiB")
        print(f"  JSON: {out}")
        return 0 if result["actions_lost"] == 0 and result["matches_finished"] == args.matches else 1
    finally:
        if proc is not None:
            import signal

            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=60)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
