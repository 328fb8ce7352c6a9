"""The ladder: :func:`make_bot` builds the bot of each of the five levels (issue 4, "The bots"):
levels 1-2 ``HumanBot``, level 3 ``SimpleBot`` (the standard simple player), levels 4-5 ``ExpertBot``.

It sits above the bots' modules (which need only :mod:`engine.bots.base`'s protocol), so the bot
package has no import circle.
"""

from __future__ import annotations

import random

from engine.bots.base import LEVELS, Bot
from engine.bots.expert import ExpertBot
from engine.bots.human import HumanBot
from engine.bots.simple import SimpleBot


def make_bot(level: int, seed: int | None = None) -> Bot:
    """A new bot of ``level`` (1..5) whose random choices come from ``random.Random(seed)``.

    The same level and seed replay the same decisions for the same views. ``seed=None`` seeds
    from the operating system (live play).

    :raises ValueError: ``level`` is not an int in 1..5.
    """
    if type(level) is not int or level not in LEVELS:
        raise ValueError(f"bot level must be an integer 1..5, got {level!r}")
    rng = random.Random(seed)
    if level == 3:
        return SimpleBot(rng)
    if level <= 2:
        return HumanBot(level, rng)
    return ExpertBot(level, rng)
