"""Repo-wide pytest setup.

pytest puts ``.`` and ``platform/`` on sys.path (pyproject ``pythonpath``) so ``config``, ``accounts``,
``web``, ``games`` and ``engine`` import by name. ``platform/`` is a folder without ``__init__.py`` on
purpose: ``import platform`` must keep meaning the standard library module. This file fails the run at
once if that ever breaks (e.g. someone adds ``platform/__init__.py``), instead of letting Django, Celery or
Twisted misbehave in strange ways later.
"""

from __future__ import annotations

import platform
import sysconfig
from pathlib import Path

collect_ignore = ["var", "staticfiles", "platform", "scripts", "deploy"]


def pytest_configure() -> None:
    """Abort if ``import platform`` resolved to anything but the stdlib module."""
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    where = Path(str(getattr(platform, "__file__", ""))).resolve()
    if where.parent != stdlib:
        raise RuntimeError(f"`import platform` resolved to {where}, not the standard library in {stdlib}")
