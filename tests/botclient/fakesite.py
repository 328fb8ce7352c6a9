"""A fake bot API server for the reference client's tests (tests only): the subset of docs/bot-api.md the
client uses, over the standard library's ``http.server`` in a thread, with a real engine behind it.

- ``GET account/``, ``POST account/upgrade/``;
- ``GET stream/events/``: every event so far (``matchStart`` of each match, challenges), then new ones,
  keep-alive blank lines every ``keepalive`` seconds;
- ``GET match/{id}/stream/``: ``matchFull`` then a ``state`` line per change, keep-alives, the stream
  ends after the final state; the opponent's seat is played by the server with an engine bot, new hands
  are dealt from seeded decks;
- ``POST match/{id}/action/``: ``{"action", "seq", "id"}``, applied to the engine for the BOT's seat;
  refusals with the engine's codes (``stale_seq`` for an old ``seq``);
- ``POST challenge/{id}/accept|decline/``, ``challenge/{user}/``, ``pool/{slug}/join/``, ``match/house/``.

Faults for the tests: ``drop_match_stream_after`` (lines sent before the first match stream is cut),
``drop_event_stream_after`` (the same for the first event stream), ``answer_429`` (codes and
Retry-After values answered to the next action posts, before applying), ``stale_at`` (a seq whose first
post is answered ``stale_seq`` after the server publishes the same position again under a new seq).
"""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from engine.bots import make_bot
from engine.bots.base import Bot
from engine.deck import seeded_deck
from engine.errors import EngineError
from engine.match import MatchState
from engine.rules import RuleSet, preset

PREFIX = "/api/v1/bot/"
GOOD_TOKEN = "gin_" + "a" * 40


def player(username: str, *, bot: bool = True) -> dict[str, Any]:
    """The protocol's ``P``."""
    return {"username": username, "name": username, "bot_account": bot, "house_bot_level": None,
            "rating": 1500}


@dataclass
class FakeMatch:
    """One match: the engine state, the BOT's seat, the server's bot for the other seat, every state
    published (``states[i]`` has ``seq`` ``i + 1``)."""

    id: str
    seat: int
    rules: RuleSet
    deck_seed: int
    opponent: Bot
    state: MatchState = field(init=False)
    states: list[dict[str, Any]] = field(default_factory=list)
    applied: list[tuple[int, str]] = field(default_factory=list)  # (seq, action) applied for the BOT
    refused: list[str] = field(default_factory=list)  # codes answered to the BOT's action posts
    retry_ids: dict[str, dict[str, Any]] = field(default_factory=dict)
    stream_opens: int = 0
    cut_streams: bool = False  # cut the open match streams at their next keep-alive (the server went away)

    def __post_init__(self) -> None:
        self.state = MatchState(self.rules, 0)
        self.rng = random.Random(self.deck_seed)

    def advance(self) -> None:
        """Deal when a hand is due and let the server's bot move until the BOT is to move or the match
        is over, publishing a state after each change."""
        m = self.state
        while not m.is_over:
            if m.awaiting_deal:
                m.deal(seeded_deck(self.rng.randrange(2**32)))
            elif m.current_player == self.seat:
                return
            else:
                mover = 1 - self.seat
                m.apply(self.opponent.choose(m.view(mover)), mover)
            self.publish()

    def publish(self) -> None:
        m = self.state
        finished = m.is_over
        self.states.append({
            "seq": len(self.states) + 1,
            "status": "finished" if finished else "playing",
            "scores": list(m.final_scores if m.final_scores is not None else m.scores),
            "hand_number": m.hand_number,
            "to_move": m.current_player,
            "turn_deadline": None,
            "winner": m.winner,
            "result_reason": "target" if finished else None,
            "view": m.view(self.seat).to_dict() if m.hand is not None else None,
            "last_hand": None,
        })


class FakeSite:
    """The fake server; ``url`` once started. Use as a context manager."""

    def __init__(self, *, keepalive: float = 0.05, rules: RuleSet | None = None) -> None:
        self.keepalive = keepalive
        self.rules = rules if rules is not None else preset("classic").replace(target=50)
        self.lock = threading.Condition()
        self.events: list[dict[str, Any]] = []
        self.matches: dict[str, FakeMatch] = {}
        self.answers: dict[str, str] = {}  # challenge id -> "accept" / "decline"
        self.requests: list[tuple[str, str]] = []
        self.posts: list[tuple[str, dict[str, Any]]] = []  # (path, body) of every POST
        self.bot = True
        self.drop_match_stream_after: int | None = None
        self.drop_event_stream_after: int | None = None
        self.answer_429: list[tuple[str, str | None]] = []
        self.stale_at: int | None = None
        self.drop_answer: bool = False  # apply the next action, then break the connection unanswered
        self.event_stream_opens = 0
        self.closing = False
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeSite:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.closing = True
            self.lock.notify_all()
        self.server.shutdown()
        self.server.server_close()

    # -- the site's side ------------------------------------------------------------------------------------

    def add_match(self, match_id: str, *, seat: int = 0, deck_seed: int = 1, opponent_seed: int = 2,
                  announce: bool = True) -> FakeMatch:
        """A match started for the BOT (``matchStart`` on the event stream unless ``announce`` is off)."""
        with self.lock:
            match = FakeMatch(match_id, seat, self.rules, deck_seed, make_bot(3, seed=opponent_seed))
            match.advance()
            self.matches[match_id] = match
            if announce:
                self._event({"type": "matchStart", "match": {
                    "id": match_id, "seat": seat, "opponent": player("opponent"), "rated": True,
                    "target": self.rules.target, "turn_timer": 30}})
        return match

    def add_challenge(self, cid: str, *, rated: bool, by_bot: bool) -> None:
        with self.lock:
            self._event({"type": "challenge", "challenge": {
                "id": cid, "direction": "in", "challenger": player(f"c{cid}", bot=by_bot),
                "challenged": player("me"), "preset": "classic", "target": 50, "turn_timer": 30,
                "rated": rated, "expires_at": "2026-12-07T12:00:00Z"}})

    def _event(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        self.lock.notify_all()

    # -- HTTP --------------------------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def answer(self, status: int, body: dict[str, Any],
                       headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def error(self, status: int, code: str, headers: dict[str, str] | None = None) -> None:
                self.answer(status, {"error": code, "message": f"fake {code}"}, headers)

            def authorised(self) -> bool:
                auth = self.headers.get("Authorization")
                if auth is None:
                    self.error(401, "not_authenticated")
                    return False
                if auth != f"Bearer {GOOD_TOKEN}":
                    self.error(401, "bad_token")
                    return False
                return True

            def route(self) -> list[str]:
                with site.lock:
                    site.requests.append((self.command, self.path))
                assert self.path.startswith(PREFIX), self.path
                return self.path[len(PREFIX):].strip("/").split("/")

            def do_GET(self) -> None:
                parts = self.route()
                if not self.authorised():
                    return
                if parts == ["account"]:
                    self.answer(200, {"username": "me", "name": "me", "bot": site.bot, "paused_until": None,
                                      "rating": 1500, "provisional": True, "scopes": ["bot:play"]})
                elif parts == ["stream", "events"]:
                    self.event_stream()
                elif len(parts) == 3 and parts[0] == "match" and parts[2] == "stream":
                    self.match_stream(parts[1])
                else:
                    self.error(404, "not_found")

            def start_stream(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()

            def line(self, item: dict[str, Any] | None) -> None:
                data = b"\n" if item is None else json.dumps(item).encode() + b"\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()

            def end_stream(self) -> None:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def cut(self) -> None:
                """Break the connection mid-stream, as a proxy or a restart would."""
                self.close_connection = True
                self.connection.shutdown(2)

            def event_stream(self) -> None:
                with site.lock:
                    site.event_stream_opens += 1
                    drop = site.drop_event_stream_after if site.event_stream_opens == 1 else None
                self.start_stream()
                sent = 0
                try:
                    self.line(None)
                    while True:
                        with site.lock:
                            if site.closing:
                                return
                            pending = site.events[sent:]
                            if not pending:
                                site.lock.wait(site.keepalive)
                        if not pending:
                            self.line(None)
                            continue
                        for event in pending:
                            if drop is not None and sent >= drop:
                                self.cut()
                                return
                            self.line(event)
                            sent += 1
                except OSError:
                    return

            def match_stream(self, match_id: str) -> None:
                match = site.matches.get(match_id)
                if match is None:
                    self.error(404, "no_such_match")
                    return
                with site.lock:
                    match.stream_opens += 1
                    drop = site.drop_match_stream_after if match.stream_opens == 1 else None
                    first = dict(match.states[-1])
                    seen = len(match.states)
                self.start_stream()
                try:
                    self.line({"type": "matchFull", "v": 1, "id": match_id, "seat": match.seat,
                               "players": [player("me"), player("opponent")], "rated": True,
                               "target": site.rules.target, "turn_timer": 30,
                               "rules": site.rules.to_dict(), "state": first})
                    sent = 1
                    self.line(None)
                    while first["status"] != "finished":
                        with site.lock:
                            if site.closing:
                                return
                            pending = match.states[seen:]
                            if not pending:
                                site.lock.wait(site.keepalive)
                        if not pending:
                            if match.cut_streams:
                                match.cut_streams = False
                                self.cut()
                                return
                            self.line(None)
                            continue
                        for state in pending:
                            if drop is not None and sent >= drop:
                                self.cut()
                                return
                            self.line({"type": "state", **state})
                            sent += 1
                            seen += 1
                            if state["status"] == "finished":
                                self.end_stream()
                                return
                    self.end_stream()
                except OSError:
                    return

            def do_POST(self) -> None:
                parts = self.route()
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with site.lock:
                    site.posts.append((self.path, body))
                if not self.authorised():
                    return
                if parts == ["account", "upgrade"]:
                    site.bot = True
                    self.answer(200, {"username": "me", "bot": True})
                elif len(parts) == 3 and parts[0] == "match" and parts[2] == "action":
                    self.action(parts[1], body)
                elif len(parts) == 3 and parts[0] == "challenge" and parts[2] in ("accept", "decline"):
                    with site.lock:
                        site.answers[parts[1]] = parts[2]
                    if parts[2] == "accept":
                        site.add_match(f"m{parts[1]}", seat=1, deck_seed=int(parts[1]))
                    self.answer(200, {})
                elif len(parts) == 2 and parts[0] == "challenge":
                    self.answer(201, {"challenge": {"id": "c9", "direction": "out", "challenged":
                                                    player(parts[1]), **body}})
                elif parts in (["pool", "bots-100", "join"], ["match", "house"]):
                    self.answer(200 if parts[0] == "pool" else 201, {"match": {"id": "house"}})
                else:
                    self.error(404, "not_found")

            def action(self, match_id: str, body: dict[str, Any]) -> None:
                match = site.matches.get(match_id)
                if match is None:
                    self.error(404, "no_such_match")
                    return
                with site.lock:
                    if site.answer_429:
                        code, retry = site.answer_429.pop(0)
                        match.refused.append(code)
                        self.error(429, code, {"Retry-After": retry} if retry is not None else None)
                        return
                    if body.get("id") in match.retry_ids:
                        self.answer(200, {**match.retry_ids[body["id"]], "repeat": True})
                        return
                    seq = body.get("seq")
                    if seq == site.stale_at:
                        site.stale_at = None
                        match.publish()  # the same position again, under a new seq (a clock tick)
                        site.lock.notify_all()
                    if seq != len(match.states):
                        match.refused.append("stale_seq")
                        self.error(400, "stale_seq")
                        return
                    try:
                        match.state.apply(body["action"], match.seat)
                    except EngineError as exc:
                        match.refused.append(exc.code)
                        self.error(400, exc.code)
                        return
                    match.applied.append((seq, body["action"]))
                    match.publish()
                    match.advance()
                    site.lock.notify_all()
                    answer = {"seq": seq, "last_seq": len(match.states), "repeat": False}
                    if isinstance(body.get("id"), str):
                        match.retry_ids[body["id"]] = answer
                    if site.drop_answer:
                        site.drop_answer = False
                        self.cut()
                        return
                self.answer(200, answer)

        return Handler
