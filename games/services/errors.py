"""The refusal every match write raises (:class:`GameError`), and its ``match_in_progress`` case."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from web.errors import ApplicationError


class GameError(ApplicationError):
    """A refused request; ``code`` is the WebSocket error code of docs/protocol.md. Nothing changed."""


class MatchInProgress(GameError):
    """``match_in_progress``: the player is already seated in an active rated match (``match_id``), so
    the site will not start them a new rated match against a bot (the abandoned one's turn timer would
    lose it on time). Nothing changed."""

    def __init__(self, match_id: int) -> None:
        super().__init__("match_in_progress",
                         f"you have a rated match in progress (match {match_id}): finish it first")
        self.match_id = match_id


RATED_REFUSALS: dict[str, str] = {
    # {match_id}: the creator's waiting rated friend table (services.table_create)
    "rated_table_waiting": gettext_noop(
        "you already have a rated table waiting for a friend (table {match_id}): share that one, or cancel"
        " it before opening another"),
    # the other player of a rated table or rematch is in another rated match now
    "opponent_in_rated_match": gettext_noop(
        "{name} is playing another rated match now: play this one casual, or later"),
    # {name}: the opponent; {limit}: games.conf.pair_rated_per_day()
    "pair_rated_limit": gettext_noop(
        "you and {name} have started {limit} rated matches against each other in the last 24 hours, the"
        " most a day allows: play casual, or rated again tomorrow"),
    "account_marked": gettext_noop(
        "your account is under fair-play review: you may play casual matches only (choose Casual)"),
    # {name}: the other player
    "opponent_marked": gettext_noop("{name} may play casual matches only for now: play casual"),
}
"""The fair-play limits' refusals of a rated match (docs/fairplay.md "Limits that make farming slow"):
code -> English message with ``str.format`` fields, marked for translation (``games`` locale)."""


class RatedRefused(GameError):
    """A rated match refused by a fair-play limit (:data:`RATED_REFUSALS`: one active rated match, one
    waiting rated table, the pair's daily cap, a marked account). ``message`` is English (logs, sockets);
    :meth:`said` is the same in the active language (pages). Nothing changed."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code, RATED_REFUSALS[code].format(**params))
        self.params = params

    def said(self) -> str:
        """The refusal in the active language."""
        return gettext(RATED_REFUSALS[self.code]).format(**self.params)
