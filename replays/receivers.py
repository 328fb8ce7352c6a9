"""Signal receivers of the replays app (connected in ``ReplaysConfig.ready``)."""

from __future__ import annotations

from typing import Any

from games.models import Match
from replays.selectors import may_see


def outsider_may_see(sender: Any, *, match: Match, user: Any, session: Any = None, **kwargs: Any) -> bool:
    """``games.signals.outsider_may_see``: whether ``user``, not a player of ``match``, may know it exists
    (a public match, or a private event's match the event's app lets them see:
    ``replays.selectors.may_see`` without a share token)."""
    return may_see(match, user, session=session)
