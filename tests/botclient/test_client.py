"""The reference client (botclient) against a fake bot API server with a real engine behind it
(tests/botclient/fakesite.py): whole matches played with the engine's moves, keep-alive lines,
stale_seq, 429 with Retry-After, dropped streams, challenges by policy, the command line's exits."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from botclient.__main__ import load_factory, main
from botclient.http import ApiError, Connection, StreamGone
from botclient.runner import AcceptPolicy, Runner, Stats
from engine.actions import Action
from engine.bots import make_bot
from engine.deck import seeded_deck
from engine.events import Event
from engine.match import MatchState
from engine.rules import RuleSet
from engine.view import PlayerView
from tests.botclient.fakesite import GOOD_TOKEN, FakeMatch, FakeSite

WAIT = 120.0  # seconds a whole match may take on a loaded machine (a condition, not a measure)


@pytest.fixture
def site() -> Iterator[FakeSite]:
    with FakeSite() as fake:
        yield fake


def connection(site: FakeSite, **options: object) -> Connection:
    return Connection(site.url, GOOD_TOKEN, timeout=10, backoff=0.05, **options)  # type: ignore[arg-type]


def run(runner: Runner) -> Stats:
    """``runner.run()`` in a thread, waited for with a generous timeout (stopped if it overruns)."""
    done: list[Stats] = []
    thread = threading.Thread(target=lambda: done.append(runner.run()), daemon=True)
    thread.start()
    thread.join(WAIT)
    if thread.is_alive():
        runner.stop()
        pytest.fail("the runner did not finish its matches")
    return done[0]


def offline(
    rules: RuleSet, seat: int, deck_seed: int, bot_seed: int, opponent_seed: int
) -> tuple[Event, ...]:
    """The same match played in process, without any server: the same decks, the same seeded bots."""
    m = MatchState(rules, 0)
    rng = random.Random(deck_seed)
    bots = {seat: make_bot(3, seed=bot_seed), 1 - seat: make_bot(3, seed=opponent_seed)}
    while not m.is_over:
        if m.awaiting_deal:
            m.deal(seeded_deck(rng.randrange(2**32)))
            continue
        mover = m.current_player
        assert mover is not None
        m.apply(bots[mover].choose(m.view(mover)), mover)
    return m.events


def assert_played_cleanly(match: FakeMatch, stats: Stats) -> None:
    assert match.state.is_over and match.states[-1]["status"] == "finished"
    assert match.refused == []
    mine = [e for e in match.state.events if getattr(e, "seat", None) == match.seat and hasattr(e, "action")]
    assert len(match.applied) == len(mine) == stats.actions_posted > 10
    assert len(stats.latencies) == stats.actions_posted  # every post was followed by a state


@pytest.mark.parametrize("seat", [0, 1])
def test_plays_a_whole_match_with_the_engines_moves(site: FakeSite, seat: int) -> None:
    match = site.add_match("m1", seat=seat, deck_seed=11, opponent_seed=2)
    runner = Runner(connection(site), lambda: make_bot(3, seed=5), max_matches=1, backoff=0.05)
    stats = run(runner)
    assert_played_cleanly(match, stats)
    # Every move the client made is the move the same seeded bot makes in process: the views it read
    # were exactly the engine's.
    assert match.state.events == offline(site.rules, seat, 11, 5, 2)
    assert stats.matches_started == stats.matches_finished == 1 and stats.errors == {}
    assert match.stream_opens == 1 and site.event_stream_opens == 1


def test_stream_skips_keepalives_and_reports_silence(site: FakeSite) -> None:
    conn = connection(site)
    lines = conn.stream("stream/events/", keepalives=True)
    assert [next(lines) for _ in range(3)] == [None, None, None]  # blank lines only, so far
    site.add_match("m1")
    assert next(line for line in lines if line is not None)["type"] == "matchStart"
    lines.close()
    assert next(iter(conn.stream("stream/events/")))["match"]["id"] == "m1"  # blank lines skipped
    site.keepalive = 600.0  # the server now sends one blank line, then nothing
    quiet = Connection(site.url, GOOD_TOKEN, idle_timeout=2.0)
    with pytest.raises(StreamGone, match=r"nothing for 2\.0 s"):
        list(quiet.stream("stream/events/"))


def test_stale_seq_waits_for_the_next_state(site: FakeSite) -> None:
    match = site.add_match("m1", seat=0, deck_seed=3)
    stale = site.stale_at = len(match.states)  # the first post is overtaken by a state of the same position
    runner = Runner(connection(site), lambda: make_bot(3, seed=5), max_matches=1, backoff=0.05)
    stats = run(runner)
    assert match.refused == ["stale_seq"] and stats.errors == {"stale_seq": 1}
    assert match.applied[0][0] == stale + 1  # decided again on the next state
    assert match.state.is_over and len(match.applied) == stats.actions_posted


def test_429_is_sent_again_after_retry_after(site: FakeSite) -> None:
    match = site.add_match("m1", seat=0, deck_seed=4)
    site.answer_429 = [("throttled", "0.25"), ("move_in_flight", None), ("throttled", "2")]
    slept: list[float] = []
    runner = Runner(connection(site, sleep=slept.append), lambda: make_bot(3, seed=5), max_matches=1,
                    backoff=0.05)
    stats = run(runner)
    # Retry-After when given, else the backoff doubling from 0.05 s; nothing applied twice.
    assert slept == [0.25, 0.1, 2.0]
    assert match.refused == ["throttled", "move_in_flight", "throttled"] and stats.errors == {}
    assert match.state.events == offline(site.rules, 0, 4, 5, 2)


def test_429_gives_up_after_the_retries(site: FakeSite) -> None:
    site.add_match("m1", seat=0, deck_seed=4)
    site.answer_429 = [("throttled", "0")] * 3
    conn = connection(site, sleep=lambda _: None, retries=2)
    with pytest.raises(ApiError) as caught:
        conn.post_json("match/m1/action/", {"action": "pass", "seq": 1})
    assert (caught.value.status, caught.value.code, caught.value.retry_after) == (429, "throttled", 0.0)


def test_dropped_streams_reconnect_and_resume(site: FakeSite) -> None:
    site.drop_event_stream_after = 0  # the first event stream is cut before its first event
    site.drop_match_stream_after = 6  # the first match stream after 6 lines
    match = site.add_match("m1", seat=1, deck_seed=8)
    runner = Runner(connection(site), lambda: make_bot(3, seed=5), max_matches=1, backoff=0.05)
    stats = run(runner)
    assert site.event_stream_opens == 2 and match.stream_opens == 2
    assert stats.errors == {"stream_ended": 2}  # a cut between two chunks reads as an early end
    assert match.refused == [] and match.state.events == offline(site.rules, 1, 8, 5, 2)
    assert stats.matches_started == 1  # the repeated matchStart did not start a second player


def test_challenges_are_answered_by_the_policy(site: FakeSite) -> None:
    site.add_challenge("12", rated=False, by_bot=False)
    site.add_challenge("11", rated=True, by_bot=True)
    runner = Runner(connection(site), lambda: make_bot(3, seed=5), accept=AcceptPolicy.named("rated"),
                    max_matches=1, backoff=0.05)
    stats = run(runner)
    assert site.answers == {"12": "decline", "11": "accept"}
    assert_played_cleanly(site.matches["m11"], stats)


@pytest.mark.parametrize(("name", "rated_bot", "casual_bot", "rated_person", "casual_person"), [
    ("all", True, True, True, True),
    ("rated", True, False, True, False),
    ("casual", False, True, False, True),
    ("none", False, False, False, False),
])
def test_accept_policies(name: str, rated_bot: bool, casual_bot: bool, rated_person: bool,
                         casual_person: bool) -> None:
    policy = AcceptPolicy.named(name)

    def challenge(rated: bool, bot: bool) -> dict[str, object]:
        return {"rated": rated, "challenger": {"bot_account": bot, "house_bot_level": None}}

    assert [policy.accepts(challenge(r, b)) for r, b in ((1, 1), (0, 1), (1, 0), (0, 0))] == [
        rated_bot, casual_bot, rated_person, casual_person]
    with pytest.raises(ValueError, match="accept policy must be one of all, rated, casual, none"):
        AcceptPolicy.named("bots")


def test_stats_percentile() -> None:
    stats = Stats()
    for ms in range(1, 101):
        stats.record(latency=ms / 1000)
    assert stats.percentile(0.99) == 0.099 and stats.percentile(0.5) == 0.05
    assert Stats().percentile(0.99) is None


def test_bad_token_is_one_line_and_exit_2(site: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", site.url, "--token", "gin_" + "b" * 40]) == 2
    err = capsys.readouterr().err
    assert err == "botclient: the token was refused (bad_token): fake bad_token\n"


def test_no_token_and_not_a_bot(site: FakeSite, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIN_BOT_TOKEN", raising=False)
    assert main(["--url", site.url]) == 2
    assert capsys.readouterr().err == "botclient: no token: pass --token or set GIN_BOT_TOKEN\n"
    site.bot = False
    assert main(["--url", site.url, "--token", GOOD_TOKEN]) == 2
    assert "me is not a BOT account: run once with --upgrade" in capsys.readouterr().err
    assert ("POST", "/api/v1/bot/account/upgrade/") not in site.requests
    assert main(["--url", site.url, "--token", "x", "--bot", "nosuchmodule:make"]) == 2
    assert "cannot import 'nosuchmodule'" in capsys.readouterr().err


def test_command_line_plays_the_example_bot(site: FakeSite, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's tiny bot, through ``python -m botclient``'s main: upgrade, then a whole match."""
    site.bot = False
    match = site.add_match("m1", seat=0, deck_seed=21)
    monkeypatch.setenv("GIN_BOT_TOKEN", GOOD_TOKEN)
    code = main(["--url", site.url, "--upgrade", "--matches", "1",
                 "--bot", "botclient.examples.highest_deadwood:make"])
    assert code == 0 and site.bot
    assert match.state.is_over and match.refused == [] and len(match.applied) > 10
    assert capsys.readouterr().err.splitlines()[-1].startswith(
        f"botclient: 1 match(es) played, {len(match.applied)} action(s) posted, p99 post->state ")


def test_load_factory() -> None:
    assert load_factory("engine.bots:make_bot", 4)().level == 4  # type: ignore[attr-defined]
    assert load_factory(None, 2)().level == 2  # type: ignore[attr-defined]
    example = load_factory("botclient.examples.highest_deadwood:make", 3)()
    assert type(example).__name__ == "HighestDeadwood"
    for spec, message in (("nocolon", "MODULE:CALLABLE"), ("engine.bots:nothing", "has no 'nothing'"),
                          ("engine.bots:LEVELS", "is not callable")):
        with pytest.raises(ValueError, match=message):
            load_factory(spec, 3)


def test_load_factory_from_a_file_anywhere(tmp_path: Any) -> None:
    """``--bot /some/where/mybot.py:make``: a bot file outside the repository, no PYTHONPATH needed."""
    path = tmp_path / "mybot.py"
    path.write_text("from engine.bots import make_bot\n\ndef make():\n    return make_bot(2)\n")
    assert load_factory(f"{path}:make", 5)().level == 2  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="cannot import"):
        load_factory(f"{tmp_path / 'absent.py'}:make", 3)
    with pytest.raises(ValueError, match="has no 'other'"):
        load_factory(f"{path}:other", 3)


def wait_for(site: FakeSite, condition: Callable[[], bool]) -> None:
    """Wait (generously) until ``condition()`` holds, checked when the fake site changes or every 50 ms."""
    deadline = time.monotonic() + WAIT
    with site.lock:
        while not condition():
            assert time.monotonic() < deadline, "the condition never held"
            site.lock.wait(0.05)


def test_the_pool_is_joined_again_while_waiting(site: FakeSite) -> None:
    runner = Runner(connection(site), lambda: make_bot(3, seed=5), backoff=0.05, rejoin_every=0.0)
    runner.join_pool("bots-100")
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    joins = ("POST", "/api/v1/bot/pool/bots-100/join/")
    wait_for(site, lambda: site.requests.count(joins) >= 3)  # re-joined on the stream's keep-alives
    runner.stop()
    thread.join(WAIT)
    assert not thread.is_alive() and runner.stats.errors == {}


def test_challenge_house_and_pool_from_the_command_line(site: FakeSite) -> None:
    match = site.add_match("m1", seat=0, deck_seed=5)
    code = main(["--url", site.url, "--token", GOOD_TOKEN, "--matches", "1", "--level", "1",
                 "--challenge", "alice", "--house", "2", "--pool", "bots-100", "--no-rated",
                 "--target", "50", "--turn-timer", "60"])
    assert code == 0 and match.state.is_over and match.refused == []
    settings = {"target": 50, "turn_timer": 60, "rated": False}
    assert [(path, body) for path, body in site.posts if "/action/" not in path] == [
        ("/api/v1/bot/pool/bots-100/join/", {}),
        ("/api/v1/bot/challenge/alice/", settings),
        ("/api/v1/bot/match/house/", {"level": 2, **settings}),
    ]


class Broken:
    """A bot that fails on its first position, then plays as level 3."""

    def __init__(self) -> None:
        self.calls = 0
        self.bot = make_bot(3, seed=1)

    def choose(self, view: PlayerView) -> Action:
        self.calls += 1
        if self.calls == 1:
            raise ValueError("cannot think today")
        return self.bot.choose(view)


def test_a_failing_bot_is_logged_and_the_match_goes_on(site: FakeSite) -> None:
    match = site.add_match("m1", seat=0, deck_seed=6)
    first = match.states[-1]["seq"]
    runner = Runner(connection(site), Broken, max_matches=1, backoff=0.05)
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    wait_for(site, lambda: runner.stats.errors.get("bot_error") == 1)
    with site.lock:  # the turn timer plays the seat: a state the bot then moves on
        timer_move = make_bot(3, seed=9).choose(match.state.view(0))
        match.state.apply(timer_move, 0)
        match.publish()
        match.advance()
        site.lock.notify_all()
    thread.join(WAIT)
    assert not thread.is_alive() and match.state.is_over and match.refused == []
    assert match.applied[0][0] > first and runner.stats.errors == {"bot_error": 1}


def test_a_post_that_never_arrived_is_sent_again_with_the_same_id(site: FakeSite) -> None:
    """The server goes away as an action is posted (no answer, the stream breaks): once the reopened
    stream repeats the state, the client sends the same action again under the same retry id, without
    asking the bot again (so the match is still exactly the in-process one)."""
    match = site.add_match("m1", seat=0, deck_seed=7)
    seq = match.states[-1]["seq"]
    conn = connection(site, sleep=lambda _: None, retries=0)
    runner = Runner(conn, lambda: make_bot(3, seed=5), max_matches=1, backoff=0.05)
    real_post = conn.post_json
    lost: list[dict[str, Any]] = []

    def post(path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        if not lost:
            lost.append(dict(body or {}))
            with site.lock:
                match.cut_streams = True
            raise ApiError(0, "unreachable", "connection refused")
        return real_post(path, body)

    conn.post_json = post  # type: ignore[method-assign]
    stats = run(runner)
    assert lost == [{"action": lost[0]["action"], "seq": seq, "id": f"m1-{seq}"}]
    assert match.applied[0] == (seq, lost[0]["action"]) and match.refused == []
    assert match.stream_opens == 2 and stats.errors == {"unreachable": 1, "stream_ended": 1}
    assert match.state.events == offline(site.rules, 0, 7, 5, 2)


def test_a_bad_url_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "127.0.0.1:8000", "--token", GOOD_TOKEN]) == 2
    assert capsys.readouterr().err == (
        "botclient: the site's URL starts with http:// or https://, got '127.0.0.1:8000'\n")


def test_an_answer_lost_after_the_move_is_a_repeat(site: FakeSite) -> None:
    """The connection breaks after the server applied a move: the request is sent again with the same
    id and the server answers it as a repeat, applying nothing twice."""
    match = site.add_match("m1", seat=0, deck_seed=7)
    seq = match.states[-1]["seq"]
    action = str(match.state.legal_actions()[0])
    site.drop_answer = True
    slept: list[float] = []
    conn = connection(site, sleep=slept.append)
    answer = conn.post_json("match/m1/action/", {"action": action, "seq": seq, "id": "m1-x"})
    assert answer == {"seq": seq, "last_seq": len(match.states), "repeat": True}
    assert match.applied == [(seq, action)] and slept == [0.05]
