"""The tiny bot of issue 27: discard the highest deadwood card, draw from the discard pile only if that
lowers the deadwood, knock as soon as the rules allow. It reads only the view and the engine's meld
helpers (``engine.melds.deadwood``: the least deadwood of a hand; ``best_arrangement``: its melds).

    python -m botclient --url http://127.0.0.1:8000 --token gin_... \\
        --bot botclient.examples.highest_deadwood:make
"""

from __future__ import annotations

from engine.actions import Action, ActionKind
from engine.cards import card_name, card_value
from engine.melds import best_arrangement, deadwood, deadwood_after_discards
from engine.phase import Phase
from engine.view import PlayerView


class HighestDeadwood:
    """``choose(view)``: the engine's bot interface, so the reference client plays it unchanged."""

    def choose(self, view: PlayerView) -> Action:
        legal = {str(a): a for a in view.legal_actions}
        if "knock" in legal:  # big gin: all 11 cards melded
            return legal["knock"]
        if view.phase is not Phase.DISCARD:  # the first upcard (take / pass) or a draw
            take, skip = ("take", "pass") if "pass" in legal else ("draw discard", "draw stock")
            up = view.upcard
            if take in legal and up is not None:  # the least deadwood with it, another card discarded
                after = [d for c, d in deadwood_after_discards([*view.hand, up]).items() if c != up]
                if min(after) < deadwood(view.hand):
                    return legal[take]
            return legal[skip]
        # Discard the highest unmatched card the rules let go (never the card just taken); knock with it
        # when the deadwood left allows, else with any card that allows it.
        unmatched = best_arrangement(view.hand).unmatched
        cards = [a.card for a in view.legal_actions if a.kind is ActionKind.DISCARD and a.card is not None]
        worst = max(cards, key=lambda c: (c in unmatched, card_value(c), c))
        knocks = [a for a in view.legal_actions if a.kind is ActionKind.KNOCK]
        return legal.get(f"knock {card_name(worst)}", knocks[0] if knocks else Action.discard(worst))


def make() -> HighestDeadwood:
    """The factory ``--bot botclient.examples.highest_deadwood:make`` calls once per match."""
    return HighestDeadwood()
