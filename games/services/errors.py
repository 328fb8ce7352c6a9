"""The refusal every match write raises (:class:`GameError`), and its ``match_in_progress`` case."""

from __future__ import annotations

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
