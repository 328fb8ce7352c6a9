"""The engine's error hierarchy.

Every error the engine raises on bad input is a subclass of :class:`EngineError`, and also of
:class:`ValueError`, so callers may catch either. Each carries a short machine-readable ``code``
(used verbatim as the WebSocket error code by the live platform, see ``docs/protocol.md``).
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every engine error. ``code`` is a stable snake_case identifier."""

    code: str = "engine_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class InvalidCardError(EngineError):
    """A card token that is not poker notation (``As``, ``Td``, ``10h``), named in the message."""

    code = "invalid_card"


class DuplicateCardError(InvalidCardError):
    """The same card appears twice where cards must be distinct."""

    code = "duplicate_card"


class InvalidRuleSetError(EngineError):
    """A rule set option out of range, or an unknown preset name."""

    code = "invalid_rules"


class InvalidMeldError(EngineError):
    """Cards passed as a meld that do not form a set or a run (or overlap another meld)."""

    code = "invalid_meld"


class IllegalActionError(EngineError):
    """An action that is not legal in the current state; the state is left unchanged.

    ``code`` says why: ``wrong_phase``, ``out_of_turn``, ``card_not_held``, ``taken_card``,
    ``knock_over_limit``, ``stock_only``, ``match_over``, ``illegal_action``.
    """

    code = "illegal_action"


class InvalidEventError(EngineError):
    """A serialized event or event log that is malformed, of an unknown schema, or inconsistent."""

    code = "invalid_event"
