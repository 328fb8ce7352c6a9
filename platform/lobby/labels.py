"""How a quick-pairing pool is named to people: one label, the same on /play/, the home page's buttons,
the waiting screen and in refusals ("you are already waiting in the pool 50 points · 20 s a move · Rated").

The label says what the pool plays (its target, its turn timer, rated or casual), from the pool's own
fields, so it is always true and always translated; ``Pool.name`` is the admin's own name for it.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from django.utils import translation
from django.utils.functional import lazy
from django.utils.translation import gettext, pgettext


def pool_label(pool: Any, language: str | None = None) -> str:
    """``pool``'s label (a :class:`lobby.models.Pool`, or anything with ``target``,
    ``turn_timer_seconds`` and ``rated``) in ``language`` (a language code; None: the active one):
    "50 points · 20 s a move · Rated", pt-BR "50 pontos · 20 s por jogada · Valendo rating"."""
    with translation.override(language) if language else nullcontext():
        kind = pgettext("pool", "Rated") if pool.rated else pgettext("pool", "Casual")
        return gettext("%(target)s points · %(seconds)s s a move · %(kind)s") % {
            "target": pool.target, "seconds": pool.turn_timer_seconds, "kind": kind}


pool_label_lazy = lazy(pool_label, str)
""":func:`pool_label` said when the string is used, in the language active then (a refusal's parameter:
``lobby.errors.refuse`` formats it in English, ``lobby.errors.text`` in the reader's language)."""
