"""The runner: reads the account's event stream and plays every match it starts (docs/bot-api.md).

:class:`Runner` accepts or declines challenges by an :class:`AcceptPolicy`, and for each ``matchStart``
plays the match in its own thread: it reads the match stream and, on each ``state`` where this seat is
to move (``to_move == seat`` and ``view.legal_actions`` not empty), asks a bot for an action and posts
``{"action": "discard Kc", "seq": state.seq, "id": "<match>-<seq>"}`` (the ``id`` makes a post sent
again after a lost answer a harmless ``repeat``). A ``stale_seq`` refusal waits for the next state; the
final state (``finished`` / ``aborted``) ends the match. Both streams are opened again, with backoff,
when they break; the match stream's first line repeats the current state, so nothing is lost.

    >>> runner = Runner(Connection(url, token), lambda: make_bot(3), max_matches=1)  # doctest: +SKIP
    >>> runner.run()                                                                   # doctest: +SKIP
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any, Protocol

from botclient.http import ApiError, Connection, StreamGone, quote
from botclient.views import view_from_dict
from engine.actions import Action
from engine.view import PlayerView

log = logging.getLogger("botclient")

FINAL_STATUSES = frozenset(("finished", "aborted"))
"""A match state with one of these statuses is the stream's last."""

GIVE_UP_CODES = frozenset(("no_such_match", "not_seated", "bad_token", "not_bot", "missing_scope"))
"""Match stream refusals that opening it again cannot mend."""


class Player(Protocol):
    """What the runner plays with: the engine's bot interface (``engine.bots.base.Bot``) without the
    ``level``: ``choose(view)`` returns one of ``view.legal_actions``."""

    def choose(self, view: PlayerView) -> Action:
        """One of ``view.legal_actions``."""
        ...


@dataclass(frozen=True)
class AcceptPolicy:
    """Which challenges made to this account are accepted (the others are declined): by ``rated`` /
    ``casual`` match, and by whether the challenger is a BOT account (``bots``) or a person
    (``people``)."""

    rated: bool = True
    casual: bool = True
    bots: bool = True
    people: bool = True

    NAMES = ("all", "rated", "casual", "none")

    @classmethod
    def named(cls, name: str) -> AcceptPolicy:
        """``all`` (the default), ``rated`` (rated only), ``casual`` (casual only) or ``none``.

        :raises ValueError: another name.
        """
        if name not in cls.NAMES:
            raise ValueError(f"accept policy must be one of {', '.join(cls.NAMES)}, got {name!r}")
        return cls(rated=name in ("all", "rated"), casual=name in ("all", "casual"),
                   bots=name != "none", people=name != "none")

    def accepts(self, challenge: dict[str, Any]) -> bool:
        """Whether to accept ``challenge`` (the protocol's ``C``: ``rated``, ``challenger.bot_account``)."""
        challenger = challenge.get("challenger") or {}
        by_bot = bool(challenger.get("bot_account")) or challenger.get("house_bot_level") is not None
        kind_ok = self.rated if challenge.get("rated") else self.casual
        return kind_ok and (self.bots if by_bot else self.people)


@dataclass
class Stats:
    """What a runner did, for logs and the benchmark; thread-safe through :meth:`record`.

    - ``actions_posted``: actions the server accepted (``repeat`` answers included);
    - ``latencies``: seconds from posting an action to reading the next state of its match;
    - ``errors``: refusals and failures by code (``stale_seq``, ``unreachable``, ``bot_error``: the view
      could not be read or the bot raised ``ValueError`` on it, ...), and streams that
      broke (``stream_gone``: silent or failed; ``stream_ended``: closed before their end);
    - ``matches_started``, ``matches_finished``: matches played, and ended by a final state.
    """

    actions_posted: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    matches_started: int = 0
    matches_finished: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record(self, *, posted: int = 0, latency: float | None = None, error: str | None = None,
               started: int = 0, finished: int = 0) -> None:
        """Add one observation (thread-safe)."""
        with self.lock:
            self.actions_posted += posted
            if latency is not None:
                self.latencies.append(latency)
            if error is not None:
                self.errors[error] += 1
            self.matches_started += started
            self.matches_finished += finished

    def percentile(self, q: float) -> float | None:
        """The ``q`` quantile (0..1, nearest rank) of the latencies in seconds; ``None`` without any."""
        with self.lock:
            ordered = sorted(self.latencies)
        if not ordered:
            return None
        rank = max(1, min(len(ordered), math.ceil(q * len(ordered) - 1e-9)))  # nearest rank
        return ordered[rank - 1]


class Runner:
    """Plays as one BOT account through ``connection``.

    - ``bot_factory``: called once per match (no arguments) for the object that plays it.
    - ``accept``: which challenges to accept (:class:`AcceptPolicy`; all by default).
    - ``max_matches``: :meth:`run` returns once this many matches have finished (``None``: never);
      challenges beyond it are declined.
    - ``backoff`` / ``max_backoff``: seconds before opening a broken stream again (doubling).
    - ``rejoin_every``: seconds between two pool joins while waiting in a pool (:meth:`join_pool`).
    """

    def __init__(
        self,
        connection: Connection,
        bot_factory: Callable[[], Player],
        *,
        accept: AcceptPolicy | None = None,
        max_matches: int | None = None,
        backoff: float = 0.5,
        max_backoff: float = 10.0,
        rejoin_every: float = 60.0,
    ) -> None:
        self.connection = connection
        self.bot_factory = bot_factory
        self.accept = accept if accept is not None else AcceptPolicy()
        self.max_matches = max_matches
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.rejoin_every = rejoin_every
        self.stats = Stats()
        self.stopped = threading.Event()
        self.threads: dict[str, threading.Thread] = {}
        self.finished: set[str] = set()
        self.pool: str | None = None
        self._pool_joined_at = 0.0
        self._lock = threading.Lock()

    # -- the account's event stream ---------------------------------------------------------------------

    def run(self) -> Stats:
        """Read the event stream until :meth:`stop` or ``max_matches`` matches have finished, opening it
        again with backoff when it breaks; then wait for the matches being played. Returns the stats.

        :raises ApiError: the stream is refused for good (``bad_token``, ``not_bot``, ``missing_scope``).
        """
        delay = self.backoff
        while not self.stopped.is_set():
            try:
                with closing(self.connection.stream("stream/events/", keepalives=True)) as events:
                    ended = self._read_events(events)
                delay = self.backoff  # it was open: a new break starts the backoff again
                if ended:
                    log.info("the event stream ended; opening it again")
                    self.stats.record(error="stream_ended")
            except StreamGone as exc:
                log.warning("event stream gone (%s); opening it again in %.1f s", exc, delay)
                self.stats.record(error="stream_gone")
            except ApiError as exc:
                if exc.code in GIVE_UP_CODES:
                    raise
                log.warning("event stream refused (%s); again in %.1f s", exc, delay)
                self.stats.record(error=exc.code)
            if not self.stopped.wait(delay):
                delay = min(delay * 2, self.max_backoff)
        for thread in list(self.threads.values()):
            thread.join()
        return self.stats

    def _read_events(self, events: Iterator[dict[str, Any] | None]) -> bool:
        """Handle the event stream's lines until :meth:`stop`; whether the stream ended by itself."""
        for event in events:
            if event is not None:
                self.handle_event(event)
            self._keep_in_pool()
            if self.stopped.is_set():
                return False
        return True

    def stop(self) -> None:
        """Ask :meth:`run` to return (after the next line or keep-alive of the event stream)."""
        self.stopped.set()

    def handle_event(self, event: dict[str, Any]) -> None:
        """React to one event line: answer a challenge made to us, start a match, note a finish."""
        kind = event.get("type")
        if kind == "challenge":
            challenge = event.get("challenge") or {}
            if challenge.get("direction", "in") == "in":
                self.answer(challenge)
        elif kind == "matchStart":
            self.start_match(event.get("match") or {})
        elif kind == "matchFinish":
            match = event.get("match") or {}
            log.info("match %s finished: %s (%s)", match.get("id"), match.get("status"),
                     match.get("result_reason"))
        elif kind == "challengeClosed":
            log.info("challenge %s %s", event.get("id"), event.get("status"))

    def answer(self, challenge: dict[str, Any]) -> None:
        """Accept ``challenge`` if the policy does and more matches are wanted, else decline it. A
        refusal (``challenge_expired``, ``bot_paused``, ...) is logged and counted, not raised."""
        cid = challenge.get("id")
        room = self.max_matches is None or len(self.threads) < self.max_matches
        verb = "accept" if room and self.accept.accepts(challenge) else "decline"
        try:
            self.connection.post_json(f"challenge/{quote(str(cid))}/{verb}/")
            log.info("challenge %s from %s: %sed", cid, (challenge.get("challenger") or {}).get("username"),
                     verb.rstrip("e"))
        except ApiError as exc:
            log.warning("could not %s challenge %s: %s", verb, cid, exc)
            self.stats.record(error=exc.code)

    def start_match(self, match: dict[str, Any]) -> None:
        """Play ``match`` (the protocol's ``M``) in its own thread, unless it is being played already
        (a reconnected event stream repeats the matches in play)."""
        mid = str(match.get("id"))
        with self._lock:
            if mid in self.threads:
                return
            thread = threading.Thread(target=self.play_match, args=(mid,), name=f"match-{mid}", daemon=True)
            self.threads[mid] = thread
        self.stats.record(started=1)
        log.info("match %s started (seat %s, against %s)", mid, match.get("seat"),
                 (match.get("opponent") or {}).get("username"))
        thread.start()

    # -- one match --------------------------------------------------------------------------------------

    def play_match(self, match_id: str) -> None:
        """Read match ``match_id``'s stream and move whenever this seat is to, until its final state;
        a broken stream is opened again with backoff (the first line repeats the current state)."""
        bot = self.bot_factory()
        game = _Game(match_id)
        delay = self.backoff
        try:
            while True:
                try:
                    with closing(self.connection.stream(f"match/{quote(match_id)}/stream/")) as lines:
                        for line in lines:
                            assert line is not None  # keep-alives are skipped
                            delay = self.backoff
                            if self._on_line(bot, game, line):
                                return
                    log.info("match %s: the stream ended before the last state; again", match_id)
                    self.stats.record(error="stream_ended")
                except StreamGone as exc:
                    log.warning("match %s: stream gone (%s); again in %.1f s", match_id, exc, delay)
                    self.stats.record(error="stream_gone")
                except ApiError as exc:
                    self.stats.record(error=exc.code)
                    if exc.code in GIVE_UP_CODES:
                        log.error("match %s: %s; giving it up", match_id, exc)
                        return
                    log.warning("match %s: %s; again in %.1f s", match_id, exc, delay)
                time.sleep(delay)
                delay = min(delay * 2, self.max_backoff)
        finally:
            self._match_over(match_id)

    def _on_line(self, bot: Player, game: _Game, line: dict[str, Any]) -> bool:
        """Play on one match stream line; whether it was the match's last state."""
        state = self._state_of(game, line)
        if state is None:
            return False
        try:
            self.on_state(bot, game, state)
        except ValueError:
            # A view this client cannot read, or a bot that fails on it: the turn timer moves for this
            # seat; the match goes on with the next state.
            log.exception("match %s: no move at seq %s", game.match_id, state.get("seq"))
            self.stats.record(error="bot_error")
        return state.get("status") in FINAL_STATUSES

    def _state_of(self, game: _Game, line: dict[str, Any]) -> dict[str, Any] | None:
        """The state a match stream line carries (``matchFull``'s ``state``, or a ``state`` line)."""
        if line.get("type") == "matchFull":
            game.seat = line.get("seat")
            state = line.get("state")
            return state if isinstance(state, dict) else None
        if line.get("type") == "state":
            return line
        return None

    def on_state(self, bot: Player, game: _Game, state: dict[str, Any]) -> None:
        """Move if this seat is to: ``bot.choose(view)``, posted with the state's ``seq`` (once per
        ``seq``: a repeated state after a reconnection is not played twice)."""
        seq = state.get("seq")
        if not isinstance(seq, int) or (game.last_seq is not None and seq < game.last_seq):
            return
        game.last_seq = seq
        if game.posted_at is not None and game.posted_seq is not None and seq > game.posted_seq:
            self.stats.record(latency=time.monotonic() - game.posted_at)
            game.posted_at = None
        view_data = state.get("view")
        if (state.get("status") in FINAL_STATUSES or not isinstance(view_data, dict)
                or state.get("to_move") != game.seat or not view_data.get("legal_actions")
                or seq in game.played):
            return
        unanswered = game.unanswered.pop(seq, None)
        if unanswered is not None:  # a post that got no answer: the same action under the same id
            self.post_action(game, unanswered, seq)
            return
        view = view_from_dict(view_data)
        action = bot.choose(view)
        if action not in view.legal_actions:
            log.error("match %s: the bot chose %s, not a legal action (%s)", game.match_id, action,
                      ", ".join(map(str, view.legal_actions)))
        self.post_action(game, str(action), seq)

    def post_action(self, game: _Game, action: str, seq: int) -> None:
        """Post ``action`` for ``seq``; a refusal is logged and counted (``stale_seq``: the next state
        decides again). A failure that is no refusal (an unreachable server, a 429 still refused after
        the retries, a 5xx) keeps the action: read again (the stream opened anew repeats the state), the
        state gets it again under the same ``id``, which the server answers as a ``repeat`` if the first
        post did reach it."""
        body = {"action": action, "seq": seq, "id": f"{game.match_id}-{seq}"}
        game.played.add(seq)
        game.posted_seq, game.posted_at = seq, time.monotonic()
        try:
            answer = self.connection.post_json(f"match/{quote(game.match_id)}/action/", body)
        except ApiError as exc:
            game.posted_at = None
            self.stats.record(error=exc.code)
            if exc.status == 0 or exc.status == 429 or exc.status >= 500:
                # Not a refusal of the move: the same state read again (the stream opened anew) sends
                # it again under the same id, which the server answers as a repeat if it got it.
                game.played.discard(seq)
                game.unanswered[seq] = action
            if exc.code == "stale_seq":
                log.info("match %s: seq %s is stale; waiting for the next state", game.match_id, seq)
            else:
                log.warning("match %s: %s at seq %s refused: %s", game.match_id, action, seq, exc)
            return
        self.stats.record(posted=1)
        log.debug("match %s: %s at seq %s -> %s", game.match_id, action, seq, answer)

    def _match_over(self, match_id: str) -> None:
        with self._lock:
            self.finished.add(match_id)
            done = self.max_matches is not None and len(self.finished) >= self.max_matches
        self.stats.record(finished=1)
        log.info("match %s over (%d finished)", match_id, len(self.finished))
        if done:
            self.stop()

    # -- asking for matches -----------------------------------------------------------------------------

    def challenge(self, username: str, **settings: Any) -> dict[str, Any]:
        """Challenge ``username`` (``target``, ``turn_timer``, ``rated``, ``preset``); the challenge
        ``C``. The match comes as ``matchStart`` once accepted.

        :raises ApiError: refused (``challenge_blocked``, ``no_such_player``, ``bot_paused``, ...).
        """
        answer = self.connection.post_json(f"challenge/{quote(username)}/", settings)
        challenge: dict[str, Any] = answer.get("challenge", answer)
        return challenge

    def join_pool(self, slug: str = "bots-100") -> None:
        """Wait in the BOT pool ``slug``; joined again every ``rejoin_every`` s while no match is on.

        :raises ApiError: refused (``no_such_pool``, ``bot_paused``, ...).
        """
        self.connection.post_json(f"pool/{quote(slug)}/join/")
        self.pool, self._pool_joined_at = slug, time.monotonic()

    def _keep_in_pool(self) -> None:
        if self.pool is None or time.monotonic() - self._pool_joined_at < self.rejoin_every:
            return
        with self._lock:
            playing = len(self.threads) > len(self.finished)
        if playing or (self.max_matches is not None and len(self.threads) >= self.max_matches):
            return
        try:
            self.join_pool(self.pool)
        except ApiError as exc:
            log.warning("could not join pool %s again: %s", self.pool, exc)
            self.stats.record(error=exc.code)
            self._pool_joined_at = time.monotonic()

    def play_house(self, level: int, **settings: Any) -> dict[str, Any]:
        """Start a match against the house bot of ``level`` (1-5; ``target``, ``rated``,
        ``turn_timer``); the match ``M``, also announced by ``matchStart``.

        :raises ApiError: refused.
        """
        answer = self.connection.post_json("match/house/", {"level": level, **settings})
        match: dict[str, Any] = answer.get("match", answer)
        return match


@dataclass
class _Game:
    """What a match thread remembers of its match: the seat, the last state read, the ``seq`` values it
    played, the actions posted without an answer by ``seq`` (sent again, not chosen again, when that
    state is read again), when its last post left (for the latency)."""

    match_id: str
    seat: Any = None
    last_seq: int | None = None
    played: set[int] = field(default_factory=set)
    unanswered: dict[int, str] = field(default_factory=dict)
    posted_seq: int | None = None
    posted_at: float | None = None
