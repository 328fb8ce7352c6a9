"""Direct challenges (docs/lobby.md "Direct challenges"): create, accept, decline, withdraw, every
refusal (its code, nothing changed), expiry by the server's sweep (run twice: the second changes
nothing), the "let others challenge me" switch and the profile's Challenge form."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone, translation

from accounts.services import house_bots_ensure
from games import services as game_services
from games.models import Match
from games.services import GameError
from lobby import challenge_sweep, challenges, seeks
from lobby.errors import MESSAGES, text
from lobby.models import Challenge, LobbyPreference, Seek
from lobby.seeks import Settings
from tests.lobby import challenge_fixtures as fx

# this part's fixtures (tests/lobby/challenge_fixtures.py), bound here for pytest to find
(alice, bob, carol, guest, lobby_clean, make_member) = (
    fx.alice,
    fx.bob,
    fx.carol,
    fx.guest,
    fx.lobby_clean,
    fx.make_member,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("lobby_clean")]

CASUAL = Settings("classic", 100, None, False)
RATED = Settings("brazilian", 50, 20, True)


def _code(call: Any) -> str:
    with pytest.raises(GameError) as info:
        call()
    assert info.value.code in MESSAGES
    return info.value.code


def _state() -> list[tuple[Any, ...]]:
    return list(Challenge.objects.order_by("pk").values_list("pk", "status", "match"))


def test_challenge_then_accept_starts_the_match(alice: Any, bob: Any) -> None:
    challenge = challenges.challenge_create(challenger=alice, challenged=bob, choice=RATED)
    assert (challenge.status, challenge.preset, challenge.target, challenge.turn_timer_seconds) == (
        "open",
        "brazilian",
        50,
        20,
    )
    assert 59 <= (challenge.expires_at - challenge.created_at).total_seconds() <= 61
    match = challenges.challenge_accept(user=bob, challenge_id=challenge.pk)
    assert (match.player0_id, match.player1_id, match.rated, match.preset) == (
        alice.pk,
        bob.pk,
        True,
        "brazilian",
    )
    challenge.refresh_from_db()
    assert (challenge.status, challenge.match_id) == ("accepted", match.pk)
    # a second accept (another tab) returns the same match: exactly one
    assert challenges.challenge_accept(user=bob, challenge_id=challenge.pk).pk == match.pk
    assert Match.objects.count() == 1


def test_refusals_of_creating(alice: Any, bob: Any, carol: Any, guest: Any) -> None:
    bots = house_bots_ensure()
    assert (
        _code(lambda: challenges.challenge_create(challenger=alice, challenged=alice, choice=CASUAL))
        == "challenge_self"
    )
    assert (
        _code(lambda: challenges.challenge_create(challenger=alice, challenged=guest, choice=CASUAL))
        == "challenge_guest"
    )
    assert (
        _code(lambda: challenges.challenge_create(challenger=alice, challenged=bots[0], choice=CASUAL))
        == "challenge_bot"
    )
    LobbyPreference.objects.create(user=carol, accepts_challenges=False)
    assert (
        _code(lambda: challenges.challenge_create(challenger=alice, challenged=carol, choice=CASUAL))
        == "challenge_blocked"
    )
    assert (
        _code(lambda: challenges.challenge_create(challenger=guest, challenged=bob, choice=RATED))
        == "guest_rated"
    )
    assert (
        _code(
            lambda: challenges.challenge_create(
                challenger=alice, challenged=bob, choice=Settings("classic", 100, 7, False)
            )
        )
        == "bad_settings"
    )
    assert _state() == []


def test_target_in_a_match_is_refused(alice: Any, bob: Any, carol: Any, make_member: Any) -> None:
    bots = house_bots_ensure()
    game_services.match_create_seated(player0=bob, player1=carol, rated=False)  # casual, between people
    assert (
        _code(lambda: challenges.challenge_create(challenger=alice, challenged=bob, choice=CASUAL))
        == "challenge_target_busy"
    )
    dave = make_member("dave", 1500)
    game_services.match_create_seated(player0=dave, player1=bots[1], rated=True)  # rated, against a bot
    assert (
        _code(lambda: challenges.challenge_create(challenger=alice, challenged=dave, choice=CASUAL))
        == "challenge_target_busy"
    )
    erin = make_member("erin", 1500)
    game_services.match_create_seated(player0=erin, player1=bots[1], rated=False)  # casual vs a bot: free
    challenges.challenge_create(challenger=alice, challenged=erin, choice=CASUAL)


def test_busy_challenger_is_refused(alice: Any, bob: Any, carol: Any) -> None:
    seeks.seek_create(user=alice, choice=CASUAL)
    assert (
        _code(lambda: challenges.challenge_create(challenger=alice, challenged=bob, choice=CASUAL))
        == "already_seeking"
    )
    game_services.match_create_seated(player0=carol, player1=bob, rated=True)
    assert (
        _code(lambda: challenges.challenge_create(challenger=carol, challenged=alice, choice=CASUAL))
        == "match_in_progress"
    )


def test_one_open_challenge_per_pair_and_a_limit_per_account(
    alice: Any, make_member: Any, settings: Any
) -> None:
    settings.LOBBY_CHALLENGES_PER_ACCOUNT = 2
    others = [make_member(f"m{i}", 1500) for i in range(3)]
    challenges.challenge_create(challenger=alice, challenged=others[0], choice=CASUAL)
    assert (
        _code(lambda: challenges.challenge_create(challenger=alice, challenged=others[0], choice=CASUAL))
        == "challenge_pending"
    )
    challenges.challenge_create(challenger=alice, challenged=others[1], choice=CASUAL)
    before = _state()
    with pytest.raises(GameError) as info:
        challenges.challenge_create(challenger=alice, challenged=others[2], choice=CASUAL)
    assert (
        info.value.code == "challenge_limit"
        and info.value.message == "you have 2 challenges waiting for an answer already"
    )
    assert _state() == before


def test_refusals_of_answering(alice: Any, bob: Any, carol: Any) -> None:
    challenge = challenges.challenge_create(challenger=alice, challenged=bob, choice=CASUAL)
    assert (
        _code(lambda: challenges.challenge_accept(user=carol, challenge_id=challenge.pk))
        == "challenge_not_found"
    )
    assert (
        _code(lambda: challenges.challenge_accept(user=alice, challenge_id=challenge.pk))
        == "challenge_not_found"
    )  # the challenger cannot accept their own
    assert (
        _code(lambda: challenges.challenge_decline(user=carol, challenge_id=challenge.pk))
        == "challenge_not_found"
    )
    late = challenge.expires_at + timedelta(seconds=1)
    assert (
        _code(lambda: challenges.challenge_accept(user=bob, challenge_id=challenge.pk, now=late))
        == "challenge_expired"
    )
    assert challenges.challenge_decline(user=bob, challenge_id=challenge.pk) is True
    assert challenges.challenge_decline(user=bob, challenge_id=challenge.pk) is False
    assert (
        _code(lambda: challenges.challenge_accept(user=bob, challenge_id=challenge.pk))
        == "challenge_answered"
    )
    withdrawn = challenges.challenge_create(challenger=alice, challenged=bob, choice=CASUAL)
    assert (
        challenges.challenge_decline(user=alice, challenge_id=withdrawn.pk) is True
    )  # the challenger withdraws
    assert Challenge.objects.get(pk=withdrawn.pk).status == "cancelled"
    assert (
        _code(lambda: challenges.challenge_accept(user=bob, challenge_id=withdrawn.pk))
        == "challenge_withdrawn"
    )
    assert Match.objects.count() == 0


def test_challenger_busy_since_is_refused(alice: Any, bob: Any, carol: Any) -> None:
    challenge = challenges.challenge_create(challenger=alice, challenged=bob, choice=RATED)
    game_services.match_create_seated(player0=alice, player1=carol, rated=True)
    assert (
        _code(lambda: challenges.challenge_accept(user=bob, challenge_id=challenge.pk)) == "challenger_busy"
    )
    assert Challenge.objects.get(pk=challenge.pk).status == "open"


def test_accepting_withdraws_the_acceptors_seek(alice: Any, bob: Any) -> None:
    seek = seeks.seek_create(user=bob, choice=CASUAL)
    challenge = challenges.challenge_create(challenger=alice, challenged=bob, choice=CASUAL)
    challenges.challenge_accept(user=bob, challenge_id=challenge.pk)
    assert Seek.objects.get(pk=seek.pk).status == "cancelled"


def test_expiry_sweep_twice_changes_nothing_the_second_time(alice: Any, bob: Any, carol: Any) -> None:
    now = timezone.now()
    old = challenges.challenge_create(
        challenger=alice, challenged=bob, choice=CASUAL, now=now - timedelta(seconds=61)
    )
    fresh = challenges.challenge_create(challenger=alice, challenged=carol, choice=CASUAL, now=now)
    assert challenge_sweep.sweep_once(now=now) == 1
    first = _state()
    assert {pk: status for pk, status, _ in first} == {old.pk: "expired", fresh.pk: "open"}
    assert challenge_sweep.sweep_once(now=now) == 0
    assert _state() == first
    # an expired pair may be challenged again
    challenges.challenge_create(challenger=alice, challenged=bob, choice=CASUAL, now=now)


def test_open_for_lists_received_and_sent(alice: Any, bob: Any, carol: Any) -> None:
    before = timezone.now()
    challenges.challenge_create(challenger=alice, challenged=bob, choice=CASUAL)
    challenges.challenge_create(challenger=carol, challenged=alice, choice=CASUAL)
    mine = challenges.open_for(user=alice)
    after = timezone.now()
    assert [c["challenger"] for c in mine["received"]] == ["carol"]
    assert [c["challenged"] for c in mine["sent"]] == ["bob"]
    # 60 s from its creation, counted down from the server's clock: bounded by the clock read before
    # and after (a busy machine may take seconds between the two; a fixed 58..60 once failed)
    sent = mine["sent"][0]
    expires = datetime.fromisoformat(sent["expires_at"])
    assert before + timedelta(seconds=60) <= expires <= after + timedelta(seconds=60)
    left = sent["seconds_left"]
    assert int((expires - after).total_seconds()) <= left <= int((expires - before).total_seconds())


# ------------------------------------------------------------------------------------------- pages


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_profile_shows_the_challenge_form_and_it_sends(alice: Any, bob: Any) -> None:
    html = _client(alice).get("/u/bob/").content.decode()
    assert 'data-testid="challenge-form"' in html and 'action="/challenges/to/bob/"' in html
    assert 'data-testid="challenge-box"' not in Client().get("/u/bob/").content.decode()  # anonymous
    response = _client(alice).post(
        "/challenges/to/bob/",
        {"preset": "classic", "target": "100", "turn_timer": "60", "rated": "1"},
        follow=True,
    )
    assert "Challenge sent to bob" in response.content.decode()
    challenge = Challenge.objects.get()
    assert (
        challenge.challenger_id,
        challenge.challenged_id,
        challenge.rated,
        challenge.turn_timer_seconds,
    ) == (alice.pk, bob.pk, True, 60)
    again = _client(alice).post("/challenges/to/bob/", {"preset": "classic", "target": "100"}, follow=True)
    page = again.content.decode()
    assert '<p class="message error">you have already challenged bob: wait for the answer</p>' in page
    assert "(challenge_pending)" not in page and Challenge.objects.count() == 1
    assert _client(alice).post("/challenges/to/nobody/", {}).status_code == 404


def _timer_options(html: str) -> tuple[list[str], list[str]]:
    """The profile's challenge form's turn timers: (every option's value, the selected ones)."""
    select = re.search(r'<select id="challenge-timer".*?</select>', html, re.S)
    assert select is not None
    options = re.findall(r'<option value="([^"]*)"( selected)?>', select.group(0))
    return [v for v, _ in options], [v for v, sel in options if sel]


def test_the_challenge_form_offers_a_bot_account_only_its_timers(alice: Any, bob: Any) -> None:
    """Against a BOT account (or from one) the form offers only the timers its match allows
    (``challenges.bot_settings``: one always, at most ``BOT_TURN_TIMER_MAX`` 120 s), 30 s chosen."""
    assert _timer_options(_client(alice).get("/u/bob/").content.decode()) == (
        ["", "20", "30", "60", "120", "300"], ["60"])
    type(bob).objects.filter(pk=bob.pk).update(bot_account=True)
    bob.refresh_from_db()
    bot_timers = (["20", "30", "60", "120"], ["30"])
    assert _timer_options(_client(alice).get("/u/bob/").content.decode()) == bot_timers
    assert _timer_options(_client(bob).get("/u/alice/").content.decode()) == bot_timers
    # a timer it refuses, sent anyway: said, nothing made
    for timer in ("", "300"):
        refused = _client(alice).post("/challenges/to/bob/", {"preset": "classic", "target": "100",
                                                              "turn_timer": timer}, follow=True)
        assert "Invalid match settings" in refused.content.decode() and not Challenge.objects.exists()
    sent = _client(alice).post("/challenges/to/bob/",
                               {"preset": "classic", "target": "100", "turn_timer": "30"}, follow=True)
    assert "Challenge sent to bob" in sent.content.decode()
    assert Challenge.objects.get().turn_timer_seconds == 30


def test_answer_by_post(alice: Any, bob: Any, carol: Any, make_member: Any) -> None:
    challenge = challenges.challenge_create(challenger=alice, challenged=bob, choice=CASUAL)
    response = _client(bob).post(f"/challenges/{challenge.pk}/accept/")
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/match/{match.pk}/"
    dave = make_member("dave", 1500)
    other = challenges.challenge_create(challenger=carol, challenged=dave, choice=CASUAL)
    assert _client(dave).post(f"/challenges/{other.pk}/decline/").status_code == 302
    assert Challenge.objects.get(pk=other.pk).status == "declined"
    late = _client(dave).post(f"/challenges/{other.pk}/decline/", follow=True)  # answered already: says so
    assert '<p class="message error">this challenge was answered already</p>' in late.content.decode()
    assert Challenge.objects.get(pk=other.pk).status == "declined"


def test_preference_switch_on_own_profile(alice: Any, bob: Any) -> None:
    html = _client(alice).get("/u/alice/").content.decode()
    assert 'value="1" checked data-testid="accepts-challenges"' in html
    _client(alice).post("/challenges/preference/", {})
    assert LobbyPreference.objects.get(user=alice).accepts_challenges is False
    assert challenges.accepts_challenges(alice) is False
    refused = _client(bob).post("/challenges/to/alice/", {"preset": "classic", "target": "100"}, follow=True)
    assert '<p class="message error">alice does not accept challenges</p>' in refused.content.decode()
    _client(alice).post("/challenges/preference/", {"accepts_challenges": "1"})
    assert challenges.accepts_challenges(alice) is True


def test_every_page_carries_the_notices_box_for_members_and_guests(alice: Any, guest: Any) -> None:
    for client in (_client(alice), _client(guest)):
        html = client.get("/rules/").content.decode()
        assert 'id="notices"' in html and "lobby/notices.js" in html
    assert 'id="notices"' not in Client().get("/rules/").content.decode()


def test_a_guest_sees_no_rated_box_and_a_rated_request_is_refused(guest: Any, bob: Any) -> None:
    """A guest's profile Challenge form has no Rated box (a note says why); a rated request from a guest
    anyway is refused with ``guest_rated``'s sentence, and nothing is sent (no silent casual)."""
    client = _client(guest)
    html = client.get("/u/bob/").content.decode()
    assert 'data-testid="challenge-form"' in html and 'name="rated"' not in html
    assert 'data-testid="challenge-guest-casual"' in html
    assert 'name="rated"' in _client(bob).get("/lobby/").content.decode()  # a member has it
    refused = client.post(
        "/challenges/to/bob/",
        {"preset": "classic", "target": "100", "turn_timer": "60", "rated": "1"},
        follow=True,
    )
    assert "guests play casual games only: sign up to play rated" in refused.content.decode()
    assert Challenge.objects.count() == 0
    casual = client.post("/challenges/to/bob/", {"preset": "classic", "target": "100", "turn_timer": "60"})
    assert casual.status_code == 302
    assert Challenge.objects.get().rated is False
    lobby_html = client.get("/lobby/").content.decode()
    assert 'name="rated"' not in lobby_html and 'data-testid="seek-guest-casual"' in lobby_html


def test_no_challenge_form_for_someone_who_switched_challenges_off(alice: Any, bob: Any) -> None:
    """bob switched off "let others challenge me": his profile shows alice a disabled Challenge button
    with the reason (en, pt-BR) and no form; switched on again, the form is back."""
    challenges.set_accepts_challenges(user=bob, accepts=False)
    client = _client(alice)
    html = client.get("/u/bob/").content.decode()
    assert 'data-testid="challenge-form"' not in html and 'data-testid="challenge-blocked"' in html
    assert re.search(r'<button type="button" class="button" disabled[^>]*>Challenge</button>', html)
    why = '<span class="muted small" id="challenge-blocked-why">bob does not accept challenges</span>'
    assert why in html
    client.cookies["django_language"] = "pt-br"
    with translation.override("pt-br"):
        portuguese = text("challenge_blocked", name="bob")
    assert portuguese != "bob does not accept challenges"
    assert portuguese in client.get("/u/bob/").content.decode()
    challenges.set_accepts_challenges(user=bob, accepts=True)
    html = _client(alice).get("/u/bob/").content.decode()
    assert 'data-testid="challenge-form"' in html and 'data-testid="challenge-blocked"' not in html
