"""Fair play's data stays with the moderators: a player's signals, reports, seat figures and sightings
never reach another player, an anonymous visitor or the public API (issue 25 "Privacy")."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from fairplay.models import PairSignal, PlayerSignal, Report, SeatSignal, Sighting
from games.models import Match, MatchStatus
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SECRETS = ["SECRET-NOTE-7731", "SECRET-COMMENT-4410", "d" * 64]  # a note, a comment, a sighting's hash


def test_nothing_of_fair_play_reaches_a_player_a_visitor_or_the_api() -> None:
    ana, bob, carol = UserFactory(username="ana"), UserFactory(username="bob"), UserFactory(username="carol")
    match = Match.objects.create(rules={"target": 100}, player0=ana, player1=bob, status=MatchStatus.FINISHED,
                                 winner=0, rated=True, finished_at=timezone.now())
    PlayerSignal.objects.create(user=ana, strength=0.9876, assistance_z=4.2, agreement=0.61, decisions=140,
                                reasons=[{"signal": "assistance", "value": 4.2, "strength": 0.9876,
                                          "note": "SECRET-NOTE-7731"}])
    low, high = sorted((ana, bob), key=lambda u: u.pk)
    PairSignal.objects.create(low=low, high=high, matches=9, transferred=88.8, strength=0.9876,
                              same_network=True, reasons=[{"signal": "resign", "value": 1.0, "strength": 1.0,
                                                           "note": "SECRET-NOTE-7731"}])
    Report.objects.create(reporter=carol, reported=ana, reason="assistance", place="replay", match=match,
                          comment="SECRET-COMMENT-4410")
    SeatSignal.objects.create(match=match, seat=0, player=ana, decisions=12, agreed=11, loss=0.5,
                              flagged=[[1, 4]])
    for user in (ana, bob):
        Sighting.objects.create(user=user, kind="ip", digest="d" * 64, last_seen=timezone.now())

    pages = ["/u/ana/", "/u/bob/", "/rankings/", "/", f"/replay/{match.pk}/", "/api/v1/players/ana/",
             "/api/v1/players/ana/ratings/", "/api/v1/players/ana/matches/", "/api/v1/rankings/",
             f"/api/v1/matches/{match.pk}/replay/", "/api/v1/schema/"]
    readers = {"anonymous": Client(), "carol (the reporter)": Client(), "bob (the pair)": Client(),
               "ana (the reported)": Client()}
    readers["carol (the reporter)"].force_login(carol)
    readers["bob (the pair)"].force_login(bob)
    readers["ana (the reported)"].force_login(ana)
    seen = 0
    for who, client in readers.items():
        for url in pages:
            response = client.get(url)
            if response.status_code != 200:
                continue
            seen += 1
            text = response.content.decode()
            for secret in SECRETS:
                assert secret not in text, (who, url, secret)
            if url.startswith("/api/"):  # the API names no fair-play field at all
                lowered = text.lower()
                assert all(word not in lowered for word in ("fairplay", "assistance_z", "same_network",
                                                            "report", "sighting")), (who, url)
    assert seen >= 30  # the pages were really read (a replay of a hand-made match may be refused)
    # The admin is the moderators' only: a member, even staff without the permission, is turned away.
    for client in readers.values():
        assert client.get(f"/admin/fairplay/playersignal/case/{ana.pk}/").status_code in (302, 403)
