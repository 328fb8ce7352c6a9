"""infra.db_router: settled read-mostly reads on the read replica, everything else on the primary.

The alias ``replica`` is a test mirror of ``default`` (tests/platform/conftest.py): the same test database
through its own connection, so which alias ran a query is visible (``CaptureQueriesContext``) and a
replica read returns the committed rows. The router's decisions are checked on both profiles; the queries
on the two aliases on PostgreSQL only (the production profile, the one with replicas: a second SQLite
connection to the test file met "database is locked" behind the test case's open transaction).
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connections, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from infra.db_router import PRIMARY, REPLICA_MODELS, ReplicaRouter, primary, replica_reads, settled
from tests.games.conftest import alice, house_bots, no_pauses, seeded_decks  # noqa: F401  (fixtures)
from tests.replays.conftest import finished_match  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[2]
BOTH = ["default", "replica"]
router = ReplicaRouter()

READ_MOSTLY = ["ratings.PlayerRating", "ratings.RatingChange", "ratings.RatingBucket",
               "replays.MatchAnalysis", "replays.ReplayAccess", "games.Match", "games.MatchEvent",
               "tournaments.Tournament", "tournaments.Pairing"]
PRIMARY_ONLY = ["accounts.User", "sessions.Session", "auth.Group", "contenttypes.ContentType",
                "games.SeatPresence", "games.RematchOffer", "games.ChatMessage", "lobby.Pool",
                "lobby.PoolEntry", "lobby.Seek", "lobby.Challenge", "django_celery_beat.PeriodicTask",
                "axes.AccessAttempt"]


on_postgres = pytest.mark.skipif(
    "sqlite" in settings.DATABASES["default"]["ENGINE"],
    reason="a read replica is a PostgreSQL (production profile) setup; the embedded profile has none",
)


@pytest.fixture
def with_replica(settings: Any) -> None:
    settings.DATABASE_REPLICA = "replica"
    settings.DATABASE_REPLICA_MAX_LAG = 5.0


def tables(context: CaptureQueriesContext) -> str:
    return " ".join(query["sql"] for query in context.captured_queries)


def test_without_a_replica_everything_is_the_primary(settings: Any) -> None:
    settings.DATABASE_REPLICA = None
    with replica_reads():
        for label in READ_MOSTLY + PRIMARY_ONLY:
            model = apps.get_model(label)
            assert router.db_for_read(model) == "default"
            assert router.db_for_write(model) == "default"
    assert router.allow_migrate("default", "ratings") is True


def test_decisions_per_model_and_operation(with_replica: None) -> None:
    assert {label.lower() for label in READ_MOSTLY} <= REPLICA_MODELS
    for label in READ_MOSTLY + PRIMARY_ONLY:
        model = apps.get_model(label)
        assert router.db_for_read(model) == "default", label  # no view opted in
        with replica_reads():
            assert router.db_for_read(model) == ("replica" if label in READ_MOSTLY else "default"), label
            assert router.db_for_write(model) == "default", label
            with primary():  # a pin wins inside the context ...
                assert router.db_for_read(model) == "default", label
        with primary(), replica_reads():  # ... and around it
            assert router.db_for_read(model) == "default", label
        with replica_reads(enabled=False):
            assert router.db_for_read(model) == "default", label
    for app_label in ("ratings", "games", "accounts", "sessions", "django_celery_beat"):
        assert router.allow_migrate("default", app_label) is True
        assert router.allow_migrate("replica", app_label) is False
    rating_model = apps.get_model("ratings.PlayerRating")
    a, b, c = rating_model(), rating_model(), rating_model()
    a._state.db, b._state.db, c._state.db = "default", "replica", "elsewhere"
    assert router.allow_relation(a, b) is True
    assert router.allow_relation(b, b) is True
    assert router.allow_relation(a, c) is None


def test_settled_after_the_tolerated_lag(with_replica: None) -> None:
    now = timezone.now()
    assert settled(None, now) is False
    assert settled(now - timedelta(seconds=4.9), now) is False
    assert settled(now - timedelta(seconds=5), now) is True


@on_postgres
@pytest.mark.django_db(databases=BOTH)
def test_reads_inside_a_transaction_stay_on_the_primary(with_replica: None) -> None:
    model = apps.get_model("ratings.PlayerRating")
    with replica_reads():
        assert router.db_for_read(model) == "replica"  # the test case's own atomic blocks do not count
        with transaction.atomic():
            assert router.db_for_read(model) == "default"
        assert router.db_for_read(model) == "replica"


@on_postgres
@pytest.mark.django_db(transaction=True, databases=BOTH)
def test_rankings_read_the_replica_and_live_play_the_primary(with_replica: None, client: Any,
                                                             django_user_model: Any) -> None:
    from games.models import Match
    from ratings.models import PlayerRating

    carol = django_user_model.objects.create_user(username="carol")
    PlayerRating.objects.create(user=carol, rating=1812, peak=1812, rated_matches=12, wins=9, losses=3)
    with CaptureQueriesContext(connections["replica"]) as on_replica, \
            CaptureQueriesContext(connections[PRIMARY]) as on_primary:
        page = client.get(reverse("ratings:rankings"))
    assert page.status_code == 200
    assert "carol" in page.content.decode() and "1812" in page.content.decode()  # read on the replica
    assert "ratings_playerrating" in tables(on_replica)
    assert "ratings_playerrating" not in tables(on_primary)

    # The API opts in too; its session/auth reads do not move.
    with CaptureQueriesContext(connections["replica"]) as on_replica:
        answer = client.get("/api/v1/rankings/")
    assert answer.status_code == 200, answer.content
    assert [row["username"] for row in answer.json()["results"]] == ["carol"]
    assert "ratings_playerrating" in tables(on_replica)

    # One's own profile right after a rating commit: the primary; another player's: the replica.
    client.force_login(carol)
    with CaptureQueriesContext(connections["replica"]) as on_replica:
        assert client.get(reverse("ratings:profile", args=["carol"])).status_code == 200
    assert on_replica.captured_queries == []

    # Live play: the table's reads and writes (select_for_update in a transaction) on the primary,
    # even inside an opted-in context.
    with replica_reads(), CaptureQueriesContext(connections["replica"]) as on_replica, \
            CaptureQueriesContext(connections[PRIMARY]) as on_primary:
        with transaction.atomic():
            assert list(Match.objects.select_for_update().filter(player0=carol)) == []
        assert Match.objects.filter(player0=carol).count() == 0  # outside the transaction: the replica
    assert "FOR UPDATE" in tables(on_primary)
    assert [q["sql"] for q in on_replica.captured_queries if "games_match" in q["sql"]] != []
    assert "FOR UPDATE" not in tables(on_replica)


@on_postgres
@pytest.mark.django_db(transaction=True, databases=BOTH)
def test_a_replay_reads_the_replica_once_its_match_settled(with_replica: None, settings: Any, client: Any,
                                                           finished_match: Any, alice: Any) -> None:  # noqa: F811
    match = finished_match()
    client.force_login(alice)
    url = reverse("replays:replay_json", args=[match.pk])
    # Just finished: its player reads it as it ended, on the primary.
    with CaptureQueriesContext(connections["replica"]) as on_replica:
        fresh = client.get(url)
    assert fresh.status_code == 200
    assert on_replica.captured_queries == []
    # Settled (finished more than DATABASE_REPLICA_MAX_LAG ago): the event log from the replica.
    settings.DATABASE_REPLICA_MAX_LAG = 0.0
    with CaptureQueriesContext(connections["replica"]) as on_replica, \
            CaptureQueriesContext(connections[PRIMARY]) as on_primary:
        settled_answer = client.get(url)
    assert settled_answer.status_code == 200
    assert settled_answer.json() == fresh.json()
    assert "games_matchevent" in tables(on_replica)
    assert "games_matchevent" not in tables(on_primary)
    assert "games_match" in tables(on_primary)  # the match row itself: the primary


DUMP = """
import json, django
django.setup()
from django.conf import settings as s
replica = s.DATABASES.get("replica", {})
print(json.dumps({
    "aliases": sorted(s.DATABASES), "replica": s.DATABASE_REPLICA, "routers": s.DATABASE_ROUTERS,
    "test": replica.get("TEST"), "host": replica.get("HOST"), "lag": s.DATABASE_REPLICA_MAX_LAG,
}))
"""


def test_settings_add_the_replica_only_when_asked(subprocess_env: dict[str, str]) -> None:
    def load(**env: str) -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-c", DUMP], cwd=ROOT, env={**subprocess_env, **env},
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    one = load(DATABASE_URL="postgres://u@primary.example:5432/gin")
    assert (one["aliases"], one["replica"], one["lag"]) == (["default"], None, 5.0)
    assert one["routers"] == ["infra.db_router.ReplicaRouter"]
    two = load(DATABASE_URL="postgres://u@primary.example:5432/gin",
               DATABASE_REPLICA_URL="postgres://u@replica.example:5432/gin", DATABASE_REPLICA_MAX_LAG="2")
    assert (two["aliases"], two["replica"], two["lag"]) == (["default", "replica"], "replica", 2.0)
    assert two["test"]["MIRROR"] == "default" and two["host"] == "replica.example"
