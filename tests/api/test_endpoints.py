"""The API's resources, value by value, against the rows and selectors they come from."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from ratings import elo
from ratings.models import PlayerRating, RatingChange
from replays.models import ReplayAccess
from replays.selectors import match_record

pytestmark = pytest.mark.django_db


def get(client: Client, url: str, status: int = 200, **headers: Any) -> Any:
    response = client.get(url, **headers)
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    return response.json()


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_player_profile_and_history(seeded: dict[str, Any], client: Client) -> None:
    alice = seeded["alice"]
    rating = PlayerRating.objects.get(user=alice)
    assert (rating.rated_matches, rating.wins, rating.losses) == (2, 1, 1)
    profile = get(client, "/api/v1/players/alice/")
    assert profile == {
        "username": "alice",
        "name": "alice",
        "is_bot": False,
        "bot_level": None,
        "bot_account": False,
        "rating": elo.shown(rating.rating),
        "rating_exact": rating.rating,
        "peak": elo.shown(rating.peak),
        "provisional": True,
        "rated_matches": 2,
        "wins": 1,
        "losses": 1,
        "rank": None,
        "record": {"members": {"wins": 1, "losses": 0}, "bots": {"wins": 0, "losses": 1}},
        "joined": alice.date_joined.isoformat().replace("+00:00", "Z"),
    }
    assert get(client, "/api/v1/players/ALICE/") == profile  # usernames ignore case
    history = get(client, "/api/v1/players/Alice/ratings/")
    changes = list(RatingChange.objects.filter(player=alice).order_by("-created_at", "-id"))
    assert (
        [r["match_id"] for r in history["results"]]
        == [c.match_id for c in changes]
        == [seeded["lost_to_bot"].pk, seeded["rated"].pk]
    )
    newest = history["results"][0]
    assert newest["won"] is False and newest["opponent"] == {
        "username": "bot-2",
        "name": "Bot 2 · Casual",
        "is_bot": True,
        "bot_level": 2,
        "bot_account": False,
    }
    assert (newest["before"], newest["after"], newest["delta"], newest["k"]) == (
        elo.shown(changes[0].before),
        elo.shown(changes[0].after),
        changes[0].delta,
        changes[0].k,
    )
    assert history["results"][1]["opponent"]["username"] == "bob" and history["results"][1]["won"] is True
    # The history chains: each match starts where the one before it ended.
    assert changes[0].before == changes[1].after
    assert (
        get(client, "/api/v1/players/bot-2/")["rating"]
        == get(client, "/api/v1/bots/")["results"][1]["rating"]
    )


def test_guests_and_unknown_players_have_no_profile(seeded: dict[str, Any], client: Client) -> None:
    for name in (seeded["guest"].username, "nobody", "x" * 151):
        for suffix in ("", "ratings/", "matches/"):
            body = get(client, f"/api/v1/players/{name}/{suffix}", 404)
            assert body == {"error": "no_such_player", "message": "no such player"}


def test_player_matches_visibility_and_filters(seeded: dict[str, Any], client: Client) -> None:
    rated, bot, private = seeded["rated"].pk, seeded["lost_to_bot"].pk, seeded["private"].pk

    def ids(c: Client, url: str) -> list[int]:
        return [m["id"] for m in get(c, url)["results"]]

    # Anonymous: the public ones only (rated, a member's bot match); never the live one.
    assert ids(client, "/api/v1/players/alice/matches/") == [bot, rated]
    assert ids(client, "/api/v1/players/bob/matches/") == [rated]
    # A player sees their own private match too; another member does not.
    assert ids(logged_in(seeded["alice"]), "/api/v1/players/alice/matches/") == [private, bot, rated]
    assert ids(logged_in(seeded["bob"]), "/api/v1/players/alice/matches/") == [private, bot, rated]
    carol = type(seeded["alice"]).objects.create_user(username="carol2", password="pw-for-tests-1")
    assert ids(logged_in(carol), "/api/v1/players/alice/matches/") == [bot, rated]
    # Once made public, anyone sees it.
    ReplayAccess.objects.create(match=seeded["private"], public=True)
    assert ids(client, "/api/v1/players/alice/matches/") == [private, bot, rated]
    assert ids(client, "/api/v1/players/alice/matches/?result=won") == [rated]
    assert ids(client, "/api/v1/players/alice/matches/?result=lost") == [private, bot]
    assert ids(client, "/api/v1/players/alice/matches/?opponent=bot") == [bot]
    assert ids(client, "/api/v1/players/alice/matches/?opponent=member&rated=false") == [private]
    assert ids(client, "/api/v1/players/alice/matches/?tournament=true") == [rated]
    row = get(client, "/api/v1/players/alice/matches/?tournament=true")["results"][0]
    m = seeded["rated"]
    assert row == {
        "id": m.pk,
        "preset": "classic",
        "target": 100,
        "rated": True,
        "tournament_id": seeded["tournament"].pk,
        "started_at": m.started_at.isoformat().replace("+00:00", "Z"),
        "finished_at": m.finished_at.isoformat().replace("+00:00", "Z"),
        "players": [
            {"username": "alice", "name": "alice", "is_bot": False, "bot_level": None, "bot_account": False},
            {"username": "bob", "name": "bob", "is_bot": False, "bot_level": None, "bot_account": False},
        ],
        "scores": list(m.scores),
        "winner": 0,
        "seat": 0,
        "result": "won",
        "result_reason": "resign",
        "replay": f"http://testserver/api/v1/matches/{m.pk}/replay/",
    }
    bobs = get(client, "/api/v1/players/bob/matches/?tournament=true")["results"][0]
    assert (bobs["seat"], bobs["result"]) == (1, "lost")


def test_rankings_pages(seeded: dict[str, Any], client: Client) -> None:
    alice, bob = (PlayerRating.objects.get(user=seeded[name]) for name in ("alice", "bob"))
    assert alice.rating > bob.rating  # alice beat bob; her loss to bot-2 cost less than that win gave
    assert get(client, "/api/v1/rankings/")["results"] == []  # both provisional (fewer than 10 matches)
    board = get(client, "/api/v1/rankings/?provisional=true&limit=1")
    assert (board["count"], board["page"], board["pages"], board["limit"], board["previous"]) == (
        2,
        1,
        2,
        1,
        None,
    )
    assert board["next"] == "http://testserver/api/v1/rankings/?limit=1&page=2&provisional=true"
    assert board["results"] == [
        {
            "rank": 1,
            "username": "alice",
            "name": "alice",
            "rating": elo.shown(alice.rating),
            "rated_matches": 2,
            "wins": 1,
            "losses": 1,
            "provisional": True,
            "bot_account": False,
            "anchor": False,
            "house_bot_level": None,
            "change_30d": None,
            "wins_30d": None,
            "losses_30d": None,
        }
    ]
    second = get(client, board["next"])
    assert [r["username"] for r in second["results"]] == ["bob"] and second["results"][0]["rank"] == 2
    assert second["previous"] == "http://testserver/api/v1/rankings/?limit=1&provisional=true"
    recent = get(client, "/api/v1/rankings/?tab=30d&provisional=true&q=BO")["results"]
    assert [(r["username"], r["rank"], r["wins_30d"], r["losses_30d"]) for r in recent] == [("bob", 2, 0, 1)]
    assert recent[0]["change_30d"] == elo.shown(bob.rating) - 1500
    body = get(client, "/api/v1/rankings/?provisional=true&limit=1&page=3", 404)
    assert body == {"error": "no_such_page", "message": "there is no page 3"}


def test_a_bots_profile_counts_its_real_rated_matches(
    seeded: dict[str, Any], finish_bot: Any, client: Client
) -> None:
    from ratings.services import match_rate

    match_rate(match_id=finish_bot(seeded["bob"], 2, won=True).pk)  # bob beats bot-2; alice lost to it
    bot = get(client, "/api/v1/players/bot-2/")
    assert (bot["rated_matches"], bot["wins"], bot["losses"], bot["provisional"], bot["rank"]) == (
        2, 1, 1, False, None
    )
    assert bot["record"] == {"members": {"wins": 1, "losses": 1}, "bots": {"wins": 0, "losses": 0}}
    idle = get(client, "/api/v1/players/bot-1/")
    assert (idle["rated_matches"], idle["wins"], idle["losses"]) == (0, 0, 0)
    assert get(client, "/api/v1/players/bot-2/ratings/")["results"] == []  # its rating never changes


def test_bots_list_is_a_paginated_list(seeded: dict[str, Any], client: Client) -> None:
    whole = get(client, "/api/v1/bots/")
    assert {k: v for k, v in whole.items() if k != "results"} == {
        "count": 5, "page": 1, "pages": 1, "limit": 20, "next": None, "previous": None
    }
    second = get(client, "/api/v1/bots/?limit=2&page=2")
    assert [b["level"] for b in second["results"]] == [3, 4] and second["pages"] == 3
    assert second["next"] == "http://testserver/api/v1/bots/?limit=2&page=3"
    assert second["previous"] == "http://testserver/api/v1/bots/?limit=2"
    assert get(client, "/api/v1/bots/?limit=2&page=4", 404)["error"] == "no_such_page"
    assert get(client, "/api/v1/bots/?limit=x", 400)["fields"] == {"limit": ["A valid integer is required."]}


def test_bots_with_their_fixed_elo(seeded: dict[str, Any], client: Client) -> None:
    from ratings.bot_elo import calibrated_elo

    calibrated = calibrated_elo()
    bots = get(client, "/api/v1/bots/", HTTP_ACCEPT_LANGUAGE="pt-br")[
        "results"
    ]  # English whatever the reader's
    assert [(b["level"], b["username"], b["rating"]) for b in bots] == [
        (level, f"bot-{level}", calibrated[level]) for level in range(1, 6)
    ]
    assert bots[0]["name"] == "Bot 1 · Beginner" and bots[0]["strength"] == "Beginner"


def test_tournaments_detail_standings_pairings(seeded: dict[str, Any], client: Client) -> None:
    t = seeded["tournament"]
    listed = get(client, "/api/v1/tournaments/?status=finished")
    assert [row["id"] for row in listed["results"]] == [t.pk] and listed["results"][0]["players"] == 2
    assert get(client, "/api/v1/tournaments/?status=open")["count"] == 0
    detail = get(client, f"/api/v1/tournaments/{t.pk}/")
    assert (detail["name"], detail["name_pt"], detail["status"], detail["winner"]["username"]) == (
        "API Cup",
        "Copa API",
        "finished",
        "alice",
    )
    assert [(r["number"], r["status"], r["boards"]) for r in detail["round_list"]] == [(1, "finished", 1)]
    assert (
        detail["round_list"][0]["pairings"]
        == f"http://testserver/api/v1/tournaments/{t.pk}/rounds/1/pairings/"
    )
    standings = get(client, detail["standings"])
    change = RatingChange.objects.get(match=seeded["rated"], player=seeded["alice"]).delta
    assert [
        (s["rank"], s["player"]["username"], s["score"], s["buchholz"], s["rating"])
        for s in standings["results"]
    ] == [(1, "alice", 1.0, 0.0, 1500), (2, "bob", 0.0, 1.0, 1500)]
    assert standings["results"][0]["rating_change"] == round(change, 2)
    pairings = get(client, detail["round_list"][0]["pairings"])
    assert pairings["results"] == [
        {
            "board": 1,
            "players": [
                {"username": "alice", "name": "alice", "is_bot": False, "bot_level": None,
                 "bot_account": False},
                {"username": "bob", "name": "bob", "is_bot": False, "bot_level": None, "bot_account": False},
            ],
            "bye": False,
            "forfeit": False,
            "match_id": seeded["rated"].pk,
            "match_status": "finished",
            "points": [1.0, 0.0],
            "hand_points": list(seeded["rated"].scores),
            "replay": f"http://testserver/api/v1/matches/{seeded['rated'].pk}/replay/",
        }
    ]
    assert get(client, f"/api/v1/tournaments/{t.pk}/rounds/2/pairings/", 404)["error"] == "no_such_round"
    assert get(client, f"/api/v1/tournaments/{t.pk + 1}/", 404)["error"] == "no_such_tournament"


def test_exact_values_are_the_stored_ones(seeded: dict[str, Any], client: Client) -> None:
    """``rating_exact`` and a history row's ``delta`` are the stored floats, not rounded to 2 decimals
    (issue 20: 1517.123456 was answered 1517.12); ``rating``, ``before``, ``after`` and ``change`` stay
    rounded as the site shows them."""
    alice = seeded["alice"]
    PlayerRating.objects.filter(user=alice).update(rating=1517.123456)
    newest = RatingChange.objects.filter(player=alice).order_by("-created_at", "-id").first()
    assert newest is not None
    RatingChange.objects.filter(pk=newest.pk).update(before=1535.0, after=1517.123456, delta=-17.876544)
    profile = get(client, "/api/v1/players/alice/")
    assert (profile["rating"], profile["rating_exact"]) == (1517, 1517.123456)
    row = get(client, "/api/v1/players/alice/ratings/")["results"][0]
    assert (row["before"], row["after"], row["change"], row["delta"]) == (1535, 1517, -18, -17.876544)


def test_replay_follows_the_replay_pages_rules(seeded: dict[str, Any], client: Client) -> None:
    rated, private, live = seeded["rated"], seeded["private"], seeded["live"]
    assert get(client, f"/api/v1/matches/{rated.pk}/replay/") == match_record(match=rated)
    # a private match without its token: the answer of a match that does not exist (issue 20, finding 7)
    assert get(client, f"/api/v1/matches/{private.pk}/replay/", 404)["error"] == "no_such_match"
    token = ReplayAccess.objects.create(match=private).token
    assert get(client, f"/api/v1/matches/{private.pk}/replay/?token={token}")["match"]["id"] == private.pk
    tampered = ("y" if token[0] == "x" else "x") + token[1:]  # one character changed (never the same token)
    wrong = get(client, f"/api/v1/matches/{private.pk}/replay/?token={tampered}", 404)
    assert wrong["error"] == "no_such_match"
    assert get(logged_in(seeded["bob"]), f"/api/v1/matches/{private.pk}/replay/")["match"]["id"] == private.pk
    assert get(client, f"/api/v1/matches/{live.pk}/replay/", 409) == {
        "error": "not_finished",
        "message": "the match is still being played: its replay opens when it ends",
    }
    assert get(logged_in(seeded["bob"]), f"/api/v1/matches/{live.pk}/replay/", 409)["error"] == "not_finished"
    assert get(client, f"/api/v1/matches/{live.pk + 100}/replay/", 404)["error"] == "no_such_match"


HIDDEN_KEYS = {"deck", "hands", "cards", "hand", "final_hands", "events", "discard_pile", "salt"}


def keys_of(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def test_a_live_hand_is_never_shown(seeded: dict[str, Any], client: Client) -> None:
    """A running tournament whose board is a live match: no answer about it holds a card."""
    from tests.api.conftest import tournament_of
    from tournaments.models import TournamentStatus

    live = seeded["live"]
    t = tournament_of([seeded["bob"], live.player1], matches=[live], name="Live Cup")
    t.status = TournamentStatus.RUNNING
    t.save()
    seated = logged_in(seeded["bob"])
    for url in (
        f"/api/v1/tournaments/{t.pk}/",
        f"/api/v1/tournaments/{t.pk}/standings/",
        f"/api/v1/tournaments/{t.pk}/rounds/1/pairings/",
        "/api/v1/players/bob/matches/",
        "/api/v1/tournaments/?status=running",
    ):
        for reader in (client, seated):
            assert not keys_of(get(reader, url)) & HIDDEN_KEYS, url
    board = get(client, f"/api/v1/tournaments/{t.pk}/rounds/1/pairings/")["results"][0]
    assert (board["match_id"], board["match_status"], board["replay"]) == (live.pk, "active", None)
    assert live.pk not in [m["id"] for m in get(seated, "/api/v1/players/bob/matches/")["results"]]


def test_tournaments_list_order_as_documented(client: Client) -> None:
    """docs/api.md: without ``status`` the running ones, then the upcoming ones (open and scheduled
    together) soonest first, then the finished ones newest first (issue 22 item 7: it was newest start
    first, the furthest future event on top); ``status=scheduled`` or ``open`` soonest first; any other
    status newest start first (ties: id the same way)."""
    import datetime as dt

    from tournaments.models import Tournament, TournamentStatus

    now = dt.datetime.now(dt.UTC)
    made = {}
    for name, status, hours in [
        ("open-later", TournamentStatus.OPEN, 5),
        ("open-soon", TournamentStatus.OPEN, 1),
        ("scheduled-soon", TournamentStatus.SCHEDULED, 2),
        ("scheduled-later", TournamentStatus.SCHEDULED, 9),
        ("finished-old", TournamentStatus.FINISHED, -48),
        ("finished-new", TournamentStatus.FINISHED, -3),
    ]:
        made[name] = Tournament.objects.create(
            name_en=name, name_pt=name, status=status, starts_at=now + dt.timedelta(hours=hours), rounds=1
        )

    def names(query: str) -> list[str]:
        return [row["name"] for row in get(client, f"/api/v1/tournaments/{query}")["results"]]

    assert names("") == [
        "open-soon", "scheduled-soon", "open-later", "scheduled-later", "finished-new", "finished-old"
    ]
    assert names("?status=open") == ["open-soon", "open-later"]
    assert names("?status=scheduled") == ["scheduled-soon", "scheduled-later"]
    assert names("?status=finished") == ["finished-new", "finished-old"]
