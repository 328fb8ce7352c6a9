"""A BOT account's event streams learn here that one of its matches started or ended (docs/bot-api.md
"The event stream"): ``{"type": "bot.match", "event": "start"|"finish", "match_id"}`` on
``push.groups.bot_events_group`` of each BOT account seated in it, after the commit. The message is
card-free: the stream (``botapi.streams``) reads the match itself, and also re-reads the account's
matches at every keep-alive, so a lost message only delays its line.

Every match starts in ``services.create.start_match`` and ends in ``services.finish.match_finish`` or,
for the one-statement write, ``services.finish.announce_finished``: those call :func:`announce`.
"""

from __future__ import annotations

from games.models import Match
from push.groups import bot_events_group
from push.send import send_on_commit


def announce(match: Match, event: str) -> None:
    """After the current transaction commits (at once outside one), tell the event streams of the BOT
    accounts seated in ``match`` (players loaded: no query) that it ``event`` (``start``/``finish``).
    Nothing for a match without a BOT account, or one that never started (a friend table aborted while
    it waited)."""
    if match.first_dealer is None:
        return
    ids = [user.pk for user in (match.player0, match.player1)
           if user is not None and getattr(user, "bot_account", False)]
    if ids:
        send_on_commit([
            (bot_events_group(user_id), {"type": "bot.match", "event": event, "match_id": match.pk})
            for user_id in ids])
