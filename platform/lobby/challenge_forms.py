"""Forms of open challenges (``/lobby/``) and direct challenges (a profile's "Challenge"): the match's
settings, with the friend table's presets and targets and a choice of turn timers
(``lobby.seeks.TIMER_CHOICES``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.forms import PRESET_CHOICES, TARGET_CHOICES
from lobby.seeks import RATING_BOUNDS, TIMER_CHOICES, Settings


def _timer(value: str) -> int | None:
    return None if value in ("", None) else int(value)


def timer_choices() -> list[tuple[str, Any]]:
    return [("" if t is None else str(t), _("no timer (casual only)") if t is None else
             _("%(n)s s per move") % {"n": t}) for t in TIMER_CHOICES]


class MatchSettingsForm(forms.Form):
    """``preset``, ``target`` (50/100), ``turn_timer`` (one of ``TIMER_CHOICES``; empty: none; a rated
    match without one gets the rated timer), ``rated`` (checkbox)."""

    preset = forms.ChoiceField(label=_("Rules"), choices=PRESET_CHOICES, initial="classic")
    target = forms.TypedChoiceField(label=_("Target"), coerce=int, choices=TARGET_CHOICES, initial=100)
    turn_timer = forms.TypedChoiceField(label=_("Turn timer"), coerce=_timer, empty_value=None,
                                        required=False, choices=timer_choices, initial="60")
    rated = forms.BooleanField(label=_("Rated"), required=False, initial=True)

    def settings(self) -> Settings:
        data = self.cleaned_data
        return Settings(data["preset"], data["target"], data["turn_timer"], bool(data["rated"]))


class SeekForm(MatchSettingsForm):
    """:class:`MatchSettingsForm` and an optional rating range (``rating_min``, ``rating_max``)."""

    rating_min = forms.IntegerField(label=_("Lowest rating"), required=False, min_value=RATING_BOUNDS[0],
                                    max_value=RATING_BOUNDS[1])
    rating_max = forms.IntegerField(label=_("Highest rating"), required=False, min_value=RATING_BOUNDS[0],
                                    max_value=RATING_BOUNDS[1])
