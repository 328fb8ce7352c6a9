"""Load test of live play (issue 9): real WebSocket clients each playing matches against a house bot.

Run through ``scripts/loadtest`` (which sets up the venv and import paths); ``--help`` lists the options.
For each level (number of concurrent clients) it runs, in order:

1. the echo baseline: as many clients on ``ws/echo/`` (:mod:`games.echo`), each sending one frame after
   the same think time and timing the echo;
2. the matches: each client is a guest (seeded in the database, logged in by a session cookie) who
   creates a bot match over HTTP (``POST /play/bot/``), opens ``ws/match/<id>/`` and plays it to the end
   (then starts another) until the level's time is up. Before each of its moves it thinks for a uniform
   ``--think`` time. It measures action -> ``ack`` and action -> the first ``state`` at a later seq.

After each level every acknowledged action id is looked up in the event log (``MatchEvent`` with that
match, seat 0, ``msg_id`` and the acked seq): ``lost`` counts the ones missing (must be 0).

The server is started here (on a free port, bot pause and hand pause 0, ``ws/echo/`` on) with the
profile of the environment: embedded (one Daphne, SQLite in a fresh temporary ``GIN_VAR_DIR``, in-memory
channel layer) unless ``DATABASE_URL`` (+ ``REDIS_URL``) select production (``scripts/serve --production``:
its Daphne processes, Celery worker and beat; CPU and RSS are reported for each). ``--url`` uses a running
server instead (started with ``GAMES_BOT_DELAY=0,0 GAMES_HAND_PAUSE=0 GAMES_ECHO_WS=1`` and the same
``DATABASE_URL``, which this script needs for the seeding and the check); ``--pid`` names its processes
for the CPU/RSS figures.

Output: a progress line per second on the terminal, a table at the end, and the JSON results in
``--out`` (default ``var/loadtest/<time>.json``): per level actions/s, ack and state latency
p50/p95/p99/max (ms), errors by code, CPU % (100 = one core) and peak RSS (MiB) per server process, the
acked-vs-stored check, and the echo baseline with the p99 ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --------------------------------------------------------------------------------------------- stats


def percentile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) by nearest rank, or None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))
    return ordered[rank]


def summary_ms(values: list[float]) -> dict[str, float | int | None]:
    """``{"n", "p50", "p95", "p99", "max"}`` of latencies given in seconds, in milliseconds."""
    def ms(v: float | None) -> float | None:
        return None if v is None else round(v * 1000, 1)

    return {
        "n": len(values), "p50": ms(percentile(values, 0.5)), "p95": ms(percentile(values, 0.95)),
        "p99": ms(percentile(values, 0.99)), "max": ms(max(values) if values else None),
    }


@dataclass
class LevelStats:
    """What the clients of one level saw."""

    acks: list[float] = field(default_factory=list)
    states: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    acked: list[tuple[int, str, int]] = field(default_factory=list)  # (match id, msg id, seq)
    acked_at: list[float] = field(default_factory=list)  # monotonic time of each ack, as ``acked``
    errors_at: list[float] = field(default_factory=list)  # monotonic time of each error
    stalls: list[dict[str, Any]] = field(default_factory=list)  # each 15 s silence: what the client knew
    matches_started: int = 0
    matches_finished: int = 0

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1
        self.errors_at.append(time.monotonic())


# --------------------------------------------------------------------------------------------- processes


def _children(pid: int) -> list[int]:
    """``pid`` and all its descendants (from /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(parents.get(p, []))
    return found


def _proc(pid: int) -> tuple[str, float, float] | None:
    """(command, CPU seconds used, RSS MiB) of ``pid``, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            head, rest = fh.read().rsplit(")", 1)
        with open(f"/proc/{pid}/status") as fh:
            rss = next((int(line.split()[1]) for line in fh if line.startswith("VmRSS:")), 0)
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
    except OSError:
        return None
    fields = rest.split()
    cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
    name = " ".join(Path(a.decode()).name if i < 2 else a.decode() for i, a in enumerate(argv[:4]) if a)
    return name or head.split("(", 1)[1], cpu, rss / 1024


class ProcessWatch:
    """CPU % and peak RSS of the server's processes between :meth:`start` and :meth:`stop`."""

    def __init__(self, pids: list[int], follow_children: bool) -> None:
        self.roots = pids
        self.follow = follow_children
        self.cpu0: dict[int, float] = {}
        self.peak: dict[int, float] = {}
        self.t0 = 0.0

    def pids(self) -> list[int]:
        if not self.follow:
            return list(self.roots)
        return sorted({p for root in self.roots for p in _children(root)})

    def start(self) -> None:
        self.t0 = time.monotonic()
        self.cpu0 = {}
        self.peak = {}
        for pid in self.pids():
            info = _proc(pid)
            if info is not None:
                self.cpu0[pid] = info[1]
                self.peak[pid] = info[2]

    def sample(self) -> None:
        for pid in self.pids():
            info = _proc(pid)
            if info is not None:
                self.peak[pid] = max(self.peak.get(pid, 0.0), info[2])
                self.cpu0.setdefault(pid, info[1])

    def stop(self) -> list[dict[str, Any]]:
        wall = max(1e-9, time.monotonic() - self.t0)
        out = []
        for pid in self.pids():
            info = _proc(pid)
            if info is None:
                continue
            name, cpu, rss = info
            used = cpu - self.cpu0.get(pid, cpu)
            out.append({
                "pid": pid, "command": name, "cpu_seconds": round(used, 2),
                "cpu_percent": round(100 * used / wall, 1),
                "rss_mib_peak": round(max(rss, self.peak.get(pid, 0.0)), 1),
            })
        return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(var_dir: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "GAMES_BOT_DELAY": "0,0", "GAMES_HAND_PAUSE": "0", "GAMES_ECHO_WS": "1", "DEBUG": "0",
        "SECURE_COOKIES": "0", "LOG_LEVEL": env.get("LOG_LEVEL", "WARNING"),
    })
    if var_dir is not None:
        env["GIN_VAR_DIR"] = var_dir
    return env


def start_server(port: int, env: dict[str, str], log: Path, *, production: bool) -> subprocess.Popen[bytes]:
    """Start the site on ``port`` (its output to ``log``); returns once it accepts connections.

    Embedded: migrate, create the house bots, one Daphne (it drives the bots' moves itself). Production:
    ``scripts/serve --production``, the whole profile as deployed: ``DAPHNE_PROCESSES`` Daphne
    processes on the one port (default one per core; they make the bots' moves of levels 1-4
    themselves), the Celery worker (level-5 bots, ratings) and beat (the sweeps)."""
    py = sys.executable
    log.parent.mkdir(parents=True, exist_ok=True)
    if production:
        command = [str(ROOT / "scripts" / "serve"), "--production"]
        env = {**env, "PORT": str(port), "HOST": "127.0.0.1"}
    else:
        subprocess.run([py, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        subprocess.run([py, "manage.py", "ensure_house_bots"], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        command = [str(Path(py).parent / "daphne"), "-b", "127.0.0.1", "-p", str(port),
                   "config.asgi:application"]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True, stdout=out, stderr=out)
    for _ in range(1200 if production else 300):  # serve migrates and starts the worker first
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return proc
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode} (log: {log})")
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    raise SystemExit(f"the server did not start listening in time (log: {log})")


# --------------------------------------------------------------------------------------------- seeding


def session_key_for(user: Any) -> str:
    """A new logged-in session of ``user`` (written straight to the database); its key."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    model_backend = "django.contrib.auth.backends.ModelBackend"
    backends = list(settings.AUTHENTICATION_BACKENDS)
    session = SessionStore()
    session[SESSION_KEY] = user._meta.pk.value_to_string(user)
    session[BACKEND_SESSION_KEY] = model_backend if model_backend in backends else backends[-1]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key or ""


def seed_guests(count: int) -> list[tuple[int, str]]:
    """``count`` guest users with a logged-in session each: ``[(user id, session key), ...]`` (written
    straight to the database: the site's guest endpoint is throttled per IP)."""
    from accounts.services import guest_create

    out = []
    for _ in range(count):
        guest = guest_create()
        out.append((guest.pk, session_key_for(guest)))
    return out


def stall_rows(stalls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each stall (a client's 15 s silence) with its match's row as stored now: whether the move it
    waited for was made (``last_seq`` past the client's) and is still due (``server_move_at``)."""
    from games.models import Match

    rows = {m["id"]: m for m in Match.objects.filter(id__in=[s["match"] for s in stalls]).values(
        "id", "status", "last_seq", "server_move_at")}
    return [{**stall, "stored_last_seq": rows.get(stall["match"], {}).get("last_seq"),
             "stored_server_move_at": str(rows.get(stall["match"], {}).get("server_move_at"))}
            for stall in stalls]


def stored_check(acked: list[tuple[int, str, int]]) -> dict[str, int]:
    """How many acknowledged (match, msg id, seq) are in the event log (seat 0, that id, that seq)."""
    from games.models import MatchEvent

    stored: set[tuple[int, str, int]] = set()
    match_ids = sorted({m for m, _, _ in acked})
    for i in range(0, len(match_ids), 500):
        rows = MatchEvent.objects.filter(match_id__in=match_ids[i:i + 500], seat=0).exclude(msg_id="")
        stored.update(rows.values_list("match_id", "msg_id", "seq"))
    missing = [a for a in acked if a not in stored]
    return {"acked": len(acked), "stored": len(acked) - len(missing), "lost": len(missing)}


# --------------------------------------------------------------------------------------------- clients


class Client:
    """One guest with a session cookie."""

    def __init__(self, base: str, session_key: str) -> None:
        from django.conf import settings

        self.base = base
        self.csrf = secrets.token_hex(16)  # any 32-character secret is a valid CSRF cookie + token pair
        self.cookie = f"{settings.SESSION_COOKIE_NAME}={session_key}; {settings.CSRF_COOKIE_NAME}={self.csrf}"

    def create_match(self, level: int, target: int, rated: bool = False) -> int:
        """``POST /play/bot/``; returns the new match's id (from the redirect to its table). ``rated``:
        a member's Rated choice (casual by default, as the form's; a guest's match is casual anyway).

        :raises RuntimeError: any answer other than that redirect.
        """
        from urllib.parse import urlencode

        fields = {"level": level, "preset": "classic", "target": target, "csrfmiddlewaretoken": self.csrf}
        if rated:
            fields["rated"] = "on"
        body = urlencode(fields).encode()
        request = urllib.request.Request(
            f"{self.base}/play/bot/", data=body, method="POST",
            headers={"Cookie": self.cookie, "Content-Type": "application/x-www-form-urlencoded"},
        )

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: Any, **kwargs: Any) -> None:
                return None

        opener = urllib.request.build_opener(NoRedirect)
        try:
            response = opener.open(request, timeout=30)
            status, location = response.status, response.headers.get("Location", "")
        except urllib.error.HTTPError as exc:
            status, location = exc.code, exc.headers.get("Location", "")
        if status != 302 or "/match/" not in location:
            raise RuntimeError(f"create: HTTP {status}")
        return int(location.rstrip("/").rsplit("/", 1)[1])


def choose(hand: dict[str, Any]) -> str:
    """A decent move from ``state.hand``: knock at the least deadwood, pass the upcard, draw the stock,
    else discard the card leaving the least deadwood."""
    legal = hand["legal_actions"]
    after = hand.get("deadwood_if_discarded") or {}
    knocks = [a for a in legal if a.startswith("knock") or a.startswith("gin")]
    if knocks:
        return "knock" if "knock" in knocks else min(knocks, key=lambda a: after.get(a.split()[-1], 99))
    for simple in ("pass", "draw stock"):
        if simple in legal:
            return simple
    discards = [a for a in legal if a.startswith("discard")] or legal
    return min(discards, key=lambda a: (after.get(a.split()[-1], 99), a))


@dataclass
class Pace:
    low: float
    high: float

    def think(self) -> float:
        return random.uniform(self.low, self.high) if self.high > 0 else 0.0


async def open_socket(client: Client, ws_base: str, match_id: int, open_timeout: float = 30) -> Any:
    """Open ``ws/match/<id>/`` as ``client``: the connection (``websockets``)."""
    from websockets.asyncio.client import connect

    return await connect(f"{ws_base}/ws/match/{match_id}/", origin=client.base,  # type: ignore[arg-type]
                         additional_headers={"Cookie": client.cookie}, open_timeout=open_timeout,
                         max_queue=None, ping_interval=None)


async def open_match(client: Client, ws_base: str, args: argparse.Namespace) -> tuple[int, Any]:
    """Create a bot match over HTTP and open its socket: ``(match id, connection)``."""
    match_id = await asyncio.to_thread(client.create_match, args.bot_level, args.target)
    return match_id, await open_socket(client, ws_base, match_id)


async def play_matches(
    client: Client, ws_base: str, stats: LevelStats, pace: Pace, deadline: float, args: argparse.Namespace,
    first: tuple[int, Any] | None,
) -> None:
    """Play bot matches until ``deadline`` (the match in play then is left unfinished): ``first`` (opened
    before the level's clock started), then new ones created over HTTP as each ends."""
    opened = first
    while time.monotonic() < deadline:
        if opened is None:
            try:
                opened = await open_match(client, ws_base, args)
            except Exception as exc:
                stats.error(f"open:{type(exc).__name__}:{exc}"[:80])
                await asyncio.sleep(1)
                continue
        match_id, ws = opened
        opened = None
        stats.matches_started += 1
        try:
            if await play_one(ws, match_id, stats, pace, deadline):
                stats.matches_finished += 1
        except Exception as exc:
            stats.error(f"socket:{type(exc).__name__}")
            await asyncio.sleep(0.5)
        finally:
            await ws.close()


ERROR_BACKOFF_S = 0.5
"""After an error frame the client waits this long before its ``sync`` (a server that fails every call,
e.g. with its database down, is asked twice a second, not in a tight loop)."""


TIMEOUT_CODES = {
    "timeout": "a frame of its own (an action or a sync) had no answer",
    "timeout_after_ack": "its action was acknowledged but the new state never came",
    "timeout_idle": "nothing of its own in flight: the other side's move never came",
}
"""The error codes :func:`play_one` counts when 15 s pass without a frame, by what it was waiting for."""


def timeout_code(syncing: bool, pending: dict[str, Any]) -> str:
    """Which of :data:`TIMEOUT_CODES` a 15 s silence is: ``syncing`` (a sync unanswered), ``pending``
    (the action in flight, with ``acked``; empty once a newer state came)."""
    if syncing or (pending and not pending.get("acked")):
        return "timeout"
    return "timeout_after_ack" if pending else "timeout_idle"


async def play_one(ws: Any, match_id: int, stats: LevelStats, pace: Pace, deadline: float,
                   stop_after: int | None = None) -> bool:
    """Play one match on ``ws``; True when it ended (False: the deadline came first, or ``stop_after``
    actions were acknowledged and it is this player's turn again)."""
    n = 0
    acks = 0
    acted_seq = -1
    pending: dict[str, Any] = {}  # the action in flight: id, sent_at, seq, acked
    syncing = False  # a sync of ours is unanswered (no state or error since)
    last_seq, your_turn = -1, False  # of the latest state received (for a stall's record)
    while True:
        timeout = 15.0
        try:
            raw = await asyncio.wait_for(ws.recv(), timeout)
        except TimeoutError:
            stats.error(timeout_code(syncing, pending))
            stats.stalls.append({"match": match_id, "code": timeout_code(syncing, pending),
                                 "last_state_seq": last_seq, "your_turn": your_turn,
                                 "pending_from_seq": pending.get("seq"), "acked": pending.get("acked")})
            await ws.send(json.dumps({"type": "sync"}))
            syncing = True
            pending.clear()
            acted_seq = -1
            continue
        now = time.monotonic()
        msg = json.loads(raw)
        kind = msg.get("type")
        if kind in ("state", "error"):
            syncing = False
        if kind == "ack":
            if pending and msg.get("id") == pending["id"]:
                stats.acks.append(now - pending["sent_at"])
                stats.acked.append((match_id, pending["id"], msg["seq"]))
                stats.acked_at.append(now)
                pending["acked"] = True
                acks += 1
            continue
        if kind == "error":
            stats.error(msg.get("code", "?"))
            pending.clear()
            acted_seq = -1
            await asyncio.sleep(ERROR_BACKOFF_S)
            await ws.send(json.dumps({"type": "sync"}))
            syncing = True
            continue
        if kind != "state":
            continue
        last_seq, your_turn = msg["seq"], bool((msg.get("hand") or {}).get("your_turn"))
        if pending and msg["seq"] > pending["seq"]:
            stats.states.append(now - pending["sent_at"])
            if not pending.get("acked"):
                pending["state_first"] = True
            pending.clear()
        if msg["match"]["status"] != "active":
            return True
        hand = msg.get("hand")
        if not hand or not hand["your_turn"] or msg["seq"] == acted_seq or pending:
            continue
        if time.monotonic() >= deadline or (stop_after is not None and acks >= stop_after):
            return False
        think = pace.think()
        if think:
            await asyncio.sleep(think)
        n += 1
        acted_seq = msg["seq"]
        msg_id = f"a{n}-{secrets.token_hex(3)}"
        pending.update(id=msg_id, sent_at=time.monotonic(), seq=msg["seq"], acked=False)
        await ws.send(json.dumps({"type": "action", "id": msg_id, "seq": msg["seq"], "action": choose(hand)}))


async def echo_client(ws_base: str, origin: str, stats: LevelStats, pace: Pace, deadline: float) -> None:
    """Send a small frame after each think time and time its echo, until ``deadline``."""
    from websockets.asyncio.client import connect

    try:
        async with connect(f"{ws_base}/ws/echo/", origin=origin, open_timeout=30,  # type: ignore[arg-type]
                           ping_interval=None) as ws:
            n = 0
            while time.monotonic() < deadline:
                await asyncio.sleep(pace.think())
                n += 1
                frame = json.dumps({"type": "action", "id": f"e{n}", "seq": n, "action": "draw stock"})
                sent = time.monotonic()
                await ws.send(frame)
                await asyncio.wait_for(ws.recv(), 15)
                stats.acks.append(time.monotonic() - sent)
    except Exception as exc:
        stats.error(f"echo:{type(exc).__name__}")


async def progress(label: str, stats: LevelStats, watch: ProcessWatch | None, started: float,
                   stop: asyncio.Event) -> None:
    last = 0
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)
        if watch is not None:
            watch.sample()
        n = len(stats.acks)
        recent = stats.acks[last:]
        last = n
        p99 = percentile(recent, 0.99)
        errors = sum(stats.errors.values())
        print(f"\r  {label}: {time.monotonic() - started:5.1f} s  {n} acks  ({len(recent)}/s)"
              f"  last-second p99 {0 if p99 is None else p99 * 1000:6.1f} ms  errors {errors}   ",
              end="", flush=True)
    print()


async def run_level(level: int, args: argparse.Namespace, sessions: list[tuple[int, str]], base: str,
                    watch: ProcessWatch | None) -> dict[str, Any]:
    ws_base = "ws" + base[len("http"):]
    pace = Pace(*args.think)
    result: dict[str, Any] = {"level": level, "think_s": list(args.think)}

    # The echo baseline: same clients, same think time, one frame per think.
    echo = LevelStats()
    stop = asyncio.Event()
    started = time.monotonic()
    deadline = started + args.echo_duration
    shown = asyncio.create_task(progress(f"echo  x{level}", echo, None, started, stop))
    await asyncio.gather(*(echo_client(ws_base, base, echo, pace, deadline) for _ in range(level)))
    stop.set()
    await shown
    echo_wall = time.monotonic() - started
    result["echo"] = {"messages_per_s": round(len(echo.acks) / echo_wall, 1), "rtt_ms": summary_ms(echo.acks),
                      "errors": echo.errors}

    # The matches: the first one of each client is created and its socket opened before the clock starts
    # (Django runs the create view on one thread: a storm of creates would be measured, not play).
    stats = LevelStats()
    clients = [Client(base, key) for _, key in sessions[:level]]
    print(f"  opening {level} matches ...", flush=True)
    gate = asyncio.Semaphore(8)

    async def opening(client: Client) -> tuple[int, Any] | None:
        async with gate:
            try:
                return await open_match(client, ws_base, args)
            except Exception as exc:
                stats.error(f"open:{type(exc).__name__}:{exc}"[:80])
                return None

    firsts = await asyncio.gather(*(opening(c) for c in clients))
    stop = asyncio.Event()
    if watch is not None:
        watch.start()
    load0 = os.getloadavg()
    started = time.monotonic()
    deadline = started + args.duration
    shown = asyncio.create_task(progress(f"match x{level}", stats, watch, started, stop))

    async def staggered(i: int, client: Client) -> None:
        await asyncio.sleep(args.ramp * i / max(1, level))
        await play_matches(client, ws_base, stats, pace, deadline, args, firsts[i])

    await asyncio.gather(*(staggered(i, c) for i, c in enumerate(clients)))
    stop.set()
    await shown
    wall = time.monotonic() - started
    processes = watch.stop() if watch is not None else []
    check = await asyncio.to_thread(stored_check, stats.acked)
    result.update({
        "duration_s": round(wall, 1),
        "actions": len(stats.acks),
        "actions_per_s": round(len(stats.acks) / wall, 1),
        "ack_ms": summary_ms(stats.acks),
        "state_ms": summary_ms(stats.states),
        "errors": stats.errors,
        "matches_started": stats.matches_started,
        "matches_finished": stats.matches_finished,
        "processes": processes,
        "server_cpu_percent": round(sum(p["cpu_percent"] for p in processes), 1),
        "loadavg_before_after": [round(load0[0], 2), round(os.getloadavg()[0], 2)],
        "stored_check": check,
        "stalls": await asyncio.to_thread(stall_rows, stats.stalls),
    })
    ack99, echo99 = result["ack_ms"]["p99"], result["echo"]["rtt_ms"]["p99"]
    result["ack_p99_over_echo_p99"] = round(ack99 / echo99, 2) if ack99 and echo99 else None
    return result


def table(results: list[dict[str, Any]]) -> str:
    head = ("| matches | actions/s | ack p50 / p95 / p99 / max ms | state p50 / p99 ms | echo p99 ms | "
            "errors | lost | server CPU % |")
    lines = [head, "|" + "---|" * 8]
    for r in results:
        a, s = r["ack_ms"], r["state_ms"]
        lines.append(
            f"| {r['level']} | {r['actions_per_s']} | {a['p50']} / {a['p95']} / {a['p99']} / {a['max']} | "
            f"{s['p50']} / {s['p99']} | {r['echo']['rtt_ms']['p99']} | {sum(r['errors'].values())} | "
            f"{r['stored_check']['lost']} | {r['server_cpu_percent']} |"
        )
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/loadtest", description=__doc__.split("\n\n")[0])
    parser.add_argument("levels", nargs="*", type=int, default=[50, 200, 500],
                        help="concurrent matches per level (default 50 200 500)")
    parser.add_argument("--think", type=float, nargs="+", default=[1.0, 3.0], metavar="S",
                        help="think time before each human move: LOW HIGH seconds (uniform), or one value "
                             "(0 = no pause: the saturation point); default 1 3")
    parser.add_argument("--duration", type=float, default=40.0, help="seconds of play per level (40)")
    parser.add_argument("--echo-duration", type=float, default=12.0, help="seconds of echo per level (12)")
    parser.add_argument("--ramp", type=float, default=2.0,
                        help="seconds over which clients start playing their first match (2)")
    parser.add_argument("--bot-level", type=int, default=1, help="house bot level 1..5 (1)")
    parser.add_argument("--target", type=int, default=50, choices=(50, 100), help="match target (50)")
    parser.add_argument("--url", help="use this running server (http://host:port) instead of starting one")
    parser.add_argument("--pid", type=int, action="append", default=[],
                        help="with --url: a server process to report CPU/RSS for (repeatable)")
    parser.add_argument("--out", help="JSON results file (default var/loadtest/<time>.json)")
    args = parser.parse_args(argv)
    if len(args.think) == 1:
        args.think = [args.think[0], args.think[0]]
    if len(args.think) != 2 or args.think[0] > args.think[1] or args.think[0] < 0:
        parser.error("--think takes LOW HIGH (0 <= LOW <= HIGH) or one value")
    if not args.levels or min(args.levels) < 1:
        parser.error("levels must be positive integers")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    profile = "production" if os.environ.get("DATABASE_URL") else "embedded"
    var_dir = None
    if not args.url and profile == "embedded":
        var_dir = tempfile.mkdtemp(prefix="gin-loadtest-")
        os.environ["GIN_VAR_DIR"] = var_dir
    proc = None
    if args.url:
        base = args.url.rstrip("/")
        watch = ProcessWatch(args.pid, follow_children=False) if args.pid else None
    else:
        port = free_port()
        log = ROOT / "var" / "loadtest" / f"server-{port}.log"
        if profile == "production":
            # The seeded sessions are signed here and read by the server: one SECRET_KEY for both.
            os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
            os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
        what = "scripts/serve --production" if profile == "production" else "Daphne (embedded profile)"
        print(f"Starting {what} on 127.0.0.1:{port} (log: {log}) ...", flush=True)
        proc = start_server(port, server_env(var_dir), log, production=profile == "production")
        base = f"http://127.0.0.1:{port}"
        watch = ProcessWatch([proc.pid], follow_children=True)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    try:
        print(f"Seeding {max(args.levels)} guests ...", flush=True)
        sessions = seed_guests(max(args.levels))
        results = []
        meta = {
            "profile": profile, "url": base, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "cpus": os.cpu_count(), "loadavg": [round(x, 2) for x in os.getloadavg()],
            "think_s": args.think, "duration_s": args.duration, "bot_level": args.bot_level,
            "target": args.target, "command": "scripts/loadtest " + " ".join(argv),
        }
        out = Path(args.out) if args.out else ROOT / "var" / "loadtest" / time.strftime("%Y%m%d-%H%M%S.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        for level in args.levels:
            print(f"Level {level} ({args.think[0]}-{args.think[1]} s think) ...", flush=True)
            results.append(asyncio.run(run_level(level, args, sessions, base, watch)))
            out.write_text(json.dumps({"meta": meta, "levels": results}, indent=2) + "\n")  # after each level
            r = results[-1]
            print(f"  -> {r['actions_per_s']} actions/s, ack p99 {r['ack_ms']['p99']} ms, state p99 "
                  f"{r['state_ms']['p99']} ms, echo p99 {r['echo']['rtt_ms']['p99']} ms, errors "
                  f"{sum(r['errors'].values())}, lost {r['stored_check']['lost']}", flush=True)
            for stall in r["stalls"]:
                print(f"     stall: {stall}", flush=True)
        print()
        think = f"{args.think[0]}-{args.think[1]} s"
        print(f"{profile} profile, think {think}, loadavg at start {meta['loadavg']}")
        print(table(results))
        print(f"\nResults: {out}")
        bad = any(r["stored_check"]["lost"] for r in results)
        return 1 if bad else 0
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
