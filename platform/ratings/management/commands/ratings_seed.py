"""``manage.py ratings_seed``: seed a realistic rated population for the rankings/profile benchmarks.

Creates ``--players`` members (``seed-000001``...; no usable password) and ``--matches`` finished rated
matches between them (and, ``--bot-share`` of them, against the house bots), played in time order over
the last ``--days`` days with outcomes drawn from each pair's expected score (hidden "true" strengths
spread like a real site's), rated with the real arithmetic (``ratings.elo``, K bands and floor
included): the ``games.Match`` rows, one ``RatingChange`` per human side, and the final ``PlayerRating``
rows. Bulk inserts in batches, with a progress bar (tqdm).

Documented target: ``--players 100000 --matches 1000000`` on PostgreSQL. Default: 100,000 players and
200,000 matches on PostgreSQL, 5,000 and 20,000 on SQLite. Refuses to run twice (``--force`` adds more).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone
from tqdm import tqdm

from accounts.models import User
from accounts.services import house_bots_ensure
from engine.rules import PRESETS
from games.models import Match, MatchStatus, ResultReason
from ratings import elo
from ratings.models import PlayerRating, RatingChange
from ratings.selectors import bot_rating

BATCH = 5000
PREFIX = "seed-"


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
        bots = house_bots_ensure()
        start = User.objects.filter(username__startswith=PREFIX).count()
        ids = self._players(start, players)
        strength = {pk: rng.gauss(1500, 250) for pk in ids}
        # Per player: rating, peak, rated matches, wins, losses, last rated at.
        state = {pk: [elo.INITIAL_RATING, elo.INITIAL_RATING, 0, 0, 0, None] for pk in ids}
        now = timezone.now()
        begin = now - timedelta(days=days)
        step = (now - begin) / max(1, matches)
        rules = PRESETS["classic"].to_dict()
        field = RatingChange._meta.get_field("created_at")
        field.auto_now_add = False  # type: ignore[attr-defined]  # the history is in the past
        try:
            bar = tqdm(total=matches, unit="match", desc="rated matches")
            done = 0
            while done < matches:
                size = min(BATCH, matches - done)
                self._batch(rng, ids, bots, strength, state, rules, begin, step, done, size,
                            options["bot_share"])
                done += size
                bar.update(size)
            bar.close()
        finally:
            field.auto_now_add = True  # type: ignore[attr-defined]
        rows = [PlayerRating(user_id=pk, rating=s[0], peak=s[1], rated_matches=s[2], wins=s[3], losses=s[4],
                             last_rated_at=s[5]) for pk, s in state.items() if s[2] > 0]
        for i in tqdm(range(0, len(rows), BATCH), desc="ratings", unit="batch"):
            PlayerRating.objects.bulk_create(rows[i:i + BATCH], batch_size=BATCH)
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        self.stdout.write(f"seeded {len(ids)} players, {matches} rated matches, {len(rows)} ratings")

    def _players(self, start: int, count: int) -> list[int]:
        created: list[int] = []
        for i in tqdm(range(0, count, BATCH), desc="players", unit="batch"):
            users = [User(username=f"{PREFIX}{start + j + 1:07d}", password="!")
                     for j in range(i, min(count, i + BATCH))]
            User.objects.bulk_create(users, batch_size=BATCH)
        names = [f"{PREFIX}{start + j + 1:07d}" for j in range(count)]
        for i in range(0, count, 20_000):
            chunk = names[i:i + 20_000]
            created += list(User.objects.filter(username__in=chunk).values_list("pk", flat=True))
        return created

    def _batch(self, rng: random.Random, ids: list[int], bots: list[User], strength: dict[int, float],
               state: dict[int, list[Any]], rules: dict[str, Any], begin: Any, step: Any, done: int,
               size: int, bot_share: float) -> None:
        plans = []
        for i in range(size):
            at = begin + step * (done + i)
            a = rng.choice(ids)
            if rng.random() < bot_share:
                bot = bots[rng.randrange(len(bots))]
                b, b_strength = bot, float(bot_rating(bot.bot_level or 0))
            else:
                b = rng.choice(ids)
                while b == a:
                    b = rng.choice(ids)
                b_strength = strength[b]
            a_wins = rng.random() < elo.expected_score(strength[a], b_strength)
            plans.append((a, b, a_wins, at))
        with transaction.atomic():
            match_rows = Match.objects.bulk_create([
                Match(rules=rules, preset="classic", player0_id=a,
                      player1_id=b.pk if isinstance(b, User) else b,
                      bot_level=b.bot_level if isinstance(b, User) else None, status=MatchStatus.FINISHED,
                      scores=[100, 40] if a_wins else [40, 100], winner=0 if a_wins else 1,
                      result_reason=ResultReason.TARGET, last_seq=0, rated=True, turn_timer_seconds=60,
                      first_dealer=0, started_at=at, finished_at=at)
                for a, b, a_wins, at in plans
            ], batch_size=BATCH)
            changes = []
            for match, (a, b, a_wins, at) in zip(match_rows, plans, strict=True):
                sides = [(a, a_wins)] + ([] if isinstance(b, User) else [(b, not a_wins)])
                opp_of = {a: b}
                if not isinstance(b, User):
                    opp_of[b] = a
                before = {pk: state[pk][0] for pk, _ in sides}
                for pk, won in sides:
                    s = state[pk]
                    opp = opp_of[pk]
                    opp_rating = (float(bot_rating(opp.bot_level or 0)) if isinstance(opp, User)
                                  else before[opp])
                    k = elo.k_factor(rated_matches=s[2], peak_rating=s[1])
                    update = elo.rate(rating=s[0], opponent=opp_rating, score=int(won), k=k)
                    changes.append(RatingChange(
                        match_id=match.pk, player_id=pk,
                        opponent_id=opp.pk if isinstance(opp, User) else opp,
                        opponent_is_bot=isinstance(opp, User), before=update.before, after=update.after,
                        delta=update.delta, k=k, expected=update.expected, opponent_rating=opp_rating,
                        won=won, created_at=at,
                    ))
                    s[0], s[1] = update.after, max(s[1], update.after)
                    s[2], s[3], s[4], s[5] = s[2] + 1, s[3] + int(won), s[4] + int(not won), at
            RatingChange.objects.bulk_create(changes, batch_size=BATCH)
