"""Benchmark of live spectators (issue 20, finding 2): many spectator sockets on ONE live match, joins and
leaves at a fixed rate, while a player plays the match against a house bot. Run by hand; loopback only.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> REDIS_URL=redis://127.0.0.1:6379/<n> \\
      .venv/bin/python scripts/bench_spectators.py --port 8842 [--spectators 1000] [--churn 50] \\
      [--duration 30] [--daphne 2] [--out FILE]

What it does, in order (every step bounded; the whole run is cut at ``--duration`` + 240 s):

1. starts ``scripts/serve --production`` on 127.0.0.1:``--port`` (``DAPHNE_PROCESSES=--daphne``, one
   Celery worker and beat; bot and hand pauses 0; its output in ``var/bench_spectators/server-<port>.log``)
   on the PostgreSQL database and Redis of the environment (create the database first: ``createdb``);
2. seeds a guest (session written to the database), who creates a level-1 bot match over HTTP; the match
   is made public (``ReplayAccess``) and the guest plays it over its WebSocket, thinking 1-2 s per move
   (``scripts/lib/loadtest.py``'s client): action -> new ``state`` latency is "players' states on time";
3. opens ``--spectators`` sockets to ``ws/watch/<id>/`` (real clients, the ``websockets`` package, 50
   handshakes at a time), each counting every frame it receives;
4. the measured window, ``--duration`` seconds: ``--churn`` times a second one spectator leaves (its
   socket closed) and a new one joins, so the audience stays at ``--spectators``. Reported: frames the
   server sent per second (all of them, and ``spectators`` count frames alone, received by spectators and
   the player), Daphne CPU (seconds per second: 1.0 = one core busy, summed over the Daphne processes,
   from /proc), joins refused (close codes), and the player's state latency p50/p99/max and errors;
5. counts ERROR lines, ``Too many connections`` (the channel layer's Redis pool) and ``closed protocol``
   in the server's log; stops the server (SIGTERM to its process group, SIGKILL 30 s later).

All clients come from 127.0.0.1, and the site caps spectator sockets per IP (``SPECTATORS_PER_IP``) and
per match (``SPECTATORS_PER_MATCH``): for the measurement the server is started with both raised to
``--spectators`` + 100 (environment variables read by config.settings; a server without the caps ignores
them). Results: a summary on the terminal, JSON in ``--out`` (default ``var/bench_spectators/<time>.json``).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform"), str(ROOT / "scripts" / "lib")]

import loadtest  # noqa: E402  (scripts/lib/loadtest.py: server start, seeding, the playing client)

HARD_LIMIT_EXTRA_S = 240.0


def daphne_pids(root: int) -> list[int]:
    """The Daphne processes under ``root`` (their argv[1] is the ``daphne`` script)."""
    out = []
    for pid in loadtest._children(root):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 1 and Path(argv[1].decode()).name == "daphne":
            out.append(pid)
    return out


class Audience:
    """The spectator clients: open sockets, frames received by type, refusals by close code."""

    def __init__(self, url: str, origin: str) -> None:
        self.url = url
        self.origin = origin
        self.open: dict[int, tuple[Any, asyncio.Task[None]]] = {}
        self.frames: collections.Counter[str] = collections.Counter()
        self.closes: collections.Counter[str] = collections.Counter()
        self.failures: collections.Counter[str] = collections.Counter()
        self.next_id = 0
        self.gate = asyncio.Semaphore(50)

    async def join(self) -> None:
        from websockets.asyncio.client import connect

        async with self.gate:
            try:
                ws = await connect(self.url, origin=self.origin, open_timeout=30,  # type: ignore[arg-type]
                                   max_queue=None, ping_interval=None, close_timeout=2)
            except Exception as exc:
                self.failures[type(exc).__name__] += 1
                return
        self.next_id += 1
        key = self.next_id
        self.open[key] = (ws, asyncio.create_task(self._read(key, ws)))

    async def _read(self, key: int, ws: Any) -> None:
        try:
            async for raw in ws:
                kind = json.loads(raw).get("type", "?")
                self.frames[kind] += 1
        except Exception:
            pass
        code = ws.close_code
        self.closes[str(code)] += 1
        self.open.pop(key, None)

    async def leave(self) -> None:
        if not self.open:
            return
        key = random.choice(list(self.open))
        ws, _ = self.open.pop(key)
        with contextlib.suppress(Exception):
            await ws.close()

    async def close_all(self) -> None:
        sockets = [ws for ws, _ in self.open.values()]
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)


class Player:
    """The guest playing the watched match (loadtest.play_one), counting the frames it receives."""

    def __init__(self) -> None:
        self.stats = loadtest.LevelStats()
        self.spectator_frames = 0


async def run(args: argparse.Namespace, base: str, server_pid: int) -> dict[str, Any]:
    from games.models import Match
    from replays.models import ReplayAccess

    ws_base = "ws" + base[len("http"):]
    (_user_id, key), = await asyncio.to_thread(loadtest.seed_guests, 1)
    client = loadtest.Client(base, key)
    match_id = await asyncio.to_thread(client.create_match, 1, 100)

    def make_public() -> None:
        ReplayAccess.objects.update_or_create(match=Match.objects.get(pk=match_id), defaults={"public": True})

    await asyncio.to_thread(make_public)
    player = Player()
    ws = await loadtest.open_socket(client, ws_base, match_id)
    recv = ws.recv

    async def counting_recv(*a: Any, **kw: Any) -> Any:
        raw = await recv(*a, **kw)
        if '"type":"spectators"' in raw or '"type": "spectators"' in raw:
            player.spectator_frames += 1
        return raw

    ws.recv = counting_recv
    play_deadline = time.monotonic() + 10_000
    playing = asyncio.create_task(loadtest.play_one(ws, match_id, player.stats, loadtest.Pace(1.0, 2.0),
                                                    play_deadline))

    audience = Audience(f"{ws_base}/ws/watch/{match_id}/", base)
    print(f"match {match_id}: opening {args.spectators} spectator sockets ...", flush=True)
    t0 = time.monotonic()
    await asyncio.gather(*(audience.join() for _ in range(args.spectators)))
    ramp_s = time.monotonic() - t0
    print(f"  {len(audience.open)} open after {ramp_s:.1f} s (failures {dict(audience.failures)}, "
          f"closed {dict(audience.closes)})", flush=True)
    await asyncio.sleep(3)  # the ramp's own messages drain

    watch = loadtest.ProcessWatch(daphne_pids(server_pid), follow_children=False)
    frames0 = sum(audience.frames.values())
    counts0 = audience.frames["spectators"]
    player_counts0 = player.spectator_frames
    states0 = len(player.stats.states)
    errors0 = dict(player.stats.errors)
    closes0 = collections.Counter(audience.closes)
    watch.start()
    load0 = os.getloadavg()[0]
    started = time.monotonic()
    joins = leaves = 0
    pending: set[asyncio.Task[None]] = set()
    interval = 1.0 / args.churn
    tick = started
    while time.monotonic() - started < args.duration:
        tick += interval
        for task in (asyncio.create_task(audience.leave()), asyncio.create_task(audience.join())):
            pending.add(task)
            task.add_done_callback(pending.discard)
        leaves += 1
        joins += 1
        await asyncio.sleep(max(0.0, tick - time.monotonic()))
    wall = time.monotonic() - started
    processes = watch.stop()
    frames = sum(audience.frames.values()) - frames0
    counts = audience.frames["spectators"] - counts0
    player_counts = player.spectator_frames - player_counts0
    states = player.stats.states[states0:]
    refused = {code: n - closes0.get(code, 0) for code, n in audience.closes.items()
               if code not in ("1000", "None") and n - closes0.get(code, 0)}
    if pending:
        await asyncio.wait(pending, timeout=30)
    open_at_end = len(audience.open)
    playing.cancel()
    with contextlib.suppress(BaseException):
        await playing
    await ws.close()
    await audience.close_all()
    cpu_s = sum(p["cpu_seconds"] for p in processes)
    return {
        "match": match_id, "spectators": args.spectators, "churn_per_s": args.churn,
        "ramp_s": round(ramp_s, 1), "window_s": round(wall, 1), "joins": joins, "leaves": leaves,
        "open_at_end": open_at_end,
        "frames_per_s": round(frames / wall, 1),
        "spectator_count_frames_per_s": round((counts + player_counts) / wall, 1),
        "player_count_frames": player_counts,
        "daphne_cpu_s_per_s": round(cpu_s / wall, 3),
        "loadavg_1min_before_after": [round(load0, 2), round(os.getloadavg()[0], 2)],
        "daphne": processes,
        "refused_close_codes": refused,
        "join_failures": dict(audience.failures),
        "player_state_ms": loadtest.summary_ms(states),
        "player_errors": {k: v - errors0.get(k, 0) for k, v in player.stats.errors.items()
                          if v - errors0.get(k, 0)},
        "player_stalls": player.stats.stalls,
    }


def scan_log(path: Path) -> dict[str, int]:
    text = path.read_text(errors="replace") if path.exists() else ""
    return {
        "error_lines": len(re.findall(r'"level": ?"ERROR"|\bERROR\b', text)),
        "too_many_connections": text.count("Too many connections"),
        "closed_protocol": text.count("closed protocol"),
        "count_not_sent": text.count("spectator count not sent"),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench_spectators.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True, help="port for the server on 127.0.0.1")
    parser.add_argument("--spectators", type=int, default=1000, help="spectator sockets (1000)")
    parser.add_argument("--churn", type=float, default=50.0, help="leaves and joins per second (50)")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of churn measured (30)")
    parser.add_argument("--daphne", type=int, default=2, help="Daphne processes (2)")
    parser.add_argument("--out", help="JSON results file")
    args = parser.parse_args(argv)
    if not (1 <= args.spectators <= 5000 and 0 < args.churn <= 500 and 0 < args.duration <= 600):
        parser.error("1 <= --spectators <= 5000, 0 < --churn <= 500, 0 < --duration <= 600")
    if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
        parser.error("set DATABASE_URL (PostgreSQL) and REDIS_URL: the production profile is measured")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
    env = loadtest.server_env(None)
    cap = str(args.spectators + 100)
    env.update({"DAPHNE_PROCESSES": str(args.daphne), "SPECTATORS_PER_IP": cap, "SPECTATORS_PER_MATCH": cap,
                "LOG_LEVEL": "WARNING"})
    env.pop("GAMES_ECHO_WS", None)
    log = ROOT / "var" / "bench_spectators" / f"server-{args.port}.log"
    print(f"Starting scripts/serve --production on 127.0.0.1:{args.port} (log: {log}) ...", flush=True)
    proc = loadtest.start_server(args.port, env, log, production=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    try:
        base = f"http://127.0.0.1:{args.port}"
        result = asyncio.run(asyncio.wait_for(run(args, base, proc.pid), args.duration + HARD_LIMIT_EXTRA_S))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    result["server_log"] = scan_log(log)
    result["commit"] = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                      capture_output=True, text=True).stdout.strip()
    out = Path(args.out) if args.out else log.parent / time.strftime("%Y%m%d-%H%M%S.json")
    out.write_text(json.dumps(result, indent=2) + "\n")
    show = {k: v for k, v in result.items() if k not in ("daphne", "player_stalls")}
    print(json.dumps(show, indent=2))
    print(f"Results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
