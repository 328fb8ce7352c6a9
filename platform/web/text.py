"""Characters a person's text may not hold (framework-free): shared by the forms and services of every app
that stores what people type (fairplay's report comments, clubs' names and descriptions).

- control characters (Unicode category Cc: NUL, ESC, DEL, the C1 controls...), except those a caller
  allows (a multi-line text allows tab, line feed and carriage return; a one-line name allows none);
- the bidirectional embeddings, overrides and isolates (:data:`BIDI_CONTROLS`, Unicode UAX #9): one of
  them turns the rest of a line around where someone reads it (U+202E), so they count as control
  characters. Other format characters (the zero-width joiner of emoji, the marks LRM/RLM) stay.

>>> control_characters("ok\\tok", allowed=TEXT_LAYOUT)
[]
>>> control_characters("a\\x00b\\u202ec")
['\\x00', '\\u202e']
"""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The bidirectional embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069)."""
TEXT_LAYOUT = frozenset("\t\n\r")
"""The control characters that are text in a multi-line field: tab, line feed, carriage return."""


def control_characters(value: str, *, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The distinct control and bidirectional-control characters of ``value`` not in ``allowed``, sorted
    by code point (empty: the text is clean)."""
    return sorted({c for c in value
                   if (unicodedata.category(c) == "Cc" and c not in allowed) or c in BIDI_CONTROLS})
