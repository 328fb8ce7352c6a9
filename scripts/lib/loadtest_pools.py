"""Load test of quick pairing (issue 21): simulated players in a pool, over real WebSocket clients.

Run through ``scripts/loadtest_pools`` (which sets up the venv and import paths); ``--help`` lists the
options. For each level N (number of players; default 100 500 2000):

1. N members are seeded straight into the database, each with a logged-in session and an established
   rating drawn at random (normal around 1500, sd 250, 10-60 rated matches), as ``scripts/loadtest``
   seeds its guests (the site's sign-up is throttled per IP).
2. Each player, until the level's time is up: connects ``ws/pool/<slug>/`` (that joins the pool), waits
   for ``{"type": "paired", "match": id, ...}``, opens the table socket ``ws/match/<id>/``, resigns at
   once (``{"type": "resign"}``; the opponent resigning first is fine: ``match_over``), and queues again
   (after ``--pause``, default none).
   When the time is up a player still waiting sends ``{"type": "cancel"}`` (a pairing that wins that race
   is played like any other). Players start over ``--ramp`` seconds.
3. Then the database is read for what the server did: the level's pool entries and matches.

Figures per level: **wait** (s, p50/p95/max): from opening the pool socket to the ``paired`` frame, as
the player sees it (``join_s``: to the first frame, the join's own latency; ``server_wait_s``: the
entry's ``ended_at - joined_at``); **gap** (rating points, p50/p95): ``|r_a - r_b|`` of each pairing,
from the two pool entries' ratings (the rating each player was shown when joining); **wave** (ms,
p50/max): each wave that paired someone, from the wave's clock read (the ``ended_at`` it stamps on the
entries it pairs) to the insert of its last match (``Match.created_at``): the wave's work up to its
commit, not the commit and the sends after it; **paired twice** (must be 0): players who had two
matches in play at once (a match created before the player's previous one had finished), plus matches
with other than two entries of two distinct players; **errors** by code (a socket that failed to open,
an ``error`` or ``left`` frame, 15 s of silence, a pairing with a house bot, an unexpected close). Also
the entries and matches by status, the CPU and peak RSS of the server's processes, the load average.

The pools cap pool sockets per client address (``LOBBY_POOL_SOCKETS_PER_IP``, default 50): each player
connects from a loopback address of its own group of ``--per-address`` (default 20) players,
127.0.0.2, 127.0.0.3, ... (Linux routes all of 127.0.0.0/8 to the loopback interface). Not 50: a
socket's slot is freed when the server has handled its close, and under load a player's next socket can
come first.

The server is started here as ``scripts/loadtest`` starts it (``scripts/lib/loadtest.py``): embedded
(one Daphne, SQLite in a temporary ``GIN_VAR_DIR``) unless ``DATABASE_URL`` (+ ``REDIS_URL``) select the
production profile (``scripts/serve --production``); ``--url`` uses a running server with the same
``DATABASE_URL``. Output: a tqdm progress bar per level, a table at the end, the JSON results in ``--out``
(default ``var/loadtest/pools-<time>.json``). Exit status 1 when any player was paired twice.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts.lib import loadtest  # noqa: E402

SILENCE_S = 15.0
"""A socket silent this long (no frame at all) counts an error (``timeout_pool`` / ``timeout_match``)."""


# --------------------------------------------------------------------------------------------- figures


def summary(values: Sequence[float], digits: int = 1) -> dict[str, float | int | None]:
    """``{"n", "p50", "p95", "max"}`` of ``values`` (nearest rank, ``loadtest.percentile``), rounded."""
    def r(v: float | None) -> float | None:
        return None if v is None else round(v, digits)

    values = list(values)
    return {"n": len(values), "p50": r(loadtest.percentile(values, 0.5)),
            "p95": r(loadtest.percentile(values, 0.95)), "max": r(max(values) if values else None)}


def players_in_two_matches(matches: Iterable[tuple[int, int | None, float, float | None]]) -> dict[int, int]:
    """``{user id: times}`` for each player who had two matches in play at once.

    ``matches``: ``(player0, player1, start, end)`` of each match (``end`` None: still in play); times in
    seconds on one clock. Two matches of one player overlap when the later one starts before the earlier
    one ends (a match that ends exactly as the next starts does not overlap).
    """
    spans: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for p0, p1, start, end in matches:
        for user in (p0, p1):
            if user is not None:
                spans[user].append((start, float("inf") if end is None else end))
    twice: dict[int, int] = {}
    for user, items in spans.items():
        items.sort()
        latest_end = float("-inf")
        for start, end in items:
            if start < latest_end:
                twice[user] = twice.get(user, 0) + 1
            latest_end = max(latest_end, end)
    return twice


def bad_matches(entries: Iterable[tuple[int, int]]) -> list[int]:
    """Matches whose pool entries are not exactly two, of two distinct players: ``entries`` are
    ``(match id, user id)`` of every paired entry."""
    users: dict[int, list[int]] = defaultdict(list)
    for match_id, user_id in entries:
        users[match_id].append(user_id)
    return sorted(m for m, us in users.items() if len(us) != 2 or us[0] == us[1])


def wave_durations(rows: Iterable[tuple[int, float, float]]) -> list[float]:
    """Each wave's duration (s): ``rows`` are ``(pool id, wave clock, match created)`` of each pairing
    (the wave's clock is the ``ended_at`` it stamped); one wave = one (pool, clock); its duration runs to
    its last match's creation."""
    last: dict[tuple[int, float], float] = {}
    for pool_id, at, created in rows:
        key = (pool_id, at)
        last[key] = max(last.get(key, created), created)
    return [max(0.0, end - at) for (_, at), end in sorted(last.items())]


def rating_gaps(entries: Iterable[tuple[int, float]]) -> list[float]:
    """``|r_a - r_b|`` of each match with two entries: ``entries`` are ``(match id, rating)``."""
    ratings: dict[int, list[float]] = defaultdict(list)
    for match_id, rating in entries:
        ratings[match_id].append(rating)
    return [abs(rs[0] - rs[1]) for _, rs in sorted(ratings.items()) if len(rs) == 2]


def table(levels: list[dict[str, Any]]) -> str:
    """The results as a Markdown table, one row a level."""
    head = ("| players | s | pairings | wait p50 / p95 / max s | gap p50 / p95 | wave p50 / max ms | "
            "paired twice | errors |")
    lines = [head, "|" + "---|" * 8]
    for r in levels:
        w, g, v = r["wait_s"], r["gap"], r["wave_ms"]
        errors = sum(r["errors"].values())
        lines.append(
            f"| {r['players']} | {r['duration_s']} | {r['pairings']} | "
            f"{w['p50']} / {w['p95']} / {w['max']} | {g['p50']} / {g['p95']} | {v['p50']} / {v['max']} | "
            f"{r['paired_twice']} | {errors} |")
    return "\n".join(lines)


def address_of(index: int, per_address: int) -> str:
    """The loopback address player ``index`` connects from: 127.0.0.2 for the first ``per_address``
    players, then 127.0.0.3, ... (up to 127.255.255.254)."""
    n = 2 + index // per_address
    if n > 0xFFFFFE:
        raise ValueError("too many players for 127.0.0.0/8")
    return f"127.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"


# --------------------------------------------------------------------------------------------- seeding


def seed_members(count: int, rng: random.Random) -> list[tuple[int, str, float]]:
    """``count`` members with an established rating and a logged-in session each: ``[(user id, session
    key, rating), ...]``, written straight to the database."""
    from django.utils import timezone

    from accounts.models import User
    from ratings.models import PlayerRating

    run = secrets.token_hex(3)
    users = []
    for i in range(count):
        user = User(username=f"lt-{run}-{i}", display_name=f"Load {run} {i}")
        user.set_unusable_password()
        users.append(user)
    users = User.objects.bulk_create(users)
    now = timezone.now()
    rows = []
    for user in users:
        rating = max(400.0, min(2800.0, rng.gauss(1500, 250)))
        played = rng.randint(10, 60)
        wins = rng.randint(0, played)
        rows.append(PlayerRating(user=user, rating=rating, peak=rating, rated_matches=played, wins=wins,
                                 losses=played - wins, last_rated_at=now))
    PlayerRating.objects.bulk_create(rows)
    return [(u.pk, loadtest.session_key_for(u), r.rating) for u, r in zip(users, rows, strict=True)]


# --------------------------------------------------------------------------------------------- clients


@dataclass
class Stats:
    """What the players of one level saw."""

    waits: list[float] = field(default_factory=list)
    joins: list[float] = field(default_factory=list)  # pool socket opened -> its first frame
    errors: dict[str, int] = field(default_factory=dict)
    pairings_seen: int = 0
    resigned: int = 0
    opponent_first: int = 0
    cancelled: int = 0
    waiting_now: int = 0  # the latest ``waiting`` count any socket heard
    loadavg: list[float] = field(default_factory=list)  # the 1-minute load average, each second

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


def connect_error(where: str, exc: BaseException) -> str:
    """The error code of a socket that failed to open: ``<where>:<exception>``, with the HTTP status of a
    refused handshake (``pool_connect:InvalidStatus:503``)."""
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    return f"{where}:{type(exc).__name__}" + (f":{status}" if status is not None else "")


async def _connect(url: str, client: loadtest.Client, address: str) -> Any:
    from websockets.asyncio.client import connect

    return await connect(url, origin=client.base, additional_headers={"Cookie": client.cookie},  # type: ignore[arg-type]
                         open_timeout=30, max_queue=None, ping_interval=None, local_addr=(address, 0))


async def wait_in_pool(client: loadtest.Client, ws_base: str, slug: str, address: str, stats: Stats,
                       deadline: float) -> int | None:
    """Join the pool and wait for a pairing: the match id, or None (an error, a cancel at ``deadline``)."""
    from websockets.exceptions import ConnectionClosed, WebSocketException

    started = time.monotonic()
    try:
        ws = await _connect(f"{ws_base}/ws/pool/{slug}/", client, address)
    except (OSError, TimeoutError, WebSocketException) as exc:  # refused handshakes too: counted
        stats.error(connect_error("pool_connect", exc))
        return None
    cancelling = False
    first = True
    try:
        while True:
            now = time.monotonic()
            if not cancelling and now >= deadline:
                cancelling = True
                await ws.send(json.dumps({"type": "cancel"}))
            timeout = SILENCE_S if cancelling else min(SILENCE_S, deadline - now)
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout)
            except TimeoutError:
                if cancelling or time.monotonic() < deadline:
                    stats.error("timeout_pool")  # the server sends ``waiting`` every second
                    return None
                continue  # the deadline: cancel
            msg = json.loads(raw)
            kind = msg.get("type")
            if first:
                first = False
                stats.joins.append(time.monotonic() - started)
            if kind == "waiting":
                stats.waiting_now = int(msg.get("waiting", 0))
            elif kind == "paired":
                stats.waits.append(time.monotonic() - started)
                stats.pairings_seen += 1
                if msg.get("bot"):
                    stats.error("paired_with_bot")
                return int(msg["match"])
            elif kind == "left":
                if cancelling and msg.get("reason") == "cancelled":
                    stats.cancelled += 1
                else:
                    stats.error(f"left:{msg.get('reason')}")
                return None
            elif kind == "error":
                stats.error(f"pool:{msg.get('code')}")
                return None
            else:
                stats.error(f"pool_frame:{kind}")
    except ConnectionClosed as exc:
        stats.error(f"pool_closed:{exc.rcvd.code if exc.rcvd else 'none'}")
        return None
    finally:
        await ws.close()


async def resign_at_once(client: loadtest.Client, ws_base: str, match_id: int, address: str,
                         stats: Stats) -> None:
    """Open the table and resign on the first ``state`` of an active match; done when a ``state`` shows
    it over (or ``match_over``: the opponent resigned first)."""
    from websockets.exceptions import ConnectionClosed, WebSocketException

    try:
        ws = await _connect(f"{ws_base}/ws/match/{match_id}/", client, address)
    except (OSError, TimeoutError, WebSocketException) as exc:
        stats.error(connect_error("match_connect", exc))
        return
    sent = False
    try:
        while True:
            try:
                raw = await asyncio.wait_for(ws.recv(), SILENCE_S)
            except TimeoutError:
                stats.error("timeout_match")
                return
            msg = json.loads(raw)
            kind = msg.get("type")
            if kind == "state":
                if msg["match"]["status"] != "active":
                    if not sent:
                        stats.opponent_first += 1
                    return
                if not sent:
                    sent = True
                    await ws.send(json.dumps({"type": "resign", "id": f"r-{secrets.token_hex(4)}"}))
            elif kind == "ack":
                stats.resigned += 1
            elif kind == "error":
                if msg.get("code") == "match_over":
                    stats.opponent_first += 1
                    return
                stats.error(f"match:{msg.get('code')}")
                return
    except ConnectionClosed as exc:
        stats.error(f"match_closed:{exc.rcvd.code if exc.rcvd else 'none'}")
    finally:
        await ws.close()


async def player(client: loadtest.Client, ws_base: str, slug: str, address: str, stats: Stats,
                 start_at: float, deadline: float, pause: tuple[float, float], rng: random.Random) -> None:
    """One player's loop until ``deadline``: wait in the pool, resign the match, pause (uniform in
    ``pause`` seconds), again."""
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    while time.monotonic() < deadline:
        match_id = await wait_in_pool(client, ws_base, slug, address, stats, deadline)
        if match_id is None:
            if time.monotonic() < deadline:
                await asyncio.sleep(1.0)  # after an error: not a tight reconnect loop
            continue
        await resign_at_once(client, ws_base, match_id, address, stats)
        if pause[1] > 0:
            await asyncio.sleep(min(rng.uniform(*pause), max(0.0, deadline - time.monotonic())))


# --------------------------------------------------------------------------------------------- server side


def _seconds(at: datetime | None) -> float | None:
    return None if at is None else at.timestamp()


def server_figures(user_ids: list[int], since: datetime) -> dict[str, Any]:
    """What the database holds of the level: its players' pool entries and matches since ``since``."""
    from django.db.models import Q

    from games.models import Match
    from lobby.models import PoolEntry

    entries = list(PoolEntry.objects.filter(user_id__in=user_ids, joined_at__gte=since).values(
        "pool_id", "user_id", "rating", "status", "joined_at", "ended_at", "match_id"))
    paired = [e for e in entries if e["status"] == "paired" and e["match_id"] is not None]
    matches = {m["id"]: m for m in Match.objects.filter(
        Q(player0_id__in=user_ids) | Q(player1_id__in=user_ids), created_at__gte=since).values(
        "id", "player0_id", "player1_id", "status", "created_at", "finished_at", "updated_at")}
    spans = []
    for m in matches.values():
        end = m["finished_at"] or (m["updated_at"] if m["status"] != "active" else None)
        spans.append((m["player0_id"], m["player1_id"], m["created_at"].timestamp(), _seconds(end)))
    twice = players_in_two_matches(spans)
    bad = bad_matches((e["match_id"], e["user_id"]) for e in paired)
    waves = wave_durations((e["pool_id"], e["ended_at"].timestamp(), matches[e["match_id"]]["created_at"]
                            .timestamp()) for e in paired if e["match_id"] in matches and e["ended_at"])
    per_wave = Counter((e["pool_id"], e["ended_at"]) for e in paired if e["ended_at"])
    return {
        "pairs_per_wave": [n / 2 for n in per_wave.values()],
        "entries_by_status": dict(Counter(e["status"] for e in entries)),
        "pairings": len({e["match_id"] for e in paired}),
        "gaps": rating_gaps((e["match_id"], e["rating"]) for e in paired),
        "server_waits": [(e["ended_at"] - e["joined_at"]).total_seconds() for e in paired if e["ended_at"]],
        "waves": waves,
        "players_in_two_matches": len(twice),
        "bad_matches": bad,
        "matches_by_status": dict(Counter(m["status"] for m in matches.values())),
    }


# --------------------------------------------------------------------------------------------- a level


async def progress_bar(players: int, stats: Stats, started: float, duration: float, stop: asyncio.Event,
                       watch: loadtest.ProcessWatch | None) -> None:
    from tqdm import tqdm

    with tqdm(total=round(duration), desc=f"{players} players", unit="s", dynamic_ncols=True) as bar:
        done = 0
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)
            if watch is not None:
                watch.sample()
            stats.loadavg.append(os.getloadavg()[0])
            now = min(round(duration), int(time.monotonic() - started))
            if now > done:
                bar.update(now - done)
                done = now
            bar.set_postfix(paired=stats.pairings_seen, waiting=stats.waiting_now,
                            errors=sum(stats.errors.values()), refresh=False)


async def run_level(players: int, args: argparse.Namespace, base: str,
                    watch: loadtest.ProcessWatch | None, rng: random.Random) -> dict[str, Any]:
    from asgiref.sync import sync_to_async
    from django.utils import timezone

    print(f"Seeding {players} members ...", flush=True)
    seeded = await sync_to_async(seed_members, thread_sensitive=False)(players, rng)
    ws_base = "ws" + base[len("http"):]
    clients = [loadtest.Client(base, key) for _, key, _ in seeded]
    stats = Stats()
    since = timezone.now()
    if watch is not None:
        watch.start()
    load0 = os.getloadavg()
    started = time.monotonic()
    cpu0 = time.process_time()
    deadline = started + args.duration
    stop = asyncio.Event()
    shown = asyncio.create_task(progress_bar(players, stats, started, args.duration, stop, watch))
    await asyncio.gather(*(
        player(c, ws_base, args.pool, address_of(i, args.per_address), stats,
               started + args.ramp * i / max(1, players), deadline, (args.pause[0], args.pause[1]), rng)
        for i, c in enumerate(clients)))
    wall = time.monotonic() - started
    client_cpu = time.process_time() - cpu0
    stop.set()
    await shown
    processes = watch.stop() if watch is not None else []
    server = await sync_to_async(server_figures, thread_sensitive=False)([u for u, _, _ in seeded], since)
    paired_twice = server["players_in_two_matches"] + len(server["bad_matches"])
    return {
        "players": players, "pool": args.pool, "duration_s": round(wall, 1),
        "pairings": server["pairings"], "pairings_seen_by_clients": stats.pairings_seen,
        "wait_s": summary(stats.waits, 2), "join_s": summary(stats.joins, 2),
        "server_wait_s": summary(server["server_waits"], 2),
        "gap": summary(server["gaps"], 0), "wave_ms": summary([1000 * w for w in server["waves"]], 1),
        "waves_with_pairs": len(server["waves"]), "pairs_per_wave": summary(server["pairs_per_wave"], 1),
        "paired_twice": paired_twice, "players_in_two_matches": server["players_in_two_matches"],
        "bad_matches": server["bad_matches"][:20],
        "resigned": stats.resigned, "opponent_resigned_first": stats.opponent_first,
        "cancelled_at_end": stats.cancelled, "errors": stats.errors,
        "entries_by_status": server["entries_by_status"], "matches_by_status": server["matches_by_status"],
        "processes": processes, "server_cpu_percent": round(sum(p["cpu_percent"] for p in processes), 1),
        "loadavg_before_after": [round(load0[0], 2), round(os.getloadavg()[0], 2)],
        "loadavg_max": round(max(stats.loadavg, default=load0[0]), 2),
        "client_cpu_percent": round(100 * client_cpu / wall, 1),  # this script's own share of a core
    }


# --------------------------------------------------------------------------------------------- main


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/loadtest_pools", description=__doc__.split("\n\n")[0])
    parser.add_argument("levels", nargs="*", type=int, default=[100, 500, 2000],
                        help="players per level (default 100 500 2000)")
    parser.add_argument("--pool", default="50-20-rated", help="the pool's slug (50-20-rated)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds per level (60)")
    parser.add_argument("--pause", type=float, nargs="+", default=[0.0], metavar="S",
                        help="pause after each match before queueing again: LOW HIGH seconds (uniform) or "
                             "one value; default 0 (at once: the saturation test)")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which players start (10)")
    parser.add_argument("--per-address", type=int, default=20,
                        help="players per loopback source address (20; the pool allows 50 sockets an IP)")
    parser.add_argument("--seed", type=int, default=21, help="random seed of the ratings (21)")
    parser.add_argument("--url", help="use this running server (http://host:port) instead of starting one")
    parser.add_argument("--pid", type=int, action="append", default=[],
                        help="with --url: a server process to report CPU/RSS for (repeatable)")
    parser.add_argument("--out", help="JSON results file (default var/loadtest/pools-<time>.json)")
    args = parser.parse_args(argv)
    if len(args.pause) == 1:
        args.pause = [args.pause[0], args.pause[0]]
    if len(args.pause) != 2 or not 0 <= args.pause[0] <= args.pause[1]:
        parser.error("--pause takes LOW HIGH (0 <= LOW <= HIGH) or one value")
    if not args.levels or min(args.levels) < 2:
        parser.error("levels must be integers >= 2")
    if args.duration <= 0 or args.ramp < 0 or args.per_address < 1:
        parser.error("--duration must be > 0, --ramp >= 0, --per-address >= 1")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    profile = "production" if os.environ.get("DATABASE_URL") else "embedded"
    var_dir = None
    if not args.url and profile == "embedded":
        var_dir = tempfile.mkdtemp(prefix="gin-loadtest-pools-")
        os.environ["GIN_VAR_DIR"] = var_dir
    proc = None
    if args.url:
        base = args.url.rstrip("/")
        watch = loadtest.ProcessWatch(args.pid, follow_children=False) if args.pid else None
    else:
        port = loadtest.free_port()
        log = ROOT / "var" / "loadtest" / f"server-{port}.log"
        if profile == "production":
            # The seeded sessions are signed here and read by the server: one SECRET_KEY for both.
            os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
            os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
        what = "scripts/serve --production" if profile == "production" else "Daphne (embedded profile)"
        print(f"Starting {what} on 127.0.0.1:{port} (log: {log}) ...", flush=True)
        proc = loadtest.start_server(port, loadtest.server_env(var_dir), log,
                                     production=profile == "production")
        base = f"http://127.0.0.1:{port}"
        watch = loadtest.ProcessWatch([proc.pid], follow_children=True)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    try:
        rng = random.Random(args.seed)
        meta = {
            "profile": profile, "url": base, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "cpus": os.cpu_count(), "loadavg": [round(x, 2) for x in os.getloadavg()], "pool": args.pool,
            "duration_s": args.duration, "ramp_s": args.ramp, "pause_s": args.pause, "seed": args.seed,
            "command": "scripts/loadtest_pools " + " ".join(argv),
        }
        out = (Path(args.out) if args.out
               else ROOT / "var" / "loadtest" / time.strftime("pools-%Y%m%d-%H%M%S.json"))
        out.parent.mkdir(parents=True, exist_ok=True)
        results: list[dict[str, Any]] = []
        for players in args.levels:
            results.append(asyncio.run(run_level(players, args, base, watch, rng)))
            out.write_text(json.dumps({"meta": meta, "levels": results}, indent=2) + "\n")  # after each level
            r = results[-1]
            print(f"  -> {r['pairings']} pairings, wait p95 {r['wait_s']['p95']} s, gap p95 "
                  f"{r['gap']['p95']}, wave max {r['wave_ms']['max']} ms, paired twice {r['paired_twice']}, "
                  f"errors {r['errors']}", flush=True)
        print(f"\n{profile} profile, pool {args.pool}, {args.duration:g} s a level, "
              f"loadavg at start {meta['loadavg']}")
        print(table(results))
        print(f"\nResults: {out}")
        return 1 if any(r["paired_twice"] for r in results) else 0
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
