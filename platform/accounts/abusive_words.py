"""Abusive words refused in usernames, English and Portuguese (docs/fairplay.md "Names"). Framework-free:
``accounts.validators.validate_username_not_abusive`` turns a hit into the form's error.

The list is modest on purpose: slurs and obscenities that name filters commonly refuse (no attempt at
being exhaustive; moderators can force a rename of what passes). Each word is matched one of two ways,
chosen to avoid the Scunthorpe problem (a harmless name refused for a bad word hidden inside it):

- ``SUBSTRING``: refused anywhere in the name, separators removed (``xfuckx``, ``f.u.c.k``). Only for
  words that sit inside no common word or name of either language we know of: five letters or more,
  and "fuck" (with its spelling "fvck").
- ``WHOLE``: refused only as a whole word of the name: "Cunha", "computador", "Hancock", "therapist",
  "Nazim", "Slutsky" and "enviado" stay fine although "cu", "puta", "cock", "rapist", "nazi", "slut" and
  "viado" sit inside them. The words of a name are its parts between separators (``-_.+@``, spaces, digits
  that are not leetspeak) and at a lower-to-upper case change (``SeuCu`` is ``Seu`` + ``Cu``); the
  whole name with its separators removed counts as a word too (``p.u.t.a``).

Before matching, a name is normalised (:func:`name_variants`): NFKC, case folded, accents removed
(``cuzão`` = ``cuzao``), leetspeak digits read as letters (0 -> o, 1 -> i or l, 3 -> e, 4 -> a, 5 -> s,
7 -> t) and ``@`` read as ``a`` or as a separator. Repeated letters are not collapsed ("fuuuck" passes):
collapsing would turn "Niger" and other names with doubled letters into false hits.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import product

SUBSTRING: frozenset[str] = frozenset({
    # English
    "fuck", "fvck", "phuck", "nigger", "nigga", "faggot", "asshole", "bitch", "whore", "retard", "dickhead",
    "hitler", "pedophile",
    # Portuguese
    "caralho", "buceta", "boceta", "xoxota", "punheta", "arrombad", "filhodaputa", "filhadaputa",
    "traveco", "merda", "cuzao", "fodase", "putamadre",
})
"""Refused anywhere in the name (already normalised: lowercase ASCII, no separators)."""

WHOLE: frozenset[str] = frozenset({
    # English
    "cunt", "cunts", "cock", "cocks", "slut", "sluts", "twat", "wanker", "nazi", "nazis", "rapist", "kike",
    "spic", "chink", "fag", "fags", "porn", "shit", "shithead", "tits", "fck", "fuk", "rape", "raping",
    # Portuguese ("foder" is inside "Foderaro", "putaria" inside "computaria": whole words only)
    "puta", "putas", "cu", "porra", "viado", "viados", "bicha", "bichas", "foda", "foder", "fdp", "vsf",
    "pqp", "sapatao", "putaria", "vtnc",
})
"""Refused as a whole word of the name only (already normalised)."""

LEET = {"0": "o", "3": "e", "4": "a", "5": "s", "7": "t"}
"""Digits read as letters; ``1`` is read both as ``i`` and as ``l`` (:func:`name_variants`)."""

_SPLIT = re.compile(r"[^a-z]+")


def _without_accents(value: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", value) if not unicodedata.combining(c))


def name_variants(name: str) -> list[list[str]]:
    """The ways ``name`` is read, each as its list of words (lowercase ASCII letters): the variants differ
    in how ``1`` (``i`` or ``l``) and ``@`` (``a`` or a separator) are read.

    >>> name_variants("Pu7a_Cunha")[0]
    ['puta', 'cunha']
    """
    text = unicodedata.normalize("NFKC", name)
    spaced = "".join(" " + c if i and c.isupper() and text[i - 1].islower() else c
                     for i, c in enumerate(text))
    base = _without_accents(spaced.casefold())
    base = "".join(LEET.get(c, c) for c in base)
    variants = []
    for one, at in product("il", ("a", " ")):
        read = base.replace("1", one).replace("@", at)
        variants.append([word for word in _SPLIT.split(read) if word])
    return variants


def abusive_word(name: str) -> str | None:
    """The first listed word ``name`` contains (see the module's docstring for how), or None."""
    for words in name_variants(name):
        joined = "".join(words)
        for word in sorted(SUBSTRING):
            if word in joined:
                return word
        for word in [*words, joined]:
            if word in WHOLE:
                return word
    return None
