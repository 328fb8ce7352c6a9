"""``{% load ends %}``: ``{{ reason|end_note:won }}``, how a listed match ended (``games.ends.end_note``)."""

from __future__ import annotations

from django import template

from games.ends import end_note as _end_note

register = template.Library()


@register.filter
def end_note(reason: str | None, won: bool | str | None) -> str:
    """``games.ends.end_note(reason, won)``: "the opponent left", "resigned", ... or ``""``."""
    return _end_note(reason, won)
