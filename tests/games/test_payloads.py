"""``games.payloads``: the players, arrangements and reveals shared by the table's ``state`` and the
spectators' ``watch`` messages (docs/protocol.md); worked examples of each shape."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from accounts.models import User
from engine.cards import parse_cards
from engine.deck import seeded_deck
from engine.hand import HandState
from engine.rules import preset
from games import payloads
from games.live import DealRow


def test_a_player_and_an_empty_seat() -> None:
    ana = User(username="ana", display_name="Ana P.", is_guest=True)
    assert payloads.player(ana, 1) == {
        "seat": 1, "name": "Ana P.", "is_bot": False, "is_guest": True, "bot_level": None,
        "bot_account": False,
    }
    robo = User(username="robo", bot_account=True)
    assert payloads.player(robo, 0) == {
        "seat": 0, "name": "robo", "is_bot": False, "is_guest": False, "bot_level": None, "bot_account": True,
    }
    assert payloads.player(None, 0) is None


def test_an_arrangement_lists_melds_then_deadwood() -> None:
    assert payloads.arrangement(parse_cards("7s 8s 9s 7h 7d Kc")) == {
        "melds": [["7s", "8s", "9s"]], "deadwood_cards": ["Kc", "7d", "7h"], "deadwood": 24,
    }


def test_the_reveal_of_a_hand_names_its_deal_and_keeps_its_key_order() -> None:
    hand = HandState(preset("classic"), 0, seeded_deck(1))
    deal = DealRow(seq=3, hand=2, salt="ab" * 16, commitment="cd" * 32,
                   created_at=datetime(2026, 1, 1, tzinfo=UTC))
    shown = payloads.reveal(hand, deal, (10, 25))
    assert list(shown) == ["number", "dealer", "result", "final_hands", "arrangements", "scores_after",
                           "deck", "salt", "commitment"]
    assert (shown["number"], shown["dealer"], shown["result"]) == (2, 0, None)
    assert shown["scores_after"] == [10, 25]
    assert (shown["salt"], shown["commitment"]) == ("ab" * 16, "cd" * 32)
    assert len(shown["deck"]) == 52 and [len(h) for h in shown["final_hands"]] == [10, 10]
    hands = [parse_cards(" ".join(names)) for names in shown["final_hands"]]
    assert shown["arrangements"] == [payloads.arrangement(cards) for cards in hands]
    unknown: Any = payloads.reveal(hand, None, [0, 0])
    assert (unknown["number"], unknown["salt"], unknown["commitment"]) == (None, None, None)


@pytest.mark.parametrize("seat", [0, 1])
def test_a_house_bot_says_its_level(seat: int) -> None:
    bot = User(username="bot-3", is_bot=True, bot_level=3)
    shown = payloads.player(bot, seat)
    assert shown is not None and shown["seat"] == seat and shown["is_bot"] and shown["bot_level"] == 3
