"""The refusal of every tournament write (:class:`TournamentError`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from web.errors import ApplicationError

if TYPE_CHECKING:
    from tournaments.models import Tournament


class TournamentError(ApplicationError):
    """A refused request; ``code`` names it (``not_open``, ``full``, ``started``, ...). Nothing changed.
    ``other``: for ``overlap``, the tournament whose time it overlaps."""

    def __init__(self, code: str, message: str, *, other: Tournament | None = None) -> None:
        super().__init__(code, message)
        self.other = other
