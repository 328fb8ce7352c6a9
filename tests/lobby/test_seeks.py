"""Open challenges (docs/lobby.md "Open challenges"): create, accept, cancel, every refusal (with its
code, and nothing changed), the rating range, the expiry and leave sweep (run twice: the second changes
nothing), and the pages."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone, translation

from games import services as game_services
from games.models import Match, MatchStatus
from games.services import GameError
from lobby import challenge_sweep, seeks
from lobby.errors import MESSAGES, text
from lobby.models import Playban, PlaybanReason, Seek
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
RATED = Settings("classic", 50, 30, True)


def _code(call: Any) -> str:
    with pytest.raises(GameError) as info:
        call()
    assert info.value.code in MESSAGES
    return info.value.code


def _state() -> list[tuple[Any, ...]]:
    return list(Seek.objects.order_by("pk").values_list("pk", "status", "accepted_by", "match"))


def test_create_then_accept_starts_one_match_between_them(alice: Any, bob: Any) -> None:
    seek = seeks.seek_create(user=alice, choice=RATED)
    assert (seek.status, seek.turn_timer_seconds, seek.rated, seek.creator_rating) == ("open", 30, True, 1500)
    match = seeks.seek_accept(user=bob, seek_id=seek.pk)
    seek.refresh_from_db()
    assert (seek.status, seek.accepted_by_id, seek.match_id) == ("accepted", bob.pk, match.pk)
    assert (match.player0_id, match.player1_id, match.rated, match.turn_timer_seconds, match.status) == (
        alice.pk,
        bob.pk,
        True,
        30,
        MatchStatus.ACTIVE,
    )
    assert match.rules["target"] == 50
    assert Match.objects.count() == 1


def test_rated_seek_without_timer_gets_the_rated_timer(alice: Any) -> None:
    seek = seeks.seek_create(user=alice, choice=Settings("classic", 100, None, True))
    assert seek.turn_timer_seconds == game_services.RATED_TURN_TIMER == 60


@pytest.mark.parametrize(
    ("choice", "detail"),
    [
        (Settings("nope", 100, None, False), "preset"),
        (Settings("classic", 75, None, False), "target"),
        (Settings("classic", 100, 45, False), "timer"),
    ],
)
def test_bad_settings_are_refused(alice: Any, choice: Settings, detail: str) -> None:
    with pytest.raises(GameError) as info:
        seeks.seek_create(user=alice, choice=choice)
    assert info.value.code == "bad_settings" and detail in info.value.message
    assert _state() == []


def test_bad_rating_range_is_refused(alice: Any) -> None:
    assert (
        _code(lambda: seeks.seek_create(user=alice, choice=CASUAL, rating_min=1600, rating_max=1500))
        == "bad_settings"
    )
    assert _code(lambda: seeks.seek_create(user=alice, choice=CASUAL, rating_min=-1)) == "bad_settings"
    assert _state() == []


def test_rating_bounds_are_multiples_of_50_on_the_page_and_the_server(alice: Any) -> None:
    """One rule for a range's ends: multiples of ``RATING_STEP`` (50) in 0..4000. The inputs say
    ``step="50"``; the form refuses 1437 with a plain sentence (en, pt-BR) and a 400; the service refuses
    it with ``bad_settings``; 1450..1600 is accepted."""
    assert seeks.RATING_STEP == 50
    with pytest.raises(GameError) as info:
        seeks.seek_create(user=alice, choice=CASUAL, rating_min=1437)
    assert (info.value.code, info.value.message) == (
        "bad_settings", "invalid match settings: a rating bound must be a multiple of 50")
    assert _code(lambda: seeks.seek_create(user=alice, choice=CASUAL, rating_max=1612)) == "bad_settings"
    assert _state() == []
    client = _client(alice)
    page = client.get("/lobby/").content.decode()
    assert page.count('min="0" max="4000" step="50"') == 2
    data = {**GOOD, "rating_min": "1437", "rating_max": "1600"}
    response = client.post("/lobby/", data)
    assert response.status_code == 400
    assert "Use a multiple of 50, such as 1450 or 1500." in response.content.decode()
    client.cookies["django_language"] = "pt-br"
    assert "Use um múltiplo de 50, como 1450 ou 1500." in client.post("/lobby/", data).content.decode()
    assert _state() == []
    assert client.post("/lobby/", {**data, "rating_min": "1450"}).status_code == 302
    assert Seek.objects.values_list("rating_min", "rating_max").get() == (1450, 1600)


def test_one_open_seek_per_creator(alice: Any) -> None:
    seeks.seek_create(user=alice, choice=CASUAL)
    before = _state()
    assert _code(lambda: seeks.seek_create(user=alice, choice=RATED)) == "already_seeking"
    assert _state() == before


def test_guest_may_not_open_a_rated_seek_but_a_casual_one(guest: Any) -> None:
    assert _code(lambda: seeks.seek_create(user=guest, choice=RATED)) == "guest_rated"
    seek = seeks.seek_create(user=guest, choice=CASUAL)
    assert seek.status == "open"


def test_playban_refuses_creating(alice: Any) -> None:
    Playban.objects.create(
        user=alice, reason=PlaybanReason.ABANDONED, ends_at=timezone.now() + timedelta(minutes=4)
    )
    assert _code(lambda: seeks.seek_create(user=alice, choice=CASUAL)) == "playban"


def test_lobby_shows_the_readers_playban_as_play_does(alice: Any, bob: Any) -> None:
    """/lobby/ shows the reader's playban in force with its reason (the /play/ partial); others see none."""
    client = _client(alice)
    assert 'data-testid="playban"' not in client.get("/lobby/").content.decode()
    Playban.objects.create(
        user=alice, reason=PlaybanReason.TIMEOUTS, ends_at=timezone.now() + timedelta(minutes=4, seconds=30)
    )
    html = client.get("/lobby/").content.decode()
    assert 'data-testid="playban" data-reason="timeouts" data-minutes="5"' in html
    assert "you let the turn timer run out in a rated match: you can pair again in 5 minutes" in html
    client.cookies["django_language"] = "pt-br"
    assert ("você deixou o tempo da jogada acabar numa partida valendo rating: você poderá procurar"
            " adversário de novo em 5 minutos") in client.get("/lobby/").content.decode()
    assert 'data-testid="playban"' not in _client(bob).get("/lobby/").content.decode()
    assert 'data-testid="playban"' not in Client().get("/lobby/").content.decode()


def test_creator_in_a_rated_match_is_refused(alice: Any, bob: Any, carol: Any) -> None:
    match = game_services.match_create_seated(player0=alice, player1=carol, rated=True)
    with pytest.raises(GameError) as info:
        seeks.seek_create(user=alice, choice=CASUAL)
    assert info.value.code == "match_in_progress" and str(match.pk) in info.value.message


def test_accepting_your_own_is_refused(alice: Any) -> None:
    seek = seeks.seek_create(user=alice, choice=CASUAL)
    before = _state()
    assert _code(lambda: seeks.seek_accept(user=alice, seek_id=seek.pk)) == "seek_own"
    assert _state() == before and Match.objects.count() == 0


def test_taken_cancelled_expired_and_missing(alice: Any, bob: Any, carol: Any) -> None:
    seek = seeks.seek_create(user=alice, choice=CASUAL)
    seeks.seek_accept(user=bob, seek_id=seek.pk)
    assert _code(lambda: seeks.seek_accept(user=carol, seek_id=seek.pk)) == "seek_taken"
    assert Match.objects.count() == 1
    # alice's match is casual: she may open another one
    second = seeks.seek_create(user=alice, choice=CASUAL)
    assert seeks.seek_cancel(user=alice, seek_id=second.pk) is True
    assert seeks.seek_cancel(user=alice, seek_id=second.pk) is False  # idempotent
    assert _code(lambda: seeks.seek_accept(user=carol, seek_id=second.pk)) == "seek_gone"
    third = seeks.seek_create(user=alice, choice=CASUAL)
    later = third.expires_at + timedelta(seconds=1)
    assert _code(lambda: seeks.seek_accept(user=carol, seek_id=third.pk, now=later)) == "seek_expired"
    assert Seek.objects.get(pk=third.pk).status == "open"  # refused: nothing changed (the sweep ends it)
    assert _code(lambda: seeks.seek_accept(user=carol, seek_id=10**9)) == "seek_not_found"
    assert _code(lambda: seeks.seek_cancel(user=carol, seek_id=third.pk)) == "seek_not_yours"
    assert Match.objects.count() == 1


def test_the_acceptor_accepting_again_gets_the_same_match(alice: Any, bob: Any, carol: Any) -> None:
    """Two tabs of one acceptor: the second accept answers with the match the first started."""
    seek = seeks.seek_create(user=alice, choice=CASUAL)
    first = seeks.seek_accept(user=bob, seek_id=seek.pk)
    before = _state()
    again = seeks.seek_accept(user=bob, seek_id=seek.pk)
    assert again.pk == first.pk and (again.player0_id, again.player1_id) == (alice.pk, bob.pk)
    assert _state() == before and Match.objects.count() == 1
    assert _code(lambda: seeks.seek_accept(user=carol, seek_id=seek.pk)) == "seek_taken"


def test_rating_range(make_member: Any, alice: Any, guest: Any) -> None:
    low = make_member("low", 1290)
    edge = make_member("edge", 1300)
    high = make_member("high", 1710)
    seek = seeks.seek_create(user=alice, choice=CASUAL, rating_min=1300, rating_max=1700)
    with pytest.raises(GameError) as info:
        seeks.seek_accept(user=low, seek_id=seek.pk)
    assert info.value.code == "seek_out_of_range"
    assert info.value.message == "this challenge is for ratings 1300–1700: yours is 1290"
    assert _code(lambda: seeks.seek_accept(user=high, seek_id=seek.pk)) == "seek_out_of_range"
    assert _code(lambda: seeks.seek_accept(user=guest, seek_id=seek.pk)) == "seek_guest_range"
    assert Seek.objects.get(pk=seek.pk).status == "open"
    # the list shows it greyed, with why, to each of them
    rows = {u.username: seeks.seek_rows(viewer=u)[0] for u in (low, edge, high, alice)}
    assert rows["low"]["refusal"] == {
        "code": "seek_out_of_range",
        "message": "this challenge is for ratings 1300–1700: yours is 1290",
    }
    assert rows["high"]["refusal"]["code"] == "seek_out_of_range"
    assert rows["edge"]["refusal"] is None
    assert rows["alice"]["mine"] is True and rows["alice"]["refusal"] is None
    assert seeks.seek_rows(viewer=guest)[0]["refusal"]["code"] == "seek_guest_range"
    match = seeks.seek_accept(user=edge, seek_id=seek.pk)  # 1300 is inside 1300–1700
    assert match.player1_id == edge.pk


def test_rated_seek_refuses_a_guest_and_shows_why(alice: Any, guest: Any) -> None:
    seek = seeks.seek_create(user=alice, choice=RATED)
    assert seeks.seek_rows(viewer=guest)[0]["refusal"]["code"] == "guest_rated"
    assert _code(lambda: seeks.seek_accept(user=guest, seek_id=seek.pk)) == "guest_rated"


def test_accepting_withdraws_the_acceptors_own_seek(alice: Any, bob: Any) -> None:
    mine = seeks.seek_create(user=bob, choice=CASUAL)
    theirs = seeks.seek_create(user=alice, choice=CASUAL)
    seeks.seek_accept(user=bob, seek_id=theirs.pk)
    assert Seek.objects.get(pk=mine.pk).status == "cancelled"


def test_acceptor_in_a_rated_match_is_refused_and_keeps_their_seek(alice: Any, bob: Any, carol: Any) -> None:
    game_services.match_create_seated(player0=bob, player1=carol, rated=True)
    theirs = seeks.seek_create(user=alice, choice=RATED)
    assert _code(lambda: seeks.seek_accept(user=bob, seek_id=theirs.pk)) == "match_in_progress"
    assert Seek.objects.get(pk=theirs.pk).status == "open"


def test_creator_busy_with_a_rated_match_since(alice: Any, bob: Any, carol: Any) -> None:
    seek = seeks.seek_create(user=alice, choice=RATED)
    game_services.match_create_seated(player0=alice, player1=carol, rated=True)
    assert _code(lambda: seeks.seek_accept(user=bob, seek_id=seek.pk)) == "seek_creator_busy"
    assert Seek.objects.get(pk=seek.pk).status == "open"


def test_expiry_sweep_twice_changes_nothing_the_second_time(alice: Any, bob: Any, carol: Any) -> None:
    now = timezone.now()
    old = seeks.seek_create(user=alice, choice=CASUAL, now=now - timedelta(minutes=seeks.SEEK_MINUTES + 1))
    fresh = seeks.seek_create(user=bob, choice=CASUAL, now=now)
    for user in (alice, bob):
        challenge_sweep.seen(user.pk, at=now.timestamp())  # both on the lobby page
    assert challenge_sweep.sweep_once(now=now) == 1
    after_first = _state()
    assert dict((pk, status) for pk, status, *_ in after_first) == {old.pk: "expired", fresh.pk: "open"}
    assert challenge_sweep.sweep_once(now=now) == 0
    assert _state() == after_first
    assert [row["id"] for row in seeks.seek_rows(viewer=carol, now=now)] == [fresh.pk]


def test_leaving_the_lobby_ends_the_seek_after_the_leave_time(alice: Any, bob: Any, settings: Any) -> None:
    settings.LOBBY_SEEK_LEAVE_SECONDS = 5
    start = timezone.now()
    seek = seeks.seek_create(user=alice, choice=CASUAL, now=start)
    Seek.objects.filter(pk=seek.pk).update(created_at=start)
    challenge_sweep.seen(alice.pk, at=start.timestamp())
    # a page reload: 3 s without a socket is shorter than the leave time
    assert challenge_sweep.sweep_once(now=start + timedelta(seconds=3)) == 0
    challenge_sweep.seen(alice.pk, at=(start + timedelta(seconds=3)).timestamp())
    assert challenge_sweep.sweep_once(now=start + timedelta(seconds=7)) == 0
    # gone: last seen at +3 s, the sweep at +8.5 s
    assert challenge_sweep.sweep_once(now=start + timedelta(seconds=8.5)) == 1
    assert Seek.objects.get(pk=seek.pk).status == "cancelled"
    assert challenge_sweep.sweep_once(now=start + timedelta(seconds=9)) == 0


def test_a_creator_never_seen_leaves_after_the_leave_time(alice: Any) -> None:
    start = timezone.now()
    seek = seeks.seek_create(user=alice, choice=CASUAL, now=start)
    Seek.objects.filter(pk=seek.pk).update(created_at=start)
    assert challenge_sweep.sweep_once(now=start + timedelta(seconds=seeks.LEAVE_SECONDS - 1)) == 0
    assert challenge_sweep.sweep_once(now=start + timedelta(seconds=seeks.LEAVE_SECONDS + 1)) == 1


def test_beat_sweep_on_the_in_memory_layer_waits_for_daphne(alice: Any, settings: Any) -> None:
    """With the in-memory layer a worker's sends reach nobody: beat only ends what Daphne left
    ``WORKER_GRACE_SECONDS`` overdue, and never judges presence (its cache is not Daphne's)."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    now = timezone.now()
    seek = seeks.seek_create(user=alice, choice=CASUAL, now=now - timedelta(minutes=seeks.SEEK_MINUTES))
    assert challenge_sweep.beat_sweep(now=now + timedelta(seconds=10)) == 0
    assert challenge_sweep.beat_sweep(now=now + timedelta(seconds=31)) == 1
    assert Seek.objects.get(pk=seek.pk).status == "expired"


def test_refusal_messages_in_portuguese() -> None:
    from django.utils import translation

    with translation.override("pt-br"):
        assert text("seek_taken") != MESSAGES["seek_taken"]
        assert text("seek_out_of_range", range="1300–1700", rating=1290).endswith("1290")


# ------------------------------------------------------------------------------------------- pages


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_lobby_page_lists_seeks_and_greys_out_of_range(alice: Any, carol: Any) -> None:
    seeks.seek_create(user=alice, choice=CASUAL, rating_min=1450)
    html = _client(carol).get("/lobby/").content.decode()
    assert 'data-testid="seek"' in html and 'class="greyed"' in html
    assert "this challenge is for ratings 1450+: yours is 1400" in html
    anonymous = Client().get("/lobby/")
    assert anonymous.status_code == 200 and "data-ws=" not in anonymous.content.decode()


def test_create_accept_cancel_by_post(alice: Any, bob: Any, carol: Any) -> None:
    a = _client(alice)
    response = a.post(
        "/lobby/",
        {
            "preset": "classic",
            "target": "50",
            "turn_timer": "20",
            "rated": "1",
            "rating_min": "",
            "rating_max": "",
        },
    )
    assert response.status_code == 302
    seek = Seek.objects.get(creator=alice, status="open")
    assert (seek.target, seek.turn_timer_seconds, seek.rated, seek.preset) == (50, 20, True, "classic")
    again = a.post("/lobby/", {"preset": "classic", "target": "100", "turn_timer": ""})
    assert again.status_code == 400
    assert "you already have an open challenge: cancel that first" in again.content.decode()
    own = a.post(f"/lobby/{seek.pk}/accept/")
    assert own.status_code == 302 and own["Location"] == "/lobby/"
    accepted = _client(bob).post(f"/lobby/{seek.pk}/accept/")
    match = Match.objects.get()
    assert accepted.status_code == 302 and accepted["Location"] == f"/match/{match.pk}/"
    second_tab = _client(bob).post(f"/lobby/{seek.pk}/accept/")  # bob's other tab: to the same table
    assert second_tab.status_code == 302 and second_tab["Location"] == f"/match/{match.pk}/"
    late = _client(carol).post(f"/lobby/{seek.pk}/accept/", follow=True)
    assert '<p class="message error">someone else accepted this challenge first</p>' in late.content.decode()
    assert Match.objects.count() == 1


def test_accept_refusals_and_lost_races_show_the_sentence_as_a_message(
    alice: Any, bob: Any, carol: Any, make_member: Any
) -> None:
    """POST /lobby/<id>/accept/ refused (own, taken: a lost race, withdrawn, expired, missing, anonymous)
    goes back to /lobby/ with the reason as a message on the page: the sentence, no code."""
    seek = seeks.seek_create(user=alice, choice=CASUAL)

    def said(client: Client, seek_id: int) -> str:
        response = client.post(f"/lobby/{seek_id}/accept/", follow=True)
        assert response.redirect_chain == [("/lobby/", 302)]
        html = response.content.decode()
        found = re.findall(r'<p class="message error">([^<]*)</p>', html)
        assert len(found) == 1 and "(" not in found[0], found
        return found[0]

    assert said(_client(alice), seek.pk) == "this is your own challenge: wait for someone to accept it"
    seeks.seek_accept(user=bob, seek_id=seek.pk)
    assert said(_client(carol), seek.pk) == "someone else accepted this challenge first"
    assert said(_client(carol), 999999) == "no such open challenge"
    assert said(Client(), seek.pk) == "log in or play as a guest first"
    dave = make_member("dave", 1500)
    gone = seeks.seek_create(user=dave, choice=CASUAL)
    seeks.seek_cancel(user=dave, seek_id=gone.pk)
    assert said(_client(carol), gone.pk) == "this challenge was withdrawn"
    erin = make_member("erin", 1500)
    old = seeks.seek_create(user=erin, choice=CASUAL, now=timezone.now() - timedelta(hours=1))
    portuguese = _client(carol)
    portuguese.cookies["django_language"] = "pt-br"
    with translation.override("pt-br"):
        expected = text("seek_expired")
    assert expected != "this challenge has expired" and said(portuguese, old.pk) == expected
    assert Match.objects.count() == 1


def test_create_form_refuses_bad_fields(alice: Any) -> None:
    response = _client(alice).post("/lobby/", {"preset": "classic", "target": "100", "turn_timer": "45"})
    assert response.status_code == 400 and Seek.objects.count() == 0


GOOD = {"preset": "classic", "target": "100", "turn_timer": "60"}


@pytest.mark.parametrize(
    ("data", "field", "english", "portuguese"),
    [
        ({**GOOD, "target": "75"}, "target", "Select a valid choice. 75 is not one of the available choices.",
         "Faça uma escolha válida. 75 não é uma das escolhas disponíveis."),
        ({**GOOD, "preset": "poker"}, "preset",
         "Select a valid choice. poker is not one of the available choices.",
         "Faça uma escolha válida. poker não é uma das escolhas disponíveis."),
        ({**GOOD, "turn_timer": "7"}, "turn_timer",
         "Select a valid choice. 7 is not one of the available choices.",
         "Faça uma escolha válida. 7 não é uma das escolhas disponíveis."),
        ({}, "preset", "This field is required.", "Este campo é obrigatório."),
    ],
)
def test_create_form_shows_each_field_error(
    alice: Any, data: dict[str, str], field: str, english: str, portuguese: str
) -> None:
    """A bad choice comes back with a 400 and its field's error on the page (English and pt-BR);
    nothing is created."""
    client = _client(alice)
    response = client.post("/lobby/", data)
    html = response.content.decode()
    assert response.status_code == 400 and english in html
    assert html.count('class="errorlist"') == (2 if not data else 1)  # none sent: preset and target
    client.cookies["django_language"] = "pt-br"
    assert portuguese in client.post("/lobby/", data).content.decode()
    assert Seek.objects.count() == 0


def test_waiting_in_a_pool_refuses_creating_and_accepting(alice: Any, bob: Any) -> None:
    from lobby.models import Pool, PoolEntry
    from tests.lobby.home_pools import ensure_default_pools

    ensure_default_pools()  # a transactional test's flush empties the data migration's pools
    pool = Pool.objects.order_by("pk").first()
    assert pool is not None
    seek = seeks.seek_create(user=alice, choice=CASUAL)
    PoolEntry.objects.create(pool=pool, user=bob, rating=1600)
    assert _code(lambda: seeks.seek_create(user=bob, choice=CASUAL)) == "already_waiting"
    assert _code(lambda: seeks.seek_accept(user=bob, seek_id=seek.pk)) == "already_waiting"
    assert Seek.objects.get(pk=seek.pk).status == "open" and Match.objects.count() == 0


def test_every_code_of_this_part_is_documented_and_translated() -> None:
    """Each refusal code of the open and direct challenges appears in docs/protocol.md, and its message
    has a pt-BR translation."""
    from pathlib import Path

    from django.utils import translation

    root = Path(__file__).resolve().parents[2]
    protocol = (root / "docs" / "protocol.md").read_text()
    source = (root / "platform" / "lobby" / "errors.py").read_text()
    block = source.split("# open challenges (the lobby's seeks", 1)[1].split("}\n", 1)[0]
    block = block.split("\n    # leaving", 1)[0]  # the leaving part's codes come after
    codes = [line.split('"')[1] for line in block.splitlines() if line.strip().startswith('"')]
    assert len(codes) == 24
    with translation.override("pt-br"):
        for code in codes:
            assert f"`{code}`" in protocol, code
            assert translation.gettext(MESSAGES[code]) != MESSAGES[code], code
