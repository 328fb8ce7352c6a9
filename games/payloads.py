"""The shapes a table and a spectator share (docs/protocol.md): a seat's player, a revealed hand's
arrangement, and the reveal of an ended hand. Built here once for the ``state`` message of
``games.selectors`` and the ``watch`` message of ``replays.watch``; both frames carry them as
these functions build them (key order included: the frames are compared byte for byte).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from accounts.models import User
from engine.cards import Card, card_names, sort_by_rank
from engine.hand import HandState
from engine.melds import best_arrangement
from games.live import DealRow


def player(user: User | None, seat: int) -> dict[str, Any] | None:
    """The player at ``seat`` (0 or 1): ``{"seat", "name" (public name), "is_bot", "is_guest",
    "bot_level" (a house bot's level, else None), "bot_account" (a BOT account: a program playing through
    the bot API, docs/bot-api.md; the board marks it BOT)}``; None for an empty seat."""
    if user is None:
        return None
    return {
        "seat": seat, "name": user.public_name, "is_bot": user.is_bot, "is_guest": user.is_guest,
        "bot_level": user.bot_level, "bot_account": bool(user.bot_account),
    }


def arrangement(cards: Iterable[Card]) -> dict[str, Any]:
    """Best arrangement (least deadwood) of a revealed hand: ``{"melds" (lists of card names),
    "deadwood_cards" (card names), "deadwood" (points)}``."""
    best = best_arrangement(list(cards))
    return {
        "melds": [m.names() for m in best.melds],
        "deadwood_cards": card_names(best.unmatched),
        "deadwood": best.deadwood,
    }


def reveal(hand: HandState, deal: DealRow | None, scores: Iterable[int]) -> dict[str, Any]:
    """Full reveal of an ended ``hand`` (or of the last hand of a finished match): ``{"number" (the
    deal's hand number), "dealer", "result" (``HandResult.to_dict()``, None after a resignation
    mid-hand), "final_hands" (both hands' card names by rank), "arrangements" (:func:`arrangement` of
    each), "scores_after" (``scores``), "deck" (card names, in order), "salt", "commitment"}``; the
    deal's fields are None without its ``deal`` row."""
    return {
        "number": None if deal is None else deal.hand,
        "dealer": hand.dealer,
        "result": None if hand.result is None else hand.result.to_dict(),
        "final_hands": [card_names(sort_by_rank(list(h))) for h in hand.hands],
        "arrangements": [arrangement(h) for h in hand.hands],
        "scores_after": list(scores),
        "deck": card_names(hand.deck),
        "salt": None if deal is None else deal.salt,
        "commitment": None if deal is None else deal.commitment,
    }
