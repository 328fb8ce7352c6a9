"""Shared fixtures for every test package.

Services
    ``skip_or_fail(reason)``: skip, or fail when ``CI=true`` (CI must run everything).
    ``postgres_url`` / ``redis_url``: URL of a reachable server (``DATABASE_URL``/``REDIS_URL`` or the
    local defaults ``postgres://postgres@127.0.0.1:5432/postgres`` and ``redis://127.0.0.1:6379/0``);
    skip (CI: fail) when unreachable.

Language
    ``_default_language`` (autouse): the active language is reset before and after each test (the test
    client's LocaleMiddleware leaves pt-BR active in the test's thread otherwise).

Server moves
    ``server_moves_in_process`` (autouse): bot and turn-timer moves are driven in the test's own process
    (``GAMES_SERVER_MOVES_IN_PROCESS``, see ``games.scheduling``), never enqueued for a worker that does
    not run; timer threads still pending are cancelled afterwards. A test of the Celery driver sets
    ``settings.GAMES_SERVER_MOVES_IN_PROCESS = False`` and runs a worker. It also sets
    ``GAMES_BOT_VS_BOT_DELAY`` to 0 (bot-vs-bot matches at engine speed; mirrored into ``daphne_server``).

Browser (mark tests ``@pytest.mark.browser``)
    ``browser``: a Playwright ``Browser`` on Debian's ``/usr/bin/chromium`` (never a downloaded one),
    headless with ``--no-sandbox --disable-gpu ...``; skips (CI: fails) when chromium is absent. One per
    test and started after the (transactional) test database: Playwright's sync API keeps an event loop
    "running" in the main thread while it is open, which must not leak into other tests.
    ``contexts``: ``open(width, locale)`` gives a page in a context of its own (its own cookies), for
    tests with several players or screen sizes (helpers: tests/browser_pages.py).
    ``page``: a fresh ``BrowserContext`` + ``Page`` per test (isolated cookies), closed afterwards; sets
    ``DJANGO_ALLOW_ASYNC_UNSAFE`` until the test's teardown ends, so its own ORM calls (and the database
    flush) work beside Playwright's event loop. Playwright's sync API cannot run inside an event loop:
    use it from plain ``def`` tests.
    Every context the ``browser`` opens (``page``'s, and a test's own ``browser.new_context(...)``) waits
    up to ``tests.browser_waits.BROWSER_WAIT_MS`` for actions and navigations, and so do ``expect``
    assertions: set no shorter timeout in a test (a busy machine is slow; the wait ends when the
    condition holds).

Socket waits
    A channels test communicator waits at least ``tests.browser_waits.SOCKET_WAIT_S`` for the
    application's next message: ``receive_output`` (so ``connect``, ``receive_from``,
    ``receive_json_from``, ``get_response``) takes ``max(timeout, SOCKET_WAIT_S)``, whatever the test
    passes (asgiref's default is 1 s; 1-5 s waits failed on a busy machine). ``receive_nothing``,
    ``wait`` and ``disconnect`` keep the test's short timeouts: ``wait`` swallows its timeout, so a long
    one would make every ``disconnect`` that long.

Live server (pytest-django's ``live_server`` is WSGI and cannot serve Channels)
    ``daphne_server``: a real Daphne subprocess (``config.asgi:application``) on a free 127.0.0.1 port,
    against the TEST database of this run (requests ``transactional_db``, so rows your test creates are
    committed and visible to the server, and tables are flushed after). Attributes: ``url``
    (``http://127.0.0.1:<port>``), ``ws_url``, ``port``, ``log_path``; methods ``stop()``, ``start()``,
    ``restart()`` (same port: for "server restarts mid-hand" tests). Its environment: ``DATABASE_URL`` =
    the test database, ``SECURE_COOKIES=0``, ``CELERY_TASK_ALWAYS_EAGER=1`` (tasks run inside Daphne),
    ``REDIS_URL`` passed through (CI: Redis channel layer), and ``GAMES_BOT_DELAY``/``GAMES_HAND_PAUSE``
    copied from the test's settings when they are set (so a fixture zeroing them applies to the server
    too). Its log is printed when a test fails.
    ``daphne_server_factory(**env)``: the same with extra environment variables, e.g.
    ``daphne_server_factory(CELERY_TASK_ALWAYS_EAGER="0")`` (then run a worker yourself).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from tests.browser_waits import BROWSER_WAIT_MS, SOCKET_WAIT_S

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_configure(config: pytest.Config) -> None:
    """The test database starts without tournaments: ``migrate`` creating the schedules' next events
    (``tournaments.receivers.schedule_after_migrate``) is off here, so tests that count or list
    tournaments see only their own; tests/tournaments/test_schedule_on_migrate.py turns it on. The
    fair-play sample is off too (``FAIRPLAY_SAMPLE_RATE = 0``)."""
    from django.conf import settings

    if settings.configured:
        settings.TOURNAMENTS_SCHEDULE_ON_MIGRATE = False
        # No fair-play analysis of a sampled finished match behind another test's back (a Celery message,
        # seconds of engine time when eager); tests/fairplay set the rate they test.
        settings.FAIRPLAY_SAMPLE_RATE = 0.0
    _floor_socket_waits()
    try:
        from playwright.sync_api import expect
    except ImportError:  # the browser tests then skip (CI: fail) in the ``browser`` fixture
        return
    expect.set_options(timeout=BROWSER_WAIT_MS)


def _floor_socket_waits() -> None:
    """asgiref's ``ApplicationCommunicator.receive_output`` waits at least ``SOCKET_WAIT_S`` (see the
    module docstring, "Socket waits"); every communicator's ``connect``, ``receive_from``,
    ``receive_json_from`` and ``get_response`` call it with their timeout.

    As asgiref's own, it returns the application's next message, raises the application's error, or
    raises ``TimeoutError`` (after cancelling the application) when nothing came within the timeout;
    unlike it, it does not wait out the timeout when the application ends without a message (its error
    is raised at once; asgiref only looked after the timeout, which would make a test of a failing
    handler wait ``SOCKET_WAIT_S``)."""
    from asgiref.testing import ApplicationCommunicator

    if getattr(ApplicationCommunicator.receive_output, "floored", False):
        return

    async def receive_output(self: Any, timeout: float = SOCKET_WAIT_S) -> Any:
        if self.future.done():
            self.future.result()  # the application's error
        getter = asyncio.ensure_future(self.output_queue.get())
        try:
            await asyncio.wait({getter, self.future}, timeout=max(timeout, SOCKET_WAIT_S),
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not getter.done():
                getter.cancel()  # a cancelled Queue.get takes nothing from the queue
                with contextlib.suppress(asyncio.CancelledError):
                    await getter
        if getter.done() and not getter.cancelled():
            return getter.result()
        if not self.output_queue.empty():
            return self.output_queue.get_nowait()
        if self.future.done():
            self.future.result()  # the application's error
            raise TimeoutError("the application ended without sending anything")
        self.future.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.future
        raise TimeoutError(f"no message from the application within {max(timeout, SOCKET_WAIT_S)} s")

    receive_output.floored = True  # type: ignore[attr-defined]
    ApplicationCommunicator.receive_output = receive_output  # type: ignore[method-assign]


def in_ci() -> bool:
    """True when ``CI`` is ``true``/``1``: services and the browser are then mandatory."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def skip_or_fail(reason: str) -> None:
    """Skip the current test, or fail it under CI. Never returns.

    :raises pytest.skip.Exception | pytest.fail.Exception: always.
    """
    if in_ci():
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


@pytest.fixture(name="skip_or_fail")
def skip_or_fail_fixture() -> Callable[[str], None]:
    """``skip_or_fail`` as a fixture, for test modules that do not import conftest."""
    return skip_or_fail


def tcp_reachable(url: str, default_port: int) -> bool:
    """Whether a TCP connection to the host:port of ``url`` succeeds within 2 s."""
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or default_port), timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """URL of a reachable PostgreSQL server (skip, or fail under CI, if none)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        url = "postgres://postgres@127.0.0.1:5432/postgres"
    if not tcp_reachable(url, 5432):
        skip_or_fail(f"PostgreSQL is not reachable at {url}")
    return url


@pytest.fixture(scope="session")
def redis_url() -> str:
    """URL of a reachable Redis server (skip, or fail under CI, if none)."""
    from tests.parallel import worker_redis_url

    # REDIS_URL was already moved to this worker's database (tests/parallel.py); the default is moved here.
    url = os.environ.get("REDIS_URL") or worker_redis_url("redis://127.0.0.1:6379/0")
    if not tcp_reachable(url, 6379):
        skip_or_fail(f"Redis is not reachable at {url}")
    return url


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's test database, plus: before it is dropped, end other sessions on it (PostgreSQL).

    Worker threads of async code (``sync_to_async``) keep their own connections, which would otherwise make
    ``DROP DATABASE test_...`` fail with "being accessed by other users" and leave the database behind.
    """
    yield
    with django_db_blocker.unblock():
        from django.db import connection

        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            connection.close()


@pytest.fixture(autouse=True)
def _fresh_cache(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test gets its own empty in-process cache (locmem), so throttle counters and other cached
    counts never carry over from one test to the next, nor into the Redis of a developer's server.
    A test of the Redis cache itself overrides ``CACHES`` again."""
    from django.test import override_settings

    location = f"test-{request.node.nodeid}"
    with override_settings(
        CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": location}}
    ):
        yield


@pytest.fixture(autouse=True)
def _fresh_live_cache() -> Iterator[None]:
    """Each test starts with empty in-process caches of match states and rows (``games.live``): they are
    keyed by match id, and a rolled-back test gives its ids to the next test on SQLite."""
    from games.live import cache_clear

    cache_clear()
    yield


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> Iterator[None]:
    """Each test builds its own channel layer. A layer instance keeps receive state per event loop
    (channels-redis' receive lock and count): a consumer left waiting in ``receive()`` when one test's
    loop closed never leaves it, and the next test's loop then meets the held lock ("Lock ... is bound
    to a different event loop": three socket tests failed so in one CI run)."""
    from channels.layers import channel_layers

    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Each test starts and ends in the default language. The test client runs LocaleMiddleware in the
    test's own thread, and its ``translation.activate`` (a pt-BR cookie or Accept-Language) stays active
    after the request: without this, a later test's gettext and ``User.public_name`` answer in pt-BR."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _site_celery_app_stays_current() -> Iterator[None]:
    """Every shared task (``rate_match.delay``...) sends through Celery's CURRENT app: a test that makes
    a ``Celery(...)`` client without ``set_as_current=False`` would send every later task of this
    process to its broker (the rating tasks of a later test never reached their worker)."""
    yield
    from celery import current_app

    from config.celery import app

    assert current_app._get_current_object() is app, "a Celery(...) client needs set_as_current=False"


# --- live pushes ---------------------------------------------------------------------------------
# Servers and workers the tests start (Daphne, Celery, scripts/serve) check their pushes too.
os.environ["PUSH_CHECK"] = "1"


@pytest.fixture(autouse=True)
def _push_failures_fail(request: pytest.FixtureRequest, settings: Any) -> Iterator[None]:
    """Every channel-layer message of the test is checked against its schema (``push.schemas``), and a
    send that could not be made (``push.send`` records each one) fails the test, unless the test is
    marked ``push_failure`` (it breaks the layer on purpose); so does a message the channel layer's
    receive pump lost to an error (``infra.channel_layer.RECEIVE_ERRORS``). A broken push once hid in a
    log line."""
    from infra import channel_layer
    from push import send

    settings.PUSH_CHECK = True
    seen: list[send.Failure] = []
    listeners = send.LISTENERS  # the list itself: a test may replace the module's
    listeners.append(seen.append)
    lost_before = len(channel_layer.RECEIVE_ERRORS)
    yield
    listeners.remove(seen.append)
    if request.node.get_closest_marker("push_failure") is not None:
        return
    if seen:
        pytest.fail("a push could not be sent: " + "; ".join(
            f"{', '.join(f.types)} to {', '.join(f.groups)}: {type(f.error).__name__}: {f.error}"
            for f in seen))
    lost = channel_layer.RECEIVE_ERRORS[lost_before:]
    if lost:
        pytest.fail("the channel layer's receive pump lost a message: " + "; ".join(
            f"{type(e).__name__}: {e}" for e in lost))


# --- server moves ---------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def server_moves_in_process(settings: Any) -> Iterator[None]:
    """Drive server moves in this process (see the module docstring)."""
    settings.GAMES_SERVER_MOVES_IN_PROCESS = True
    # Bot-vs-bot matches at engine speed: no test waits real seconds for them (games/conf.py;
    # tests/games/test_bot_vs_bot_pace.py checks the real delay).
    settings.GAMES_BOT_VS_BOT_DELAY = 0
    yield
    from games import scheduling

    scheduling.cancel_timers()


# --- browser --------------------------------------------------------------------------------------
@pytest.fixture
def browser(transactional_db: None) -> Iterator[Any]:
    """Playwright chromium (``/usr/bin/chromium``, headless, no sandbox) for one test.

    Per test, and set up after the test database, on purpose: while Playwright's sync API is active it
    leaves its event loop "running" in the main thread, which breaks Django's database setup and flush
    (SynchronousOnlyOperation) and every later pytest-asyncio test (a session-wide browser did that).
    """
    if not os.access(CHROMIUM, os.X_OK):
        skip_or_fail(f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        # The live server sends the production Content-Security-Policy, which forbids eval; Playwright's
        # wait_for_function polls its predicate with eval. So contexts ignore the CSP unless a test asks
        # for it (bypass_csp=False: tests/platform/test_security_headers.py checks the CSP itself).
        open_context = chromium.new_context

        def new_context(**options: Any) -> Any:
            options.setdefault("bypass_csp", True)
            context = open_context(**options)
            context.set_default_timeout(BROWSER_WAIT_MS)
            context.set_default_navigation_timeout(BROWSER_WAIT_MS)
            return context

        chromium.new_context = new_context
        try:
            yield chromium
        finally:
            chromium.close()


ASYNC_UNSAFE_STASH = pytest.StashKey[str | None]()


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh browser context (own cookies) and page; ``BROWSER_WAIT_MS`` default timeout."""
    # Playwright's sync API keeps an event loop running in this thread, so Django would refuse the test's
    # own synchronous (and safe) ORM calls, and the database flush after it, with SynchronousOnlyOperation.
    # Allowed until this test's teardown is over (restored in pytest_runtest_teardown below).
    request.node.stash[ASYNC_UNSAFE_STASH] = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    # bypass_csp: Playwright polls wait_for_function's string predicates through eval, which the site's
    # Content-Security-Policy (production profile: script-src 'self') refuses; the pages' scripts are static.
    context = browser.new_context(locale="en-US", bypass_csp=True)  # BROWSER_WAIT_MS (``browser``)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def contexts(browser: Any, page: Any) -> Iterator[Any]:
    """``open(width, locale)`` -> a new page in its own browser context (own cookies), ``width`` x 900.
    (Asks for ``page`` for its setup: the ORM stays usable while Playwright's loop runs.) The contexts
    are closed afterwards."""
    made: list[Any] = []

    def open_page(width: int, locale: str) -> Any:
        # bypass_csp: Playwright's wait_for_function polls string predicates through eval, which the
        # site's Content-Security-Policy (script-src 'self') refuses; the pages' own scripts are static.
        context = browser.new_context(
            locale=locale, viewport={"width": width, "height": 900}, bypass_csp=True
        )
        made.append(context)
        return context.new_page()

    yield open_page
    for context in made:
        context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """After all fixtures of a ``page`` test are torn down, restore ``DJANGO_ALLOW_ASYNC_UNSAFE``."""
    try:
        return (yield)
    finally:
        if ASYNC_UNSAFE_STASH in item.stash:
            previous = item.stash[ASYNC_UNSAFE_STASH]
            if previous is None:
                os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
            else:
                os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


# --- live Daphne server ---------------------------------------------------------------------------
def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url_of(settings_dict: dict[str, Any]) -> str:
    """``DATABASE_URL`` for the connection described by a Django ``settings_dict`` (sqlite or postgres).

    :raises ValueError: for other engines.
    """
    engine = settings_dict["ENGINE"]
    if engine == "django.db.backends.sqlite3":
        return f"sqlite:///{Path(settings_dict['NAME']).resolve()}"
    if engine == "django.db.backends.postgresql":
        user = quote(settings_dict.get("USER") or "")
        password = settings_dict.get("PASSWORD") or ""
        auth = f"{user}:{quote(password)}@" if password else (f"{user}@" if user else "")
        host = settings_dict.get("HOST") or "127.0.0.1"
        port = settings_dict.get("PORT") or 5432
        return f"postgres://{auth}{host}:{port}/{quote(settings_dict['NAME'])}"
    raise ValueError(f"no DATABASE_URL form for engine {engine}")


class DaphneServer:
    """A Daphne subprocess serving ``config.asgi:application`` on ``127.0.0.1:<port>``."""

    def __init__(self, port: int, env: dict[str, str], log_path: Path) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}"
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, ready_timeout: float = 60.0) -> None:
        """Start Daphne and wait until it accepts connections.

        :raises RuntimeError: if it exits or does not listen within ``ready_timeout`` seconds.
        """
        log = self.log_path.open("ab")
        # -v 0 as scripts/serve and the systemd unit: the access lines come from web.access_log.
        command = [sys.executable, "-m", "daphne", "-v", "0", "-b", "127.0.0.1", "-p", str(self.port)]
        self.process = subprocess.Popen(
            [*command, "config.asgi:application"],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited with {self.process.returncode}:\n{self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"daphne did not listen on {self.port} within {ready_timeout}s:\n{self.log()}")

    def stop(self) -> None:
        """Stop Daphne (SIGTERM, then SIGKILL after 10 s). Idempotent."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def restart(self) -> None:
        """Stop then start again on the same port (in-memory state is lost, the database is kept)."""
        self.stop()
        self.start()

    def log(self) -> str:
        """Everything Daphne wrote so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@pytest.fixture
def daphne_server_factory(
    transactional_db: None, tmp_path: Path, request: pytest.FixtureRequest, settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Callable[..., DaphneServer]]:
    """Start Daphne subprocesses on the test database: ``daphne_server_factory(**extra_env)``.

    A server on the in-memory layer (no ``REDIS_URL``: the embedded profile) takes pushes from the other
    processes as the embedded profile's does (``push.forward``): this process, and every worker the test
    starts after it (its environment), post their pushes to the latest such server, so a move the test
    makes here reaches that server's sockets."""
    from django.db import connection

    servers: list[DaphneServer] = []
    # Daphne must keep Django's async-safety checks even when a browser test set the override.
    base_env = {key: value for key, value in os.environ.items() if key != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    base_env.update(
        {
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(ROOT), str(ROOT / "platform"), os.environ.get("PYTHONPATH")])
            ),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": database_url_of(connection.settings_dict),
            "SECURE_COOKIES": "0",
            "CELERY_TASK_ALWAYS_EAGER": "1",
            # Eager tasks run inside Daphne: no background fair-play analysis of a sampled match (seconds
            # of engine time) in a live-server test (tests/fairplay test the sampling hook itself).
            "FAIRPLAY_SAMPLE_RATE": "0",
            "PYTHONUNBUFFERED": "1",
            # Own cache keys (throttle counters...) per test: with REDIS_URL they would outlive the test.
            "CACHE_KEY_PREFIX": f"gin-test-{secrets.token_hex(6)}",
        }
    )

    # Mirror the test's live-play timings (e.g. a fixture that zeroes the bot's pause) into the server.
    from django.conf import settings

    if hasattr(settings, "GAMES_BOT_DELAY"):
        base_env["GAMES_BOT_DELAY"] = ",".join(str(float(x)) for x in settings.GAMES_BOT_DELAY)
    if hasattr(settings, "GAMES_HAND_PAUSE"):
        base_env["GAMES_HAND_PAUSE"] = str(float(settings.GAMES_HAND_PAUSE))
    if hasattr(settings, "GAMES_BOT_VS_BOT_DELAY"):
        base_env["GAMES_BOT_VS_BOT_DELAY"] = str(float(settings.GAMES_BOT_VS_BOT_DELAY))

    def start(**extra_env: str) -> DaphneServer:
        env = {**base_env, **extra_env}
        forwarding = not env.get("REDIS_URL")
        if forwarding:
            env.setdefault("PUSH_FORWARD_TOKEN", secrets.token_urlsafe(32))
        server = DaphneServer(free_port(), env, tmp_path / f"daphne-{len(servers)}.log")
        servers.append(server)
        server.start()
        if forwarding:
            url = f"{server.url}/internal/push/"
            settings.PUSH_FORWARD_URL, settings.PUSH_FORWARD_TOKEN = url, env["PUSH_FORWARD_TOKEN"]
            monkeypatch.setenv("PUSH_FORWARD_URL", url)
            monkeypatch.setenv("PUSH_FORWARD_TOKEN", env["PUSH_FORWARD_TOKEN"])
        return server

    yield start
    for server in servers:
        server.stop()
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        for server in servers:
            sys.stderr.write(f"\n--- daphne log ({server.url}) ---\n{server.log()}\n")


@pytest.fixture
def daphne_server(daphne_server_factory: Callable[..., DaphneServer]) -> DaphneServer:
    """One Daphne subprocess on the test database (see module docstring)."""
    return daphne_server_factory()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the item (``rep_call``) so fixtures can print logs on failure."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report
