"""Names and passwords people may choose: reserved house-bot/guest/staff shapes, mixed-alphabet
look-alikes, case-insensitive uniqueness (form and database), passwords of only whitespace."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.services import UsernameTaken, member_create

PASSWORD = "felt-green-42-knock"
pytestmark = pytest.mark.django_db


def signup(client: Client, username: str, password: str = PASSWORD, **headers: str):
    return client.post(
        reverse("accounts:signup"), {"username": username, "password1": password, "password2": password},
        **headers,
    )


@pytest.mark.parametrize(
    "name",
    ["bot-6", "Bot_1", "BOT.3", "bot", "b0t-2", "bot-3-b", "ｂｏｔ－１", "guest-0000000000", "Guest_1a2b",
     "GUEST", "gu3st-12", "bo_t1", "admin", "Admin", "ad.min", "Moderator", "root",
     # the house bots' level names, both languages, accents ignored (a person could pass for a bot)
     "Standard", "beginner", "EXPERT", "Padrão", "padrao", "Especialista", "Avancado"],
)
def test_reserved_name_shapes_are_refused(client: Client, name: str) -> None:
    response = signup(client, name)
    assert response.status_code == 200
    errors = response.context["form"].errors.as_data()["username"]
    assert [e.code for e in errors] == ["reserved"]
    message = " ".join(response.context["form"].errors["username"])
    assert "” looks like a name of the site's own accounts (bots, guests, staff)" in message
    assert not User.objects.exists()


@pytest.mark.parametrize("name", ["botanist", "robot-7", "guestbook", "abbot", "administrators2"])
def test_names_that_only_contain_those_words_are_fine(client: Client, name: str) -> None:
    assert signup(client, name).status_code == 302
    assert User.objects.get().username == name


# A Cyrillic "а" (U+0430) among Latin letters, a Greek "Α" (U+0391).
@pytest.mark.parametrize("name", ["\u0430dmin", "p\u0430ul", "\u0391lice", "ann\u0430_b"])
def test_mixed_alphabet_look_alikes_are_refused(client: Client, name: str) -> None:
    response = signup(client, name)
    assert response.status_code == 200
    assert [e.code for e in response.context["form"].errors.as_data()["username"]] == ["confusable"]
    assert not User.objects.exists()


@pytest.mark.parametrize("name", ["José", "Андрей", "渡辺", "Ωμέγα"])
def test_single_alphabet_names_are_fine(client: Client, name: str) -> None:
    assert signup(client, name).status_code == 302


def test_errors_are_translated(client: Client) -> None:
    reserved = signup(client, "bot-6", HTTP_ACCEPT_LANGUAGE="pt-br")
    assert "parece um nome das contas do próprio site" in " ".join(
        reserved.context["form"].errors["username"]
    )
    mixed = signup(client, "\u0430dmin", HTTP_ACCEPT_LANGUAGE="pt-br")
    assert "mistura alfabetos" in " ".join(mixed.context["form"].errors["username"])
    spaces = signup(client, "ana", password=" " * 12, HTTP_ACCEPT_LANGUAGE="pt-br")
    assert "só espaços ou caracteres invisíveis" in " ".join(spaces.context["form"].errors["password2"])


def test_names_differing_only_in_case_are_one_name(client: Client) -> None:
    assert signup(client, "Alice").status_code == 302
    response = signup(Client(), "alice")
    assert response.status_code == 200 and "username" in response.context["form"].errors
    assert list(User.objects.values_list("username", flat=True)) == ["Alice"]


def test_the_database_refuses_a_case_variant_too() -> None:
    User.objects.create_user("Alice", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("ALICE", password=PASSWORD)
    with pytest.raises(UsernameTaken):  # the service reports the race as a taken name
        member_create(username="aLiCe", password=PASSWORD)
    assert User.objects.count() == 1


@pytest.mark.parametrize("password", [" " * 12, "\t" * 10, " \u00a0\u2003 \u200b\u3000   \n  "])
def test_passwords_of_only_whitespace_are_refused(client: Client, password: str) -> None:
    response = signup(client, "ana", password=password)
    assert response.status_code == 200
    codes = [e.code for e in response.context["form"].errors.as_data()["password2"]]
    assert "password_only_whitespace" in codes
    assert not User.objects.exists()


def test_a_password_with_spaces_inside_is_fine(client: Client) -> None:
    assert signup(client, "ana", password="  knock knock gin  ").status_code == 302
    assert User.objects.get().check_password("  knock knock gin  ")
