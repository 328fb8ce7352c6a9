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
