"""The pages of events people make (tournaments/organise_views.py): bad input gets a clear form error in
English and pt-BR and changes nothing; who may create, edit, cancel and organise (creator, club
organiser: yes; a plain member, a stranger: 404)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from clubs.models import Club, ClubMember, ClubRole
from tournaments import organise, services
from tournaments.models import ForbiddenPairing, Registration, Tournament, TournamentNotice, TournamentStatus

pytestmark = pytest.mark.django_db


def client_of(user: User, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def post_data(**kw: Any) -> dict[str, Any]:
    start = timezone.now() + dt.timedelta(hours=3)
    return {"name": "Friday Cup", "description": "", "format": "swiss",
            "starts_at": start.strftime("%Y-%m-%dT%H:%M"), "rounds": "", "duration_minutes": "",
            "rules_preset": "classic", "match_target": "50", "turn_timer_seconds": "30", "rated": "on",
            "rating_min": "", "rating_max": "", "access": "public", "entry_code": "", "bots_allowed": "on",
            "min_players": "2", "max_players": "64", **kw}


@pytest.fixture
def club(members: list[User]) -> Club:
    club = Club.objects.create(name="Chess Corner", slug="chess-corner", invite_code="y" * 22,
                               created_by=members[0])
    ClubMember.objects.create(club=club, user=members[0], role=ClubRole.OWNER)
    ClubMember.objects.create(club=club, user=members[1], role=ClubRole.ORGANISER)
    ClubMember.objects.create(club=club, user=members[2], role=ClubRole.MEMBER)
    return club


def test_create_page_makes_an_event_and_lands_on_its_organise_page(members: list[User]) -> None:
    response = client_of(members[0]).post(reverse("tournaments:create"),
                                          post_data(access="code", entry_code="tea-time", rounds="4"))
    t = Tournament.objects.get(created_by=members[0])
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:organise", args=[t.pk])
    assert (t.name_en, t.fixed_rounds, t.entry_code, t.access) == ("Friday Cup", 4, "tea-time", "code")
    page = client_of(members[0]).get(reverse("tournaments:organise", args=[t.pk])).content.decode()
    assert 'data-testid="entry-code">tea-time<' in page
    # the address to share carries the code: without it the page is a 404 to anyone not yet in
    link = f"http://testserver/tournaments/{t.pk}/?code=tea-time"
    assert f'value="{link}" readonly data-testid="share-link"' in page
    assert 'href="http://testserver/tournaments/code/" data-testid="code-form-url"' in page


def test_the_organiser_gets_a_ready_link_with_the_code_and_a_copy_button(members: list[User]) -> None:
    """The code event's link (https://host/tournaments/<id>/?code=<code>, URL-encoded) on the organise
    page and, for its organisers only, on the event's page; it unlocks the event for a stranger."""
    t = _event(members[0], access="code", entry_code="tea&time")
    link = f"https://testserver/tournaments/{t.pk}/?code=tea%26time"
    client = Client(HTTP_ACCEPT_LANGUAGE="pt-br")
    client.force_login(members[0])
    page = client.get(reverse("tournaments:organise", args=[t.pk]), secure=True).content.decode()
    assert f'id="share-link" value="{link}" readonly data-testid="share-link">' in page
    assert ('data-copy="share-link" data-copied="Copiado" data-testid="share-copy">Copiar link</button>'
            in page)
    assert ('<a href="https://testserver/tournaments/code/" data-testid="code-form-url" class="break">'
            "https://testserver/tournaments/code/</a>") in page
    assert "Ou os jogadores digitam o código de entrada" in page
    assert "/static/tournaments/copy.js" in page and "<script>" not in page  # strict CSP: no inline script
    detail = client.get(reverse("tournaments:detail", args=[t.pk]), secure=True).content.decode()
    assert f'value="{link}"' in detail and 'data-testid="organiser-share"' in detail
    registered = client_of(members[3])
    registered.get(link)  # the organiser's link: the stranger may now see and join it
    assert 'data-testid="organiser-share"' not in registered.get(
        reverse("tournaments:detail", args=[t.pk])).content.decode()
    # a public event: the page's own address, no code
    public = _event(members[0])
    page = client_of(members[0]).get(reverse("tournaments:organise", args=[public.pk])).content.decode()
    assert f'value="http://testserver/tournaments/{public.pk}/" readonly' in page


def test_an_entry_code_of_another_coming_event_is_refused_in_both_languages(members: list[User]) -> None:
    """/tournaments/code/ must find one event per code: a code another event still to come or running has
    is refused on the form (nothing created or changed); a finished event's code may be used again."""
    first = _event(members[0], access="code", entry_code="tea-time")
    for language, text in (
        ("en", "Another upcoming or running event already has this entry code: choose another one, or "
               "leave it empty to get one."),
        ("pt-br", "Outro evento futuro ou em andamento já tem este código de entrada: escolha outro, ou "
                  "deixe vazio para receber um."),
    ):
        response = client_of(members[1], language).post(reverse("tournaments:create"),
                                                        post_data(access="code", entry_code="tea-time"))
        page = response.content.decode()
        block = page[page.index('data-field="entry_code"'):]
        assert text in block[:block.index("</div>")], language
    assert not Tournament.objects.filter(created_by=members[1]).exists()
    # an edit to another event's code is refused too, and leaves its code as it was
    second = _event(members[1], access="code", entry_code="coffee-time")
    data = post_data(access="code", entry_code="tea-time",
                     starts_at=second.starts_at.strftime("%Y-%m-%dT%H:%M"))
    response = client_of(members[1]).post(reverse("tournaments:edit", args=[second.pk]), data)
    assert response.status_code == 400 and "already has this entry code" in response.content.decode()
    assert Tournament.objects.get(pk=second.pk).entry_code == "coffee-time"
    # its own code, unchanged, is no clash; once the first is over its code is free again
    data["entry_code"] = "coffee-time"
    assert client_of(members[1]).post(reverse("tournaments:edit", args=[second.pk]), data).status_code == 302
    Tournament.objects.filter(pk=first.pk).update(status=TournamentStatus.FINISHED)
    response = client_of(members[1]).post(reverse("tournaments:create"),
                                          post_data(access="code", entry_code="tea-time"))
    assert response.status_code == 302
    assert Tournament.objects.filter(entry_code="tea-time").count() == 2


@pytest.mark.parametrize(("fields", "field", "english", "portuguese"), [
    ({"starts_at": "2020-01-01T10:00"}, "starts_at", "The start must be at least 5 minutes from now.",
     "O início deve ser daqui a pelo menos 5 minutos."),
    ({"rating_min": "1800", "rating_max": "1200"}, "rating_max",
     "The highest rating is below the lowest: the range is upside down.",
     "O rating máximo está abaixo do mínimo: a faixa está invertida."),
    ({"rounds": "10000"}, "rounds", "Rounds: 1 to 15, or empty for automatic (by the field&#x27;s size).",
     "Rodadas: de 1 a 15, ou vazio para automático (pelo tamanho do grupo)."),
    ({"name": "Cup\x00"}, "name", "Null characters are not allowed.", "Caracteres nulos não são permitidos."),
    # the user's trial: a 5,000-character name got Django's generic "at most 200 characters"
    ({"name": "x" * 5000}, "name", "The name must be 3 to 80 characters, without NUL characters.",
     "O nome deve ter de 3 a 80 caracteres, sem caracteres NUL."),
    ({"name": "ab"}, "name", "The name must be 3 to 80 characters, without NUL characters.",
     "O nome deve ter de 3 a 80 caracteres, sem caracteres NUL."),
])
def test_bad_input_gets_a_clear_error_in_both_languages_and_changes_nothing(
    members: list[User], fields: dict[str, str], field: str, english: str, portuguese: str
) -> None:
    for language, text in (("en", english), ("pt-br", portuguese)):
        response = client_of(members[0], language).post(reverse("tournaments:create"), post_data(**fields))
        assert response.status_code == 200
        page = response.content.decode()
        block = page[page.index(f'data-field="{field}"'):]
        assert text in block[:block.index("</div>")]
    assert not Tournament.objects.filter(created_by=members[0]).exists()


def test_club_choice_only_for_organisers_and_preselected(members: list[User], club: Club) -> None:
    # The club page's "Create an event" link, followed by the club's organiser: the club is chosen.
    club_page = client_of(members[1]).get(reverse("clubs:detail", args=[club.slug])).content.decode()
    create = reverse("tournaments:create") + "?club=chess-corner"
    assert f'href="{create}" data-testid="club-event-create"' in club_page
    page = client_of(members[1]).get(create).content.decode()
    assert 'name="club"' in page and '<option value="chess-corner" selected>' in page
    assert '<option value="club" selected>' in page  # who may join: the club's members
    # A plain member has no such link, and following it anyway gets no club choice and is told why.
    assert "club-event-create" not in client_of(members[2]).get(
        reverse("clubs:detail", args=[club.slug])).content.decode()
    response = client_of(members[2], "pt-br").get(create)
    page = response.content.decode()
    assert 'name="club"' not in page  # a plain member organises no club
    assert [str(m) for m in response.context["messages"]] == [
        "Só o dono e os organizadores do clube criam os eventos dele."]
    unknown = client_of(members[1]).get(reverse("tournaments:create") + "?club=nowhere")
    assert [str(m) for m in unknown.context["messages"]] == ["There is no club at the address “nowhere”."]
    # A tampered POST naming the club from a plain member is refused on the club field... which it
    # does not have: the event is the member's own.
    client_of(members[2]).post(reverse("tournaments:create"), post_data(club="chess-corner"))
    assert Tournament.objects.get(created_by=members[2]).club is None


def _event(user: User, **kw: Any) -> Tournament:
    now = timezone.now()
    return organise.event_create(user=user, now=now, event=organise.EventFields(
        name="Club Night", format="swiss", starts_at=now + dt.timedelta(hours=2), **kw))


def test_who_may_edit_cancel_and_organise(members: list[User], club: Club, django_user_model: Any) -> None:
    t = _event(members[1], club=club, access="club")
    staffless_stranger = members[4]
    for user, allowed in ((members[1], True), (members[0], True), (members[2], False),
                          (staffless_stranger, False)):
        client = client_of(user)
        for name in ("edit", "organise"):
            status = client.get(reverse(f"tournaments:{name}", args=[t.pk])).status_code
            assert status == (200 if allowed else 404), (user, name)
    for user in (members[2], staffless_stranger):
        response = client_of(user).post(reverse("tournaments:cancel", args=[t.pk]), {"confirm": "on"})
        assert response.status_code == 404
    assert Tournament.objects.get(pk=t.pk).status == TournamentStatus.SCHEDULED
    anonymous = Client().get(reverse("tournaments:edit", args=[t.pk]))
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]


def test_cancel_needs_the_box_then_notifies_the_players(members: list[User]) -> None:
    t = _event(members[0])
    services.tournament_join(tournament_id=t.pk, user=members[3])
    client = client_of(members[0])
    response = client.post(reverse("tournaments:cancel", args=[t.pk]), {"note": "Rain"})
    assert response.status_code == 400 and "Tick the box to confirm." in response.content.decode()
    assert Tournament.objects.get(pk=t.pk).status == TournamentStatus.SCHEDULED
    response = client.post(reverse("tournaments:cancel", args=[t.pk]), {"note": "Rain", "confirm": "on"})
    assert response.status_code == 302
    assert list(TournamentNotice.objects.values_list("user_id", "kind", "text")) == [
        (members[3].pk, "cancelled", "Rain")]
    page = client_of(members[3]).get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "Cancelled: Rain" in page


def test_edit_page_saves_and_refuses_bad_input(members: list[User]) -> None:
    t = _event(members[0])
    client = client_of(members[0])
    data = post_data(name="Club Night", rounds="3", starts_at=(t.starts_at).strftime("%Y-%m-%dT%H:%M"))
    assert client.post(reverse("tournaments:edit", args=[t.pk]), data).status_code == 302
    assert Tournament.objects.get(pk=t.pk).fixed_rounds == 3
    response = client.post(reverse("tournaments:edit", args=[t.pk]), {**data, "rounds": "10000"})
    assert response.status_code == 400 and "Rounds: 1 to 15" in response.content.decode()
    assert Tournament.objects.get(pk=t.pk).fixed_rounds == 3


def test_an_edit_after_the_start_is_refused_with_400_like_a_cancel(members: list[User]) -> None:
    t = _event(members[0])
    data = post_data(name="Renamed", starts_at=t.starts_at.strftime("%Y-%m-%dT%H:%M"))
    Tournament.objects.filter(pk=t.pk).update(status=TournamentStatus.RUNNING)
    for language, text in (("en", "This event has started or is over: it can no longer be changed."),
                           ("pt-br", "Este evento já começou ou terminou: não pode mais ser alterado.")):
        response = client_of(members[0], language).post(reverse("tournaments:edit", args=[t.pk]), data)
        assert response.status_code == 400 and text in response.content.decode()
    cancel = client_of(members[0]).post(reverse("tournaments:cancel", args=[t.pk]), {"confirm": "on"})
    assert cancel.status_code == 400
    assert Tournament.objects.get(pk=t.pk).name_en == "Club Night"


def test_organise_page_forbids_pairs_of_players_only_and_withdraws(members: list[User]) -> None:
    t = _event(members[0])
    for user in members[2:5]:
        services.tournament_join(tournament_id=t.pk, user=user)
    client = client_of(members[0], "pt-br")
    url = reverse("tournaments:organise", args=[t.pk])
    response = client.post(url, {"action": "forbid", "first": "member2", "second": "member5"})
    assert response.status_code == 400
    assert "“member5” não é jogador deste evento." in response.content.decode()
    assert not ForbiddenPairing.objects.exists()
    assert client.post(url, {"action": "forbid", "first": "member2", "second": "Member3"}).status_code == 302
    assert ForbiddenPairing.objects.filter(tournament=t).count() == 1
    assert client.post(url, {"action": "withdraw", "username": "member4"}).status_code == 302
    assert not Registration.objects.filter(tournament=t, user=members[4]).exists()
    assert client.post(url, {"action": "withdraw", "username": "nobody"}).status_code == 400


def test_list_links_create_for_members_only(members: list[User], guest: User) -> None:
    link = 'data-testid="create-event"'
    assert link in client_of(members[0]).get(reverse("tournaments:list")).content.decode()
    assert link not in Client().get(reverse("tournaments:list")).content.decode()
    assert link not in client_of(guest).get(reverse("tournaments:list")).content.decode()


def test_a_club_organiser_edits_a_club_event_on_its_page(members: list[User], club: Club) -> None:
    t = _event(members[1], club=club, access="club")
    data = post_data(name="Club Night", access="club", turn_timer_seconds="60",
                     starts_at=t.starts_at.strftime("%Y-%m-%dT%H:%M"))
    assert client_of(members[0]).post(reverse("tournaments:edit", args=[t.pk]), data).status_code == 302
    t.refresh_from_db()
    assert (t.turn_timer_seconds, t.club, t.access) == (60, club, "club")


def test_who_may_join_and_the_event_code_in_portuguese(members: list[User]) -> None:
    client = client_of(members[0], "pt-br")
    for page in (client.get(reverse("tournaments:create")).content.decode(),
                 client.get(reverse("tournaments:edit", args=[_event(members[0]).pk])).content.decode()):
        assert re.findall(r'<option value="(public|club|code)"[^>]*>([^<]+)</option>', page) == [
            ("public", "aberto a todos"), ("club", "só membros do clube"), ("code", "com código de entrada")]
    t = _event(members[0], access="code", entry_code="tea-time")
    status = client.get(reverse("tournaments:organise", args=[t.pk])).content.decode()
    assert "com código de entrada</p>" in status
    code = client.get(reverse("tournaments:code")).content.decode()
    assert '<label for="id_code">Código do evento:</label>' in code and "Event code" not in code
    english = client_of(members[0]).get(reverse("tournaments:code")).content.decode()
    assert '<label for="id_code">Event code:</label>' in english
