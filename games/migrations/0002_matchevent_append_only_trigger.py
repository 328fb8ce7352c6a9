"""PostgreSQL: refuse UPDATE and DELETE of match events in the database itself (the log is append-only).

TRUNCATE (used by test flushes and deliberate resets) is not a row operation and stays possible. Other
databases rely on the model and queryset guards in ``games.models``.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION games_matchevent_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION USING MESSAGE = 'games_matchevent is append-only (' || TG_OP || ' refused)';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_matchevent_append_only
    BEFORE UPDATE OR DELETE ON games_matchevent
    FOR EACH ROW EXECUTE FUNCTION games_matchevent_append_only();
"""
DROP = """
DROP TRIGGER IF EXISTS games_matchevent_append_only ON games_matchevent;
DROP FUNCTION IF EXISTS games_matchevent_append_only();
"""


def forwards(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def backwards(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards)]
