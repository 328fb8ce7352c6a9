"""Live notices after the commit: a tournament's page (``push.groups.tournament_group``) and each
player's site-wide banner (``push.groups.tournament_banner_group``), through ``push.send`` (an outage is
recorded and logged: the write is committed and the pages read the state again on reconnect)."""

from __future__ import annotations

from collections.abc import Iterable

from push.groups import tournament_banner_group, tournament_group
from push.send import send_on_commit
from tournaments import notices


def tournament_changed(tournament_id: int) -> None:
    """After the commit, tell the tournament's page to refresh its state."""
    send_on_commit([(tournament_group(tournament_id),
                     {"type": "tournament.changed", "tournament": tournament_id})])


def tournaments_changed(tournament_ids: Iterable[int]) -> None:
    """After the commit, tell each tournament's page to refresh its state: one batch (one send, one
    forwarded post in the embedded profile) for any number of tournaments."""
    send_on_commit([(tournament_group(tid), {"type": "tournament.changed", "tournament": tid})
                    for tid in tournament_ids])


def round_started(tournament_id: int, user_ids: Iterable[int]) -> None:
    """After the commit, tell the page and every seated player (their banner) that a round began; each
    person seated gets a ``round`` notice (``notices.round_notices``: on-site, and pushed to every page)."""
    user_ids = list(user_ids)
    notices.round_notices(tournament_id, user_ids)
    message = {"type": "tournament.changed", "tournament": tournament_id}
    groups = [tournament_group(tournament_id), *(tournament_banner_group(u) for u in sorted(set(user_ids)))]
    send_on_commit([(group, message) for group in groups])
