"""The site's shared browser code (``platform/web/static/web/``): every live page opens its WebSocket
through ``web/socket.js`` (one reconnect and backoff), and each JS module a page imports exists."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from django.contrib.staticfiles import finders

ROOT = Path(__file__).resolve().parents[2]
SOCKET = ROOT / "platform/web/static/web/socket.js"
# The apps' static folders (tests, the virtualenv and collectstatic's output are not the site's code).
STATIC_JS = sorted(
    path for folder in ("platform", "games", "replays", "tournaments")
    for path in (ROOT / folder).rglob("static/**/*.js")
)
IMPORT = re.compile(r'^import [^;]*? from "(\.{1,2}/[^"]+)";', re.MULTILINE)


def test_only_the_shared_socket_opens_a_websocket() -> None:
    opening = [path for path in STATIC_JS if "new WebSocket(" in path.read_text(encoding="utf-8")]
    assert opening == [SOCKET]


def _static_name(path: Path) -> str:
    """``games/static/games/js/table.js`` -> ``games/js/table.js``: its name under ``/static/``."""
    return path.as_posix().split("/static/", 1)[1]


def test_every_relative_import_of_a_static_module_is_served() -> None:
    # A module's relative import resolves against its URL (/static/<name>), across the apps' folders.
    missing = [
        f"{_static_name(path)}: {target}"
        for path in STATIC_JS
        for target in IMPORT.findall(path.read_text(encoding="utf-8"))
        if not finders.find(posixpath.normpath(posixpath.join(posixpath.dirname(_static_name(path)), target)))
    ]
    assert STATIC_JS and not missing
