"""The production profile under faults (issue 14): ``scripts/faults [SCENARIO ...] [--json FILE]``.

Starts a PostgreSQL cluster and a Redis of its own (``scripts/lib/fault_servers.py``: free ports, one
temporary directory, never the machine's shared servers), then ``scripts/serve --production`` on them
(``DAPHNE_PROCESSES=2`` on one port, one realtime Celery worker with 2 pool processes, one background
worker, one beat), and runs each scenario with real WebSocket clients: guests playing whole bot
matches (``scripts/lib/loadtest.py``'s client, which reconnects here to the same match when its socket
drops). Scenarios (default: all, in this order):

- ``daphne_kill``: ``kill -9`` of the Daphne process holding a table whose turn timer is running,
  mid-hand. Its clients reconnect (to the other process, or the one ``shared_port.py`` restarted); the timer's
  automatic move is still played at the deadline (a Celery countdown task: no Daphne involved).
- ``pool_kill_rating``: the pool process running ``ratings.rate_pending`` is killed inside its
  transaction (changes inserted, players' rows locked: the test hook ``infra.fault_points``); the
  worker starts a new pool process and the task, given back to the queue, runs again: each match rated
  exactly once.
- ``pool_kill_pairing``: the same inside ``tournaments.round_pair`` (round, matches and pairings
  inserted, tournament row locked); beat's ``tournaments.advance`` pairs the round again, exactly once.
- ``worker_kill_pairing``, ``worker_kill_rating``: the same two, but the whole worker is killed (its
  process group: main process and pool); ``scripts/serve`` starts a new one 2 s later, and the sweeps
  (``tournaments.advance``; ``ratings.sweep_unrated``, a minute or two) do the work, exactly once.
- ``redis_restart``: Redis is SIGKILLed and restarted empty (no persistence: queued Celery messages,
  channel groups and cache are gone) while matches are played and rated matches have just finished;
  play resumes, the ratings are recovered by ``ratings.sweep_unrated`` and a tournament that was due
  by ``tournaments.advance``, each exactly once.
- ``postgres_restart``: PostgreSQL stopped as after a crash (``pg_ctl stop -m immediate``), kept down a
  few seconds, started again: every frame meanwhile is answered (an ``error`` frame, never silence),
  ``/healthz``, ``/`` and the API answer 503, a new socket gets the error ``server_unavailable`` and
  close 4503, and play resumes.

Figures per scenario: acknowledged moves (acks the clients received), stored (of those, found in the
event log at their seq with their message id), events (rows in the event log of the scenario's
matches), lost (acknowledged but not stored: must be 0), down (seconds the component was away), resume
(seconds from the fault until every client had an action acknowledged again; for the worker kills,
until the work was done), and PASS/FAIL with the reason. Exit status 1 if any scenario failed.
``--json FILE`` writes the results (``tests/faults`` read it).

Needs ``redis-server`` and PostgreSQL's server programs (``initdb``, ``pg_ctl``; run as the ``postgres``
OS user when this is root). About 6 minutes for all scenarios, most of it waiting for the sweeps
(``ratings.sweep_unrated`` runs every 60 s for matches finished over a minute ago). docs/faults.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import faulthandler
import json
import math
import os
import secrets
import signal
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts.lib import loadtest  # noqa: E402
from scripts.lib.fault_servers import (  # noqa: E402
    Postgres,
    Redis,
    Serve,
    free_port,
    missing_binaries,
    socket_owner,
)

SCENARIOS = ("daphne_kill", "pool_kill_rating", "pool_kill_pairing", "worker_kill_pairing",
             "worker_kill_rating", "redis_restart", "postgres_restart")
PLAYERS = 6
"""Guests playing bot matches in each live-play scenario (``--players``)."""
PACE = loadtest.Pace(0.3, 0.8)
"""Think time before each move (s): a few actions per second in all, light on a shared 2-core machine."""
BOT_DELAY = "0.2,0.5"
WARMUP_S = 3.0
AFTER_S = 2.0
"""Play goes on this long after every client resumed, then the clients stop."""
RESUME_BOUND_S = 90.0
"""A client that has no acknowledged action this long after the fault counts as not resumed (FAIL)."""
SWEEP_BOUND_S = 200.0
"""Longest wait for work a sweep must recover (``ratings.sweep_unrated``: up to 60 s + 60 s)."""
OUTAGE_S = 3.0
"""How long Redis and PostgreSQL stay down."""
TIMER_S = 15
"""The timer table's turn timer (the shortest allowed)."""
STOP_BOUND_S = 20.0
"""Longest wait for a crowd's clients to stop (``Crowd.stop``)."""
TALLY_BOUND_S = 60.0
"""Longest wait for each of a tally's database reads (``Crowd.tally``)."""
SCENARIO_BOUND_S = 400.0
"""A scenario still running after this long is stopped and FAILs; every thread's stack is printed a
little before, to show where it waits."""


# --------------------------------------------------------------------------------------------- results


@dataclass
class Result:
    """One scenario's figures (see the module docstring) and its verdict."""

    scenario: str
    acked: int | None = None  # None: not counted (a scenario that timed out before its tally)
    stored: int | None = None
    events: int | None = None
    lost: int | None = None
    down_s: float | None = None
    resume_s: float | None = None
    details: dict[str, Any] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def check(self, ok: bool, what: str) -> None:
        """Record ``what`` as a failure unless ``ok``."""
        if not ok:
            self.failures.append(what)

    @property
    def passed(self) -> bool:
        return not self.failures


def seconds(value: float | None) -> str:
    """A duration as shown: 1 decimal, "-" for None (not measured)."""
    return "-" if value is None else f"{value:.1f}"


def count(value: int | None) -> str:
    """A count as shown: "unknown" for None (not counted: a FAIL row never reads "lost 0" then)."""
    return "unknown" if value is None else str(value)


def summary(r: Result) -> str:
    """The per-scenario line: ``PASS  acked 43, stored 43, events 81, lost 0, down 5.2, resume 10.4``."""
    return (f"{'PASS' if r.passed else 'FAIL'}  acked {count(r.acked)}, stored {count(r.stored)}, "
            f"events {count(r.events)}, lost {count(r.lost)}, down {seconds(r.down_s)}, "
            f"resume {seconds(r.resume_s)}")


def table(results: list[Result]) -> str:
    lines = ["| scenario | acked moves | stored | events | lost | down s | resume s | result |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        verdict = "PASS" if r.passed else "FAIL: " + "; ".join(r.failures)
        lines.append(f"| {r.scenario} | {count(r.acked)} | {count(r.stored)} | {count(r.events)} | "
                     f"{count(r.lost)} | {seconds(r.down_s)} | {seconds(r.resume_s)} | {verdict} |")
    return "\n".join(lines)


_STARTED: list[Result] = []  # every Result a scenario made, so a timed-out one still reports its figures


def started(result: Result) -> Result:
    """Register ``result`` as its scenario's (see :func:`figures_so_far`); returns it."""
    _STARTED.append(result)
    return result


def figures_so_far(name: str, failure: str) -> Result:
    """The Result of scenario ``name`` as far as it got (a fresh one if it made none), failed with
    ``failure``; counts it never reached stay None ("unknown"), except the acknowledgements its clients
    saw, counted client-side (``details["acked_client_side"]``)."""
    mine = [r for r in _STARTED if r.scenario == name]
    result = mine[-1] if mine else Result(name)
    result.failures.append(failure)
    crowds = [c for c in _CROWDS if c.scenario == name]
    if crowds and result.acked is None:
        result.details["acked_client_side"] = sum(len(p.stats.acked) for c in crowds for p in c.players)
    return result


# --------------------------------------------------------------------------------------------- the site


class Site:
    """Own PostgreSQL + Redis, and ``scripts/serve --production`` on them (see the module docstring)."""

    def __init__(self, base: Path, players: int = PLAYERS) -> None:
        self.base = base
        self.players = players
        self.pg = Postgres(base)
        self.redis = Redis(base)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.fault_dir = base / "fault-points"
        self.serve: Serve | None = None

    def up(self) -> None:
        self.fault_dir.mkdir()
        self.pg.init()
        self.pg.start()
        self.pg.createdb("gin")
        self.redis.start()
        common = {
            "DATABASE_URL": self.pg.url("gin"), "REDIS_URL": self.redis.url(0),
            "SECRET_KEY": secrets.token_urlsafe(40), "ALLOWED_HOSTS": "127.0.0.1", "SECURE_COOKIES": "0",
            "DEBUG": "0", "GAMES_BOT_DELAY": BOT_DELAY, "GAMES_HAND_PAUSE": "0",
            "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "WARNING",
        }
        serve_env = {
            **common, "PORT": str(self.port), "HOST": "127.0.0.1", "DAPHNE_PROCESSES": "2",
            "CELERY_WORKERS": "1", "CELERY_CONCURRENCY": "2", "CELERY_BACKGROUND_WORKERS": "1",
            "GIN_VAR_DIR": str(self.base / "var"),
            "GIN_FAULT_DIR": str(self.fault_dir), "GIN_FAULT_PAUSE_S": "120", "STOP_TIMEOUT": "15",
        }
        os.environ.update(common)  # this process's own Django: seeding and counting rows
        os.environ.pop("GIN_FAULT_DIR", None)
        self.serve = Serve(serve_env, self.base / "serve.log")
        self.serve.start()
        import django

        django.setup()

    def down(self) -> None:
        if self.serve is not None:
            self.serve.stop()
        self.redis.kill()
        if self.pg.dir.exists():
            self.pg.stop("immediate")

    def arm(self, point: str) -> None:
        """Arm the test hook ``point`` (``infra.fault_points``) for the next process that reaches it
        (the marks of earlier armings are removed first: :meth:`wait_paused` must not find them)."""
        for old in self.fault_dir.glob(f"{point}.*"):
            old.unlink()
        (self.fault_dir / f"{point}.armed").touch()

    def wait_paused(self, point: str, timeout: float) -> int:
        """The pid of the process paused at ``point`` (once it got there).

        :raises TimeoutError: nobody reached it within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for path in self.fault_dir.glob(f"{point}.*"):
                if path.suffix[1:].isdigit():
                    return int(path.suffix[1:])
            time.sleep(0.05)
        raise TimeoutError(f"no process reached the fault point {point} within {timeout:g} s")

    def get(self, path: str, timeout: float = 10) -> tuple[int, float, str]:
        """``GET path``: (HTTP status, seconds it took, body); status 0 when no answer came at all."""
        started = time.monotonic()
        body = b""
        try:
            with urllib.request.urlopen(self.url + path, timeout=timeout) as response:
                status, body = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
        except OSError:
            status = 0
        return status, time.monotonic() - started, body.decode(errors="replace")

    def failing(self) -> list[str] | None:
        """The parts ``/healthz`` names as failing (``[]``: healthy), or None without a JSON answer. (On a
        fresh database ``beat`` fails for its first 3 minutes: beat records its ticks that often.)"""
        status, _, body = self.get("/healthz")
        try:
            return list(json.loads(body)["failing"]) if status in (200, 503) else None
        except (ValueError, KeyError, TypeError):
            return None


# --------------------------------------------------------------------------------------------- database


def db(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Awaitable[Any]:
    """Run the ORM call ``fn`` in a thread, its connection closed after (the server may restart)."""
    def call() -> Any:
        from django.db import connections

        try:
            return fn(*args, **kwargs)
        finally:
            connections.close_all()

    return asyncio.to_thread(call)


def members(count: int, tag: str) -> list[tuple[Any, str]]:
    """``count`` new registered users (rated play, tournaments) with a session each: ``[(user, key)]``."""
    from accounts.models import User

    out = []
    for _ in range(count):
        user = User.objects.create_user(username=f"{tag}-{secrets.token_hex(4)}")
        out.append((user, loadtest.session_key_for(user)))
    return out


def event_count(match_ids: list[int]) -> int:
    from games.models import MatchEvent

    return MatchEvent.objects.filter(match_id__in=match_ids).count()


# --------------------------------------------------------------------------------------------- clients


@dataclass
class Player:
    """One client: a guest (or member) with a session, playing bot matches; one task."""

    client: loadtest.Client
    stats: loadtest.LevelStats = field(default_factory=loadtest.LevelStats)
    match_ids: list[int] = field(default_factory=list)
    drops: list[float] = field(default_factory=list)  # monotonic times its socket closed under it
    local_port: int | None = None  # of its current socket
    stopping: bool = False  # set by Crowd.stop: the loop ends even if a cancellation was swallowed

    def first_ack_after(self, moment: float) -> float | None:
        return next((t for t in self.stats.acked_at if t >= moment), None)


async def keep_playing(player: Player, ws_base: str) -> None:
    """Play bot matches one after another until cancelled; a dropped socket is reopened on the same
    match (0.2 s later, then every 0.3 s while it fails)."""
    match_id: int | None = None
    while not player.stopping:
        if match_id is None:
            try:
                match_id = await asyncio.to_thread(player.client.create_match, 1, 50)
            except Exception as exc:
                player.stats.error(f"create:{type(exc).__name__}")
                await asyncio.sleep(0.5)
                continue
            player.match_ids.append(match_id)
            player.stats.matches_started += 1
        try:
            ws = await loadtest.open_socket(player.client, ws_base, match_id, open_timeout=10)
        except Exception as exc:
            player.stats.error(f"connect:{type(exc).__name__}")
            await asyncio.sleep(0.3)
            continue
        player.local_port = ws.local_address[1]
        try:
            if await loadtest.play_one(ws, match_id, player.stats, PACE, math.inf):
                player.stats.matches_finished += 1
                match_id = None
        except Exception as exc:  # the socket closed under it (websockets' ConnectionClosed)
            player.drops.append(time.monotonic())
            player.stats.error(f"socket:{type(exc).__name__}")
            await asyncio.sleep(0.2)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 2)


_CROWDS: list[Crowd] = []


class Crowd:
    """``count`` guests playing bot matches (:func:`keep_playing`) while a scenario runs."""

    def __init__(self, site: Site, count: int, scenario: str = "") -> None:
        self.site = site
        self.count = count
        self.scenario = scenario
        self.players: list[Player] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.stuck = 0
        _CROWDS.append(self)

    async def start(self) -> None:
        sessions = await db(loadtest.seed_guests, self.count)
        self.players = [Player(loadtest.Client(self.site.url, key)) for _, key in sessions]
        self.tasks = [asyncio.create_task(keep_playing(p, self.site.ws_url)) for p in self.players]

    async def stop(self) -> None:
        """Cancel the clients and wait for them, at most ``STOP_BOUND_S`` s. A task is cancelled again
        every second while it runs: on Python 3.11 ``asyncio.wait_for`` swallows a cancellation that
        arrives as its inner await completes (cpython gh-86296, fixed in 3.12), and the client then played
        on and ``gather`` waited forever (the postgres_restart hang of issue 14). Tasks still running at
        the bound are left (``details["stuck_clients"]`` in :meth:`tally`)."""
        for player in self.players:
            player.stopping = True
        deadline = time.monotonic() + STOP_BOUND_S
        pending = [task for task in self.tasks if not task.done()]
        while pending and time.monotonic() < deadline:
            for task in pending:
                task.cancel()
            _, still = await asyncio.wait(pending, timeout=1.0)
            pending = list(still)
        self.stuck = len(pending)

    def resume_after(self, fault_at: float, back_at: float, players: list[Player] | None = None
                     ) -> float | None:
        """Seconds from ``fault_at`` until every one of ``players`` (default all) had an action acknowledged
        at or after ``back_at``; None if one has not yet."""
        firsts = [p.first_ack_after(back_at) for p in (self.players if players is None else players)]
        if any(t is None for t in firsts):
            return None
        return max([back_at, *[t for t in firsts if t is not None]]) - fault_at

    async def wait_resumed(self, fault_at: float, back_at: float, players: list[Player] | None = None
                           ) -> float | None:
        deadline = fault_at + RESUME_BOUND_S
        while time.monotonic() < deadline:
            resume = self.resume_after(fault_at, back_at, players)
            if resume is not None:
                return resume
            await asyncio.sleep(0.2)
        return None

    async def tally(self, result: Result) -> None:
        """Stop the clients and fill in acked / stored / events / lost (each database read bounded by
        ``TALLY_BOUND_S`` s: a figure not read stays None, shown "unknown", and the scenario fails)."""
        await self.stop()
        if self.stuck:
            result.details["stuck_clients"] = self.stuck
        acked = [a for p in self.players for a in p.stats.acked]
        result.acked = len(acked)
        try:
            check = await asyncio.wait_for(db(loadtest.stored_check, acked), TALLY_BOUND_S)
            result.acked, result.stored, result.lost = check["acked"], check["stored"], check["lost"]
            result.events = await asyncio.wait_for(
                db(event_count, [m for p in self.players for m in p.match_ids]), TALLY_BOUND_S)
        except TimeoutError:
            result.check(False, f"the tally's database reads took over {TALLY_BOUND_S:g} s")
        errors: dict[str, int] = {}
        for p in self.players:
            for code, n in p.stats.errors.items():
                errors[code] = errors.get(code, 0) + n
        result.details["errors"] = errors
        result.details["matches"] = sum(len(p.match_ids) for p in self.players)
        result.details["matches_finished"] = sum(p.stats.matches_finished for p in self.players)
        result.check(bool(result.acked), "no move was acknowledged")
        result.check(result.lost == 0, f"{count(result.lost)} acknowledged moves missing from the event log")


async def finish_rated(site: Site, count: int, tag: str) -> tuple[list[int], list[Player]]:
    """``count`` members each play a rated bot match for 3 moves, then resign unless it already ended
    (rated either way: both seats moved):
    the ids of the finished matches, and the players (their acks)."""
    sessions = await db(members, count, tag)
    players = [Player(loadtest.Client(site.url, key)) for _, key in sessions]

    async def one(player: Player) -> int:
        # rated=True: a member's bot match is casual unless asked (issue 22), and these must be rated
        match_id = await asyncio.to_thread(player.client.create_match, 1, 50, True)
        player.match_ids.append(match_id)
        ws = await loadtest.open_socket(player.client, site.ws_url, match_id)
        try:
            ended = await loadtest.play_one(ws, match_id, player.stats, loadtest.Pace(0, 0), math.inf,
                                            stop_after=3)
            if ended:  # the player knocks as soon as it may: to 50, a match can end within 3 moves
                return match_id
            await ws.send(json.dumps({"type": "resign", "id": "resign-1"}))
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if msg["type"] == "ack" and msg.get("id") == "resign-1":
                    player.stats.acked.append((match_id, "resign-1", msg["seq"]))
                    player.stats.acked_at.append(time.monotonic())
                    return match_id
                if msg["type"] == "error":
                    raise RuntimeError(f"resign refused: {msg}")
        finally:
            await ws.close()

    ids = await asyncio.gather(*(one(p) for p in players))
    return list(ids), players


def rating_rows(match_ids: list[int]) -> dict[str, int]:
    """Rating changes of ``match_ids`` and the players' counts: ``{"changes", "matches_rated",
    "players_rated_matches"}`` (the last: sum of ``PlayerRating.rated_matches`` of their human players)."""
    from games.models import Match
    from ratings.models import PlayerRating, RatingChange

    changes = RatingChange.objects.filter(match_id__in=match_ids)
    humans = [m.player0_id for m in Match.objects.filter(pk__in=match_ids)]
    return {
        "changes": changes.count(),
        "matches_rated": changes.values("match_id").distinct().count(),
        "players_rated_matches": sum(PlayerRating.objects.filter(user_id__in=humans)
                                     .values_list("rated_matches", flat=True)),
    }


def check_rated_once(result: Result, counts: dict[str, int], expected: int) -> None:
    result.details["rating_rows"] = counts
    result.check(counts["changes"] == expected, f"{counts['changes']} rating changes for {expected} matches")
    result.check(counts["players_rated_matches"] == expected,
                 f"players' rated_matches sum {counts['players_rated_matches']}, expected {expected}")


async def wait_until(predicate: Callable[[], Awaitable[bool]], timeout: float, every: float = 0.5
                     ) -> float | None:
    """Seconds until ``await predicate()`` was true, polled every ``every`` s; None after ``timeout``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if await predicate():
            return time.monotonic() - started
        await asyncio.sleep(every)
    return None


def send_task(name: str, *args: int, countdown: float) -> None:
    """Queue Celery task ``name`` on the site's broker, to run ``countdown`` seconds from now."""
    from celery import current_app

    current_app.send_task(name, args=args, countdown=countdown)


def kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


# --------------------------------------------------------------------------------------------- scenarios


async def daphne_kill(site: Site) -> Result:
    """``kill -9`` of the Daphne holding the timer table (see the module docstring)."""
    from accounts.selectors import house_bot_get
    from games import services
    from games.models import Match, MatchEvent

    result = started(Result("daphne_kill"))
    serve = site.serve
    assert serve is not None
    crowd = Crowd(site, site.players, "daphne_kill")
    await crowd.start()
    await asyncio.sleep(WARMUP_S)

    # The timer table: a member against bot 1, 15 s per move; its client never moves.
    (member, key), = await db(members, 1, "timer")
    match = await db(lambda: services.match_create_seated(
        player0=member, player1=house_bot_get(level=1), target=50, turn_timer=TIMER_S))
    watcher = loadtest.Client(site.url, key)
    ws = await loadtest.open_socket(watcher, site.ws_url, match.pk)
    while True:  # until it is the member's turn (the bot may deal/move first)
        state = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if state.get("type") == "state" and state["hand"] and state["hand"]["your_turn"]:
            break
    waiting_seq = state["seq"]
    row = await db(lambda: Match.objects.filter(pk=match.pk).values("turn_deadline", "last_seq").get())
    deadline_wall = row["turn_deadline"].timestamp()
    victim = socket_owner(serve.daphnes(), site.port, ws.local_address[1])
    result.check(victim is not None, "could not tell which Daphne holds the timer table")
    if victim is None:
        await crowd.tally(result)
        return result
    on_victim = [p for p in crowd.players if p.local_port is not None
                 and socket_owner([victim], site.port, p.local_port) == victim]
    await asyncio.sleep(2.0)
    fault_at = time.monotonic()
    kill(victim)
    result.down_s = 0.0  # the other Daphne serves at once

    async def timer_move() -> float | None:
        """Wall-clock time the timer client saw its automatic move (reconnecting as needed)."""
        nonlocal ws
        while time.monotonic() < fault_at + RESUME_BOUND_S:
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if msg.get("type") == "state" and msg["seq"] > waiting_seq:
                    return time.time()
            except TimeoutError:
                continue
            except Exception:  # dropped with its Daphne: reconnect (its first state may be the move)
                with contextlib.suppress(Exception):
                    await ws.close()
                try:
                    ws = await loadtest.open_socket(watcher, site.ws_url, match.pk, open_timeout=10)
                except Exception:
                    await asyncio.sleep(0.3)
        return None

    seen_at = await timer_move()
    with contextlib.suppress(Exception):
        await ws.close()
    dropped = [p for p in crowd.players if any(t >= fault_at for t in p.drops)]
    result.resume_s = await crowd.wait_resumed(fault_at, fault_at, dropped or None)
    await asyncio.sleep(AFTER_S)
    await crowd.tally(result)
    auto = await db(lambda: list(MatchEvent.objects.filter(match_id=match.pk, seat=0, auto=True)
                                 .order_by("seq").values_list("seq", "created_at")))
    daphnes = serve.daphnes()
    result.details.update({
        "victim_pid": victim, "clients_on_victim": len(on_victim) + 1, "clients_dropped": len(dropped) + 1,
        "daphnes_after": daphnes, "timer_auto_events": len(auto),
        "timer_move_late_s": round(auto[0][1].timestamp() - deadline_wall, 2) if auto else None,
        "timer_state_seen_late_s": round(seen_at - deadline_wall, 2) if seen_at else None,
    })
    result.check(bool(auto) and auto[0][0] > waiting_seq, "the turn timer's automatic move was not stored")
    result.check(seen_at is not None, "the timer client never saw its automatic move")
    result.check(result.resume_s is not None, "a client did not resume")
    result.check(len(daphnes) == 2 and victim not in daphnes, f"Daphne processes after the kill: {daphnes}")
    return result


async def kill_paused(site: Site, result: Result, point: str, whole_worker: bool) -> int:
    """Wait for the worker's pool process paused at ``point``, then SIGKILL it (``whole_worker``: the
    worker's whole process group, its main process and its pool, as the OOM killer or ``kill -9 -PGID``
    would; ``scripts/serve`` starts a new worker 2 s later). Returns the killed pool process's pid."""
    serve = site.serve
    assert serve is not None
    pid = await asyncio.to_thread(site.wait_paused, point, 60)
    main, pool = serve.worker_main(), serve.worker_pool()
    result.check(pid in pool, f"the paused process {pid} is not a worker pool process {pool}")
    result.details.update({"paused_pid": pid, "worker_before": [main, *pool]})
    if whole_worker and main is not None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(os.getpgid(main), signal.SIGKILL)
    else:
        kill(pid)
    return pid


async def check_worker_back(site: Site, result: Result, killed: list[int]) -> None:
    """The worker is running again with its 2 pool processes, none of them one that was killed."""
    serve = site.serve
    assert serve is not None

    async def back() -> bool:
        main, pool = serve.worker_main(), serve.worker_pool()
        return main is not None and len(pool) == 2 and not set(killed) & {main, *pool}

    await wait_until(back, 60)
    after = [serve.worker_main(), *serve.worker_pool()]
    result.details["worker_after"] = after
    result.check(len(after) == 3 and not set(killed) & set(after), f"worker after the kill: {after}")


async def rating_kill(site: Site, name: str, whole_worker: bool) -> Result:
    """A kill inside ``ratings.rate_pending``'s transaction (see the module docstring)."""
    result = started(Result(name))
    site.arm("ratings.rate")
    match_ids, players = await finish_rated(site, 3, "rated")
    pid = await kill_paused(site, result, "ratings.rate", whole_worker)
    killed_at = time.monotonic()
    before = await db(rating_rows, match_ids)  # the killed transaction's rows were never committed
    result.details["rows_after_kill"] = before
    killed = [pid, *result.details["worker_before"]] if whole_worker else [pid]

    async def rated() -> bool:
        return (await db(rating_rows, match_ids))["changes"] >= len(match_ids)

    done = await wait_until(rated, SWEEP_BOUND_S)
    result.resume_s = None if done is None else time.monotonic() - killed_at
    await check_worker_back(site, result, killed)
    await asyncio.sleep(3)  # a duplicate delivery would have run by now
    check_rated_once(result, await db(rating_rows, match_ids), len(match_ids))
    result.check(before["changes"] == 0, "rating changes of the killed transaction are in the database")
    result.check(done is not None, "the matches were not rated")
    acked = [a for p in players for a in p.stats.acked]
    check = await db(loadtest.stored_check, acked)
    result.acked, result.stored, result.lost = check["acked"], check["stored"], check["lost"]
    result.events = await db(event_count, match_ids)
    result.check(result.lost == 0, f"{result.lost} acknowledged moves missing")
    return result


async def pool_kill_rating(site: Site) -> Result:
    """The pool process running ``ratings.rate_pending`` killed: the task is given back and runs again."""
    return await rating_kill(site, "pool_kill_rating", whole_worker=False)


async def worker_kill_rating(site: Site) -> Result:
    """The whole worker killed during ``ratings.rate_pending``: ``ratings.sweep_unrated`` recovers it."""
    return await rating_kill(site, "worker_kill_rating", whole_worker=True)


def tournament_create(tag: str, people: list[Any], starts_in_s: float = 0.0) -> int:
    """A tournament of ``people`` (no house bots: 4 people, 2 boards, 1 round, 600 s timer) due to start
    ``starts_in_s`` from now; its id."""
    from datetime import timedelta

    from django.utils import timezone

    from tournaments.models import Registration, Tournament, TournamentStatus

    tournament = Tournament.objects.create(
        name_en=f"Fault run {tag}", name_pt=f"Falha {tag}",
        starts_at=timezone.now() + timedelta(seconds=starts_in_s),
        status=TournamentStatus.OPEN, min_players=len(people), max_players=len(people), fixed_rounds=1,
        turn_timer_seconds=600, match_target=50,
    )
    Registration.objects.bulk_create([Registration(tournament=tournament, user=u) for u in people])
    return tournament.pk


def round_rows(tournament_id: int, people: list[int]) -> dict[str, int]:
    """Rows of round 1 of ``tournament_id``: ``{"rounds", "pairings", "matches", "current_round"}``
    (``matches``: every match between its people, paired or not: an orphan would count)."""
    from django.db.models import Q

    from games.models import Match
    from tournaments.models import Pairing, Round, Tournament

    return {
        "rounds": Round.objects.filter(tournament_id=tournament_id).count(),
        "pairings": Pairing.objects.filter(round__tournament_id=tournament_id).count(),
        "matches": Match.objects.filter(Q(player0_id__in=people) | Q(player1_id__in=people)).count(),
        "current_round": Tournament.objects.get(pk=tournament_id).current_round,
    }


def check_paired_once(result: Result, rows: dict[str, int], boards: int) -> None:
    result.details["round_rows"] = rows
    want = {"rounds": 1, "pairings": boards, "matches": boards, "current_round": 1}
    result.check(rows == want, f"round 1 rows {rows}, expected {want}")


async def pairing_kill(site: Site, name: str, whole_worker: bool) -> Result:
    """A kill inside ``tournaments.round_pair``'s transaction: beat's ``tournaments.advance`` (every 5 s)
    enqueues the pairing again."""
    from tournaments.models import Pairing

    # No client plays here: zero moves acknowledged, stored and lost (counted, unlike a timed-out tally).
    result = started(Result(name, acked=0, stored=0, lost=0))
    people = [u for u, _ in await db(members, 4, "swiss")]
    ids = [u.pk for u in people]
    site.arm("tournaments.pair_round")
    tournament_id = await db(tournament_create, name, people)
    pid = await kill_paused(site, result, "tournaments.pair_round", whole_worker)
    killed_at = time.monotonic()
    before = await db(round_rows, tournament_id, ids)
    result.details["rows_after_kill"] = before
    killed = [pid, *result.details["worker_before"]] if whole_worker else [pid]

    async def paired() -> bool:
        return (await db(round_rows, tournament_id, ids))["current_round"] == 1

    done = await wait_until(paired, 90)
    result.resume_s = None if done is None else time.monotonic() - killed_at
    await check_worker_back(site, result, killed)
    await asyncio.sleep(5.5)  # beat's advance runs every 5 s: it must pair nothing more
    check_paired_once(result, await db(round_rows, tournament_id, ids), 2)
    result.check(before["rounds"] == 0 and before["matches"] == 0,
                 "rows of the killed transaction are in the database")
    result.check(done is not None, "round 1 was not paired")
    result.events = await db(lambda: event_count(list(Pairing.objects.filter(
        round__tournament_id=tournament_id).values_list("match_id", flat=True))))
    return result


async def pool_kill_pairing(site: Site) -> Result:
    return await pairing_kill(site, "pool_kill_pairing", whole_worker=False)


async def worker_kill_pairing(site: Site) -> Result:
    return await pairing_kill(site, "worker_kill_pairing", whole_worker=True)


async def redis_restart(site: Site) -> Result:
    """Redis SIGKILLed and restarted empty mid-match (see the module docstring)."""
    result = started(Result("redis_restart"))
    crowd = Crowd(site, site.players, "redis_restart")
    await crowd.start()
    await asyncio.sleep(WARMUP_S)
    people = [u for u, _ in await db(members, 4, "swiss-r")]
    ids = [u.pk for u in people]
    rated_ids, rated_players = await finish_rated(site, 2, "rated-r")  # rate_pending: a 1.5 s countdown
    # Due in 4 s (beat's advance leaves it alone until then); its start step queued for then.
    tournament_id = await db(tournament_create, "redis", people, 4.0)
    await db(send_task, "tournaments.tasks.start", tournament_id, countdown=4.5)
    fault_at = time.monotonic()
    site.redis.kill()  # the queued messages are gone with it
    at_fault = await db(round_rows, tournament_id, ids)
    failing_down = await asyncio.to_thread(site.failing)
    await asyncio.sleep(OUTAGE_S)
    site.redis.start()
    back_at = time.monotonic()
    result.down_s = back_at - fault_at

    async def healthy() -> bool:
        failing = await asyncio.to_thread(site.failing)
        return failing is not None and not {"redis", "broker"} & set(failing)

    health_back = await wait_until(healthy, 60)
    result.resume_s = await crowd.wait_resumed(fault_at, back_at)
    await asyncio.sleep(AFTER_S)
    await crowd.tally(result)

    async def recovered() -> bool:
        rows = await db(rating_rows, rated_ids)
        paired = (await db(round_rows, tournament_id, ids))["current_round"] == 1
        return rows["changes"] >= len(rated_ids) and paired

    swept = await wait_until(recovered, SWEEP_BOUND_S, every=2)
    await asyncio.sleep(6)
    check_rated_once(result, await db(rating_rows, rated_ids), len(rated_ids))
    check_paired_once(result, await db(round_rows, tournament_id, ids), 2)
    result.details.update({
        "round_rows_at_fault": at_fault, "healthz_failing_while_down": failing_down,
        "healthz_redis_broker_ok_after_back_s": health_back,
        "ratings_and_round_done_after_s": None if swept is None else round(time.monotonic() - fault_at, 1),
    })
    rated_acks = [a for p in rated_players for a in p.stats.acked]
    check = await db(loadtest.stored_check, rated_acks)
    result.acked = (result.acked or 0) + check["acked"]
    result.stored = (result.stored or 0) + check["stored"]
    result.lost = (result.lost or 0) + check["lost"]
    result.check(result.lost == 0, "acknowledged moves missing")
    result.check(result.resume_s is not None, "a client did not resume")
    result.check(swept is not None, "the sweeps did not recover the queued work")
    result.check(failing_down is not None and {"redis", "broker"} <= set(failing_down),
                 f"/healthz with Redis down named {failing_down} as failing")
    result.check(health_back is not None, "/healthz still names redis or broker as failing")
    return result


async def connect_probe(site: Site, player: Player) -> dict[str, Any]:
    """Open one more socket to ``player``'s match and wait 10 s at most for its first frame and, after an
    error, for the close: ``{"answer": "error <code>" | "state" | "closed <code>" | "refused <exception>"
    | "none", "close": <close code> | None, "seconds"}`` ("none": a hang; ``seconds`` until the first
    frame or the refusal)."""
    started = time.monotonic()
    answer, close, seconds = "none", None, None
    try:
        ws = await loadtest.open_socket(player.client, site.ws_url, player.match_ids[-1], open_timeout=10)
        try:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            seconds = time.monotonic() - started
            answer = f"error {msg.get('code')}" if msg.get("type") == "error" else str(msg.get("type"))
            if msg.get("type") == "error":
                await asyncio.wait_for(ws.recv(), 10)  # the close that follows the error (raises)
        except TimeoutError:
            pass
        except Exception as exc:  # websockets' ConnectionClosed: its close frame's code
            rcvd = getattr(exc, "rcvd", None)
            close = getattr(rcvd, "code", None)
            if answer == "none":
                answer = f"closed {close if close is not None else type(exc).__name__}"
        finally:
            await ws.close()
    except TimeoutError:
        answer = "none"
    except Exception as exc:
        answer = f"refused {type(exc).__name__}"
    if seconds is None:
        seconds = time.monotonic() - started
    return {"answer": answer, "close": close, "seconds": round(seconds, 2)}


async def frame_probe(ws: Any) -> dict[str, Any]:
    """Send ``sync`` on the open socket ``ws`` and wait 10 s at most for an ``error`` frame, skipping
    the other frames (broadcasts still on their way): ``{"answer": "error <code>" | "none" | "closed
    <exception>", "seconds"}`` ("none": no error frame came)."""
    answer = "none"
    sent = time.monotonic()
    try:
        await ws.send(json.dumps({"type": "sync"}))
        deadline = sent + 10
        while (left := deadline - time.monotonic()) > 0:
            msg = json.loads(await asyncio.wait_for(ws.recv(), left))
            if msg.get("type") == "error":
                answer = f"error {msg.get('code')}"
                break
    except TimeoutError:
        pass
    except Exception as exc:  # websockets' ConnectionClosed
        answer = f"closed {type(exc).__name__}"
    return {"answer": answer, "seconds": round(time.monotonic() - sent, 2)}


async def postgres_restart(site: Site) -> Result:
    """PostgreSQL stopped as after a crash, down a few seconds, started again."""
    result = started(Result("postgres_restart"))
    crowd = Crowd(site, site.players, "postgres_restart")
    await crowd.start()
    await asyncio.sleep(WARMUP_S)
    # One more socket to a table, held open: its sync while the database is down must get an error frame
    # (the crowd's clients may all be waiting for bot moves then, with nothing of their own to send).
    holder = crowd.players[-1]
    held = await loadtest.open_socket(holder.client, site.ws_url, holder.match_ids[-1], open_timeout=10)
    await asyncio.wait_for(held.recv(), 10)  # its first state: its connect (a database read) is done
    fault_at = time.monotonic()
    await asyncio.to_thread(site.pg.stop, "immediate")
    stopped = time.monotonic()
    held_sync = await frame_probe(held)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(held.close(), 2)
    health = await asyncio.to_thread(site.get, "/healthz")
    home = await asyncio.to_thread(site.get, "/")
    api = await asyncio.to_thread(site.get, "/api/v1/bots/")
    probe = await connect_probe(site, crowd.players[0])
    try:
        failing = json.loads(health[2])["failing"]
    except (ValueError, KeyError, TypeError):
        failing = None
    await asyncio.sleep(max(0.0, OUTAGE_S - (time.monotonic() - stopped)))
    errors_down = sum(1 for p in crowd.players for t in p.stats.errors_at if t >= fault_at)
    await asyncio.to_thread(site.pg.start)
    back_at = time.monotonic()
    result.down_s = back_at - fault_at
    result.resume_s = await crowd.wait_resumed(fault_at, back_at)
    await asyncio.sleep(AFTER_S)
    await crowd.tally(result)
    result.details.update({
        "healthz_while_down": {"status": health[0], "seconds": round(health[1], 2), "failing": failing},
        "home_while_down": {"status": home[0], "seconds": round(home[1], 2)},
        "api_while_down": {"status": api[0], "seconds": round(api[1], 2), "body": api[2][:200]},
        "error_frames_while_down": errors_down, "new_socket_while_down": probe,
        "sync_on_open_socket_while_down": held_sync,
    })
    result.check(probe["answer"] == "error server_unavailable" and probe["close"] == 4503,
                 f"a new socket with the database down: {probe} (not server_unavailable, close 4503)")
    result.check(health[0] == 503 and "database" in (failing or []),
                 f"/healthz answered {health[0]} {failing} with the database down")
    result.check(home[0] == 503, f"/ answered {home[0]} with the database down (not the 503 page)")
    result.check(api[0] == 503 and '"unavailable"' in api[2],
                 f"/api/v1/bots/ answered {api[0]} {api[2][:80]!r} with the database down")
    result.check(held_sync["answer"] == "error server_error",
                 f"a sync on an open socket with the database down: {held_sync} (not server_error)")
    waits = {code: n for code, n in result.details["errors"].items() if code in loadtest.TIMEOUT_CODES}
    result.check(not waits, "a client waited 15 s for a frame: " + "; ".join(
        f"{n} x {code} ({loadtest.TIMEOUT_CODES[code]})" for code, n in sorted(waits.items())))
    result.check(result.resume_s is not None, "a client did not resume")
    return result


RUNNERS: dict[str, Callable[[Site], Awaitable[Result]]] = {
    "daphne_kill": daphne_kill, "pool_kill_rating": pool_kill_rating, "pool_kill_pairing": pool_kill_pairing,
    "worker_kill_pairing": worker_kill_pairing, "worker_kill_rating": worker_kill_rating,
    "redis_restart": redis_restart, "postgres_restart": postgres_restart,
}


# --------------------------------------------------------------------------------------------- main


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/faults", description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                        help=f"which to run (always in this order): {' '.join(SCENARIOS)} (default: all)")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs)")
    parser.add_argument("--players", type=int, default=PLAYERS,
                        help=f"guests playing in each live-play scenario ({PLAYERS})")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.scenarios) - set(SCENARIOS))
    if unknown:
        parser.error(f"unknown scenario {', '.join(unknown)}: choose from {' '.join(SCENARIOS)}")
    args.scenarios = [s for s in SCENARIOS if s in args.scenarios] if args.scenarios else list(SCENARIOS)
    if not 1 <= args.players <= 50:
        parser.error("--players must be 1..50")
    return args


def main(argv: list[str]) -> int:
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # kill -USR1: where a stuck run waits
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops the servers too (finally)
    args = parse_args(argv)
    missing = missing_binaries()
    if missing:
        print(f"scripts/faults needs {', '.join(missing)}", file=sys.stderr)
        return 2
    base = Path(tempfile.mkdtemp(prefix="gin-faults-"))
    site = Site(base, players=args.players)
    results: list[Result] = []
    started = time.monotonic()
    try:
        print(f"Starting PostgreSQL (port {site.pg.port}), Redis (port {site.redis.port}) and scripts/serve "
              f"--production (port {site.port}, 2 Daphne, realtime + background workers) in {base} ...",
              flush=True)
        site.up()
        print(f"  up in {time.monotonic() - started:.0f} s", flush=True)
        for name in args.scenarios:
            print(f"{name} ...", flush=True)
            t0 = time.monotonic()
            faulthandler.dump_traceback_later(SCENARIO_BOUND_S - 10, exit=False)
            try:
                result = asyncio.run(asyncio.wait_for(RUNNERS[name](site), SCENARIO_BOUND_S))
            except TimeoutError:
                result = figures_so_far(name, f"did not finish within {SCENARIO_BOUND_S:g} s")
            except Exception as exc:
                result = figures_so_far(name, f"{type(exc).__name__}: {exc}")
            finally:
                faulthandler.cancel_dump_traceback_later()
            result.details["seconds"] = round(time.monotonic() - t0, 1)
            results.append(result)
            print(f"  {summary(result)}", flush=True)
            print(f"  {json.dumps(result.details, default=str)}", flush=True)
            for failure in result.failures:
                print(f"  FAIL: {failure}", flush=True)
    finally:
        site.down()
        if args.keep or any(not r.passed for r in results):
            print(f"Logs kept in {base}")
        else:
            import shutil

            shutil.rmtree(base, ignore_errors=True)
    print()
    print(table(results))
    print(f"\n{len(results)} scenarios in {time.monotonic() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps([{**asdict(r), "passed": r.passed} for r in results],
                                              indent=2, default=str) + "\n")
    return 0 if results and all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
