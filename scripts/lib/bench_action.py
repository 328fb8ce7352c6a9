"""Benchmark: server CPU per accepted action (issue 9's goal: <= 3 ms), on the profile of the environment.

Run through ``scripts/bench_action [--actions N]``. Plays friend matches between two guests through
``services.match_apply_action`` exactly as the table's consumer calls it (outside any transaction, so
the after-commit broadcast runs inside the call), with both seats connected: each seat's group has a
member channel on the real channel layer (in-memory, or Redis with ``REDIS_URL``) that is drained
between actions. Each action is chosen from the ``state`` the broadcast itself built, so nothing but the
write, both views and the broadcast is timed.

Reports per action: process CPU time (all threads of this process, ``time.process_time``; its user-mode
part beside it, the rest being the kernel's: socket writes and wake-ups), wall time,
and the CPU inside the two view builds and inside the channel layer sends; the SQL statements each
action ran through Django's cursors and the psycopg waits (the round trips: transaction control and
the health check included; an autocommit switch counts one without any network).
Production profile: also the CPU of the PostgreSQL backend processes serving this process's
connections (utime + stime of ``/proc/<pid>/stat``, pids from ``connection.info.backend_pid``) over
the timed actions, in clock ticks (``SC_CLK_TCK``, 10 ms each: only the mean over many actions means
anything); the server's WAL writer and checkpointer are not included. Embedded profile: a fresh SQLite
in a temporary ``GIN_VAR_DIR``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench_action", description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=600, help="accepted actions to time (600)")
    parser.add_argument("--warmup", type=int, default=60, help="actions played first, not timed (60)")
    args = parser.parse_args(argv)
    profile = "production" if os.environ.get("DATABASE_URL") else "embedded"
    if profile == "embedded":
        os.environ["GIN_VAR_DIR"] = tempfile.mkdtemp(prefix="gin-bench-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.update({"GAMES_BOT_DELAY": "0,0", "GAMES_HAND_PAUSE": "0", "DEBUG": "0",
                       "LOG_LEVEL": "WARNING"})
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)

    import django

    django.setup()
    from channels.layers import get_channel_layer

    from accounts.services import guest_create
    from games import selectors, services
    from push.groups import seat_group

    layer = get_channel_layer()
    assert layer is not None
    spent = {"views": 0.0, "sends": 0.0}
    latest: dict[int, dict[str, Any]] = {}
    build = selectors.match_state_payload
    group_send = layer.group_send

    def timed_build(**kwargs: Any) -> dict[str, Any]:
        t = time.process_time()
        payload = build(**kwargs)
        spent["views"] += time.process_time() - t
        return payload

    sent_now: list[dict[str, Any]] = []  # the messages of the action being timed (sized after it)

    def note(messages: list[tuple[str, dict[str, Any]]]) -> None:
        for _, message in messages:
            sent_now.append(message)
            if "state" in message:
                latest[message["state"]["match"]["you"]] = message["state"]

    async def timed_send(group: str, message: dict[str, Any]) -> None:
        t = time.process_time()
        await group_send(group, message)
        spent["sends"] += time.process_time() - t
        note([(group, message)])

    selectors.match_state_payload = timed_build  # type: ignore[assignment]
    # Wherever the broadcast imported it by name (games.services.play since the services package).
    import importlib

    for name in ("games.services.play", "games.services"):
        with contextlib.suppress(ImportError):
            module = importlib.import_module(name)
            if getattr(module, "match_state_payload", None) is build:
                module.match_state_payload = timed_build  # type: ignore[attr-defined]
    layer.group_send = timed_send  # type: ignore[method-assign]
    batch_send = getattr(layer, "group_send_many", None)
    if batch_send is not None:  # infra.channel_layer's batched sends (production)

        async def timed_batch(messages: list[tuple[str, dict[str, Any]]]) -> None:
            t = time.process_time()
            await batch_send(messages)
            spent["sends"] += time.process_time() - t
            note(messages)

        layer.group_send_many = timed_batch

    import msgpack
    from django.db import connection

    from games.db import db_call
    from tests.games.wsclient import choose

    counts = {"statements": 0, "trips": 0}
    backends: set[int] = set()

    def counted(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        counts["statements"] += 1
        return execute(sql, params, many, context)

    def apply_action(**kwargs: Any) -> Any:
        """``match_apply_action`` in the pool thread, its statements counted and its backend noted."""
        with connection.execute_wrapper(counted):
            try:
                return services.match_apply_action(**kwargs)
            finally:
                raw = connection.connection
                info = getattr(raw, "info", None)
                if info is not None and getattr(info, "backend_pid", None):
                    backends.add(info.backend_pid)

    if connection.vendor == "postgresql":
        import psycopg

        wait = psycopg.Connection.wait

        def counted_wait(self: Any, gen: Any, *args: Any, **kwargs: Any) -> Any:
            counts["trips"] += 1
            return wait(self, gen, *args, **kwargs)

        psycopg.Connection.wait = counted_wait  # type: ignore[method-assign]

    tick = os.sysconf("SC_CLK_TCK")

    def backend_ticks() -> dict[int, int]:
        """utime + stime of each known backend, in clock ticks."""
        ticks = {}
        for pid in backends:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            ticks[pid] = int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5)
        return ticks

    pg = {"ticks": 0, "actions": 0}
    statements: list[int] = []
    trips: list[int] = []

    cpu: list[float] = []
    user: list[float] = []
    wall: list[float] = []
    views: list[float] = []
    sends: list[float] = []
    received: list[float] = []  # CPU from the action's start until both seats' channels received
    sizes: list[int] = []  # bytes of the action's layer messages, msgpack-packed as channels-redis packs them

    async def run() -> int:
        """Play until ``warmup + actions`` actions are accepted, on one event loop (as in Daphne: the
        services run in the pool, their broadcasts on this loop); returns the number of matches."""
        total = args.warmup + args.actions
        done = matches = 0
        while done < total:
            users = [await db_call(guest_create)(), await db_call(guest_create)()]
            table = await db_call(services.table_create)(user=users[0], rules_preset="classic", target=100,
                                                         turn_timer=None)
            names = []
            for seat in (0, 1):
                names.append(await layer.new_channel())
                await layer.group_add(seat_group(table.pk, seat), names[-1])
            await db_call(services.table_join)(user=users[1], token=table.invite_token)
            for name in names:
                await layer.receive(name)
            matches += 1
            state = latest[0]
            while done < total and state["match"]["status"] == "active":
                seat = state["hand"]["to_act"]
                mine = latest[seat]
                spent["views"] = spent["sends"] = 0.0
                sent_now.clear()
                b0 = backend_ticks()
                counts["statements"] = counts["trips"] = 0
                u0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
                c0, w0 = time.process_time(), time.perf_counter()
                await db_call(apply_action)(
                    match_id=table.pk, user=users[seat], action_text=choose(mine["hand"]),
                    client_seq=state["seq"], msg_id=f"b{done}",
                )
                c1, w1 = time.process_time(), time.perf_counter()
                u1 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
                b1 = backend_ticks()
                n_statements, n_trips = counts["statements"], counts["trips"]
                for name in names:
                    await layer.receive(name)
                received.append(time.process_time() - c0)
                if done >= args.warmup:
                    cpu.append(c1 - c0)
                    user.append(u1 - u0)
                    wall.append(w1 - w0)
                    views.append(spent["views"])
                    sends.append(spent["sends"])
                    sizes.append(sum(len(msgpack.packb(m, use_bin_type=True)) for m in sent_now))
                    statements.append(n_statements)
                    trips.append(n_trips)
                    if b0 and b0.keys() == b1.keys():
                        pg["ticks"] += sum(b1.values()) - sum(b0.values())
                        pg["actions"] += 1
                done += 1
                state = latest[0]
        return matches

    matches = asyncio.run(run())

    def ms(values: list[float]) -> str:
        q = statistics.quantiles(values, n=100)
        return (f"mean {1000 * statistics.fmean(values):.2f}  p50 {1000 * statistics.median(values):.2f}  "
                f"p95 {1000 * q[94]:.2f} ms")

    print(f"{profile} profile: {len(cpu)} accepted actions timed over {matches} matches "
          f"(loadavg {os.getloadavg()[0]:.2f})")
    print(f"  CPU per action  : {ms(cpu)}")
    print(f"    and received  : {ms(received[args.warmup:])}  (until both seats' sockets have their state: "
          "the receiving side too)")
    print(f"    user (not sys): {ms(user)}")
    print(f"    both views    : {ms(views)}")
    print(f"    layer sends   : {ms(sends)}")
    print(f"  wall per action : {ms(wall)}")
    print(f"  layer bytes     : mean {statistics.fmean(sizes):.0f}  p50 {statistics.median(sizes):.0f}  "
          f"max {max(sizes)} per action (both states and the spectators' notice, msgpack)")
    print(f"  SQL statements per action: mean {statistics.fmean(statements):.2f} "
          f"(min {min(statements)}, max {max(statements)})")
    if connection.vendor == "postgresql":
        print(f"  psycopg waits (round trips) per action: mean {statistics.fmean(trips):.2f} "
              f"(min {min(trips)}, max {max(trips)})")
        if pg["actions"]:
            per = 1000 * pg["ticks"] / tick / pg["actions"]
            print(f"  PostgreSQL backend CPU per action: mean {per:.2f} ms "
                  f"({pg['ticks']} ticks of {1000 / tick:.0f} ms over {pg['actions']} actions, "
                  f"{len(backends)} backend(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
