"""Gin Rummy rules engine: cards, melds, layoffs, scoring, rule sets, hand and match state, bots.

Framework-free (no Django, Channels or Celery). The rules are those of ``shared/docs/rules.md``.
"""

from engine.actions import Action, ActionKind
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
from engine.events import SCHEMA_VERSION
from engine.hand import HandState, Phase
from engine.layoffs import DefenderResult, Layoff, best_defense
from engine.match import MatchState, apply_event, replay
from engine.melds import Arrangement, Meld, best_arrangement, deadwood, deadwood_after_discards
from engine.rules import PRESETS, RuleSet, preset
from engine.scoring import HandResult, score_knock
from engine.view import PlayerView

__all__ = [
    "PRESETS",
    "SCHEMA_VERSION",
    "Action",
    "ActionKind",
    "Arrangement",
    "Card",
    "DefenderResult",
    "DuplicateCardError",
    "EngineError",
    "HandResult",
    "HandState",
    "IllegalActionError",
    "InvalidCardError",
    "InvalidEventError",
    "InvalidMeldError",
    "InvalidRuleSetError",
    "Layoff",
    "MatchState",
    "Meld",
    "Phase",
    "PlayerView",
    "RuleSet",
    "apply_event",
    "best_arrangement",
    "best_defense",
    "card_name",
    "deadwood",
    "deadwood_after_discards",
    "format_cards",
    "parse_card",
    "parse_cards",
    "preset",
    "replay",
    "score_knock",
]
