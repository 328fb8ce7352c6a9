"""Indexes for the rankings' name search (``ratings.selectors._search``): ``lower(username)`` and
``lower(display_name)`` with ``text_pattern_ops``, so ``lower(name) LIKE 'prefix%'`` is an index range
scan whatever the database's collation. PostgreSQL only (SQLite's LIKE cannot use them): without them,
every search read all 100,000 members, and the planner walked the whole board probing each one.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

INDEXES = {
    "ratings_user_username_prefix_idx": "username",
    "ratings_user_display_prefix_idx": "display_name",
}


def create(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, column in INDEXES.items():
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON accounts_user (lower({column}::text) text_pattern_ops)"
        )


def drop(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_username_case_insensitive_unique"),
        ("ratings", "0001_initial"),
    ]

    operations = [migrations.RunPython(create, drop, elidable=False)]
