"""Forms of open challenges (``/lobby/``) and direct challenges (a profile's "Challenge"): the match's
settings, with the friend table's presets and targets and a choice of turn timers
(``lobby.seeks.TIMER_CHOICES``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games import conf as game_conf
from games.forms import PRESET_CHOICES, TARGET_CHOICES, StrictBooleanField
from lobby.seeks import RATING_BOUNDS, RATING_STEP, TIMER_CHOICES, Settings
from web.form_fields import WholeNumberField


def _timer(value: str) -> int | None:
    return None if value in ("", None) else int(value)


def timer_choices() -> list[tuple[str, Any]]:
    return [("" if t is None else str(t), _("no timer (casual only)") if t is None else
             _("%(n)s s per move") % {"n": t}) for t in TIMER_CHOICES]


def bot_timer_choices() -> list[tuple[str, Any]]:
    """The timers a match with a BOT account allows (``lobby.challenges.bot_settings``: always one, at
    most ``games.conf.BOT_TURN_TIMER_MAX``)."""
    return [(value, label) for value, label in timer_choices()
            if value and int(value) <= game_conf.BOT_TURN_TIMER_MAX]


class MatchSettingsForm(forms.Form):
    """``preset``, ``target`` (50/100), ``turn_timer`` (one of ``TIMER_CHOICES``; empty: none; a rated
    match without one gets the rated timer), ``rated`` (checkbox)."""

    preset = forms.ChoiceField(label=_("Rules"), choices=PRESET_CHOICES, initial="classic")
    target = forms.TypedChoiceField(label=_("Target"), coerce=int, choices=TARGET_CHOICES, initial=100)
    turn_timer = forms.TypedChoiceField(label=_("Turn timer"), coerce=_timer, empty_value=None,
                                        required=False, choices=timer_choices, initial="60")
    rated = StrictBooleanField(label=_("Rated"), required=False, initial=True)

    def __init__(self, *args: Any, bot: bool = False, **kwargs: Any) -> None:
        """``bot``: a BOT account on either side: only :func:`bot_timer_choices`, default
        ``games.conf.BOT_TURN_TIMER`` (30 s)."""
        super().__init__(*args, **kwargs)
        if bot:
            field = self.fields["turn_timer"]
            assert isinstance(field, forms.TypedChoiceField)
            field.choices = bot_timer_choices()
            field.required = True
            field.initial = str(game_conf.BOT_TURN_TIMER)

    def settings(self) -> Settings:
        data = self.cleaned_data
        return Settings(data["preset"], data["target"], data["turn_timer"], bool(data["rated"]))


def _bound(label: Any) -> forms.IntegerField:
    """A rating range's end: optional, in ``RATING_BOUNDS``, a multiple of ``RATING_STEP`` (the same rule
    as ``seeks.seek_create``; the page's input has ``step`` 50), with a plain message for the step."""
    return WholeNumberField(
        label=label, required=False, min_value=RATING_BOUNDS[0], max_value=RATING_BOUNDS[1],
        step_size=RATING_STEP,
        error_messages={"step_size": _("Use a multiple of %(limit_value)s, such as 1450 or 1500.")})


class SeekForm(MatchSettingsForm):
    """:class:`MatchSettingsForm` and an optional rating range (``rating_min``, ``rating_max``: each a
    multiple of ``RATING_STEP`` in ``RATING_BOUNDS``)."""

    rating_min = _bound(_("Lowest rating"))
    rating_max = _bound(_("Highest rating"))
