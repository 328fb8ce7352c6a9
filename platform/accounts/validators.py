"""Validators of the names and passwords people choose (sign-up and guest conversion).

Usernames (``SignUpForm``), on top of Django's own (letters, digits and ``@.+-_``; NFKC-normalised; unique
ignoring case):

- ``validate_username_not_reserved``: the shapes of the site's own accounts cannot be taken, compared
  case-insensitively with separators (``-_.+@``) removed: house bots ``bot-<level>`` (any name that folds
  to ``bot`` + a digit..., also with ``0`` for ``o``), guests ``guest-<hex>`` (folds to ``guest`` + hex
  digits, also ``gu3st``/``gue5t``), the house bots' level names in both languages (``Standard``,
  ``Padrão``, ``Especialista``, ... from ``engine.bots.base.LEVELS``, accents ignored: a person named
  like a bot could pass for one at the table), and a few staff-sounding names (``admin``, ``moderator``, ...).
- ``validate_username_not_abusive``: no listed abusive word, English or Portuguese, after folding case,
  accents, leetspeak digits and separators (``accounts.abusive_words``: which words are refused anywhere
  in a name and which only as a whole word, so "Cunha" and "Hancock" stay fine; docs/fairplay.md "Names").
- ``validate_username_single_script``: no name mixing alphabets where a letter has a look-alike in
  another one (a Cyrillic ``а`` in ``аdmin``): confusable-homoglyphs' ``is_dangerous`` (Unicode's
  confusables data). A name in one alphabet (``José``, ``Андрей``, ``渡辺``) is fine.

Passwords: ``NotOnlyWhitespacePasswordValidator`` (in ``AUTH_PASSWORD_VALIDATORS``).
"""

from __future__ import annotations

import re
import unicodedata

from confusable_homoglyphs import confusables
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from accounts.abusive_words import abusive_word
from engine.bots.base import LEVELS

SEPARATORS = re.compile(r"[-_.+@\s]+")
RESERVED_SHAPES = (
    re.compile(r"b[o0]t(\d.*)?"),  # house bots: bot-1 .. bot-5, and room for more
    re.compile(r"gu[e3][s5]t[0-9a-f]*"),  # guests: guest-<10 hex>
)
RESERVED_NAMES = frozenset(
    {"admin", "administrator", "root", "staff", "support", "moderator", "mod", "system", "sysop", "webmaster"}
)


def fold_username(value: str) -> str:
    """``value`` as compared against reserved names: NFKC, case-folded, separators removed."""
    return SEPARATORS.sub("", unicodedata.normalize("NFKC", value).casefold())


def _without_accents(value: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", value) if not unicodedata.combining(c))


RESERVED_BOT_NAMES = frozenset(
    _without_accents(fold_username(name)) for info in LEVELS.values() for name in (info.name_en, info.name_pt)
)
"""The house bots' level names (English and pt-BR), folded and without accents."""


def validate_username_not_reserved(value: str) -> None:
    """:raises ValidationError: (code ``reserved``) for a house-bot, guest or staff look-alike."""
    folded = fold_username(value)
    if (
        any(shape.fullmatch(folded) for shape in RESERVED_SHAPES)
        or folded in RESERVED_NAMES
        or _without_accents(folded) in RESERVED_BOT_NAMES
    ):
        raise ValidationError(
            _(
                "“%(name)s” looks like a name of the site's own accounts (bots, guests, staff): "
                "choose another."
            ),
            code="reserved",
            params={"name": value},
        )


def validate_username_not_abusive(value: str) -> None:
    """:raises ValidationError: (code ``abusive``) for a name holding a listed abusive word
    (``accounts.abusive_words``). The message does not repeat the word."""
    if abusive_word(value) is not None:
        raise ValidationError(
            _("“%(name)s” contains a word that is not allowed in names on this site: choose another."),
            code="abusive",
            params={"name": value},
        )


def validate_username_single_script(value: str) -> None:
    """:raises ValidationError: (code ``confusable``) for a name mixing alphabets with look-alike letters."""
    if confusables.is_dangerous(value):
        raise ValidationError(
            _(
                "“%(name)s” mixes alphabets with look-alike letters (such as a Cyrillic “а” among Latin "
                "letters): write it in one alphabet."
            ),
            code="confusable",
            params={"name": value},
        )


class NotOnlyWhitespacePasswordValidator:
    """Refuse a password made only of spaces, tabs, line breaks or invisible characters."""

    def validate(self, password: str, user: object = None) -> None:
        """:raises ValidationError: (code ``password_only_whitespace``)."""
        if all(ch.isspace() or unicodedata.category(ch) in {"Cc", "Cf", "Zs"} for ch in password):
            raise ValidationError(
                _("This password has only spaces or invisible characters."), code="password_only_whitespace"
            )

    def get_help_text(self) -> str:
        return _("Your password can’t be only spaces.")
