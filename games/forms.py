"""Forms of the create endpoints (docs/protocol.md "HTTP endpoints"): bot match and friend table."""

from __future__ import annotations

import uuid
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from engine.bots.base import LEVELS
from engine.rules import PRESETS
from web.form_fields import WholeNumberField

PRESET_CHOICES = [(name, name.capitalize()) for name in PRESETS]
TARGET_CHOICES = [(50, "50"), (100, "100")]


def bot_level_choices(language: str = "en") -> list[tuple[int, str]]:
    """``[(1, "Beginner"), ...]`` in English, or pt-BR names for a ``pt`` language code."""
    pt = language.lower().startswith("pt")
    return [(lvl, info.name_pt if pt else info.name_en) for lvl, info in sorted(LEVELS.items())]


class OncePerSubmissionForm(forms.Form):
    """A create form carrying ``submission``: a one-time token (UUID, hidden) drawn for each blank form,
    so the service can tell a repeat of one submission (double click) from a new one. Optional: a POST
    without it (an old page, a script) creates every time."""

    submission = forms.UUIDField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("submission", uuid.uuid4())


class _StrictCheckboxInput(forms.CheckboxInput):
    """Django's ``CheckboxInput`` turns every posted string but ``false`` into True before the field sees
    it; this one passes a word it does not know on as it came, for :class:`StrictBooleanField` to refuse."""

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        if name not in data:
            return False
        value = data.get(name)
        if isinstance(value, str):
            word = value.strip().lower()
            if word in StrictBooleanField.YES:
                return True
            if word in StrictBooleanField.NO:
                return False
        return value


class StrictBooleanField(forms.BooleanField):
    """A yes/no field (a checkbox, or Rated/Casual radios) that takes only its own words: absent, ``""``,
    ``false``, ``off`` or ``0`` is no; ``true``, ``on`` or ``1`` is yes (any case). Anything else is
    refused with Django's own (translated) "Select a valid choice" error, where Django's
    ``BooleanField`` read every other string as yes (a trial's ``rated=maybe`` made a rated match)."""

    widget = _StrictCheckboxInput
    default_error_messages = {"invalid_choice": forms.ChoiceField.default_error_messages["invalid_choice"]}
    YES = frozenset({"true", "on", "1"})
    NO = frozenset({"", "false", "off", "0"})

    def to_python(self, value: Any) -> bool:
        if value is None or isinstance(value, bool):
            return bool(value)
        text = str(value).strip().lower()
        if text in self.YES:
            return True
        if text in self.NO:
            return False
        shown = "".join(ch for ch in str(value)[:20] if ch.isprintable())
        raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice",
                              params={"value": shown})


class BotMatchForm(OncePerSubmissionForm):
    """``level`` 1-5, ``preset`` (a preset name), ``target`` 50 or 100, ``submission`` (one-time token);
    ``rated``: the member's Rated / Casual choice, casual on the blank form (a POST without ``rated``, or
    with ``false``, is casual; ``true``/``on``/``1`` is rated). A guest's ``rated`` is ignored: the
    service makes a guest's match casual (docs/ratings.md "Which matches are rated")."""

    level = forms.TypedChoiceField(label=_("Bot level"), coerce=int, choices=bot_level_choices())
    preset = forms.ChoiceField(label=_("Rules"), choices=PRESET_CHOICES, initial="classic")
    target = forms.TypedChoiceField(label=_("Target"), coerce=int, choices=TARGET_CHOICES, initial=100)
    # Casual by default: a member plays a bot for fun unless they ask for a rated match (issue 22).
    rated = StrictBooleanField(label=_("Rated"), required=False, initial=False)

    def __init__(self, *args: Any, language: str = "en", **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "id_bot_%s")  # one page holds both forms: ids must not repeat
        super().__init__(*args, **kwargs)
        self.fields["level"].choices = bot_level_choices(language)  # type: ignore[attr-defined]


class FriendTableForm(OncePerSubmissionForm):
    """``preset``, ``target`` 50 or 100, ``turn_timer``: empty (off) or 15-600 seconds per action;
    ``rated``: checkbox, checked on the blank form (absent from a POST = off; docs/ratings.md);
    ``submission`` (one-time token)."""

    preset = forms.ChoiceField(label=_("Rules"), choices=PRESET_CHOICES, initial="classic")
    target = forms.TypedChoiceField(label=_("Target"), coerce=int, choices=TARGET_CHOICES, initial=100)
    turn_timer = WholeNumberField(
        label=_("Turn timer (seconds, empty = off)"), required=False, min_value=15, max_value=600,
    )
    rated = StrictBooleanField(label=_("Rated"), required=False, initial=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "id_friend_%s")  # one page holds both forms: ids must not repeat
        super().__init__(*args, **kwargs)
