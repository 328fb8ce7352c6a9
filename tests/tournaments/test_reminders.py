"""Reminders and notices (tournaments/notices.py): "remind me" toggled, the beat sending each reminder once
(twice in a row and concurrently), round notices once per person per round, the notices bar, dismiss."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from accounts.models import User
from tests.factories import TournamentFactory
from tests.racing import concurrently
from tournaments import notices, organise, services, tasks
from tournaments.models import NoticeKind, Reminder, Tournament, TournamentNotice, TournamentStatus

pytestmark = pytest.mark.django_db(transaction=True)

NOW = dt.datetime(2026, 12, 7, 18, 0, tzinfo=dt.UTC)


@pytest.fixture
def pushed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """The live messages the notices module hands to push.send (recorded, not sent)."""
    sent: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(notices, "send_on_commit", lambda messages: sent.extend(messages))
    return sent


def event(minutes: float, **fields: Any) -> Tournament:
    return TournamentFactory(**{"starts_at": NOW + dt.timedelta(minutes=minutes), **fields})


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_remind_me_toggles_and_refuses_guests_and_started_events(members: list[User], guest: User) -> None:
    cup = TournamentFactory()
    client = logged_in(members[0])
    on = client.post(f"/tournaments/{cup.pk}/remind/", HTTP_ACCEPT="application/json")
    assert on.json() == {"reminded": True, "text": "We will remind you a few minutes before the start.",
                         "label": "Reminder set"}
    assert list(Reminder.objects.values_list("user_id", "tournament_id")) == [(members[0].pk, cup.pk)]
    off = client.post(f"/tournaments/{cup.pk}/remind/", HTTP_ACCEPT="application/json")
    assert off.json()["reminded"] is False and Reminder.objects.count() == 0
    # without the script: a redirect back with the sentence
    page = client.post(f"/tournaments/{cup.pk}/remind/", {"next": "/tournaments/"}, follow=True)
    assert page.redirect_chain[-1][0] == "/tournaments/"
    assert [str(m) for m in page.context["messages"]] == [
        "We will remind you a few minutes before the start."]
    assert Reminder.objects.count() == 1
    as_guest = logged_in(guest).post(f"/tournaments/{cup.pk}/remind/", HTTP_ACCEPT="application/json")
    assert (as_guest.status_code, as_guest.json()["error"]) == (403, "not_member")
    visitor = Client().post(f"/tournaments/{cup.pk}/remind/", HTTP_ACCEPT="application/json")
    assert (visitor.status_code, visitor.json()["error"]) == (403, "not_member")
    running = TournamentFactory(status=TournamentStatus.RUNNING)
    late = client.post(f"/tournaments/{running.pk}/remind/", HTTP_ACCEPT="application/json")
    assert (late.status_code, late.json()["error"]) == (409, "started")
    assert client.post("/tournaments/999999/remind/").status_code == 404
    assert client.get(f"/tournaments/{cup.pk}/remind/").status_code == 405
    assert Reminder.objects.count() == 1  # nothing of the refused ones changed anything


def test_remind_me_is_rate_limited(members: list[User], settings: Any) -> None:
    settings.TOURNAMENTS_REMIND_RATE = "3/h"
    cup = TournamentFactory()
    client = logged_in(members[0])
    codes = [client.post(f"/tournaments/{cup.pk}/remind/", HTTP_ACCEPT="application/json").status_code
             for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert Reminder.objects.count() == 1  # on, off, on: the 4th changed nothing


def test_private_event_reminder_is_404_to_outsiders(members: list[User]) -> None:
    secret = TournamentFactory(access="code", entry_code="sesame", created_by=members[1])
    assert logged_in(members[0]).post(f"/tournaments/{secret.pk}/remind/").status_code == 404
    assert logged_in(members[1]).post(f"/tournaments/{secret.pk}/remind/",
                                      HTTP_ACCEPT="application/json").json()["reminded"] is True


def test_reminders_sent_once_five_minutes_before(members: list[User], pushed: list[Any]) -> None:
    soon, later, gone = event(4), event(6), event(3, status=TournamentStatus.CANCELLED)
    for user in members[:2]:
        Reminder.objects.create(user=user, tournament=soon)
    Reminder.objects.create(user=members[0], tournament=later)
    Reminder.objects.create(user=members[2], tournament=gone)
    assert notices.reminders_send(now=NOW) == 2
    assert sorted(TournamentNotice.objects.values_list("user_id", "tournament_id", "kind", "round")) == [
        (members[0].pk, soon.pk, NoticeKind.STARTING, 0), (members[1].pk, soon.pk, NoticeKind.STARTING, 0)]
    assert sorted(g for g, _ in pushed) == [f"notices_{members[0].pk}", f"notices_{members[1].pk}"]
    ids = set(TournamentNotice.objects.values_list("pk", flat=True))
    assert {m["payload"]["id"] for _, m in pushed} == ids
    assert all(m == {"type": "notice.push",
                     "payload": {"type": "tournament_notice", "id": m["payload"]["id"]}} for _, m in pushed)
    # the cancelled event's reminder is closed without a notice; the later one waits
    closed = set(Reminder.objects.filter(sent_at=NOW).values_list("tournament_id", flat=True))
    assert closed == {soon.pk, gone.pk}
    assert Reminder.objects.get(tournament=later).sent_at is None
    # the beat fires again: nothing twice
    assert notices.reminders_send(now=NOW + dt.timedelta(seconds=30)) == 0
    assert TournamentNotice.objects.count() == 2 and len(pushed) == 2
    # two minutes later the later event's turn comes
    assert notices.reminders_send(now=NOW + dt.timedelta(minutes=2)) == 1
    assert TournamentNotice.objects.filter(tournament=later, user=members[0]).count() == 1


def test_concurrent_beats_send_each_reminder_once(members: list[User], pushed: list[Any]) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL")
    cups = [event(2), event(3)]
    for cup in cups:
        for user in members:
            Reminder.objects.create(user=user, tournament=cup)
    results = concurrently([lambda: notices.reminders_send(now=NOW)] * 4)
    assert all(isinstance(r, int) for r in results), results
    assert sum(results) == 12
    assert TournamentNotice.objects.count() == 12 and len(pushed) == 12
    assert Reminder.objects.filter(sent_at__isnull=True).count() == 0


def test_the_beat_task_sends_with_the_clock(members: list[User], pushed: list[Any]) -> None:
    cup = TournamentFactory(starts_at=dt.datetime.now(dt.UTC) + dt.timedelta(minutes=4))
    Reminder.objects.create(user=members[0], tournament=cup)
    assert tasks.remind() == 1
    assert tasks.remind() == 0


def test_round_notices_once_per_person_and_round(members: list[User], pushed: list[Any]) -> None:
    bot = User.objects.create(username="bot-x", is_bot=True, bot_level=3)
    cup = TournamentFactory(status=TournamentStatus.RUNNING, current_round=2)
    notices.round_notices(cup.pk, [members[0].pk, bot.pk, members[1].pk])
    assert sorted(TournamentNotice.objects.values_list("user_id", "kind", "round")) == [
        (members[0].pk, NoticeKind.ROUND, 2), (members[1].pk, NoticeKind.ROUND, 2)]
    assert len(pushed) == 2
    notices.round_notices(cup.pk, [members[0].pk, members[1].pk])  # a retried pairing step
    assert TournamentNotice.objects.count() == 2 and len(pushed) == 2


def test_notices_bar_json_and_dismiss(members: list[User]) -> None:
    cup = TournamentFactory(name_en="Evening Cup", name_pt="Copa da Noite", status=TournamentStatus.RUNNING,
                            current_round=3)
    mine = TournamentNotice.objects.create(user=members[0], tournament=cup, kind=NoticeKind.ROUND, round=3)
    theirs = TournamentNotice.objects.create(user=members[1], tournament=cup, kind=NoticeKind.STARTING)
    client = logged_in(members[0])
    html = client.get("/rankings/").content.decode()
    assert "Round 3 of “Evening Cup” is paired: your match is ready." in html
    assert f'action="/tournaments/notices/{mine.pk}/dismiss/"' in html
    assert client.get("/tournaments/notices.json").json() == {"notices": [{
        "id": mine.pk, "text": "Round 3 of “Evening Cup” is paired: your match is ready.",
        "url": f"/tournaments/{cup.pk}/", "dismiss": f"/tournaments/notices/{mine.pk}/dismiss/"}]}
    pt = client.get("/tournaments/notices.json", HTTP_ACCEPT_LANGUAGE="pt-br").json()["notices"][0]["text"]
    assert pt == "A rodada 3 de “Copa da Noite” foi emparelhada: sua partida está pronta."
    # someone else's notice: nothing changes
    assert client.post(f"/tournaments/notices/{theirs.pk}/dismiss/",
                       HTTP_ACCEPT="application/json").json() == {"dismissed": False}
    done = client.post(f"/tournaments/notices/{mine.pk}/dismiss/", {"next": "/rankings/"})
    assert done.status_code == 302 and done["Location"] == "/rankings/"
    assert TournamentNotice.objects.get(pk=mine.pk).seen_at is not None
    assert TournamentNotice.objects.get(pk=theirs.pk).seen_at is None
    assert client.get("/tournaments/notices.json").json() == {"notices": []}
    evil = client.post(f"/tournaments/notices/{theirs.pk}/dismiss/", {"next": "//evil.example/"})
    assert evil["Location"] == "/tournaments/"
    assert Client().get("/tournaments/notices.json").json() == {"notices": []}


def test_stale_round_and_starting_notices_leave_the_bar(members: list[User]) -> None:
    """A round notice is stale once a newer round notice of the same member and event exists or the
    event stopped running; a starting notice once the event started; cancelled and edited notices stay.
    One query whatever is left out."""
    me, other = members[0], members[1]
    cup = TournamentFactory(name_en="Evening Cup", status=TournamentStatus.RUNNING, current_round=3)
    soon = TournamentFactory(name_en="Night Cup", status=TournamentStatus.OPEN)
    old_round = TournamentNotice.objects.create(user=me, tournament=cup, kind=NoticeKind.ROUND, round=2)
    new_round = TournamentNotice.objects.create(user=me, tournament=cup, kind=NoticeKind.ROUND, round=3)
    theirs = TournamentNotice.objects.create(user=other, tournament=cup, kind=NoticeKind.ROUND, round=2)
    starting = TournamentNotice.objects.create(user=me, tournament=soon, kind=NoticeKind.STARTING)
    edited = TournamentNotice.objects.create(user=me, tournament=soon, kind=NoticeKind.EDITED, round=1,
                                             text="starts_at")

    def unseen(user: User) -> list[int]:
        return sorted(n.pk for n in notices.unseen_of(user))

    # round 2 is superseded by round 3 for me only; another member's newer round changes nothing of mine
    assert unseen(me) == sorted([new_round.pk, starting.pk, edited.pk])
    assert unseen(other) == [theirs.pk]
    Tournament.objects.filter(pk=soon.pk).update(status=TournamentStatus.RUNNING)  # it started
    assert unseen(me) == sorted([new_round.pk, edited.pk])
    Tournament.objects.filter(pk=cup.pk).update(status=TournamentStatus.FINISHED)  # its matches are over
    Tournament.objects.filter(pk=soon.pk).update(status=TournamentStatus.CANCELLED)
    cancelled = TournamentNotice.objects.create(user=me, tournament=soon, kind=NoticeKind.CANCELLED)
    assert unseen(me) == sorted([edited.pk, cancelled.pk])
    assert unseen(other) == []
    assert old_round.seen_at is None  # left out, never marked: nothing is written by reading
    with CaptureQueriesContext(connection) as queries:
        assert len(list(notices.unseen_of(me))) == 2
    assert len(queries) == 1
    html = logged_in(me).get("/rankings/").content.decode()
    assert "your match is ready" not in html and "“Night Cup” was cancelled." in html


def test_edited_and_cancelled_notices_read_in_words_in_both_languages(members: list[User]) -> None:
    """An organiser's edit of the start and the rounds reaches the registered player's bar as words, not
    column names; a cancellation shows the organiser's note; both in English and pt-BR."""
    now = dt.datetime.now(dt.UTC)
    organiser, player = members[0], members[1]
    cup = organise.event_create(user=organiser, now=now, event=organise.EventFields(
        name="Friday Cup", format="swiss", starts_at=now + dt.timedelta(hours=2)))
    services.tournament_join(tournament_id=cup.pk, user=player)
    organise.event_edit(user=organiser, tournament_id=cup.pk, now=now, event=replace(
        organise.event_fields_of(cup), starts_at=now + dt.timedelta(hours=3), rounds=4))
    assert TournamentNotice.objects.get(user=player, kind=NoticeKind.EDITED).text == "starts_at,fixed_rounds"
    client = logged_in(player)
    edited_en = "“Friday Cup” was changed by its organiser: start time, rounds."
    assert edited_en in client.get("/rankings/").content.decode()
    assert [n["text"] for n in client.get("/tournaments/notices.json").json()["notices"]] == [edited_en]
    pt = client.get("/tournaments/notices.json", HTTP_ACCEPT_LANGUAGE="pt-br").json()["notices"]
    assert [n["text"] for n in pt] == [
        "“Friday Cup” foi alterado pelo organizador: horário de início, rodadas."]
    organise.event_cancel(user=organiser, tournament_id=cup.pk, note="The room is flooded", now=now)
    cancelled_en = "“Friday Cup” was cancelled. The organiser says: The room is flooded"
    assert client.get("/tournaments/notices.json").json()["notices"][0]["text"] == cancelled_en
    assert cancelled_en in client.get("/rankings/").content.decode()
    pt = client.get("/tournaments/notices.json", HTTP_ACCEPT_LANGUAGE="pt-br").json()["notices"][0]["text"]
    assert pt == "“Friday Cup” foi cancelado. O organizador diz: The room is flooded"
    # without a note, and an edit whose text names nothing known: the plain sentences
    with translation.override("en"):  # the test client's last request left pt-BR active in this thread
        bare = TournamentNotice(tournament=cup, kind=NoticeKind.CANCELLED, text="")
        assert notices.notice_text(bare) == "“Friday Cup” was cancelled."
        odd = TournamentNotice(tournament=cup, kind=NoticeKind.EDITED, text="name_en")
        assert notices.notice_text(odd) == "“Friday Cup” was changed by its organiser."
        words = notices.edited_words("rated,access,bots_allowed")
        assert words == "rated or casual, who may join, house bots"


def test_pairing_a_swiss_round_gives_each_person_a_round_notice(members: list[User], pushed: list[Any],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.tournaments.test_rounds import started
    from tournaments import services

    monkeypatch.setattr(services, "step_enqueue", lambda name, *args: None)
    cup = started(members[0], bots=3, rounds=2)
    assert services.round_pair(tournament_id=cup.pk, number=1)
    assert services.round_pair(tournament_id=cup.pk, number=1) is False  # fired twice
    assert list(TournamentNotice.objects.values_list("user_id", "tournament_id", "kind", "round")) == [
        (members[0].pk, cup.pk, NoticeKind.ROUND, 1)]  # the three house bots get none
    assert pushed == [(f"notices_{members[0].pk}", {"type": "notice.push", "payload": {
        "type": "tournament_notice", "id": TournamentNotice.objects.get().pk}})]
