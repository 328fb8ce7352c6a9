"""The API against its own OpenAPI schema (schemathesis, in process through Django's WSGI app).

Every operation of ``/api/schema/`` is called with generated data, valid (positive) and invalid
(negative), on a database with a few players, matches and a tournament (``seeded``): no answer may be a
5xx, and every answer must match the schema (status documented, body and headers valid, invalid input
refused with a 4xx, ...: schemathesis's default checks). ``MAX_EXAMPLES`` per operation and mode keeps
the run short (about 10 operations).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import hypothesis
import pytest
import schemathesis
from schemathesis import GenerationMode

pytestmark = pytest.mark.django_db

MAX_EXAMPLES = 25


def load_schema() -> Any:
    """The schema as the app serves it (loading it reads no database: ``/api/schema/`` is static)."""
    from django.core.wsgi import get_wsgi_application

    loaded = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
    loaded.config.generation.update(
        modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
        max_examples=MAX_EXAMPLES,
        deterministic=True,
        database="none",
    )
    return loaded


schema = load_schema()


@pytest.fixture
def wsgi_in_test(settings: Any) -> Iterator[None]:
    """Requests through the WSGI app inside the test's transaction, as Django's test client makes them:
    the end of a request must not close the connection (it would end the test's transaction), and the
    run's own requests are not throttled."""
    from django.core import signals
    from django.db import close_old_connections

    settings.API_ANON_RATE = "100000/min"
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def real_path(case: Any, seeded: dict[str, Any]) -> dict[str, Any] | None:
    """The case's path parameters pointing at seeded rows (a player with matches, the tournament's
    round 1, a finished match), or None when it has none or they were made invalid on purpose."""
    from schemathesis.core.parameters import ParameterLocation

    if not case.path_parameters or case.meta is None or case.meta.is_negative_at(ParameterLocation.PATH):
        return None
    real = {
        "username": "alice",
        "tournament_id": seeded["tournament"].pk,
        "number": 1,
        "match_id": seeded["rated"].pk,
    }
    return {name: real[name] for name in case.path_parameters}


# The fixtures' rows are only read (the API writes nothing), so sharing them across examples is fine.
@hypothesis.settings(suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
@schema.parametrize()
def test_api_matches_its_schema(case: Any, seeded: dict[str, Any], wsgi_in_test: None) -> None:
    response = case.call_and_validate()
    assert response.status_code < 500
    path = real_path(case, seeded)
    if path is not None:  # the same query on real rows: generated ids and names are almost never found
        case.path_parameters = path
        response = case.call_and_validate()
        assert response.status_code < 500
