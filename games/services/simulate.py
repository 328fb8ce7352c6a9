"""Simulations only: a seeded match's people seats played at engine speed (``fairplay.simulation``).

A simulation of the site's population (issue 25: 200 honest accounts, a colluding pair, an assisted
player) needs thousands of moves of *people* (accounts that are not house bots, so they are rated like
members). Playing each through :func:`games.services.match_apply_action` costs a transaction and a
broadcast per move. :func:`match_play_out_seeded` plays instead, in ONE transaction, the moves a
``choose`` function gives for the seat to act, each validated by the engine through the same
``play_action`` a player's move goes through, stored as ``store_events`` stores them (one row per event,
the action's row carrying its seat as a player's own move does, ``msg_id`` ``sim-<seq>``; the rows of the
whole play-out inserted by ``games.write_sql.events_insert`` in statements of :data:`INSERT_ROWS`: one
INSERT per move was half the time), the next hand dealt
from the match's seed as every seeded match's is, and the row refreshed and ended by the same
``refresh_match`` / ``match_finish`` (so ``match_finished`` is sent and ratings rate it). The log replays
through the engine like any other (``games.live.rebuild``).

Refused for a real match: only a match created with a ``simulation_seed`` may be played this way. No
broadcast (nobody has the table open) and no server move is scheduled while it runs.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from engine.actions import Action
from engine.view import PlayerView
from games import scheduling
from games.live import load
from games.models import MatchEvent, MatchStatus
from games.services.errors import GameError
from games.services.play import _rows, locked_match, play_action, refresh_match, save_cas
from games.write_sql import events_insert

INSERT_ROWS = 500
"""Event rows per INSERT (a statement's parameters stay far below PostgreSQL's 65,535)."""

Chooser = Callable[[int, PlayerView, int], Action | None]
"""``choose(seat, view, seq)``: the action of ``seat`` (the seat to act) seeing ``view`` when the match is
at ``seq``; None stops the play-out there (the match stays active, e.g. for a resignation through
:func:`games.services.match_resign`)."""


def match_play_out_seeded(*, match_id: int, choose: Chooser, max_actions: int = 5000) -> int:
    """Play match ``match_id`` on from where it is with the actions ``choose`` gives (module docstring),
    until the match ends, ``choose`` returns None, or ``max_actions`` actions were played; returns how
    many were played. Everything in one transaction: a refused action stores nothing at all.

    :raises GameError: ``no_such_match``; ``bad_field`` (the match has no ``simulation_seed``: a real
        match is never played this way); ``match_over`` (not active); an engine refusal of an action
        (``wrong_phase``, ``card_not_held``, ...).
    """
    with scheduling.driving(), scheduling.no_timers(), transaction.atomic():
        match = locked_match(match_id)
        if match.simulation_seed is None:
            raise GameError("bad_field", f"match {match_id} is not a simulation's (no simulation_seed)")
        if match.status != MatchStatus.ACTIVE:
            raise GameError("match_over", "the match is over")
        live = load(match).clone()
        before = match.last_seq
        played = 0
        pending: list[MatchEvent] = []
        while played < max_actions and not live.state.is_over:
            seat = live.state.current_player
            if seat is None:
                break
            action = choose(seat, live.state.view(seat), match.last_seq)
            if action is None:
                break
            events = play_action(live, action, seat, match.simulation_seed)
            rows = _rows(match, events, seat=seat, msg_id=f"sim-{match.last_seq + 1}")
            match.last_seq += len(rows)
            pending += rows
            played += 1
        for start in range(0, len(pending), INSERT_ROWS):  # what store_events does, a move at a time
            events_insert(pending[start:start + INSERT_ROWS])
        live.record(pending)
        if played:
            refresh_match(match, live, dealt=False)
            save_cas(match, before)
        return played
