"""Two sign-ups racing for one username: the loser gets the form's "already exists" error, never a 500.

The race is simulated deterministically: the rival row is created after ``SignUpForm`` validated the
username (free at that moment) and before the service saves.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import Client
from django.urls import reverse

from accounts.forms import SignUpForm
from accounts.models import User
from accounts.services import UsernameTaken, guest_convert, guest_create, member_create

PASSWORD = "felt-green-42-knock"
pytestmark = pytest.mark.django_db


@pytest.fixture
def rival_signs_up_after_validation(monkeypatch: pytest.MonkeyPatch) -> list[User]:
    """Make every valid ``SignUpForm`` lose the race: a rival takes its username right after validation."""
    rivals: list[User] = []
    original = SignUpForm.is_valid

    def is_valid_then_rival(self: SignUpForm) -> bool:
        valid = original(self)
        if valid:
            rivals.append(User.objects.create_user(self.cleaned_data["username"], password="rival-pw-77"))
        return valid

    monkeypatch.setattr(SignUpForm, "is_valid", is_valid_then_rival)
    return rivals


def test_member_create_stores_hashed_password() -> None:
    ana = member_create(username="ana", password=PASSWORD, email="ana@example.com")
    stored = User.objects.get(pk=ana.pk)
    assert (stored.username, stored.email, stored.is_guest, stored.is_bot) == (
        "ana",
        "ana@example.com",
        False,
        False,
    )
    assert stored.check_password(PASSWORD) and stored.password != PASSWORD


def test_member_create_on_taken_username_raises_and_creates_nothing() -> None:
    first = User.objects.create_user("ana", password="first-pw-31")
    with pytest.raises(UsernameTaken, match="'ana' is already taken"):
        member_create(username="ana", password=PASSWORD)
    assert list(User.objects.values_list("pk", flat=True)) == [first.pk]
    assert User.objects.get(pk=first.pk).check_password("first-pw-31")
    # The savepoint left the surrounding transaction usable.
    assert member_create(username="bea", password=PASSWORD).username == "bea"


def test_guest_convert_to_taken_username_raises_and_leaves_guest_unchanged() -> None:
    guest = guest_create()
    User.objects.create_user("ana", password="first-pw-31")
    with pytest.raises(UsernameTaken):
        guest_convert(user=guest, username="ana", password=PASSWORD)
    again = User.objects.get(pk=guest.pk)
    assert (again.username, again.is_guest, again.display_name) == (guest.username, True, guest.display_name)
    assert not again.has_usable_password()
    assert User.objects.filter(username="ana").count() == 1


def test_racing_signup_gets_form_error_not_500(
    client: Client, rival_signs_up_after_validation: list[User]
) -> None:
    response = client.post(
        reverse("accounts:signup"), {"username": "ana", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["username"] == ["A user with that username already exists."]
    assert "A user with that username already exists." in response.content.decode()
    [rival] = rival_signs_up_after_validation
    assert list(User.objects.values_list("pk", flat=True)) == [rival.pk]
    assert User.objects.get(pk=rival.pk).check_password("rival-pw-77")  # the winner's row is untouched
    assert SESSION_KEY not in client.session


def test_racing_guest_conversion_gets_form_error_and_stays_guest(
    client: Client, rival_signs_up_after_validation: list[User]
) -> None:
    client.post(reverse("accounts:guest"))
    guest = User.objects.get(pk=int(client.session[SESSION_KEY]))
    response = client.post(
        reverse("accounts:signup"), {"username": "ana", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["username"] == ["A user with that username already exists."]
    again = User.objects.get(pk=guest.pk)
    assert (again.username, again.is_guest) == (guest.username, True)
    assert int(client.session[SESSION_KEY]) == guest.pk  # still logged in as the same guest
    assert User.objects.filter(username="ana").count() == 1


def test_racing_signup_error_is_translated(
    client: Client, rival_signs_up_after_validation: list[User]
) -> None:
    response = client.post(
        reverse("accounts:signup"),
        {"username": "ana", "password1": PASSWORD, "password2": PASSWORD},
        headers={"accept-language": "pt-BR"},
    )
    assert response.status_code == 200
    assert "Um usuário com este nome de usuário já existe." in response.content.decode()
