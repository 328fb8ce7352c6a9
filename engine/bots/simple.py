"""Level 3: the EAAI Gin Rummy challenge's "simple player" (issue 4, the baseline).

Policy, exactly: take the upcard (first upcard or draw discard) only when it makes a meld with cards
in the hand, otherwise pass / draw from the stock; discard the card that leaves the least deadwood
(ties broken at random by the bot's seeded generator), never the card just taken (the view's legal
actions already exclude it under every preset, and the bot excludes it even where the rule set
allows it); knock (or go gin / big gin) as soon as the deadwood allows. No memory of the opponent.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from engine.bots.common import discard_action, forms_meld, mask_of, options
from engine.melds import deadwood_after_discards_of_mask

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.view import PlayerView


class SimpleBot:
    """Level 3. ``rng`` breaks ties between equally good discards (the only randomness)."""

    level = 3

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: PlayerView) -> Action:
        """The simple player's action for ``view`` (one of ``view.legal_actions``).

        :raises ValueError: the view has no legal action.
        """
        opts = options(view.legal_actions)
        hand = mask_of(view.hand)
        if opts.decision != "discard":
            upcard = view.upcard
            if opts.take is not None and upcard is not None and forms_meld(hand, upcard):
                return opts.take
            assert opts.decline is not None
            return opts.decline
        if opts.big_gin is not None:
            return opts.big_gin
        after = deadwood_after_discards_of_mask(hand)
        allowed = [c for c in sorted(set(opts.discards) | set(opts.knocks)) if c != view.taken_card]
        if not allowed:  # only the taken card is left to discard (impossible with 11 cards)
            allowed = sorted(set(opts.discards) | set(opts.knocks))
        least = min(after[c] for c in allowed)
        card = self.rng.choice([c for c in allowed if after[c] == least])
        return discard_action(opts, card, knock=True)
