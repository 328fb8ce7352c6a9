"""Forms of the events people make (tournaments/organise.py). The rules live in the services
(``organise.validate`` and the writes); a form parses the input, asks them, and shows each refusal on
its field in the reader's language (:data:`ERRORS`). A refused form changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django import forms
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from clubs.models import Club, ClubRole
from engine.rules import PRESETS
from tournaments import organise
from tournaments.errors import TournamentError
from tournaments.models import Tournament, TournamentAccess, TournamentFormat
from web.form_fields import WholeNumberField

ERRORS: dict[str, tuple[str | None, Callable[[], str]]] = {
    "name": ("name", lambda: _("The name must be 3 to 80 characters, without NUL characters.")),
    "description": ("description", lambda: _("The description must be at most 1000 characters, "
                                             "without NUL characters.")),
    "format": ("format", lambda: _("Choose Swiss or Arena.")),
    "start_past": ("starts_at", lambda: _("The start must be at least 5 minutes from now.")),
    "start_far": ("starts_at", lambda: _("The start must be within the next 60 days.")),
    "rounds": ("rounds", lambda: _("Rounds: 1 to 15, or empty for automatic (by the field's size).")),
    "duration": ("duration_minutes", lambda: _("An Arena lasts 10 to 240 minutes.")),
    "preset": ("rules_preset", lambda: _("Unknown rule preset.")),
    "target": ("match_target", lambda: _("The match target is 50 or 100.")),
    "turn_timer": ("turn_timer_seconds", lambda: _("The turn timer is 15 to 600 seconds.")),
    "rating_bounds": ("rating_min", lambda: _("Rating bounds are 0 to 4000.")),
    "rating_order": ("rating_max",
                     lambda: _("The highest rating is below the lowest: the range is upside down.")),
    "field_size": ("max_players", lambda: _("The minimum field is 2 to 256 players, the maximum 2 to 1000, "
                                            "and the minimum at most the maximum.")),
    "access": ("access", lambda: _("Choose who may join.")),
    "club_needed": ("club", lambda: _("An event for club members needs a club: choose one.")),
    "entry_code": ("entry_code", lambda: _("The entry code must be 4 to 40 characters, without spaces.")),
    "entry_code_taken": ("entry_code", lambda: _("Another upcoming or running event already has this entry "
                                                 "code: choose another one, or leave it empty to get one.")),
    "club_organiser": ("club", lambda: _("Only the club's owner and organisers create its events.")),
    "daily_limit": (None, lambda: _("You created %(n)s events in the last 24 hours: try again later.")
                    % {"n": organise.MAX_CREATED_PER_DAY}),
    "too_many": (None, lambda: _("You have %(n)s events waiting or running: wait until one finishes.")
                 % {"n": organise.MAX_UNFINISHED}),
    "max_below_field": ("max_players", lambda: _("More players are registered than this maximum field.")),
    "started": (None, lambda: _("This event has started: it can no longer be changed.")),
    "cancelled": (None, lambda: _("This event was cancelled.")),
    "not_organiser": (None, lambda: _("Only the event's organisers may do this.")),
    "guest": (None, lambda: _("Guests cannot create events: sign up first.")),
    "standing": (None, lambda: _("This account may not create events (fair play).")),
    "note": ("note", lambda: _("The note must be at most 300 characters, without NUL characters.")),
    "not_swiss": (None, lambda: _("Forbidden pairings are for Swiss events.")),
    "finished": (None, lambda: _("This event is over.")),
    "same": ("second", lambda: _("Choose two different players.")),
}


def show_error(form: forms.Form, exc: TournamentError) -> None:
    """Put a service's refusal on the form: on its field when it has one, else on the form."""
    field, message = ERRORS.get(exc.code, (None, lambda: exc.message))
    form.add_error(field if field in form.fields else None, message())


def _int(label: Any, required: bool = False, **kw: Any) -> forms.IntegerField:
    return WholeNumberField(label=label, required=required, **kw)


class EventForm(forms.Form):
    """Create or edit an event. ``clubs``: the clubs the member organises (the club choice is shown
    only when there are some); ``editing``: no club choice (an event keeps its club: ``club``)."""

    # The services' own limits and words (organise.NAME_LENGTH), never Django's generic "at most N
    # characters": the field is cut at 80 in the browser and refused past it here.
    name = forms.CharField(label=gettext_lazy("Name"), min_length=organise.NAME_LENGTH[0],
                           max_length=organise.NAME_LENGTH[1], error_messages=dict.fromkeys(
                               ("min_length", "max_length"),
                               gettext_lazy("The name must be 3 to 80 characters, without NUL characters.")))
    description = forms.CharField(label=gettext_lazy("Description"), required=False, max_length=2000,
                                  widget=forms.Textarea(attrs={"rows": 3}))
    format = forms.ChoiceField(label=gettext_lazy("Format"), choices=TournamentFormat.choices)
    starts_at = forms.DateTimeField(label=gettext_lazy("Start (UTC)"),
                                    widget=forms.DateTimeInput(attrs={"type": "datetime-local"},
                                                               format="%Y-%m-%dT%H:%M"))
    rounds = _int(gettext_lazy("Rounds (Swiss; empty: automatic)"))
    duration_minutes = _int(gettext_lazy("Duration in minutes (Arena)"))
    rules_preset = forms.ChoiceField(label=gettext_lazy("Rules"), choices=[(p, p) for p in PRESETS])
    match_target = forms.TypedChoiceField(label=gettext_lazy("Match target"), coerce=int,
                                          choices=[(t, str(t)) for t in organise.TARGETS], initial=50)
    turn_timer_seconds = _int(gettext_lazy("Turn timer (seconds)"), required=True, initial=30)
    rated = forms.BooleanField(label=gettext_lazy("Rated"), required=False, initial=True)
    rating_min = _int(gettext_lazy("Lowest rating"))
    rating_max = _int(gettext_lazy("Highest rating"))
    access = forms.ChoiceField(label=gettext_lazy("Who may join"), choices=TournamentAccess.choices)
    entry_code = forms.CharField(label=gettext_lazy("Entry code (empty: one is made for you)"),
                                 required=False, max_length=200)
    bots_allowed = forms.BooleanField(label=gettext_lazy("House bots fill the field"), required=False,
                                      initial=True)
    bot_accounts_allowed = forms.BooleanField(label=gettext_lazy("Allow BOT accounts"), required=False,
                                              initial=False)
    min_players = _int(gettext_lazy("Minimum field"), required=True, initial=2)
    max_players = _int(gettext_lazy("Maximum field"), required=True, initial=64)
    club = forms.ModelChoiceField(label=gettext_lazy("Club"), queryset=Club.objects.none(), required=False,
                                  to_field_name="slug", empty_label=gettext_lazy("none: my own event"))

    def __init__(self, *args: Any, user: User | AnonymousUser, editing: bool = False,
                 club: Club | None = None, now: datetime | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self.fixed_club = club
        self.now = now or timezone.now()
        clubs = Club.objects.filter(memberships__user_id=user.pk or 0,
                                    memberships__role__in=(ClubRole.OWNER, ClubRole.ORGANISER))
        if editing or not clubs.exists():
            del self.fields["club"]
        else:
            self.fields["club"].queryset = clubs  # type: ignore[attr-defined]
        self.fields["rules_preset"].choices = [(p, _preset_label(p)) for p in PRESETS]  # type: ignore[attr-defined]
        self.event: organise.EventFields | None = None

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        values: dict[str, Any] = {key: data.get(key) for key in (
            "name", "format", "starts_at", "rounds", "duration_minutes", "rules_preset", "match_target",
            "turn_timer_seconds", "rated", "rating_min", "rating_max", "access", "bots_allowed",
            "bot_accounts_allowed", "min_players", "max_players")}
        event = organise.EventFields(**values, entry_code=data.get("entry_code") or "",
                                     description=data.get("description") or "",
                                     club=data.get("club", self.fixed_club))
        try:
            self.event = organise.validate(event, now=self.now)
        except TournamentError as exc:
            show_error(self, exc)
        return data


def _preset_label(name: str) -> str:
    labels = {"classic": _("Classic"), "table": _("Table"), "brazilian": _("Brazilian"),
              "oklahoma": _("Oklahoma"), "hoyle": _("Hoyle"), "two_deck": _("Two decks")}
    return labels.get(name, name)


def initial_of(tournament: Tournament) -> dict[str, Any]:
    """The edit form's initial values: the event's current choices."""
    event = organise.event_fields_of(tournament)
    values = {key: getattr(event, key) for key in (
        "name", "description", "format", "starts_at", "rounds", "duration_minutes", "rules_preset",
        "match_target", "turn_timer_seconds", "rated", "rating_min", "rating_max", "access", "entry_code",
        "bots_allowed", "bot_accounts_allowed", "min_players", "max_players")}
    values["entry_code"] = tournament.entry_code
    return values


class CancelForm(forms.Form):
    """Cancel an event: an optional note to the players and a box to tick (the confirmation)."""

    note = forms.CharField(label=gettext_lazy("A note to the players (optional)"), required=False,
                           max_length=300, widget=forms.Textarea(attrs={"rows": 2}))
    confirm = forms.BooleanField(label=gettext_lazy("Yes, cancel this event"), required=True,
                                 error_messages={"required": gettext_lazy("Tick the box to confirm.")})


class PlayerPairForm(forms.Form):
    """Two players (usernames) who must never be paired; both must be players of ``tournament``."""

    first = forms.CharField(label=gettext_lazy("Player"), max_length=150)
    second = forms.CharField(label=gettext_lazy("and player"), max_length=150)

    def __init__(self, *args: Any, players: set[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.players = {p.lower() for p in players}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for key in ("first", "second"):
            name = (data.get(key) or "").strip()
            if name and name.lower() not in self.players:
                self.add_error(key, _("“%(name)s” is not a player of this event.") % {"name": name})
        return data


class WithdrawForm(forms.Form):
    """A player (username) to take out of the event."""

    username = forms.CharField(label=gettext_lazy("Player"), max_length=150)

    def __init__(self, *args: Any, players: set[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.players = {p.lower() for p in players}

    def clean_username(self) -> str:
        name = self.cleaned_data["username"].strip()
        if name.lower() not in self.players:
            raise forms.ValidationError(_("“%(name)s” is not a player of this event.") % {"name": name})
        return name
