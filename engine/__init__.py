"""Gin Rummy rules engine: cards, melds, layoffs, scoring, rule sets, hand and match state, bots.

Framework-free (no Django, Channels or Celery). The rules are those of ``shared/docs/rules.md``.
"""

from engine.cards import Card, card_name, format_cards, parse_card, parse_cards
from engine.errors import (
    DuplicateCardError,
    EngineError,
    IllegalActionError,
    InvalidCardError,
    InvalidEventError,
    InvalidMeldError,
    InvalidRuleSetError,
)
from engine.rules import PRESETS, RuleSet, preset

__all__ = [
    "PRESETS",
    "Card",
    "DuplicateCardError",
    "EngineError",
    "IllegalActionError",
    "InvalidCardError",
    "InvalidEventError",
    "InvalidMeldError",
    "InvalidRuleSetError",
    "RuleSet",
    "card_name",
    "format_cards",
    "parse_card",
    "parse_cards",
    "preset",
]
