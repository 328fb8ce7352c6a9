"""Account forms."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.validators import MaxLengthValidator
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.tokens import SCOPES
from accounts.validators import (
    validate_username_not_abusive,
    validate_username_not_reserved,
    validate_username_single_script,
)


class SignUpForm(UserCreationForm):
    """Username + password twice. Used for new members and guest conversion.

    Username: Django's validators (characters, length, unique ignoring case) plus
    ``accounts.validators``: not a house-bot/guest/staff look-alike, no abusive word, not mixing
    look-alike alphabets.
    Password: ``AUTH_PASSWORD_VALIDATORS`` (including not only whitespace).
    """

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].validators += [
            validate_username_not_reserved, validate_username_not_abusive, validate_username_single_script,
        ]


def _limit_username_length(form: AuthenticationForm) -> None:
    """Refuse a log-in username longer than ``User.username`` (150 characters) as an error on that field.

    Django's ``AuthenticationForm`` only sets the widget's ``maxlength`` (its field's validators are built
    before the limit is known), so a longer name reached ``authenticate`` and django-axes, whose
    ``AccessAttempt.username`` is ``varchar(255)``: from 256 characters a ``DataError`` (a 500) on
    PostgreSQL. A field error keeps ``username`` out of ``cleaned_data``: ``clean`` never authenticates,
    nothing is recorded and no failure is counted.
    """
    limit = User._meta.get_field("username").max_length or 150
    form.fields["username"].validators.append(MaxLengthValidator(
        limit, message=_("A username has at most %(limit_value)d characters (this one has %(show_value)d).")
    ))


class LoginForm(AuthenticationForm):
    """The site's log-in form (``/accounts/login/``): Django's, plus the username length check."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _limit_username_length(self)


class AdminLoginForm(AdminAuthenticationForm):
    """The admin's log-in form (``/admin/login/``, ``admin.site.login_form``): Django's staff-only form,
    plus the username length check."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _limit_username_length(self)


class TokenForm(forms.Form):
    """A new API token (docs/bot-api.md "Tokens"): a name (1-60 characters, no control character) and at
    least one scope of ``accounts.tokens.SCOPES``. ``accounts.tokens.token_create`` checks again (its
    refusals are added to the form as errors)."""

    name = forms.CharField(label=_("Name"), max_length=60, strip=True,
                           help_text=_("What the token is for, e.g. “my bot on the laptop”."))
    scopes = forms.MultipleChoiceField(label=_("Scopes"), widget=forms.CheckboxSelectMultiple,
                                       error_messages={"required": _("Choose at least one scope.")})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        scopes = self.fields["scopes"]
        assert isinstance(scopes, forms.MultipleChoiceField)
        scopes.choices = [(code, f"{code}: {text}") for code, text in SCOPES.items()]

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"]
        if any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise forms.ValidationError(_("A token's name has no control characters."), code="bad_name")
        return name
