"""games.forms: the create forms read ``rated`` strictly (a trial's ``rated=maybe`` made a rated match)."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.forms import BotMatchForm, FriendTableForm, StrictBooleanField
from lobby.challenge_forms import MatchSettingsForm

YES = ["true", "TRUE", "on", "1", " True "]
NO = ["", "false", "off", "0", "False"]
REFUSED = ["maybe", "yes", "2", "tru", "-1", "1.0"]


@pytest.mark.parametrize("word", YES)
def test_its_own_words_for_yes(word: str) -> None:
    assert StrictBooleanField(required=False).clean(word) is True


@pytest.mark.parametrize("word", NO)
def test_its_own_words_for_no(word: str) -> None:
    assert StrictBooleanField(required=False).clean(word) is False


def test_absent_is_no() -> None:
    assert StrictBooleanField(required=False).clean(None) is False


@pytest.mark.parametrize("word", REFUSED)
def test_any_other_word_is_refused_on_the_bot_form(word: str) -> None:
    form = BotMatchForm({"level": "1", "rated": word, "preset": "classic", "target": "100"})
    assert not form.is_valid()
    assert form.errors["rated"] == [f"Select a valid choice. {word} is not one of the available choices."]


def test_the_refusal_is_translated_and_shows_no_control_character() -> None:
    with translation.override("pt-br"):
        form = FriendTableForm({"rated": "ma\x00ybe", "preset": "classic", "target": "100"})
        assert not form.is_valid()
        assert form.errors["rated"] == ["Faça uma escolha válida. maybe não é uma das escolhas disponíveis."]


def test_a_challenge_reads_rated_strictly_too() -> None:
    assert isinstance(MatchSettingsForm.base_fields["rated"], StrictBooleanField)


@pytest.mark.parametrize("text", ["٣٠", "３０", "3_0", " 30", "30 ", "+30", "30.0", "1" * 40])
def test_the_turn_timer_takes_ascii_digits_only(text: str) -> None:
    # int() reads all of these (but the last) as 30: a trial opened a table with turn_timer=٣٠
    form = FriendTableForm({"turn_timer": text, "preset": "classic", "target": "100"})
    assert not form.is_valid()
    assert form.errors["turn_timer"] == (
        ["This number is too large."] if text == "1" * 40
        else ["Enter a whole number written with the digits 0-9."])


def test_the_turn_timer_reads_plain_digits_and_keeps_its_bounds() -> None:
    def timer(text: str) -> object:
        form = FriendTableForm({"turn_timer": text, "preset": "classic", "target": "100"})
        return form.cleaned_data["turn_timer"] if form.is_valid() else form.errors["turn_timer"]

    assert timer("030") == 30
    assert timer("") is None
    assert timer("600") == 600
    assert timer("601") == ["Ensure this value is less than or equal to 600."]
    assert timer("14") == ["Ensure this value is greater than or equal to 15."]


def test_the_digits_refusal_is_translated() -> None:
    with translation.override("pt-br"):
        form = FriendTableForm({"turn_timer": "٣٠", "preset": "classic", "target": "100"})
        assert form.errors["turn_timer"] == ["Digite um número inteiro escrito com os algarismos 0-9."]
