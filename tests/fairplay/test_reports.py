"""Reporting a player (docs/fairplay.md "Reports"): from a profile, a finished match's table and its
replay; a repeat stores nothing new; the per-account and per-IP day limits; every refusal with its own
status and no row."""

from __future__ import annotations

import re
import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from accounts.models import User
from fairplay import reporting
from fairplay.models import Report, ReportPlace, ReportStatus
from games import services
from games.models import MatchStatus
from tests.factories import BotMatchFactory, FriendMatchFactory, GuestFactory, TableFactory, UserFactory

pytestmark = pytest.mark.django_db


def finished_match(host: User, friend: User):
    """A friend match between ``host`` and ``friend``, resigned by ``friend``: finished, ``host`` won."""
    match = FriendMatchFactory(host=host, friend=friend, rated=False)
    services.match_resign(match_id=match.pk, user=friend)
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    return match


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post_player(client: Client, username: str, reason: str = "collusion", comment: str = "", **extra):
    return client.post(reverse("fairplay:report_player", args=[username]),
                       {"reason": reason, "comment": comment}, **extra)


def test_report_from_the_profile_is_received_and_stored() -> None:
    ana, bob = UserFactory(username="ana"), UserFactory(username="bob")
    client = signed_in(ana)
    page = client.get(reverse("ratings:profile", args=["bob"]))
    assert page.status_code == 200
    link = re.search(r'href="([^"]+)" data-testid="report-link"', page.content.decode())
    assert link is not None and link.group(1) == "/report/player/bob/"
    assert client.get(link.group(1)).status_code == 200

    response = post_player(client, "bob", reason="assistance", comment="  Every discard was level 5's.  ")
    assert response.status_code == 303
    assert response["Location"] == "/report/received/"
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.reason, report.place, report.match) == (
        ana, bob, "assistance", ReportPlace.PROFILE, None)
    assert report.comment == "Every discard was level 5's."
    assert report.status == ReportStatus.OPEN
    received = client.get(response["Location"])
    assert received.status_code == 200
    text = received.content.decode()
    assert "Report received" in text
    assert "open" not in re.sub(r"<[^>]+>", "", text).lower().split("report received")[1]


def test_own_profile_and_a_bot_profile_have_no_report_link() -> None:
    ana = UserFactory(username="ana")
    BotMatchFactory(user=ana)  # makes the house bots
    client = signed_in(ana)
    assert 'data-testid="report-link"' not in client.get("/u/ana/").content.decode()
    assert 'data-testid="report-link"' not in client.get("/u/bot-3/").content.decode()
    UserFactory(username="bob")
    assert 'data-testid="report-link"' not in Client().get("/u/bob/").content.decode()  # anonymous


def test_report_from_the_table_after_the_match() -> None:
    ana, bob = UserFactory(username="ana"), UserFactory(username="bob")
    match = FriendMatchFactory(host=ana, friend=bob, rated=False)
    client = signed_in(ana)
    page = client.get(reverse("games:table", args=[match.pk])).content.decode()
    # In the end-of-match buttons, hidden until table.js sees the match finished.
    assert (f'<a class="btn" id="report-link" data-testid="report-link" href="/report/match/{match.pk}/'
            f'?from=table" rel="nofollow" hidden>Report a player</a>') in page
    url = f"/report/match/{match.pk}/?from=table"
    refused = client.post(url, {"reported": bob.pk, "reason": "collusion", "place": "table"})
    assert refused.status_code == 409
    assert 'data-code="not_finished"' in refused.content.decode()
    assert not Report.objects.exists()

    services.match_resign(match_id=match.pk, user=bob)
    form = client.get(url)
    assert form.status_code == 200
    assert form.context["form"]["reported"].initial == str(bob.pk)
    assert form.context["form"]["place"].initial == "table"
    response = client.post(url, {"reported": bob.pk, "reason": "sandbagging", "place": "table"})
    assert response.status_code == 303
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.reason, report.place, report.match_id) == (
        ana, bob, "sandbagging", "table", match.pk)


def test_report_from_a_replay_by_a_player_and_by_a_spectator_of_a_public_match() -> None:
    ana, bob, cy = UserFactory(username="ana"), UserFactory(username="bob"), UserFactory(username="cy")
    match = finished_match(ana, bob)
    page = signed_in(bob).get(reverse("replays:replay", args=[match.pk])).content.decode()
    assert f'href="/report/match/{match.pk}/?from=replay"' in page
    assert signed_in(bob).post(f"/report/match/{match.pk}/", {
        "reported": ana.pk, "reason": "other", "comment": "rude chat", "place": "replay"}).status_code == 303

    # A private casual match: a stranger is told it does not exist, with or without a wrong token.
    assert signed_in(cy).get(f"/report/match/{match.pk}/?from=replay").status_code == 404
    assert signed_in(cy).get(f"/report/match/{match.pk}/?token=nope").status_code == 404
    # Its link's token opens it (replays' rule): a spectator chooses between the two players.
    from replays.services import replay_access_ensure
    token = replay_access_ensure(match=match).token
    viewer = signed_in(cy)
    page = viewer.get(f"/replay/{match.pk}/?token={token}").content.decode()
    assert f'href="/report/match/{match.pk}/?from=replay&amp;token={token}"' in page
    form = viewer.get(f"/report/match/{match.pk}/?from=replay&token={token}")
    assert [c[0] for c in form.context["form"].fields["reported"].choices] == [str(ana.pk), str(bob.pk)]
    assert viewer.post(f"/report/match/{match.pk}/", {
        "reported": bob.pk, "reason": "collusion", "place": "replay", "token": token}).status_code == 303
    # A spectator who says "from the table" (a forged field: cy never sat there) is stored as from the
    # replay: the admin must not suggest the reporter played that match (trial).
    assert viewer.post(f"/report/match/{match.pk}/", {
        "reported": ana.pk, "reason": "other", "place": "table", "token": token}).status_code == 303
    rows = sorted(Report.objects.values_list("reporter__username", "reported__username", "reason", "place",
                                             "match_id", "comment"))
    assert rows == [("bob", "ana", "other", "replay", match.pk, "rude chat"),
                    ("cy", "ana", "other", "replay", match.pk, ""),
                    ("cy", "bob", "collusion", "replay", match.pk, "")]


def test_a_repeat_of_an_open_report_is_received_and_stores_nothing() -> None:
    ana = UserFactory(username="ana")
    UserFactory(username="bob")
    client = signed_in(ana)
    first = post_player(client, "bob", comment="first")
    again = post_player(client, "bob", comment="second")
    assert (first.status_code, again.status_code) == (303, 303)
    assert first["Location"] == again["Location"] == "/report/received/"
    assert list(Report.objects.values_list("comment", flat=True)) == ["first"]
    # Another reason is another report; once the first is handled, the same reason may be reported again.
    assert post_player(client, "bob", reason="assistance").status_code == 303
    Report.objects.filter(comment="first").update(status=ReportStatus.DISMISSED)
    assert post_player(client, "bob", comment="third").status_code == 303
    assert sorted(Report.objects.values_list("reason", "status", "comment")) == [
        ("assistance", "open", ""), ("collusion", "dismissed", "first"), ("collusion", "open", "third")]


@pytest.mark.django_db(transaction=True)
def test_two_identical_reports_at_once_store_one() -> None:
    """Both writers pass the "already open?" read before either inserts (a barrier after the read): the
    partial unique constraint lets one insert, the other gets the open report back, created False."""
    ana, bob = UserFactory(username="ana"), UserFactory(username="bob")
    barrier = threading.Barrier(2)
    original_first = reporting.Report.objects.filter(reporter=ana).__class__.first
    results: list[bool] = []
    waited: set[str] = set()

    def first(self):  # each thread's first "already open?" read: both see none, then meet
        found = original_first(self)
        name = threading.current_thread().name
        if name.startswith("reporter") and name not in waited:
            waited.add(name)
            barrier.wait(timeout=10)
        return found

    def run() -> None:
        try:
            _, created = reporting.report_make(reporter=ana, reported=bob, reason="collusion", comment="",
                                               place="profile")
            results.append(created)
        finally:
            connection.close()

    qs_class = reporting.Report.objects.filter(reporter=ana).__class__
    qs_class.first = first
    try:
        threads = [threading.Thread(target=run, name=f"reporter-{i}") for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
    finally:
        qs_class.first = original_first
    assert sorted(results) == [False, True]
    assert Report.objects.count() == 1


def test_the_account_limit_is_ten_reports_a_day() -> None:
    ana = UserFactory(username="ana")
    targets = [UserFactory(username=f"target{i}") for i in range(2)]
    client = signed_in(ana)
    reasons = ["assistance", "collusion", "sandbagging", "name", "other"]
    for target in targets:
        for reason in reasons:
            assert post_player(client, target.username, reason=reason).status_code == 303
    assert Report.objects.count() == 10
    over = post_player(client, "target0", reason="other", comment="eleventh")
    assert over.status_code == 429
    assert "Too many reports were sent from your account or your network today." in over.content.decode()
    assert 0 < int(over["Retry-After"]) <= 24 * 3600
    assert Report.objects.count() == 10
    # Another member on another network is not held back.
    other = signed_in(UserFactory(username="cy"))
    assert post_player(other, "target0", REMOTE_ADDR="198.51.100.9").status_code == 303


def test_the_network_limit_is_thirty_reports_a_day() -> None:
    targets = [UserFactory(username=f"target{i}") for i in range(2)]
    reasons = ["assistance", "collusion", "sandbagging", "name", "other"]
    for n in range(3):
        client = signed_in(UserFactory(username=f"reporter{n}"))
        for target in targets:
            for reason in reasons:
                assert post_player(client, target.username, reason=reason,
                                   REMOTE_ADDR="203.0.113.5").status_code == 303
    assert Report.objects.count() == 30
    fourth = signed_in(UserFactory(username="reporter3"))
    assert post_player(fourth, "target0", REMOTE_ADDR="203.0.113.5").status_code == 429
    assert post_player(fourth, "target0", REMOTE_ADDR="203.0.113.6").status_code == 303
    assert Report.objects.count() == 31


@pytest.mark.parametrize(("reason", "comment", "field", "code"), [
    ("cheating", "", "reason", "invalid_choice"),
    ("", "", "reason", "required"),
    ("collusion", "x" * 1001, "comment", "max_length"),
    ("collusion", "he said \x00", "comment", "null_characters_not_allowed"),
    ("collusion", "bell \x07 ring", "comment", "control_characters"),
    ("collusion", "esc \x1b[31m red", "comment", "control_characters"),
])
def test_bad_fields_are_refused_with_their_error_and_no_row(reason, comment, field, code) -> None:
    UserFactory(username="bob")
    response = post_player(signed_in(UserFactory(username="ana")), "bob", reason=reason, comment=comment)
    assert response.status_code == 400
    errors = response.context["form"].errors.as_data()
    assert list(errors) == [field]
    assert [e.code for e in errors[field]] == [code]
    assert not Report.objects.exists()


def test_control_character_message_names_the_character() -> None:
    UserFactory(username="bob")
    response = post_player(signed_in(UserFactory(username="ana")), "bob", comment="a\x07b")
    assert response.context["form"].errors["comment"] == [
        "The comment contains control characters (such as U+0007): write plain text."]
    # A right-to-left override would turn the rest of the line around in the admin (trial): refused
    # like one; an emoji's zero-width joiner is text.
    flipped = post_player(signed_in(UserFactory(username="cy")), "bob", comment="ok \u202edrowssap")
    assert flipped.context["form"].errors["comment"] == [
        "The comment contains control characters (such as U+202E): write plain text."]
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert post_player(signed_in(UserFactory(username="di")), "bob", comment=family).status_code == 303
    assert list(Report.objects.values_list("comment", flat=True)) == [family]


def test_a_comment_of_1000_characters_with_line_breaks_and_tabs_is_fine() -> None:
    UserFactory(username="bob")
    comment = ("line\tone\r\n" * 100)[:1000]
    assert post_player(signed_in(UserFactory(username="ana")), "bob", comment=comment).status_code == 303
    assert len(Report.objects.get().comment) == 1000 - 2  # the trailing "\r\n" is stripped


def test_refusals_who_and_whom() -> None:
    ana = UserFactory(username="ana")
    BotMatchFactory(user=ana)
    client = signed_in(ana)
    itself = post_player(client, "ana")
    assert itself.status_code == 400
    assert 'data-code="self"' in itself.content.decode()
    assert "You cannot report yourself." in itself.content.decode()
    bot = post_player(client, "bot-2")
    assert bot.status_code == 400
    assert 'data-code="bot"' in bot.content.decode()
    assert post_player(client, "nobody-here").status_code == 404

    guest = GuestFactory()
    by_guest = post_player(signed_in(guest), "ana")
    assert by_guest.status_code == 403
    assert 'data-code="members_only"' in by_guest.content.decode()
    anonymous = post_player(Client(), "ana")
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/accounts/login/?next=/report/player/ana/")
    assert not Report.objects.exists()


def test_refusals_of_matches() -> None:
    ana, bob, cy = UserFactory(username="ana"), UserFactory(username="bob"), UserFactory(username="cy")
    client = signed_in(ana)
    # Not a match of ana's, private: answered as no such match.
    theirs = finished_match(bob, cy)
    assert client.post(f"/report/match/{theirs.pk}/", {
        "reported": bob.pk, "reason": "collusion", "place": "replay"}).status_code == 404
    assert client.get("/report/match/999999/").status_code == 404
    # A bot match of her own: nobody to report.
    bot_match = BotMatchFactory(user=ana, rated=False)
    services.match_resign(match_id=bot_match.pk, user=ana)
    nobody = client.get(f"/report/match/{bot_match.pk}/")
    assert nobody.status_code == 400
    assert 'data-code="nobody"' in nobody.content.decode()
    # A player who is not in the match (or herself) is not a choice.
    mine = finished_match(ana, bob)
    for reported in (cy.pk, ana.pk, "x"):
        response = client.post(f"/report/match/{mine.pk}/", {
            "reported": reported, "reason": "collusion", "place": "table"})
        assert response.status_code == 400
        assert [e.code for e in response.context["form"].errors.as_data()["reported"]] == ["invalid_choice"]
    # A waiting table is not over.
    waiting = TableFactory(host=ana)
    assert client.get(f"/report/match/{waiting.pk}/").status_code == 409
    assert not Report.objects.exists()


def test_report_make_refuses_self_and_bots_without_a_row() -> None:
    ana = UserFactory(username="ana")
    BotMatchFactory(user=ana)
    with pytest.raises(reporting.ReportRefused) as self_report:
        reporting.report_make(reporter=ana, reported=ana, reason="other", comment="", place="profile")
    assert self_report.value.code == "self"
    with pytest.raises(reporting.ReportRefused) as bot_report:
        reporting.report_make(reporter=ana, reported=User.objects.get(username="bot-1"), reason="other",
                              comment="", place="profile")
    assert bot_report.value.code == "bot"
    assert not Report.objects.exists()


def test_a_closed_account_is_not_reported_again() -> None:
    ana, gone = UserFactory(username="ana"), UserFactory(username="gone", standing="closed", is_active=False)
    response = post_player(signed_in(ana), "gone")
    assert response.status_code == 410 and 'data-code="closed"' in response.content.decode()
    assert "This account is closed already: there is nothing more to report." in response.content.decode()
    with pytest.raises(reporting.ReportRefused) as closed:
        reporting.report_make(reporter=ana, reported=gone, reason="other", comment="", place="profile")
    assert closed.value.code == "closed" and not Report.objects.exists()


def test_the_pages_in_portuguese() -> None:
    ana = UserFactory(username="ana")
    UserFactory(username="bob")
    client = signed_in(ana)
    profile = client.get("/u/bob/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert 'data-testid="report-link" rel="nofollow">Denunciar</a>' in profile
    form = client.get("/report/player/bob/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    for text in ("Denunciar um jogador", "Ajuda de computador", "Comentário (opcional)"):
        assert text in form
    bad = post_player(client, "bob", comment="a\x07b", HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert bad.context["form"].errors["comment"] == [
        "O comentário contém caracteres de controle (como U+0007): escreva só texto simples."]
    itself = post_player(client, "ana", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "Você não pode denunciar a si mesmo." in itself
    received = client.get("/report/received/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "Denúncia recebida" in received


def test_default_rates_are_the_documented_ones(settings) -> None:
    from pathlib import Path

    assert (settings.FAIRPLAY_REPORT_RATE, settings.FAIRPLAY_REPORT_IP_RATE) == ("10/d", "30/d")
    root = Path(__file__).resolve().parents[2]
    assert "10 per day per account, 30 per day per IP" in (root / "README.md").read_text()
    docs = (root / "docs" / "fairplay.md").read_text()
    assert "**10 per account**" in docs and "**30 per client IP**" in docs
