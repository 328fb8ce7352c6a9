"""Account forms."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.forms import UserCreationForm

from accounts.models import User
from accounts.validators import validate_username_not_reserved, validate_username_single_script


class SignUpForm(UserCreationForm):
    """Username + password twice. Used for new members and guest conversion.

    Username: Django's validators (characters, length, unique ignoring case) plus
    ``accounts.validators``: not a house-bot/guest/staff look-alike, not mixing look-alike alphabets.
    Password: ``AUTH_PASSWORD_VALIDATORS`` (including not only whitespace).
    """

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].validators += [
            validate_username_not_reserved, validate_username_single_script,
        ]
