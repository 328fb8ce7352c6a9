"""``/api/v1/pools/`` and ``/api/v1/lobby/seeks/`` (``api.lobby``): values on worked data, nothing
private, and their place in the OpenAPI schema and the docs."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import User
from lobby.models import EntryStatus, Pool, PoolEntry, Seek, SeekStatus
from tests.lobby.home_pools import ensure_default_pools

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def default_pools(db: None) -> None:
    ensure_default_pools()


def test_pools_with_their_waiting_counts(client: Client) -> None:
    users = [User.objects.create(username=f"u{i}") for i in range(4)]
    casual = Pool.objects.get(slug="50-20-casual")
    PoolEntry.objects.create(pool=casual, user=users[0], rating=1500)
    PoolEntry.objects.create(pool=casual, user=users[1], rating=1620)
    PoolEntry.objects.create(pool=casual, user=users[2], rating=1500, status=EntryStatus.PAIRED)
    PoolEntry.objects.create(pool=Pool.objects.get(slug="100-60-rated"), user=users[3], rating=1500)
    Pool.objects.filter(slug="50-20-rated").update(active=False)
    body = client.get("/api/v1/pools/").json()
    assert body["count"] == 3 and body["page"] == 1 and body["next"] is None
    assert body["results"] == [
        {"slug": "100-60-rated", "name": "100 points · 60 s a move · Rated", "target": 100,
         "turn_timer_seconds": 60, "rated": True, "rules_preset": "classic", "waiting": 1},
        {"slug": "100-60-casual", "name": "100 points · 60 s a move · Casual", "target": 100,
         "turn_timer_seconds": 60, "rated": False, "rules_preset": "classic", "waiting": 0},
        {"slug": "50-20-casual", "name": "50 points · 20 s a move · Casual", "target": 50,
         "turn_timer_seconds": 20, "rated": False, "rules_preset": "classic", "waiting": 2},
    ]
    # the API's label is English whatever the reader's language
    portuguese = client.get("/api/v1/pools/", headers={"accept-language": "pt-BR"}).json()
    assert portuguese["results"][0]["name"] == "100 points · 60 s a move · Rated"
    assert client.get("/api/v1/pools/?limit=2&page=2").json()["results"][0]["slug"] == "50-20-casual"
    assert client.get("/api/v1/pools/?page=9").status_code == 404
    assert client.get("/api/v1/pools/?limit=0").json()["error"] == "bad_query"


def test_open_seeks_and_nothing_private(client: Client) -> None:
    now = timezone.now()
    ana = User.objects.create(username="ana", display_name="Ana B.", email="ana@example.com")
    guest = User.objects.create(username="guest-77", is_guest=True)
    bob = User.objects.create(username="bob")
    minutes = dt.timedelta(minutes=1)
    open_seek = Seek.objects.create(creator=ana, target=50, turn_timer_seconds=20, rated=True,
                                    rating_min=1400, rating_max=1700, creator_rating=1543.6,
                                    expires_at=now + 5 * minutes)
    guests = Seek.objects.create(creator=guest, creator_rating=1500.0, expires_at=now + 9 * minutes)
    Seek.objects.create(creator=bob, creator_rating=1500.0, expires_at=now - minutes / 60)  # expired
    Seek.objects.filter(pk=guests.pk).update(created_at=now + dt.timedelta(seconds=1))  # the newest
    accepted = Seek.objects.create(creator=User.objects.create(username="cid"), creator_rating=1500.0,
                                   status=SeekStatus.ACCEPTED, accepted_by=bob,
                                   expires_at=now + dt.timedelta(minutes=5))
    response = client.get("/api/v1/lobby/seeks/")
    body = response.json()
    assert body["count"] == 2
    first, second = body["results"]
    assert first["id"] == guests.pk and first["creator"] == {"username": None, "name": "guest-77",
                                                             "is_bot": False, "bot_level": None,
                                                             "bot_account": False}
    assert first["turn_timer_seconds"] is None and first["rated"] is False and first["target"] == 100
    guests.refresh_from_db()
    open_seek.refresh_from_db()
    assert second == {
        "id": open_seek.pk,
        "creator": {"username": "ana", "name": "Ana B.", "is_bot": False, "bot_level": None,
                    "bot_account": False},
        "creator_rating": 1544, "preset": "classic", "target": 50, "turn_timer_seconds": 20, "rated": True,
        "rating_min": 1400, "rating_max": 1700,
        "created_at": open_seek.created_at.isoformat().replace("+00:00", "Z"),
        "expires_at": open_seek.expires_at.isoformat().replace("+00:00", "Z"),
    }
    text = response.content.decode()
    assert "ana@example.com" not in text
    assert accepted.pk not in [r["id"] for r in body["results"]]
    assert "accepted_by" not in text and "match" not in text


def test_both_in_the_schema_and_the_docs(client: Client) -> None:
    schema = client.get("/api/schema/").json()
    pools = schema["paths"]["/api/v1/pools/"]["get"]
    seeks = schema["paths"]["/api/v1/lobby/seeks/"]["get"]
    assert pools["operationId"] == "pools" and seeks["operationId"] == "lobby_seeks"
    assert pools["tags"] == ["lobby"] == seeks["tags"]
    for operation in (pools, seeks):
        assert {p["name"] for p in operation["parameters"]} == {"page", "limit"}
    components = schema["components"]["schemas"]
    assert set(components["Pool"]["properties"]) == {"slug", "name", "target", "turn_timer_seconds", "rated",
                                                     "rules_preset", "waiting"}
    assert set(components["Seek"]["properties"]) == {
        "id", "creator", "creator_rating", "preset", "target", "turn_timer_seconds", "rated", "rating_min",
        "rating_max", "created_at", "expires_at"}
    assert pools["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PoolPage"}
    for status in ("400", "404", "429"):
        assert status in seeks["responses"]
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    assert "GET /api/v1/pools/" in guide and "GET /api/v1/lobby/seeks/" in guide
