"""Simulated tournaments (``manage.py tournament_simulate``) are marked ``is_simulation`` and kept off the
public list, the home page and the API's list unless asked for (``simulations=true``); their own page
and API address still work, with a "simulation" badge."""

from __future__ import annotations

import datetime as dt
import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

from tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db

NOW = dt.datetime.now(dt.UTC)


def make(name: str, *, simulation: bool, status: str = TournamentStatus.OPEN, hours: float = 1) -> Tournament:
    return Tournament.objects.create(
        name_en=name, name_pt=f"{name} pt", status=status, starts_at=NOW + dt.timedelta(hours=hours),
        rounds=1, is_simulation=simulation, simulation_seed=7 if simulation else None,
    )


@pytest.fixture
def both() -> dict[str, Tournament]:
    return {
        "real-open": make("real-open", simulation=False),
        "sim-open": make("sim-open", simulation=True, hours=0.5),
        "real-finished": make("real-finished", simulation=False, status=TournamentStatus.FINISHED, hours=-3),
        "sim-finished": make("sim-finished", simulation=True, status=TournamentStatus.FINISHED, hours=-2),
        "sim-running": make("sim-running", simulation=True, status=TournamentStatus.RUNNING, hours=-1),
    }


def names(client: Client, query: str = "") -> list[str]:
    response = client.get(f"/api/v1/tournaments/{query}")
    assert response.status_code == 200, response.content
    return [row["name"] for row in response.json()["results"]]


def test_the_list_page_and_the_home_leave_simulations_out(both: dict[str, Tournament]) -> None:
    for lang in ("en", "pt-br"):
        html = Client(HTTP_ACCEPT_LANGUAGE=lang).get("/tournaments/").content.decode()
        assert "real-open" in html and "real-finished" in html
        assert "sim-" not in html
    Tournament.objects.filter(pk=both["sim-open"].pk).update(starts_at=NOW + dt.timedelta(minutes=5))
    home = Client().get("/").content.decode()
    # The next tournament is the real one, though the simulation starts sooner.
    assert f'href="/tournaments/{both["real-open"].pk}/"' in home
    assert f'href="/tournaments/{both["sim-open"].pk}/"' not in home


def test_the_api_list_leaves_simulations_out_unless_asked(both: dict[str, Tournament]) -> None:
    client = Client()
    assert names(client) == ["real-open", "real-finished"]
    assert names(client, "?status=running") == []
    assert names(client, "?simulations=false") == ["real-open", "real-finished"]
    # the API's order (docs/api.md): running, then upcoming soonest first, then finished latest first
    assert names(client, "?simulations=true") == [
        "sim-running", "sim-open", "real-open", "sim-finished", "real-finished"
    ]
    assert names(client, "?simulations=true&status=running") == ["sim-running"]
    rows = client.get("/api/v1/tournaments/?simulations=true&status=finished").json()["results"]
    assert [(r["name"], r["is_simulation"]) for r in rows] == [
        ("sim-finished", True), ("real-finished", False)
    ]
    bad = client.get("/api/v1/tournaments/?simulations=yes")
    assert bad.status_code == 400 and "simulations" in bad.content.decode()


def test_a_simulation_opens_by_direct_link_with_a_badge(both: dict[str, Tournament]) -> None:
    sim, real = both["sim-finished"], both["real-finished"]
    html = Client().get(f"/tournaments/{sim.pk}/").content.decode()
    assert 'data-testid="simulation-badge"' in html and ">simulation</span>" in html
    pt = Client(HTTP_ACCEPT_LANGUAGE="pt-br").get(f"/tournaments/{sim.pk}/").content.decode()
    assert ">simulação</span>" in pt
    assert 'data-testid="simulation-badge"' not in Client().get(f"/tournaments/{real.pk}/").content.decode()
    detail = Client().get(f"/api/v1/tournaments/{sim.pk}/")
    assert detail.status_code == 200 and detail.json()["is_simulation"] is True
    assert Client().get(f"/api/v1/tournaments/{sim.pk}/standings/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_command_marks_its_tournament() -> None:
    out = io.StringIO()
    call_command("tournament_simulate", "--players", "2", "--rounds", "1", "--seed", "3", "--json",
                 stdout=out, stderr=io.StringIO())
    tournament = Tournament.objects.get(pk=json.loads(out.getvalue())["tournament"])
    assert tournament.is_simulation and tournament.status == TournamentStatus.FINISHED
    assert names(Client()) == []
    assert names(Client(), "?simulations=true") == ["Simulation"]
    assert "Simulation" not in Client().get("/tournaments/").content.decode()


def test_migration_marks_earlier_simulations() -> None:
    """0004 marks every row with a ``simulation_seed`` (only the command ever set one)."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("tournaments.migrations.0004_tournament_is_simulation")
    old = make("old-sim", simulation=False)
    Tournament.objects.filter(pk=old.pk).update(simulation_seed=5)
    real = make("real", simulation=False)
    migration.mark(apps, None)
    assert Tournament.objects.get(pk=old.pk).is_simulation
    assert not Tournament.objects.get(pk=real.pk).is_simulation
