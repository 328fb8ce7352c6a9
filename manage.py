#!/usr/bin/env python3
"""Django's command-line utility. ``platform/`` goes on sys.path (it is a folder, not a package)."""

import os
import sys
from pathlib import Path


def main() -> None:
    """Run a Django management command with the repo root and ``platform/`` importable."""
    root = Path(__file__).resolve().parent
    for entry in (root / "platform", root):
        if str(entry) not in sys.path:
            sys.path.insert(0, str(entry))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
