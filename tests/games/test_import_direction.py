"""Which way the games modules import each other (no import-linter here: the graph is read with ``ast``).

The reads and the timers sit under the writes: ``games.selectors``, ``games.scheduling`` and
``games.conf`` never import ``games.services`` or ``games.tasks``, not even inside a function (such a
local import was how the circles were kept working), and the services never import ``games.tasks``:
``games.apps`` connects the scheduler to what it runs (``scheduling.connect(tasks.DRIVER)``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GAMES = Path(__file__).resolve().parents[2] / "games"


def imported(path: Path) -> set[str]:
    """Every ``games...`` module ``path`` imports, at any depth of the file (``from games import x``
    counts as ``games.x``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("games"):
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("games")}
    return found


@pytest.mark.parametrize("name", ["selectors.py", "scheduling.py", "conf.py"])
def test_reads_and_timers_import_no_writes(name: str) -> None:
    forbidden = {m for m in imported(GAMES / name) if m.startswith(("games.services", "games.tasks"))}
    assert not forbidden, f"games/{name} imports {sorted(forbidden)}"


def test_the_services_import_no_tasks() -> None:
    for path in sorted((GAMES / "services").glob("*.py")):
        assert not {m for m in imported(path) if m.startswith("games.tasks")}, path.name
