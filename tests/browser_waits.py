"""How long a test waits for something that will happen: one set of ceilings for the whole suite.

A test waits for a condition (an element, a message, a row), never a fixed time, and the ceiling only
bounds a failure: on a quiet machine the wait ends as soon as the condition holds, so a generous
ceiling costs nothing there, and on a busy 2-core machine (the README's ``scripts/test`` beside other
work) it is what keeps a slow page load or a late socket message from failing the test (issue 22 item 8:
10-15 s waits failed so). Change these here, not in the tests.

``BROWSER_WAIT_MS``
    Playwright's default for every context's actions, navigations and ``expect`` assertions
    (``tests/conftest.py`` sets it on every context the ``browser`` fixture opens, and
    ``expect.set_options``).
``SOCKET_WAIT_S``
    A channels test communicator's wait for the application's next message or its handshake
    (``WebsocketCommunicator.connect`` / ``receive_output`` / ``receive_from`` / ``receive_json_from``,
    ``HttpCommunicator.get_response``), a real socket's ``recv``, and similar waits for one reply.
``SERVER_WAIT_S``
    A wait for a background process (a Celery worker, a Daphne subprocess, ``scripts/serve``) to
    finish something that takes real work: a match's ratings, an analysis, a start.
"""

from __future__ import annotations

BROWSER_WAIT_MS = 90_000
SOCKET_WAIT_S = 30.0
SERVER_WAIT_S = 120.0
