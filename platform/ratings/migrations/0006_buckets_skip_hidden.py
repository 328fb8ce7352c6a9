"""The rating buckets leave hidden players out (``PlayerRating.hidden``: docs/fairplay.md).

Migration 0003's triggers counted every rated row; these count a row only while it is not hidden, so
hiding a player (an UPDATE of ``hidden``) moves it out of its bucket in the same transaction, and the
ranks read from the buckets (``ratings.selectors.ranks_of``) stay exact. Same shapes as 0003 (statement
triggers with transition tables on PostgreSQL, row triggers on SQLite), then a recount from the rows.
Reversed: 0003's triggers and counts again.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

ESTABLISHED = 10  # ratings.elo.PROVISIONAL_MATCHES when written


def _pg_function(visible: str) -> str:
    def deltas(source: str, sign: str) -> str:
        return (f"SELECT floor(rating)::int AS bucket, {sign}(rated_matches >= {ESTABLISHED}{visible})::int AS e, "
                f"{sign}(rated_matches > 0{visible})::int AS a FROM {source}")

    def upsert(d: str) -> str:
        return f"""
    INSERT INTO ratings_ratingbucket (bucket, established, everyone)
    SELECT d.bucket, SUM(d.e), SUM(d.a) FROM ({d}) d
    GROUP BY d.bucket HAVING SUM(d.e) <> 0 OR SUM(d.a) <> 0 ORDER BY d.bucket
    ON CONFLICT (bucket) DO UPDATE SET established = ratings_ratingbucket.established + EXCLUDED.established,
                                       everyone = ratings_ratingbucket.everyone + EXCLUDED.everyone;
"""
    insert, delete = deltas("new_rows", ""), deltas("old_rows", "-")
    return f"""
CREATE OR REPLACE FUNCTION ratings_bucket_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN {upsert(insert)}
    ELSIF TG_OP = 'UPDATE' THEN {upsert(insert + " UNION ALL " + delete)}
    ELSE {upsert(delete)}
    END IF;
    RETURN NULL;
END
$$;
"""


def _sqlite_triggers(visible: str) -> list[str]:
    def cond(row: str, test: str) -> str:
        return f"({row}.rated_matches {test}{visible.replace('hidden', row + '.hidden')})"

    add = f"""
    INSERT INTO ratings_ratingbucket (bucket, established, everyone)
    VALUES (CAST(NEW.rating AS INTEGER), {cond('NEW', f'>= {ESTABLISHED}')}, {cond('NEW', '> 0')})
    ON CONFLICT (bucket) DO UPDATE SET established = established + excluded.established,
                                       everyone = everyone + excluded.everyone;
"""
    remove = f"""
    UPDATE ratings_ratingbucket SET established = established - {cond('OLD', f'>= {ESTABLISHED}')},
                                    everyone = everyone - {cond('OLD', '> 0')}
    WHERE bucket = CAST(OLD.rating AS INTEGER);
"""
    changed = (f"CAST(OLD.rating AS INTEGER) <> CAST(NEW.rating AS INTEGER)"
               f" OR {cond('OLD', f'>= {ESTABLISHED}')} <> {cond('NEW', f'>= {ESTABLISHED}')}"
               f" OR {cond('OLD', '> 0')} <> {cond('NEW', '> 0')}")
    return [
        "DROP TRIGGER IF EXISTS ratings_bucket_insert",
        "DROP TRIGGER IF EXISTS ratings_bucket_update",
        "DROP TRIGGER IF EXISTS ratings_bucket_delete",
        f"CREATE TRIGGER ratings_bucket_insert AFTER INSERT ON ratings_playerrating "
        f"WHEN {cond('NEW', '> 0')} BEGIN {add} END",
        f"CREATE TRIGGER ratings_bucket_update AFTER UPDATE ON ratings_playerrating "
        f"WHEN {changed} BEGIN {remove} {add} END",
        f"CREATE TRIGGER ratings_bucket_delete AFTER DELETE ON ratings_playerrating "
        f"WHEN {cond('OLD', '> 0')} BEGIN {remove} END",
    ]


def _install(schema_editor: Any, *, skip_hidden: bool) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        statements = [_pg_function(" AND NOT hidden" if skip_hidden else "")]
        bucket = "floor(rating)::int"
    elif vendor == "sqlite":
        statements = _sqlite_triggers(" AND NOT hidden" if skip_hidden else "")
        bucket = "CAST(rating AS INTEGER)"
    else:  # pragma: no cover - the project runs on these two only
        raise NotImplementedError(f"rating buckets have no triggers for {vendor}")
    for statement in statements:
        schema_editor.execute(statement)
    # Recount from the rows (the triggers only ever add differences).
    schema_editor.execute("DELETE FROM ratings_ratingbucket")
    where = "rated_matches > 0" + (" AND NOT hidden" if skip_hidden else "")
    schema_editor.execute(
        f"INSERT INTO ratings_ratingbucket (bucket, established, everyone) "
        f"SELECT {bucket}, SUM(CASE WHEN rated_matches >= {ESTABLISHED} THEN 1 ELSE 0 END), COUNT(*) "
        f"FROM ratings_playerrating WHERE {where} GROUP BY 1"
    )


def forward(apps: Any, schema_editor: Any) -> None:
    _install(schema_editor, skip_hidden=True)


def backward(apps: Any, schema_editor: Any) -> None:
    _install(schema_editor, skip_hidden=False)


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0005_hidden_and_refunds"),
    ]

    operations = [migrations.RunPython(forward, backward, elidable=False)]
