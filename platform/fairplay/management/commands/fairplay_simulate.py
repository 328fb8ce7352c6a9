"""``manage.py fairplay_simulate [--seed S] [--honest 200] [--rounds 2] [--farm 8] [--farmer-others 4]
[--assisted 4] [--target 50]``: issue 25's seeded population (``fairplay.simulation``) played, rated and
its signals refreshed; prints JSON:

    {"seed": S, "matches": n, "users": {"farmer": id, "puppet": id, "assisted": id},
     "queue": {"threshold", "top": [{"user", "role", "strength", "signals"}], "max_honest_strength",
               "margin", "above_threshold": [role, ...]},
     "ratings": {"farmer", "puppet", "assisted"}, "assisted_match_ids": [...],
     "seconds": {"setup", "play", "rate", "signals"}}

The accounts are ``sim<seed>-...``; a seed already used is refused (use another). A tqdm bar on stderr
counts the matches (never in the JSON).
"""

from __future__ import annotations

import json
from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from fairplay import simulation
from ratings.models import PlayerRating


class Command(BaseCommand):
    help = "Simulate honest members, a colluding pair and an assisted member; rate; refresh signals; JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--honest", type=int, default=200, help="honest members (even, 4 or more)")
        parser.add_argument("--rounds", type=int, default=2, help="rated matches per honest member")
        parser.add_argument("--farm", type=int, default=8, help="matches the puppet resigns to the farmer")
        parser.add_argument("--farmer-others", type=int, default=4)
        parser.add_argument("--assisted", type=int, default=4, help="matches of the level-5 member")
        parser.add_argument("--target", type=int, default=50, choices=(50, 100))

    def handle(self, *args: Any, **options: Any) -> None:
        if not 0 <= options["seed"] < 2**62:
            raise CommandError("--seed must be 0..2**62-1")
        stream = cast(TextIO, self.stderr._out)
        bar = tqdm(desc="matches", unit="match", file=stream, disable=None)

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        try:
            sample = simulation.simulate(
                seed=options["seed"], honest=options["honest"], rounds=options["rounds"],
                farm=options["farm"], farmer_others=options["farmer_others"], assisted=options["assisted"],
                target=options["target"], progress=progress)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        finally:
            bar.close()
        ratings = dict(PlayerRating.objects.filter(
            user_id__in=[sample.farmer, sample.puppet, sample.assisted]).values_list("user_id", "rating"))
        self.stdout.write(json.dumps({
            "seed": sample.seed, "matches": len(sample.match_ids),
            "users": {"farmer": sample.farmer, "puppet": sample.puppet, "assisted": sample.assisted},
            "queue": simulation.queue_report(sample),
            "ratings": {role: round(ratings.get(pk, 1500.0), 2) for role, pk in (
                ("farmer", sample.farmer), ("puppet", sample.puppet), ("assisted", sample.assisted))},
            "assisted_match_ids": sample.assisted_match_ids,
            "seconds": sample.seconds,
        }))
