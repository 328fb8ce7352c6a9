"""A refused request is one log line (no traceback, not twice); a server error keeps its traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

SNIPPET = """
import django
django.setup()
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.utils.log import log_response

def raised(exc):
    try:
        raise exc
    except Exception as caught:
        return caught

# What Django's exception handler does for each of these (django.core.handlers.exception).
log_response("Forbidden (Permission denied): %s", "/match/1/", response=HttpResponse(status=403),
             exception=raised(PermissionDenied("You are not a player of this match.")))
log_response("Not Found: %s", "/t/x/", response=HttpResponse(status=404), exception=raised(Http404("no")))
log_response("Internal Server Error: %s", "/boom/", response=HttpResponse(status=500),
             exception=raised(RuntimeError("boom")))
"""


@pytest.mark.parametrize("debug", ["1", "0"])
def test_refusals_are_one_line_and_errors_keep_their_traceback(
    subprocess_env: dict[str, str], debug: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SNIPPET], env={**subprocess_env, "DEBUG": debug},
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "axes" not in line]
    assert sum("Forbidden (Permission denied): /match/1/" in line for line in lines) == 1
    assert sum("Not Found: /t/[redacted]/" in line for line in lines) == 1  # an invite's token: never
    assert "/t/x/" not in done.stderr
    assert sum("Internal Server Error: /boom/" in line for line in lines) == 1
    assert done.stderr.count("Traceback (most recent call last)") == 1  # the 500's, once
    assert "RuntimeError: boom" in done.stderr and "PermissionDenied" not in done.stderr
