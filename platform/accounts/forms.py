"""Account forms."""

from __future__ import annotations

from django.contrib.auth.forms import UserCreationForm

from accounts.models import User


class SignUpForm(UserCreationForm):
    """Username + password twice (Django's validators). Used for new members and guest conversion."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)
