"""The bot ladder (issue 4): five levels reached through :func:`make_bot`.

>>> bot = make_bot(3, seed=1)
>>> bot.level, LEVELS[3].name_pt
(3, 'Padrão')

Bots see only a :class:`~engine.view.PlayerView`; see :mod:`engine.bots.base`.
"""

from engine.bots.base import LEVELS, Bot, LevelInfo
from engine.bots.ladder import make_bot

__all__ = ["LEVELS", "Bot", "LevelInfo", "make_bot"]
