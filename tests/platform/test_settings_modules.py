"""``config.settings`` is one module per integration gathered by ``config/settings/__init__.py``: each
setting is assigned in exactly one of them (a second assignment elsewhere would silently win or lose by
import order), and every module is gathered."""

from __future__ import annotations

import ast
from pathlib import Path

SETTINGS_DIR = Path(__file__).resolve().parents[2] / "platform" / "config" / "settings"


def assigned_names(path: Path) -> set[str]:
    """Uppercase names a module assigns at its top level (in ``if`` blocks too), whatever their value."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        names |= {t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper()}
    return names


def test_each_setting_is_assigned_in_one_module_and_every_module_is_gathered() -> None:
    modules = sorted(p for p in SETTINGS_DIR.glob("*.py") if p.name != "__init__.py")
    owner: dict[str, str] = {}
    for path in modules:
        for name in assigned_names(path):
            assert name not in owner, f"{name} is assigned in both {owner[name]} and {path.name}"
            owner[name] = path.name
    init = (SETTINGS_DIR / "__init__.py").read_text()
    assert assigned_names(SETTINGS_DIR / "__init__.py") == set()
    for path in modules:
        assert f"from config.settings.{path.stem} import *" in init, path.name


def test_the_gathered_settings_are_the_modules_settings() -> None:
    from django.conf import settings

    from config.settings import base, celery_settings, database, environment, security

    assert settings.MIDDLEWARE == base.MIDDLEWARE and settings.DATABASES is database.DATABASES
    assert settings.CELERY_TASK_ROUTES is celery_settings.CELERY_TASK_ROUTES
    assert (settings.SECRET_KEY, settings.PROFILE) == (security.SECRET_KEY, environment.PROFILE)
