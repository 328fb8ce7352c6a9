"""``manage.py ratings_seed``: seed a realistic rated population for the rankings/profile benchmarks.

Creates ``--players`` members (``seed-0000001``...; no usable password) and ``--matches`` finished rated
matches between them (and, ``--bot-share`` of them, against the house bots), played in time order over
the last ``--days`` days with outcomes drawn from each pair's expected score (hidden "true" strengths
spread like a real site's), rated with the real arithmetic (``ratings.elo``, K bands and floor
included), in one pass in Python: the ``games.Match`` rows, one ``RatingChange`` per human side, and the
final ``PlayerRating`` rows. Written in batches of :data:`BATCH` matches, one transaction each, with a
progress bar (tqdm): on PostgreSQL with ``COPY`` (ids reserved from the tables' sequences), elsewhere
with ``bulk_create``.

Documented target: ``--players 100000 --matches 1000000`` on PostgreSQL. Default: 100,000 players and
200,000 matches on PostgreSQL, 5,000 and 20,000 on SQLite. Refuses to run twice (``--force`` adds more).
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, models, transaction
from django.utils import timezone
from tqdm import tqdm

from accounts.models import User
from accounts.services import house_bots_ensure
from engine.rules import PRESETS
from games.models import Match, MatchStatus, ResultReason
from ratings import elo
from ratings.models import PlayerRating, RatingChange
from ratings.selectors import bot_rating

BATCH = 50_000
"""Matches per transaction (and per COPY): ~100 MB of Python rows at most, one commit each."""
PREFIX = "seed-"
ACTIVITY_SIGMA = 1.2

# A planned match: seat 0's user id, seat 1's user id, seat 1's bot level (None: a member), seat 0 won,
# finish time.
Plan = tuple[int, int, int | None, bool, datetime]

MATCH_COLUMNS = ("id", "rules", "preset", "bot_level", "status", "first_dealer", "scores", "winner",
                 "result_reason", "last_seq", "turn_timer_seconds", "timeout_strikes", "rated", "bot_seats",
                 "created_at", "started_at", "finished_at", "updated_at", "player0_id", "player1_id")
CHANGE_COLUMNS = ("id", "match_id", "player_id", "opponent_id", "opponent_is_bot", "before", "after",
                  "delta", "k", "expected", "opponent_rating", "won", "created_at")


class Command(BaseCommand):
    help = "Seed members and finished rated matches (with their rating history) for the ratings benchmarks."

    def add_arguments(self, parser: Any) -> None:
        postgres = connection.vendor == "postgresql"
        parser.add_argument("--players", type=int, default=100_000 if postgres else 5_000)
        parser.add_argument("--matches", type=int, default=200_000 if postgres else 20_000)
        parser.add_argument("--days", type=int, default=365)
        parser.add_argument("--bot-share", type=float, default=0.2, help="share of matches against a bot")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--force", action="store_true", help="seed even if seed players exist")

    def handle(self, *args: Any, **options: Any) -> None:
        players, matches, days = options["players"], options["matches"], options["days"]
        if not 2 <= players <= 10_000_000 or not 0 <= matches <= 100_000_000 or not 1 <= days <= 3650:
            raise CommandError("--players 2..1e7, --matches 0..1e8, --days 1..3650")
        if not 0 <= options["bot_share"] <= 1:
            raise CommandError("--bot-share must be 0..1")
        if User.objects.filter(username__startswith=PREFIX).exists() and not options["force"]:
            raise CommandError("seed players exist already (use --force to add more)")
        rng = random.Random(options["seed"])
        bots = {u.pk: u.bot_level or 0 for u in house_bots_ensure()}
        start = User.objects.filter(username__startswith=PREFIX).count()
        ids = self._players(start, players)
        strength = {pk: rng.gauss(1500, 250) for pk in ids}
        # How much each member plays, spread like a real site's (log-normal, sigma 1.2): at 100,000
        # players and 1,000,000 matches the median member has ~9 rated matches, the keenest ~2,000.
        activity = list(itertools.accumulate(rng.lognormvariate(0, ACTIVITY_SIGMA) for _ in ids))
        # Per player, carried from batch to batch: rating, peak, rated matches, wins, losses, last rated
        # at. A player seeded before (``--force``) restarts from 1500 only if it has no rating row.
        state: dict[int, list[Any]] = {
            pk: [elo.INITIAL_RATING, elo.INITIAL_RATING, 0, 0, 0, None] for pk in ids}
        now = timezone.now()
        begin = now - timedelta(days=days)
        step = (now - begin) / max(1, matches)
        writer = _CopyWriter() if connection.vendor == "postgresql" else _OrmWriter()
        bar = tqdm(total=matches, unit="match", desc="rated matches", smoothing=0.1)
        done = 0
        while done < matches:
            size = min(BATCH, matches - done)
            plans = _plan(rng, ids, activity, bots, strength,
                          [begin + step * (done + i) for i in range(size)], options["bot_share"])
            with transaction.atomic():
                match_ids = writer.matches(plans)
                writer.changes(_rate(plans, match_ids, bots, state))
            done += size
            bar.update(size)
        bar.close()
        rows = [PlayerRating(user_id=pk, rating=s[0], peak=s[1], rated_matches=s[2], wins=s[3], losses=s[4],
                             last_rated_at=s[5]) for pk, s in state.items() if s[2] > 0]
        for i in tqdm(range(0, len(rows), 5000), desc="ratings", unit="batch"):
            PlayerRating.objects.bulk_create(rows[i:i + 5000], batch_size=5000)
        if connection.vendor == "postgresql":
            # VACUUM too, as autovacuum soon would: it sets the visibility map, without which the boards'
            # index-only scans (a deep page, a rank) read the table's rows as well.
            with connection.cursor() as cursor:
                for model in (User, Match, RatingChange, PlayerRating):
                    cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")
        self.stdout.write(f"seeded {len(ids)} players, {matches} rated matches, {len(rows)} ratings")

    def _players(self, start: int, count: int) -> list[int]:
        created: list[int] = []
        for i in tqdm(range(0, count, 5000), desc="players", unit="batch"):
            users = [User(username=f"{PREFIX}{start + j + 1:07d}", password="!")
                     for j in range(i, min(count, i + 5000))]
            User.objects.bulk_create(users, batch_size=5000)
        names = [f"{PREFIX}{start + j + 1:07d}" for j in range(count)]
        for i in range(0, count, 20_000):
            chunk = names[i:i + 20_000]
            created += list(User.objects.filter(username__in=chunk).values_list("pk", flat=True))
        return created


def _plan(rng: random.Random, ids: Sequence[int], activity: Sequence[float], bots: dict[int, int],
          strength: dict[int, float], times: Sequence[datetime], bot_share: float) -> list[Plan]:
    """One match per time in ``times``: a member (drawn by ``activity``, cumulative weights) against
    another member drawn the same way or, with probability ``bot_share``, a house bot (``bots``: user
    id -> level), won with the expected score of the hidden strengths (a bot's: its fixed rating)."""
    bot_ids = list(bots)
    seats = iter(rng.choices(ids, cum_weights=activity, k=4 * len(times)))
    plans: list[Plan] = []
    for at in times:
        a = next(seats, None) or rng.choice(ids)
        if rng.random() < bot_share:
            b = bot_ids[rng.randrange(len(bot_ids))]
            level: int | None = bots[b]
            b_strength = float(bot_rating(bots[b]))
        else:
            b = next(seats, None) or rng.choice(ids)
            while b == a:
                b = rng.choice(ids)
            level, b_strength = None, strength[b]
        plans.append((a, b, level, rng.random() < elo.expected_score(strength[a], b_strength), at))
    return plans


def _rate(plans: Sequence[Plan], match_ids: Sequence[int], bots: dict[int, int],
          state: dict[int, list[Any]]) -> list[tuple[Any, ...]]:
    """Rate ``plans`` in order with the real arithmetic, updating ``state``; the ``RatingChange`` rows
    as tuples in :data:`CHANGE_COLUMNS` order without the id (both sides read the ratings before the
    match, as ``ratings.services`` does)."""
    changes: list[tuple[Any, ...]] = []
    for match_id, (a, b, level, a_won, at) in zip(match_ids, plans, strict=True):
        sa = state[a]
        sides: tuple[tuple[int, list[Any], int, float, bool, bool], ...]
        if level is not None:
            sides = ((a, sa, b, float(bot_rating(level)), a_won, True),)
        else:
            sb = state[b]
            sides = ((a, sa, b, sb[0], a_won, False), (b, sb, a, sa[0], not a_won, False))
        updates = []
        for pk, s, opp, opp_rating, won, opp_bot in sides:
            k = elo.k_factor(rated_matches=s[2], peak_rating=s[1])
            update = elo.rate(rating=s[0], opponent=opp_rating, score=int(won), k=k)
            changes.append((match_id, pk, opp, opp_bot, update.before, update.after, update.delta, k,
                            update.expected, opp_rating, won, at))
            updates.append((s, update.after, won))
        for s, after, won in updates:  # after both sides read the ratings before the match
            s[0], s[1] = after, max(s[1], after)
            s[2], s[3], s[4], s[5] = s[2] + 1, s[3] + int(won), s[4] + int(not won), at
    return changes


_RULES = json.dumps(PRESETS["classic"].to_dict())


def _match_row(match_id: int, plan: Plan) -> tuple[Any, ...]:
    """A finished rated match as a tuple in :data:`MATCH_COLUMNS` order (JSON columns as JSON text)."""
    a, b, level, a_won, at = plan
    return (match_id, _RULES, "classic", level, MatchStatus.FINISHED.value, 0,
            "[100, 40]" if a_won else "[40, 100]", 0 if a_won else 1, ResultReason.TARGET.value, 0, 60,
            "[0, 0]", True, "[1]" if level is not None else "[]", at, at, at, at, a, b)


class _CopyWriter:
    """PostgreSQL: ``COPY`` in text format through psycopg 3 (a tenth of ``bulk_create``'s time: no SQL
    to build, parse or plan per row), the ids reserved first from each table's sequence so the rating
    changes can name their matches."""

    def _ids(self, table: str, count: int) -> list[int]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
                           [table, count])
            return [row[0] for row in cursor.fetchall()]

    def _copy(self, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> None:
        raw = connection.connection  # psycopg's connection, inside Django's open transaction
        assert raw is not None
        with raw.cursor() as cursor, cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def matches(self, plans: Sequence[Plan]) -> list[int]:
        ids = self._ids(Match._meta.db_table, len(plans))
        rows = [_match_row(i, p) for i, p in zip(ids, plans, strict=True)]
        self._copy(Match._meta.db_table, MATCH_COLUMNS, rows)
        return ids

    def changes(self, rows: Sequence[tuple[Any, ...]]) -> None:
        ids = self._ids(RatingChange._meta.db_table, len(rows))
        self._copy(RatingChange._meta.db_table, CHANGE_COLUMNS,
                   [(i, *row) for i, row in zip(ids, rows, strict=True)])


class _OrmWriter:
    """Any other database (SQLite): ``bulk_create``, which returns the new ids there."""

    def matches(self, plans: Sequence[Plan]) -> list[int]:
        objs = Match.objects.bulk_create([
            Match(**_fields(MATCH_COLUMNS[1:], _match_row(0, p)[1:], Match)) for p in plans
        ], batch_size=5000)
        return [m.pk for m in objs]

    def changes(self, rows: Sequence[tuple[Any, ...]]) -> None:
        field = RatingChange._meta.get_field("created_at")
        field.auto_now_add = False  # the history is in the past
        try:
            RatingChange.objects.bulk_create(
                [RatingChange(**_fields(CHANGE_COLUMNS[1:], row, RatingChange)) for row in rows],
                batch_size=5000)
        finally:
            field.auto_now_add = True


def _fields(columns: Sequence[str], values: Sequence[Any], model: type[models.Model]) -> dict[str, Any]:
    """Model keyword arguments from column names (``player0_id``...) and values (JSON text decoded)."""
    json_fields = {f.attname for f in model._meta.concrete_fields if isinstance(f, models.JSONField)}
    return {c: json.loads(v) if c in json_fields else v for c, v in zip(columns, values, strict=True)}
