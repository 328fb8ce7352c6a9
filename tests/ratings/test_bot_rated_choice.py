"""Bot matches rated or casual (issue 22 item 1; docs/ratings.md "Bot matches: rated or casual"): the
site's bot form is casual unless the member picks Rated; a casual bot match never moves a rating (no
rating change row, the rating unchanged), a rated one does; a guest's match is casual whatever was
posted; the table's state payload and strings say which it is, in English and pt-BR.

Rating tasks run eagerly here (tests/ratings/conftest.py), so a rated result is rated at once.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import aborts
from games import services as games_services
from games.models import Match, MatchStatus, ResultReason
from games.selectors import match_state_payload
from ratings import services as ratings_services
from ratings.models import PlayerRating, RatingChange
from ratings.selectors import rating_get
from tests.ratings.conftest import first_moves

pytestmark = pytest.mark.django_db(transaction=True)

# Alice (1500, no rated match: K = 40) loses to the level-5 bot (fixed 1671):
# E = 1 / (1 + 10 ** ((1671 - 1500) / 400)) = 0.272028; R' = 1500 + 40 * (0 - 0.272028) = 1489.1189.
AFTER_LOSS_TO_5 = 1489.1188605417678


def _client(user: Any, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def _start(client: Client, **extra: str) -> Match:
    """POST the bot form (level 5, classic, 100) plus ``extra``; the match it created."""
    data = {"level": "5", "preset": "classic", "target": "100", "submission": str(uuid.uuid4()), **extra}
    response = client.post(reverse("games:new_bot_match"), data)
    assert response.status_code == 302, response.content.decode()[:500]
    match = Match.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))
    return match


def _resign_after_moves(match: Match, user: Any) -> Match:
    first_moves(match.pk, {0: user})
    games_services.match_resign(match_id=match.pk, user=user, msg_id=f"r-{match.pk}")
    return Match.objects.get(pk=match.pk)


def test_the_bot_form_is_casual_by_default(alice: Any, house_bots: list[Any]) -> None:
    page = _client(alice).get(reverse("games:new_bot_match")).content.decode()
    assert 'name="rated" value="false" data-testid="bot-casual" checked' in page
    assert 'name="rated" value="true" data-testid="bot-rated">' in page  # offered, not ticked
    match = _start(_client(alice))  # no "rated" in the POST: casual
    assert (match.rated, match.turn_timer_seconds) == (False, None)
    assert _start(_client(alice), rated="false").rated is False


def test_a_members_casual_bot_match_resigned_changes_no_rating(alice: Any, house_bots: list[Any]) -> None:
    client = _client(alice)
    assert rating_get(user=alice).rating == 1500.0 and not PlayerRating.objects.filter(user=alice).exists()
    casual = _resign_after_moves(_start(client), alice)
    assert (casual.status, casual.result_reason, casual.winner, casual.rated) == (
        MatchStatus.FINISHED, ResultReason.RESIGN, 1, False)
    # Nothing rated: no change row, no rating row, 1500 before and after; the rating service skips it.
    assert not RatingChange.objects.exists() and not PlayerRating.objects.filter(user=alice).exists()
    assert rating_get(user=alice).rating == 1500.0
    assert ratings_services.match_rate(match_id=casual.pk) == []
    # A rated loss, then a casual one: the rating is the rated loss's, unchanged by the casual match.
    rated = _resign_after_moves(_start(client, rated="true"), alice)
    assert rated.rated and rating_get(user=alice).rating == pytest.approx(AFTER_LOSS_TO_5, abs=1e-9)
    _resign_after_moves(_start(client), alice)
    info = rating_get(user=alice)
    assert info.rating == pytest.approx(AFTER_LOSS_TO_5, abs=1e-9) and info.rated_matches == 1
    assert list(RatingChange.objects.values_list("match_id", flat=True)) == [rated.pk]


def test_an_early_resignation_of_a_casual_match_costs_no_rating_and_no_free_abort(
    alice: Any, house_bots: list[Any]
) -> None:
    match = _start(_client(alice))
    games_services.match_resign(match_id=match.pk, user=alice, msg_id="early")
    match.refresh_from_db()
    # An ordinary resignation (casual matches have no aborts to spend), rated by nobody.
    assert (match.status, match.result_reason, match.winner) == (MatchStatus.FINISHED, ResultReason.RESIGN, 1)
    assert aborts.abort_counts(user_id=alice.pk).recent == 0
    assert not RatingChange.objects.exists() and rating_get(user=alice).rating == 1500.0


def test_a_rated_bot_match_from_the_form_still_changes_the_rating(alice: Any, house_bots: list[Any]) -> None:
    match = _start(_client(alice), rated="true")
    assert (match.rated, match.turn_timer_seconds) == (True, games_services.RATED_TURN_TIMER)
    _resign_after_moves(match, alice)
    [change] = RatingChange.objects.filter(match=match)
    assert (change.player_id, change.before, change.k, change.won) == (alice.pk, 1500.0, 40, False)
    assert change.after == pytest.approx(AFTER_LOSS_TO_5, abs=1e-9)
    row = PlayerRating.objects.get(user=alice)
    assert (row.rating, row.rated_matches, row.losses) == (pytest.approx(AFTER_LOSS_TO_5, abs=1e-9), 1, 1)


@pytest.mark.parametrize("posted", ["on", "true", "1"])
def test_a_guest_posting_rated_gets_a_casual_match(guest: Any, house_bots: list[Any], posted: str) -> None:
    """The documented choice: a guest's "rated" is ignored (the match is casual), not refused; the form
    shows the Rated choice disabled, with the reason."""
    client = _client(guest)
    page = client.get(reverse("games:new_bot_match")).content.decode()
    assert 'name="rated" value="true" data-testid="bot-rated" disabled' in page
    assert "Casual: a guest's match never changes a rating." in page
    match = _start(client, rated=posted)
    assert (match.player0_id, match.rated, match.turn_timer_seconds) == (guest.pk, False, None)


def test_the_state_and_the_table_say_rated_or_casual(alice: Any, house_bots: list[Any]) -> None:
    client = _client(alice)
    casual = _resign_after_moves(_start(client), alice)
    rated = _start(client, rated="true")
    assert match_state_payload(match=casual, seat=0)["match"]["rated"] is False
    assert match_state_payload(match=rated, seat=0)["match"]["rated"] is True
    en = client.get(reverse("games:table", args=[casual.pk])).content.decode()
    assert '<span data-key="end_casual">Casual match: no rating changed.</span>' in en
    assert '<span data-key="end_rated">Rated match.</span>' in en
    assert '<span data-key="kind_casual">Casual</span>' in en and 'data-testid="leave-note"' in en
    pt = _client(alice, "pt-br").get(reverse("games:table", args=[rated.pk])).content.decode()
    assert '<span data-key="kind_rated">Valendo rating</span>' in pt
    assert '<span data-key="end_casual">Partida casual: nenhum rating mudou.</span>' in pt
    assert ('<span data-key="leave_rated">Partida valendo rating: se você sair da mesa, o seu tempo '
            "continua correndo e joga por você; depois de {n} jogadas automáticas seguidas você perde a "
            "partida por tempo, uma derrota valendo rating.</span>") in pt
    # Play again keeps the setting: the hidden field the table's script fills from the state.
    assert '<input type="hidden" name="rated" value="false">' in en
