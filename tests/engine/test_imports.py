"""engine/ has no import circle: the module graph of ``engine`` (every ``import`` / ``from ... import``,
lazy ones inside functions included, ``TYPE_CHECKING`` blocks too) is acyclic, and ``engine.events``
is a leaf that imports no state machine (issue 12: the replay lives beside ``MatchState``)."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def _module(path: Path) -> str:
    rel = path.relative_to(ENGINE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    modules = {_module(p): p for p in ENGINE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            edges.update(t for t in targets if t in modules and t != name)
        graph[name] = edges
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        # the package __init__ re-exports everything: it is the root, not part of a circle
        if node != "engine" and node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_engine_modules_have_no_import_circle() -> None:
    graph = _graph()
    graph.pop("engine")
    for edges in graph.values():
        edges.discard("engine")
    assert _cycle(graph) is None


def test_events_is_a_leaf_of_the_state_machines() -> None:
    edges = _graph()["engine.events"]
    assert edges <= {"engine.actions", "engine.cards", "engine.errors"}, edges


def test_replay_lives_beside_match_state() -> None:
    import engine
    from engine.match import MatchState, replay

    assert engine.replay is replay
    assert replay.__module__ == MatchState.__module__ == "engine.match"
