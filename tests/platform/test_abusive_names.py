"""Abusive words in usernames (docs/fairplay.md "Names"; accounts.abusive_words): refused at sign-up and
at a guest's conversion, after folding case, accents, leetspeak and separators; harmless names holding a
short listed word inside another word stay fine (the Scunthorpe problem)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.abusive_words import SUBSTRING, WHOLE, abusive_word, name_variants
from accounts.models import User

PASSWORD = "felt-green-42-knock"

REFUSED = [
    # (name, the word found)
    ("fuck", "fuck"), ("xXFuckerXx", "fuck"), ("f.u.c.k", "fuck"), ("FU_CK-you", "fuck"),
    ("f@ggot", "faggot"), ("b1tch", "bitch"), ("a55hole", "asshole"), ("n1gg3r", "nigger"),
    ("Hitler88", "hitler"), ("SHIT", "shit"), ("sh1t.head", "shit"), ("c0ck", "cock"), ("big_cunt", "cunt"),
    ("nazi", "nazi"), ("Nazis.forever", "nazis"),
    ("caralho", "caralho"), ("Buc3ta", "buceta"), ("cuzão", "cuzao"), ("CUZAO", "cuzao"), ("merda", "merda"),
    ("p.u.t.a", "puta"), ("pu7a_velha", "puta"), ("puta69", "puta"), ("SeuCu", "cu"), ("ana_cu", "cu"),
    ("viado", "viado"), ("VSF", "vsf"), ("filho-da-puta", "filhodaputa"), ("Filhodaputa", "filhodaputa"),
    ("ｆｕｃｋ", "fuck"),  # fullwidth letters: NFKC
    # the fresh-clone trial's misses: letter swaps, a Spanish compound, "vai tomar no cu", rape
    ("fvck", "fvck"), ("xphuckx", "phuck"), ("fck_you", "fck"), ("fuk_u", "fuk"), ("putamadre", "putamadre"),
    ("vtnc", "vtnc"), ("Raping", "raping"), ("rape.time", "rape"),
]

ALLOWED = [
    # A listed short word inside another word or name (matched as a whole word only):
    "Cunha", "JoseCunha", "cuidado", "Escudero", "computador", "disputa", "reputacao", "Hancock",
    "peacock", "Cockburn", "therapist", "Nazim", "Nazira", "Slutsky", "enviado", "Porras", "Foderaro",
    "computaria", "Shitake", "Scunthorpe", "Pornchai", "Boquete_Panama", "magna.cum.laude",
    # Ordinary names and words, digits included:
    "Maria1990", "ana_souza", "Niger", "Essex", "Dickens", "assassin", "Bassist", "analyst", "Arsenal",
    "pitbull", "Spica", "Rolando", "Cuca", "Pinto",
    # the added words inside harmless ones stay fine (whole words only): grape, draper, Fukuda
    "grapefruit", "Draper", "Fukuda", "Rapenburg",
]


@pytest.mark.parametrize(("name", "word"), REFUSED)
def test_abusive_word_found(name: str, word: str) -> None:
    assert abusive_word(name) == word


@pytest.mark.parametrize("name", ALLOWED)
def test_harmless_names_pass(name: str) -> None:
    assert abusive_word(name) is None


def test_reading_of_a_name() -> None:
    # Words split at separators, non-leet digits and lower-to-upper changes; accents gone; 1 read as i or l.
    assert name_variants("JoãoCu_nha1") == [["joao", "cu", "nhai"], ["joao", "cu", "nhai"],
                                            ["joao", "cu", "nhal"], ["joao", "cu", "nhal"]]
    assert name_variants("m@ria") == [["maria"], ["m", "ria"], ["maria"], ["m", "ria"]]


def test_the_list_is_normalised_and_the_two_kinds_do_not_overlap() -> None:
    for word in SUBSTRING | WHOLE:
        assert word.isascii() and word.isalpha() and word == word.lower()
    assert not SUBSTRING & WHOLE
    # Each substring word has at least five letters but "fuck" and its spelling "fvck" (short words are
    # whole-word only).
    assert sorted(w for w in SUBSTRING if len(w) < 5) == ["fuck", "fvck"]


def signup(client: Client, username: str):
    return client.post(reverse("accounts:signup"),
                       {"username": username, "password1": PASSWORD, "password2": PASSWORD})


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["fuck_you", "Pu7a", "sh1t", "caralho99"])
def test_signup_refuses_an_abusive_name(client: Client, name: str) -> None:
    response = signup(client, name)
    assert response.status_code == 200
    assert [e.code for e in response.context["form"].errors.as_data()["username"]] == ["abusive"]
    assert response.context["form"].errors["username"] == [
        f"“{name}” contains a word that is not allowed in names on this site: choose another."]
    assert not User.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Cunha", "Hancock", "therapist", "computador"])
def test_signup_accepts_names_with_a_short_word_inside(client: Client, name: str) -> None:
    assert signup(client, name).status_code == 302
    assert User.objects.get().username == name


@pytest.mark.django_db
def test_a_guest_converting_is_held_to_the_same_check(client: Client) -> None:
    client.post(reverse("accounts:guest"))
    guest = User.objects.get()
    response = signup(client, "viado")
    assert response.status_code == 200
    assert [e.code for e in response.context["form"].errors.as_data()["username"]] == ["abusive"]
    guest.refresh_from_db()
    assert guest.is_guest and guest.username.startswith("guest-")
    assert signup(client, "Cunha").status_code == 302
    guest.refresh_from_db()
    assert (guest.username, guest.is_guest) == ("Cunha", False)


@pytest.mark.django_db
def test_the_refusal_in_portuguese(client: Client) -> None:
    response = client.post(reverse("accounts:signup"),
                           {"username": "caralho", "password1": PASSWORD, "password2": PASSWORD},
                           HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert response.context["form"].errors["username"] == [
        "“caralho” contém uma palavra que não é permitida em nomes neste site: escolha outro."]
