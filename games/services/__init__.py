"""Match writes (HackSoft services): create, join, play, resign, bot moves, turn-timer expiry, ends.

Every write locks the match row, rebuilds the engine state from the event log (``games.live``),
validates through the engine, appends the new events with the next seqs AND updates the match in one
transaction, and only after commit tells the ``match_<id>`` group (Zulip's events-after-commit). A write
that fails raises :class:`GameError` and changes nothing. Protocol: docs/protocol.md.

One module per concern; this package re-exports their public names, so callers import
``games.services`` (a test that replaces a function patches the module that calls it):

- ``errors``: :class:`GameError`, :class:`MatchInProgress`, :class:`RatedRefused` (the fair-play limits).
- ``create``: matches against a bot, friend tables and their join, seated matches, ``start_match``.
- ``play``: a player's action and resignation, and the write path the other modules share (the locked
  read, the event store, the match row's refresh, the after-commit broadcast).
- ``server_moves``: bot turns, the turn timer's automatic moves and loss on time, the driver and sweeps.
- ``abandon``: abandoned casual matches, claims against a player who left, matches whose players are gone.
- ``finish``: ``match_finish``, the one place a match ends (its result, ``games.signals``).
- ``simulate``: simulations only: a seeded match's people seats played at engine speed.

The numbers (``TIMEOUT_STRIKES_TO_LOSE``, ``RATED_TURN_TIMER``, ...) live in ``games.conf``.

Seeded matches: every real match draws its first dealer, its cut and its decks from ``secrets``. A
simulation (``manage.py tournament_simulate``) passes ``simulation_seed`` to
:func:`match_create_seated` instead; it is stored on the match (``Match.simulation_seed``), and that
match's first dealer, cut, every deal (hand ``n`` from ``engine.deck.sub_seed(seed, "deal", n)``) and
its bots' choices (``sub_seed(seed, "bot", seq)``) are then functions of the seed alone, never of row
ids or the order matches are played in. The deal's commitment salt stays secret-random either way.
"""

from __future__ import annotations

from games.conf import (
    ABANDON_AFTER,
    MAX_SERVER_MOVES,
    MAX_SIMULATION_SEED,
    RATED_TURN_TIMER,
    TARGETS,
    TIMEOUT_STRIKES_TO_LOSE,
    TURN_TIMER_RANGE,
)
from games.services.abandon import (
    Claimed,
    match_abandon,
    match_absent_ids,
    match_claim,
    match_end_absent,
    match_sweep_absent,
)
from games.services.create import (
    active_rated_match_id,
    check_not_bot_account,
    check_person,
    check_rated_free,
    lock_people,
    match_create_bot_vs_bot,
    match_create_seated,
    match_create_vs_bot,
    pair_rated_cap,
    pair_rated_full,
    pairs_at_rated_cap,
    start_match,
    table_create,
    table_join,
    waiting_rated_table_id,
)
from games.services.errors import GameError, MatchInProgress, RatedRefused
from games.services.play import Applied, locked_match, match_apply_action, match_resign, new_deck
from games.services.server_moves import (
    choose_bot_action,
    match_expire_turn,
    match_overdue_ids,
    match_play_bot_turn,
    match_play_server_moves,
    match_seat_arrived,
    match_sweep_server_moves,
    safe_moves,
)
from games.services.simulate import Chooser, match_play_out_seeded

__all__ = [
    "ABANDON_AFTER",
    "MAX_SERVER_MOVES",
    "MAX_SIMULATION_SEED",
    "RATED_TURN_TIMER",
    "TARGETS",
    "TIMEOUT_STRIKES_TO_LOSE",
    "TURN_TIMER_RANGE",
    "Applied",
    "Chooser",
    "Claimed",
    "GameError",
    "MatchInProgress",
    "RatedRefused",
    "active_rated_match_id",
    "check_not_bot_account",
    "check_person",
    "check_rated_free",
    "choose_bot_action",
    "lock_people",
    "locked_match",
    "match_abandon",
    "match_absent_ids",
    "match_apply_action",
    "match_claim",
    "match_create_bot_vs_bot",
    "match_create_seated",
    "match_create_vs_bot",
    "match_end_absent",
    "match_expire_turn",
    "match_overdue_ids",
    "match_play_bot_turn",
    "match_play_out_seeded",
    "match_play_server_moves",
    "match_resign",
    "match_seat_arrived",
    "match_sweep_absent",
    "match_sweep_server_moves",
    "new_deck",
    "pair_rated_cap",
    "pair_rated_full",
    "pairs_at_rated_cap",
    "safe_moves",
    "start_match",
    "table_create",
    "table_join",
    "waiting_rated_table_id",
]
