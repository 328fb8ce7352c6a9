"""Rating buckets (``ratings.models.RatingBucket``): the table, the triggers that keep it, its first fill.

The triggers make the database keep the counts in the same transaction as every write of
``ratings_playerrating``, whoever makes it. Per vendor:

- PostgreSQL: statement-level triggers with transition tables (``REFERENCING OLD/NEW TABLE``): one
  ``INSERT ... ON CONFLICT DO UPDATE`` per statement, its buckets in ascending order, so two transactions
  lock bucket rows in the same order and never deadlock on them (the rating task writes all its players
  in one statement, after locking their rating rows: ``ratings.services``).
- SQLite: row-level triggers (it has no others); the database lock serializes writers anyway.

A player counts in ``everyone`` from the first rated match, in ``established`` from the tenth
(``ratings.elo.PROVISIONAL_MATCHES``); bucket = ``floor(rating)`` (ratings are >= 100, so SQLite's
``CAST(rating AS INTEGER)``, which truncates, is the same).
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

ESTABLISHED = 10  # ratings.elo.PROVISIONAL_MATCHES when written; a change needs a migration of its own

_PG_DELTAS = {
    # TG_OP -> the signed rows whose sums per bucket are added
    "INSERT": "SELECT floor(rating)::int AS bucket, (rated_matches >= {n})::int AS e, "
              "(rated_matches > 0)::int AS a FROM new_rows",
    "DELETE": "SELECT floor(rating)::int AS bucket, -(rated_matches >= {n})::int AS e, "
              "-(rated_matches > 0)::int AS a FROM old_rows",
}
_PG_DELTAS["UPDATE"] = f"{_PG_DELTAS['INSERT']} UNION ALL {_PG_DELTAS['DELETE']}"

_PG_UPSERT = """
    INSERT INTO ratings_ratingbucket (bucket, established, everyone)
    SELECT d.bucket, SUM(d.e), SUM(d.a) FROM ({deltas}) d
    GROUP BY d.bucket HAVING SUM(d.e) <> 0 OR SUM(d.a) <> 0 ORDER BY d.bucket
    ON CONFLICT (bucket) DO UPDATE SET established = ratings_ratingbucket.established + EXCLUDED.established,
                                       everyone = ratings_ratingbucket.everyone + EXCLUDED.everyone;
"""

_PG_FUNCTION = """
CREATE OR REPLACE FUNCTION ratings_bucket_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN {insert}
    ELSIF TG_OP = 'UPDATE' THEN {update}
    ELSE {delete}
    END IF;
    RETURN NULL;
END
$$;
"""

_PG_TRIGGERS = {
    "INSERT": "REFERENCING NEW TABLE AS new_rows",
    "UPDATE": "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
    "DELETE": "REFERENCING OLD TABLE AS old_rows",
}

_SQLITE_UPSERT = """
    INSERT INTO ratings_ratingbucket (bucket, established, everyone)
    VALUES (CAST(NEW.rating AS INTEGER), NEW.rated_matches >= {n}, NEW.rated_matches > 0)
    ON CONFLICT (bucket) DO UPDATE SET established = established + excluded.established,
                                       everyone = everyone + excluded.everyone;
"""
# The removal side is a plain UPDATE: a flush (``DELETE FROM`` each table, in any order, as Django's
# TransactionTestCase does on SQLite) that empties the buckets first must not leave negative rows behind.
_SQLITE_REMOVE = """
    UPDATE ratings_ratingbucket SET established = established - (OLD.rated_matches >= {n}),
                                    everyone = everyone - (OLD.rated_matches > 0)
    WHERE bucket = CAST(OLD.rating AS INTEGER);
"""
_SQLITE_CHANGED = (
    "CAST(OLD.rating AS INTEGER) <> CAST(NEW.rating AS INTEGER)"
    " OR (OLD.rated_matches >= {n}) <> (NEW.rated_matches >= {n})"
    " OR (OLD.rated_matches > 0) <> (NEW.rated_matches > 0)"
)


def _sqlite_statements() -> list[str]:
    add = _SQLITE_UPSERT.format(n=ESTABLISHED)
    remove = _SQLITE_REMOVE.format(n=ESTABLISHED)
    changed = _SQLITE_CHANGED.format(n=ESTABLISHED)
    return [
        f"CREATE TRIGGER ratings_bucket_insert AFTER INSERT ON ratings_playerrating "
        f"WHEN NEW.rated_matches > 0 BEGIN {add} END",
        f"CREATE TRIGGER ratings_bucket_update AFTER UPDATE ON ratings_playerrating "
        f"WHEN {changed} BEGIN {remove} {add} END",
        f"CREATE TRIGGER ratings_bucket_delete AFTER DELETE ON ratings_playerrating "
        f"WHEN OLD.rated_matches > 0 BEGIN {remove} END",
    ]


def _postgresql_statements() -> list[str]:
    bodies = {op: _PG_UPSERT.format(deltas=deltas.format(n=ESTABLISHED)) for op, deltas in _PG_DELTAS.items()}
    statements = [_PG_FUNCTION.format(insert=bodies["INSERT"], update=bodies["UPDATE"], delete=bodies["DELETE"])]
    for op, referencing in _PG_TRIGGERS.items():
        statements.append(
            f"CREATE TRIGGER ratings_bucket_{op.lower()} AFTER {op} ON ratings_playerrating {referencing} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION ratings_bucket_sync()"
        )
    return statements


FILL = (
    "INSERT INTO ratings_ratingbucket (bucket, established, everyone) "
    "SELECT {bucket}, SUM(CASE WHEN rated_matches >= {n} THEN 1 ELSE 0 END), COUNT(*) "
    "FROM ratings_playerrating WHERE rated_matches > 0 GROUP BY 1"
)
"""Counts the rows already there (a database rated before this migration); from then on the triggers."""


def bucket_expression(vendor: str) -> str:
    """SQL of a rating's bucket on ``vendor`` (``floor(rating)``)."""
    return "CAST(rating AS INTEGER)" if vendor == "sqlite" else "floor(rating)::int"


def create(apps: Any, schema_editor: Any) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        statements = _postgresql_statements()
    elif vendor == "sqlite":
        statements = _sqlite_statements()
    else:  # pragma: no cover - the project runs on these two only
        raise NotImplementedError(f"rating buckets have no triggers for {vendor}")
    for statement in statements:
        schema_editor.execute(statement)
    schema_editor.execute(FILL.format(bucket=bucket_expression(vendor), n=ESTABLISHED))


def drop(apps: Any, schema_editor: Any) -> None:
    for op in ("insert", "update", "delete"):
        schema_editor.execute(f"DROP TRIGGER IF EXISTS ratings_bucket_{op}"
                              + (" ON ratings_playerrating" if schema_editor.connection.vendor != "sqlite" else ""))
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS ratings_bucket_sync()")


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0002_name_prefix_indexes"),
    ]

    operations = [
        migrations.CreateModel(
            name="RatingBucket",
            fields=[
                ("bucket", models.IntegerField(primary_key=True, serialize=False, verbose_name="rating bucket")),
                ("established", models.IntegerField(default=0, verbose_name="established players")),
                ("everyone", models.IntegerField(default=0, verbose_name="rated players")),
            ],
        ),
        migrations.RunPython(create, drop, elidable=False),
    ]
