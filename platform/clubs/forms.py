"""The club form (create and edit): name, description, who may join. The rules themselves live in
``clubs.services`` (:func:`~clubs.services.clean_name`...), which every write goes through; the form only
reads the fields (a NUL byte gets Django's own refusal) and shows the services' refusals on their field."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from clubs.errors import ClubError
from clubs.models import ClubAccess
from clubs.services import DESCRIPTION_MAX, NAME_MAX


class ClubForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=NAME_MAX * 2, strip=False,
                           widget=forms.TextInput(attrs={"maxlength": NAME_MAX, "autocomplete": "off"}),
                           help_text=_("3 to 60 characters; unique on the site."))
    description = forms.CharField(label=_("Description (optional)"), required=False, strip=False,
                                  max_length=DESCRIPTION_MAX * 2,
                                  widget=forms.Textarea(attrs={"rows": 5, "maxlength": DESCRIPTION_MAX}),
                                  help_text=_("At most 1000 characters."))
    access = forms.ChoiceField(label=_("Who may join"), choices=ClubAccess.choices, widget=forms.RadioSelect,
                               initial=ClubAccess.PUBLIC)

    def add_club_error(self, error: ClubError) -> None:
        """Show a service's refusal on its field (or above the form), in the active language."""
        self.add_error(error.field if error.field in self.fields else None, error.text())
