"""``python -m botclient``: play on the site as a BOT account (docs/bot-api.md).

Exit status: 0 when the wanted matches were played (or on Ctrl-C), 2 for a refused token, an account
that is not a BOT account, a bad ``--bot``, or a request refused before play (one line on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from botclient.http import ApiError, Connection
from botclient.runner import AcceptPolicy, Player, Runner
from engine.bots import make_bot

TOKEN_ENV = "GIN_BOT_TOKEN"

EPILOG = """\
examples:
  python -m botclient --url http://127.0.0.1:8000 --token gin_... --upgrade --level 3
  GIN_BOT_TOKEN=gin_... python -m botclient --house 2 --matches 1
  python -m botclient --bot botclient.examples.highest_deadwood:make --challenge alice
  python -m botclient --bot mybot:MyBot --pool bots-100 --accept none

--bot MODULE:CALLABLE names a factory called once per match: with the --level as its one argument
if it takes one (engine.bots:make_bot does), else with none; it returns any object whose
choose(view) returns one of view.legal_actions (engine.bots.base.Bot). The protocol, the view's
fields and the action notation: docs/bot-api.md and /developers/bots/ on the site.
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m botclient",
        description="Connect a Gin Rummy bot to the site as a BOT account: read the event stream, accept "
                    "challenges, play every match through the bot API (protocol v1).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the site (default: %(default)s)")
    parser.add_argument("--token", default=os.environ.get(TOKEN_ENV),
                        help=f"the API token (gin_...; default: ${TOKEN_ENV}); scopes bot:play, and "
                             "challenge:write to accept, challenge or join a pool")
    parser.add_argument("--level", type=int, default=3, choices=range(1, 6), metavar="1-5",
                        help="the house bot level that plays (engine.bots.make_bot; default: %(default)s)")
    parser.add_argument("--bot", metavar="MODULE:CALLABLE", help="play with your own bot: a module on the "
                        "path or a file (mybot.py:make_bot), see below")
    parser.add_argument("--accept", choices=AcceptPolicy.NAMES, default="all",
                        help="which challenges to accept, the others are declined (default: %(default)s)")
    parser.add_argument("--challenge", metavar="USER", help="challenge USER (a BOT account or a person "
                        "who accepts BOT challenges) once connected")
    parser.add_argument("--rated", action=argparse.BooleanOptionalAction, default=True,
                        help="rated or casual for --challenge and --house (default: rated)")
    parser.add_argument("--target", type=int, default=100, help="match target for --challenge and --house")
    parser.add_argument("--turn-timer", type=int, default=30,
                        help="seconds a move for --challenge and --house")
    parser.add_argument("--pool", metavar="SLUG", help="wait in the BOT pool SLUG (bots-100)")
    parser.add_argument("--house", type=int, choices=range(1, 6), metavar="LEVEL",
                        help="play a house bot of LEVEL 1-5 now")
    parser.add_argument("--upgrade", action="store_true",
                        help="turn this (fresh) account into a BOT account first; for good")
    parser.add_argument("--matches", type=int, metavar="N", help="stop after N matches (default: never)")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: every move)")
    return parser.parse_args(argv)


def load_factory(spec: str | None, level: int) -> Callable[[], Player]:
    """The bot factory of ``--bot MODULE:CALLABLE`` or ``--bot path/to/file.py:CALLABLE`` (a file
    anywhere: no ``PYTHONPATH`` needed); ``make_bot(level)`` without one.

    :raises ValueError: a spec without ``:``, a module, file or name that does not exist, not callable.
    """
    if spec is None:
        return lambda: make_bot(level)
    module_name, sep, name = spec.rpartition(":")
    if not sep or not module_name or not name:
        raise ValueError(f"--bot takes MODULE:CALLABLE or FILE.py:CALLABLE, got {spec!r}")
    try:
        target: Any = _load_module(module_name)
    except (ImportError, OSError) as exc:
        raise ValueError(f"--bot: cannot import {module_name!r}: {exc}") from None
    for part in name.split("."):
        if not hasattr(target, part):
            raise ValueError(f"--bot: {module_name!r} has no {name!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"--bot: {spec!r} is not callable")
    try:
        required = [p for p in inspect.signature(target).parameters.values()
                    if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        required = []
    factory: Callable[..., Player] = target
    if required:
        return lambda: factory(level)
    return lambda: factory()


def _load_module(name: str) -> Any:
    """The module ``name`` (a dotted name on ``sys.path``) or the Python file at that path."""
    if not name.endswith(".py"):
        return importlib.import_module(name)
    path = os.path.abspath(name)
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    if spec is None or spec.loader is None:
        raise ImportError(f"not a Python file: {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose + 1, 2), stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(threadName)s %(message)s",
    )
    if not args.token:
        print(f"botclient: no token: pass --token or set {TOKEN_ENV}", file=sys.stderr)
        return 2
    try:
        factory = load_factory(args.bot, args.level)
        connection = Connection(args.url, args.token)
    except ValueError as exc:
        print(f"botclient: {exc}", file=sys.stderr)
        return 2
    runner = Runner(connection, factory, accept=AcceptPolicy.named(args.accept), max_matches=args.matches)
    settings = {"target": args.target, "turn_timer": args.turn_timer, "rated": args.rated}
    try:
        account = connection.get_json("account/")
        if not account.get("bot"):
            if not args.upgrade:
                print(f"botclient: {account.get('username')} is not a BOT account: run once with --upgrade "
                      "(for good; only a fresh account may)", file=sys.stderr)
                return 2
            connection.post_json("account/upgrade/")
            print(f"botclient: {account.get('username')} is a BOT account now", file=sys.stderr)
        logging.getLogger("botclient").info("playing as %s (rating %s)", account.get("username"),
                                            account.get("rating"))
        if args.pool:
            runner.join_pool(args.pool)
        if args.challenge:
            runner.challenge(args.challenge, **settings)
        if args.house:
            runner.play_house(args.house, **settings)
        stats = runner.run()
    except ApiError as exc:
        what = "the token was refused" if exc.status == 401 else "refused"
        if exc.status == 0:
            what = "cannot reach the site"
        print(f"botclient: {what} ({exc.code}): {exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        runner.stop()
        stats = runner.stats
    p99 = stats.percentile(0.99)
    print(f"botclient: {stats.matches_finished} match(es) played, {stats.actions_posted} action(s) posted"
          + (f", p99 post->state {p99 * 1000:.0f} ms" if p99 is not None else "")
          + (f", errors {dict(stats.errors)}" if stats.errors else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
