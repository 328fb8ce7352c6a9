"""The API against its own OpenAPI schema (schemathesis, in process through Django's WSGI app).

Every operation of ``/api/schema/`` is called with generated data, valid (positive) and invalid
(negative), on a database with a few players, matches and a tournament (``seeded``): no answer may be a
5xx, and every answer must match the schema (status documented, body and headers valid, invalid input
refused with a 4xx, ...: schemathesis's default checks). ``MAX_EXAMPLES`` per operation and mode keeps
the run short (14 operations, each a test per mode: 27 tests, one operation having no invalid input).
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
        "slug": seeded["club"].slug,
    }
    return {name: real[name] for name in case.path_parameters}


BOT_API = "/api/v1/bot/"
"""The bot API's operations need a token (``BotToken``): an anonymous run only ever reaches their 401, and
its streams never end; tests/botapi/test_schema.py checks their schema and their refusals instead."""


def schema_operations() -> list[Any]:
    """Every operation of the schema but the bot API's (an operation schemathesis cannot read fails the
    collection)."""
    operations = [result.ok() for result in schema.get_all_operations()]
    return [operation for operation in operations if not operation.path.startswith(BOT_API)]


OPERATIONS = schema_operations()


# One test per operation, its id the operation's label (``GET /api/v1/bots/``), through pytest's own
# parametrize: schemathesis's ``schema.parametrize()`` gave its ten items one node id, which pytest-xdist
# (scripts/test runs in parallel) merged into one test: 1 of 10 operations was checked.
# An operation whose only input is a free string path parameter has no invalid input to generate
# (schemathesis's own runner skips its negative mode the same way).
NO_INVALID_INPUT = frozenset({"GET /api/v1/players/{username}/"})
RUNS = [
    pytest.param(operation, mode, id=f"{mode.value} {operation.label}")
    for operation in OPERATIONS
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    if not (mode is GenerationMode.NEGATIVE and operation.label in NO_INVALID_INPUT)
]


@pytest.mark.parametrize(("operation", "mode"), RUNS)
def test_api_matches_its_schema(
    operation: Any, mode: GenerationMode, seeded: dict[str, Any], wsgi_in_test: None
) -> None:
    """``MAX_EXAMPLES`` cases of ``operation`` in ``mode`` (positive: valid data, negative: invalid), each
    called and validated; a case with path parameters is called again on seeded rows."""

    # The fixtures' rows are only read (the API writes nothing), so sharing them across examples is fine.
    @hypothesis.settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[
            hypothesis.HealthCheck.function_scoped_fixture,
            hypothesis.HealthCheck.too_slow,
        ],
    )
    @hypothesis.given(case=operation.as_strategy(generation_mode=mode))
    def check(case: Any) -> None:
        response = case.call_and_validate()
        assert response.status_code < 500
        path = real_path(case, seeded)
        if path is not None:  # the same query on real rows: generated ids and names are almost never found
            case.path_parameters = path
            response = case.call_and_validate()
            assert response.status_code < 500

    check()


def test_every_operation_has_its_own_test_id() -> None:
    """Each of the schema's operations (every method of every path, the bot API's apart) is one distinct id
    above, so a parallel run cannot merge them; a new operation gets its tests without editing this file."""
    paths = schema.raw_schema["paths"]
    in_schema = sorted(f"{method.upper()} {path}" for path, item in paths.items() for method in item
                       if not path.startswith(BOT_API))
    assert len(in_schema) < sum(len(item) for item in paths.values())  # the bot API is in the schema
    labels = sorted(operation.label for operation in OPERATIONS)
    assert labels == in_schema
    assert len(set(labels)) == len(labels) == 15
    assert set(labels) >= NO_INVALID_INPUT
    assert len({run.id for run in RUNS}) == len(RUNS) == 2 * len(labels) - len(NO_INVALID_INPUT)
