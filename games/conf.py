"""The games app's numbers: match limits (constants below) and tunable live-play timings, read from
Django settings with defaults (tests set them to 0). Every module of the app reads them here, so a
reader (``games.selectors``, ``games.scheduling``) needs no import of the writes (``games.services``).

- ``GAMES_BOT_DELAY``: (low, high) seconds the bot "thinks" before a move (default (0.6, 1.2)).
- ``GAMES_HAND_PAUSE``: seconds the finished hand stays face up before the next one (default 8.0);
  the bot waits this long after a hand ended, and a turn timer adds it to a new hand's first move.
- ``GAMES_BOT_VS_BOT_DELAY``: seconds between two moves of a match between two house bots (default 1.5;
  0: engine speed, the whole match in one driver call). A tournament's bot-vs-bot boards are watched
  live (``/watch/``): at engine speed they ended in under a second, before anyone could open them.
  With a delay the hand pause applies after each hand too. A human's bot reply never waits for it.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings

TARGETS = (50, 100)
"""Targets a player may choose (issue 3: 50 or 100)."""
TURN_TIMER_RANGE = (15, 600)
"""Allowed turn timer, seconds per action."""
TIMEOUT_STRIKES_TO_LOSE = 3
"""Consecutive automatic moves after which a player loses on time (docs/protocol.md "Turn timer")."""
RATED_TURN_TIMER = 60
"""Seconds per action of a rated match created without a timer: a rated match always has one, so an
abandoned one ends as a loss on time (docs/ratings.md)."""
ABANDON_AFTER = timedelta(hours=24)
"""A casual bot match without a move for this long ends as abandoned (``services.match_abandon``)."""
MAX_SERVER_MOVES = 5000
"""Most moves one ``services.match_play_server_moves`` call plays before it hands the rest to a new
task (a match between two bots takes a few hundred)."""
MAX_SIMULATION_SEED = 2**63 - 1
"""Largest ``simulation_seed`` (a signed 64-bit column)."""

DEFAULT_BOT_VS_BOT_DELAY = 1.5
"""Seconds between two bot-vs-bot moves by default: about a person's pace, so a tournament board between
two house bots to 50 (about 120 actions) lasts some 3-4 minutes, well inside a round's expected 15
(``tournaments.selectors.ROUND_MINUTES_PER_50_POINTS``)."""

MAX_FRAME_BYTES = 4096
"""Largest WebSocket frame accepted from a client (docs/protocol.md, ``frame_too_large``)."""


def bot_delay_range() -> tuple[float, float]:
    """(low, high) seconds of the bot's pause before a move."""
    low, high = getattr(settings, "GAMES_BOT_DELAY", (0.6, 1.2))
    return float(low), float(high)


def bot_vs_bot_delay() -> float:
    """Seconds between two moves of a bot-vs-bot match (``GAMES_BOT_VS_BOT_DELAY``; 0 or less: none)."""
    return max(0.0, float(getattr(settings, "GAMES_BOT_VS_BOT_DELAY", DEFAULT_BOT_VS_BOT_DELAY)))


def hand_pause_seconds() -> float:
    """Seconds a finished hand is shown before the next is played."""
    return float(getattr(settings, "GAMES_HAND_PAUSE", 8.0))


RATED_MIN_MOVES = 3
"""Default of ``GAMES_RATED_MIN_MOVES``: moves of its own (draws, discards, knocks: ``MatchEvent`` actions
not played by the turn timer) EACH seat must have made before a resignation ends a rated match rated.
A resignation earlier finishes it with its winner but unrated (``Match.unrated_why`` ``early_resign``):
a pair farming rating by "one move each, then resign" (issue 25: +91 points in six 5-second matches)
transfers nothing; three moves each is about a turn and a half, so an honest resignation after a
hopeless first hand still rates. docs/fairplay.md "Limits that make farming slow"."""

PAIR_RATED_PER_DAY = 3
"""Default of ``GAMES_PAIR_RATED_PER_DAY``: rated matches two people may start against each other per
rolling :data:`PAIR_RATED_WINDOW` (any path: friend table, rematch, challenge, open challenge, quick
pairing; tournament pairings are never refused but do count). Three: a friend's evening of three rated
matches stays possible (more go on casual), while a pair feeding one account rating gets at most three
transfers a day, about +45 points at the K of a new player, instead of the unbounded series issue 25
measured. lichess has no such cap but relies on its moderators; a site without a moderation team yet
needs the brake. docs/fairplay.md."""

PAIR_RATED_WINDOW = timedelta(hours=24)
"""The rolling period of :data:`PAIR_RATED_PER_DAY`."""

BOT_PAIR_RATED_PER_DAY = 20
"""Default of ``GAMES_BOT_PAIR_RATED_PER_DAY``: rated matches two BOT accounts (docs/bot-api.md) may
start against each other per :data:`PAIR_RATED_WINDOW`. The BOT pool has few programs waiting at once, so
the people's 3 would soon leave two BOTs nobody to meet; a BOT account plays only through the bot API and
is rated in the BOT ranking apart, so farming it buys no place in the people's ranking. A BOT and a person
keep the people's cap."""


def rated_min_moves() -> int:
    """``GAMES_RATED_MIN_MOVES`` (default :data:`RATED_MIN_MOVES`): own moves per seat before a
    resignation of a rated match counts (module constant's docstring)."""
    return max(0, int(getattr(settings, "GAMES_RATED_MIN_MOVES", RATED_MIN_MOVES)))


def pair_rated_per_day() -> int:
    """``GAMES_PAIR_RATED_PER_DAY`` (default :data:`PAIR_RATED_PER_DAY`): rated matches one pair of people
    may start per :data:`PAIR_RATED_WINDOW`."""
    return max(0, int(getattr(settings, "GAMES_PAIR_RATED_PER_DAY", PAIR_RATED_PER_DAY)))


def bot_pair_rated_per_day() -> int:
    """``GAMES_BOT_PAIR_RATED_PER_DAY`` (default :data:`BOT_PAIR_RATED_PER_DAY`): rated matches two BOT
    accounts may start against each other per :data:`PAIR_RATED_WINDOW`."""
    return max(0, int(getattr(settings, "GAMES_BOT_PAIR_RATED_PER_DAY", BOT_PAIR_RATED_PER_DAY)))


def pair_cap(*, both_bot_accounts: bool) -> int:
    """The daily cap of rated matches of one pair: :func:`bot_pair_rated_per_day` when both are BOT
    accounts, else :func:`pair_rated_per_day`."""
    return bot_pair_rated_per_day() if both_bot_accounts else pair_rated_per_day()
BOT_ACTIVE_MATCHES = 8
"""Default of ``GAMES_BOT_ACTIVE_MATCHES``: active matches a BOT account (docs/bot-api.md) may play at
once. A program plays many boards in parallel as easily as one; a person keeps one active rated match
(``services.active_rated_match_id``), also when the opponent is a BOT."""

BOT_TURN_TIMER = 30
"""Seconds per action of a match with a BOT account when none was chosen (docs/bot-api.md "Fair
limits"): every such match has a turn timer, so a program that hangs loses on time."""

BOT_TURN_TIMER_MAX = 120
"""The longest turn timer of a match with a BOT account (a program needs no more to decide)."""


def bot_active_matches() -> int:
    """``GAMES_BOT_ACTIVE_MATCHES`` (default :data:`BOT_ACTIVE_MATCHES`, at least 1): active matches one
    BOT account may play at once."""
    return max(1, int(getattr(settings, "GAMES_BOT_ACTIVE_MATCHES", BOT_ACTIVE_MATCHES)))
