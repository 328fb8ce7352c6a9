"""Throwaway servers for the fault runs (``scripts/faults``, ``tests/faults``): a PostgreSQL cluster and a
Redis of their own, on free ports, in one temporary directory, and ``scripts/serve --production`` on them.

Never the machine's shared PostgreSQL (5432) or Redis (6379): these are started here as child processes
and only they are stopped, killed or restarted.

- :class:`Postgres`: ``initdb`` into ``<dir>/pg`` (trust auth, user ``postgres``), ``pg_ctl start`` on a
  free port on 127.0.0.1 with its Unix socket in the same directory. ``fsync=off``: nothing survives a
  crash of the *machine*, but every commit is still written to the operating system before it is
  acknowledged (``synchronous_commit`` stays on), so a killed or restarted server keeps every committed
  row, which is what the runs check. Run as the ``postgres`` OS user when this process is root (initdb
  refuses root).
- :class:`Redis`: ``redis-server`` with no persistence (``--save "" --appendonly no``): a restart comes
  back empty, the worst case for queued Celery messages and channel-layer groups.
- :class:`Serve`: ``scripts/serve --production`` in a session of its own; finds its Daphne processes, the
  worker's processes and beat from ``/proc``.

:func:`missing_binaries` says what is not installed (the tests skip, or fail under ``CI=true``).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


_HANDED: set[int] = set()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now: any (the kernel's choice), or with
    ``GIN_FAULT_PORTS=LOW-HIGH`` (e.g. ``8300-8399``: a shared machine's own range) the first free one of
    that range not handed out before by this process.

    :raises RuntimeError: ``GIN_FAULT_PORTS`` is malformed or has no free port left.
    """
    wanted = os.environ.get("GIN_FAULT_PORTS", "")
    if not wanted:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return int(sock.getsockname()[1])
    try:
        low, high = (int(part) for part in wanted.split("-"))
    except ValueError:
        raise RuntimeError(f"GIN_FAULT_PORTS must be LOW-HIGH (e.g. 8300-8399), not {wanted!r}") from None
    for port in range(low, high + 1):
        if port in _HANDED:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        _HANDED.add(port)
        return port
    raise RuntimeError(f"no free port left in GIN_FAULT_PORTS={wanted}")


def wait_for(predicate: object, what: str, timeout: float) -> None:
    """Poll ``predicate()`` every 0.1 s until true.

    :raises TimeoutError: naming ``what`` after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what} after {timeout:g} s")
        time.sleep(0.1)


def accepts(port: int) -> bool:
    """Whether something accepts TCP connections on 127.0.0.1:``port``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def pg_bindir() -> Path | None:
    """Directory of PostgreSQL's server programs (``initdb``, ``pg_ctl``), the newest installed, or None."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if candidates:
        return Path(candidates[-1]).parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def missing_binaries() -> list[str]:
    """What the fault runs need and this machine lacks (empty when everything is there)."""
    missing = []
    if shutil.which("redis-server") is None:
        missing.append("redis-server")
    if pg_bindir() is None:
        missing.append("initdb/pg_ctl (PostgreSQL server)")
    elif os.geteuid() == 0 and shutil.which("runuser") is None:
        missing.append("runuser (initdb refuses root)")
    return missing


class Postgres:
    """A PostgreSQL cluster of its own in ``<base>/pg``, listening on 127.0.0.1:``port``."""

    def __init__(self, base: Path) -> None:
        bindir = pg_bindir()
        if bindir is None:
            raise RuntimeError("PostgreSQL server programs (initdb, pg_ctl) not found")
        self.bin = bindir
        self.dir = base / "pg"
        self.port = free_port()
        self.as_root = os.geteuid() == 0

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        return subprocess.run([*prefix, *argv], check=check, capture_output=True, text=True, timeout=120)

    def init(self) -> None:
        """``initdb``: trust authentication, superuser ``postgres``, UTF-8."""
        self.dir.mkdir(parents=True)
        if self.as_root:
            shutil.chown(self.dir.parent, "postgres")
            shutil.chown(self.dir, "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.dir), "-U", "postgres", "--auth=trust",
                  "-E", "UTF8", "--no-sync", "--no-instructions")

    def start(self) -> None:
        """``pg_ctl start`` and wait until it answers."""
        options = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c full_page_writes=off -c max_connections=200 -c shared_buffers=32MB")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.dir), "-o", options, "-l",
                  str(self.dir / "log"), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        """``pg_ctl stop -m mode``: ``fast`` (a clean restart: sessions are ended, then a checkpoint) or
        ``immediate`` (the server's processes quit at once, as after a crash: the next start replays WAL)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.dir), "-m", mode, "-w", "-t", "60", "stop",
                  check=False)

    def running(self) -> bool:
        done = self._run(str(self.bin / "pg_ctl"), "-D", str(self.dir), "status", check=False)
        return done.returncode == 0

    def createdb(self, name: str) -> None:
        self._run(str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def log(self) -> str:
        path = self.dir / "log"
        with contextlib.suppress(OSError):
            return path.read_text(errors="replace")
        return ""


class Redis:
    """A ``redis-server`` child process on 127.0.0.1:``port``, without persistence."""

    def __init__(self, base: Path) -> None:
        self.port = free_port()
        self.log_path = base / "redis.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start it (again, on the same port) and wait until it accepts connections."""
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--daemonize", "no"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        wait_for(lambda: accepts(self.port), "redis-server to listen", 30)

    def kill(self) -> None:
        """SIGKILL it and wait until it is gone (its data goes with it). Idempotent."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.kill()
        self.process.wait(timeout=30)

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"


def session_pids(sid: int) -> list[int]:
    """Live (non-zombie) processes of session ``sid``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, _ppid, _pgrp, session = stat.rpartition(")")[2].split()[:4]
        if state != "Z" and int(session) == sid:
            pids.append(int(entry.name))
    return sorted(pids)


def cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def parent_of(pid: int) -> int | None:
    try:
        return int((Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, IndexError, ValueError):
        return None


class Serve:
    """``scripts/serve --production`` in a session of its own, with ``env`` added to this environment."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.port = int(env["PORT"])

    def start(self, timeout: float = 600) -> None:
        """Start it and wait until the site answers, the worker is ready and beat runs.

        :raises RuntimeError: if it exits first; TimeoutError after ``timeout`` seconds.
        """
        var = Path(self.env["GIN_VAR_DIR"])
        for name in ("celery-worker-realtime.log", "celery-worker-background.log", "celery-beat.log"):
            with contextlib.suppress(FileNotFoundError):
                (var / "log" / name).unlink()
        with self.log_path.open("ab") as out:
            self.process = subprocess.Popen(
                [str(ROOT / "scripts" / "serve"), "--production"], cwd=ROOT, env={**os.environ, **self.env},
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )

        def up() -> bool:
            if self.process is not None and self.process.poll() is not None:
                status = self.process.returncode
                raise RuntimeError(f"scripts/serve exited ({status}):\n{self.output()[-3000:]}")
            return ("is up at" in self.output() and " ready." in self.worker_log()
                    and " ready." in self._log("celery-worker-background.log")
                    and "beat: Starting..." in self.beat_log()
                    and len(self.daphnes()) >= int(self.env.get("DAPHNE_PROCESSES", "1")))

        wait_for(up, "scripts/serve to be up (site, worker, beat)", timeout)

    def output(self) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")
        return ""

    def _log(self, name: str) -> str:
        with contextlib.suppress(OSError):
            return (Path(self.env["GIN_VAR_DIR"]) / "log" / name).read_text(errors="replace")
        return ""

    def worker_log(self) -> str:
        """The realtime worker's log (the one running ratings and pairings, which the scenarios kill)."""
        return self._log("celery-worker-realtime.log")

    def beat_log(self) -> str:
        return self._log("celery-beat.log")

    @property
    def sid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def pids(self, needle: str) -> list[int]:
        return [pid for pid in session_pids(self.sid) if needle in cmdline(pid)]

    def daphnes(self) -> list[int]:
        """The Daphne processes (``.../daphne [options] --fd N config.asgi:application``)."""
        return [pid for pid in self.pids(" --fd ") if "/daphne " in cmdline(pid)]

    def worker_main(self) -> int | None:
        """The realtime Celery worker's main process (its pool children are its children)."""
        workers = self.pids("celery -A config worker")
        workers = [pid for pid in workers if "-Q realtime " in cmdline(pid)]
        mains = [pid for pid in workers if parent_of(pid) not in workers]
        return mains[0] if mains else None

    def worker_pool(self) -> list[int]:
        main = self.worker_main()
        return [pid for pid in self.pids("-Q realtime ") if parent_of(pid) == main]

    def stop(self, timeout: float = 60) -> None:
        """SIGTERM to ``scripts/serve`` (it stops what it started), then SIGKILL to whatever of its session
        is left. Idempotent."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=timeout)
        for pid in session_pids(self.sid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)


def socket_owner(pids: list[int], local_port: int, remote_port: int) -> int | None:
    """Which of ``pids`` holds the server side of the TCP connection 127.0.0.1:``local_port`` <->
    127.0.0.1:``remote_port`` (from ``/proc/net/tcp`` and the processes' file descriptors), or None."""
    want_local, want_remote = f"0100007F:{local_port:04X}", f"0100007F:{remote_port:04X}"
    inode = None
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[1] == want_local and fields[2] == want_remote:
                inode = fields[9]
                break
    if inode is None:
        return None
    target = f"socket:[{inode}]"
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in (Path("/proc") / str(pid) / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) == target:
                        return pid
    return None
