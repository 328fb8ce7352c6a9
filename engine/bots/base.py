"""The bot protocol and the five levels' names (issue 4, "The bots"); :func:`engine.bots.ladder.make_bot`
builds a bot of a level.

A bot sees only a :class:`~engine.view.PlayerView`, the per-player observation: ``choose(view)``
returns one of ``view.legal_actions``. Bots hold no reference to any hand or match state, so they
cannot read the stock or the opponent's hidden cards; levels 1-3 also keep no memory between calls,
and levels 4-5 rebuild what they know of the table from the view's public ``history`` each call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.view import PlayerView


@runtime_checkable
class Bot(Protocol):
    """Anything that picks a legal action from a player's view.

    ``level`` is 1..5; ``choose(view)`` returns an element of ``view.legal_actions`` and must not
    mutate ``view``.
    """

    level: int

    def choose(self, view: PlayerView) -> Action:
        """One of ``view.legal_actions``.

        :raises ValueError: the view has no legal action (the bot's player is not to move).
        """
        ...


@dataclass(frozen=True, slots=True)
class LevelInfo:
    """A bot level's display data: ``level`` 1..5, names in English and pt-BR, a one-line summary."""

    level: int
    name_en: str
    name_pt: str
    summary: str


LEVELS: dict[int, LevelInfo] = {
    1: LevelInfo(1, "Beginner", "Iniciante",
                 "holds high cards, misses run cards, knocks only with little deadwood"),
    2: LevelInfo(2, "Casual", "Amador",
                 "sometimes misses a useful upcard or keeps a high card, knocks a bit late"),
    3: LevelInfo(3, "Standard", "Padrão",
                 "the EAAI challenge's simple player: melds the upcard, least deadwood, knocks at once"),
    4: LevelInfo(4, "Advanced", "Avançado",
                 "the standard player plus a look-ahead: keeps the cards that can still meld"),
    5: LevelInfo(5, "Expert", "Especialista",
                 "tracks every card, reads the opponent's melds, weighs undercuts and gin by sampling"),
}
"""Level -> :class:`LevelInfo` (issue 4: five levels named in pt-BR and English)."""
