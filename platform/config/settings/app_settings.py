"""Settings the project's apps read (games, lobby, push, replays, tournaments, spectators, the home
socket): most from the environment, several only when set (the app's own module holds the default)."""

from __future__ import annotations

import os

from config.settings.environment import env_bool

# --- live play timings (read by games/conf.py; defaults live there) -------------------------------
# From the environment only when set: "low,high" seconds of the bot's pause, seconds a hand stays shown.
if os.environ.get("GAMES_BOT_DELAY"):
    GAMES_BOT_DELAY = tuple(float(part) for part in os.environ["GAMES_BOT_DELAY"].split(","))
if os.environ.get("GAMES_HAND_PAUSE"):
    GAMES_HAND_PAUSE = float(os.environ["GAMES_HAND_PAUSE"])
# Seconds between two moves of a bot-vs-bot match (games/conf.py; default 1.5, 0: engine speed).
if os.environ.get("GAMES_BOT_VS_BOT_DELAY"):
    GAMES_BOT_VS_BOT_DELAY = float(os.environ["GAMES_BOT_VS_BOT_DELAY"])
# Leaving a match between people (games.presence, docs/lobby.md): seconds before a claim, and before the
# server ends a match both players (one player) left.
for _name in ("GAMES_GONE_NOTICE_AFTER", "GAMES_CLAIM_AFTER", "GAMES_GONE_END_AFTER",
              "GAMES_ONE_GONE_END_AFTER"):
    if os.environ.get(_name):
        globals()[_name] = float(os.environ[_name])
# Where the server's moves (bots, turn deadlines) run (games.scheduling): unset = in the Daphne process
# that made the write (both profiles); 0 = Celery workers (production only: Redis carries their moves).
if os.environ.get("GAMES_SERVER_MOVES_IN_PROCESS"):
    GAMES_SERVER_MOVES_IN_PROCESS = env_bool("GAMES_SERVER_MOVES_IN_PROCESS", default=True)
# ws/echo/: a bare echo consumer, the baseline of scripts/loadtest (off unless GAMES_ECHO_WS=1).
GAMES_ECHO_WS = env_bool("GAMES_ECHO_WS", default=False)
# Check every channel-layer message against its schema before it is sent (push.schemas; on in the tests).
PUSH_CHECK = env_bool("PUSH_CHECK", default=False)
# The embedded profile's Celery processes post their pushes to Daphne (push.forward; scripts/serve sets
# both for one run): the URL in the Celery processes only, the shared random token in every process.
PUSH_FORWARD_URL = os.environ.get("PUSH_FORWARD_URL", "")
PUSH_FORWARD_TOKEN = os.environ.get("PUSH_FORWARD_TOKEN", "")
# Tournaments start this many seconds before their start time (a test setting; default 0).
if os.environ.get("TOURNAMENTS_START_EARLY_SECONDS"):
    TOURNAMENTS_START_EARLY_SECONDS = float(os.environ["TOURNAMENTS_START_EARLY_SECONDS"])
# `migrate` creates the schedules' upcoming tournaments at once (tournaments.receivers; docs/tournaments.md);
# the test suite turns it off for its test database (tests/conftest.py) and tests the receiver itself.
TOURNAMENTS_SCHEDULE_ON_MIGRATE = env_bool("TOURNAMENTS_SCHEDULE_ON_MIGRATE", default=True)
# Worlds the computer analysis samples per decision (replays.analyses; default: engine.analysis.Settings).
if os.environ.get("REPLAYS_ANALYSIS_WORLDS"):
    REPLAYS_ANALYSIS_WORLDS = int(os.environ["REPLAYS_ANALYSIS_WORLDS"])
# Least seconds between two progress reports of one analysis run (replays.analyses.PUSH_EVERY, 0.5; a test
# sets 0: every decision reported, so a page is sure to see the run's progress however fast it goes).
if os.environ.get("REPLAYS_ANALYSIS_PUSH_EVERY"):
    REPLAYS_ANALYSIS_PUSH_EVERY = float(os.environ["REPLAYS_ANALYSIS_PUSH_EVERY"])
# Share of finished rated matches the assistance signal analyses in the background (fairplay.assistance_runs;
# 0..1, default 0.1): every match of a reported player is analysed whatever it is (docs/fairplay.md).
FAIRPLAY_SAMPLE_RATE = float(os.environ.get("FAIRPLAY_SAMPLE_RATE", "0.1"))
# Computer analyses (replays.analysis_limits, README "Limits"): members only; per account and per client IP
# (django-ratelimit windows in the default cache); one in flight per account; at most MAX_ACTIVE queued or
# running site-wide (the background pool runs them one by one: about a minute each), else 503 "busy" with
# Retry-After BUSY_RETRY_AFTER seconds. An analysis that exists already is read, never counted.
REPLAYS_ANALYSIS_USER_RATE = os.environ.get("REPLAYS_ANALYSIS_USER_RATE", "10/h")
REPLAYS_ANALYSIS_IP_RATE = os.environ.get("REPLAYS_ANALYSIS_IP_RATE", "20/h")
REPLAYS_ANALYSIS_MAX_ACTIVE = int(os.environ.get("REPLAYS_ANALYSIS_MAX_ACTIVE", "8"))
REPLAYS_ANALYSIS_BUSY_RETRY_AFTER = int(os.environ.get("REPLAYS_ANALYSIS_BUSY_RETRY_AFTER", "60"))
# Database threads (and connections) per process for the sockets' work (games/db.py; default there).
if os.environ.get("GAMES_DB_THREADS"):
    GAMES_DB_THREADS = int(os.environ["GAMES_DB_THREADS"])

# Spectator sockets (replays.audience, docs/protocol.md "Spectators"): open sockets per client IP and per
# match (across every Daphne process), and the least seconds between two spectator counts of one match.
SPECTATORS_PER_IP = int(os.environ.get("SPECTATORS_PER_IP", "20"))
SPECTATORS_PER_MATCH = int(os.environ.get("SPECTATORS_PER_MATCH", "1000"))
SPECTATORS_COUNT_INTERVAL = float(os.environ.get("SPECTATORS_COUNT_INTERVAL", "1.0"))
# The home socket (home.live, docs/protocol.md "Home socket"): open home sockets per client IP (across
# every Daphne process), and the least seconds between two live-number messages (site-wide).
HOME_SOCKETS_PER_IP = int(os.environ.get("HOME_SOCKETS_PER_IP", "10"))
HOME_INTERVAL = float(os.environ.get("HOME_INTERVAL", "1.0"))

# Quick pairing (docs/lobby.md "Pairing", docs/protocol.md "Pool socket"): seconds between waves, seconds
# a waiting player's socket may be gone before the wait ends, pool sockets per account and per address.
LOBBY_WAVE_SECONDS = float(os.environ.get("LOBBY_WAVE_SECONDS", "1.0"))
LOBBY_LEAVE_AFTER = float(os.environ.get("LOBBY_LEAVE_AFTER", "5"))
LOBBY_POOL_SOCKETS_PER_USER = int(os.environ.get("LOBBY_POOL_SOCKETS_PER_USER", "5"))
LOBBY_POOL_SOCKETS_PER_IP = int(os.environ.get("LOBBY_POOL_SOCKETS_PER_IP", "50"))

# The bot API's ndjson streams (botapi.streams, docs/bot-api.md): seconds between two keep-alive lines of a
# stream (each also re-reads what a lost push would have said).
BOTAPI_KEEPALIVE_SECONDS = float(os.environ.get("BOTAPI_KEEPALIVE_SECONDS", "7.0"))
