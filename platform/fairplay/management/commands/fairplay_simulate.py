"""``manage.py fairplay_simulate [--seed S] [--honest 200] [--rounds 2] [--farm 8] [--farmer-others 4]
[--assisted 15] [--regulars 4] [--regular-rounds 3] [--days D] [--target 50] [--analyse [--worlds W]]``:
issue 25's seeded population (``fairplay.simulation``) played over simulated days, rated and its signals
refreshed; with ``--analyse``, the assistance analysis (``fairplay.simulation.assistance_analysis``) of
the assisted member's matches and the regulars' round robins, at ``--worlds`` worlds per judged
decision (default: the site's ``FAIRPLAY_ASSISTANCE_WORLDS``), then the signals again. Prints JSON:

    {"seed": S, "matches": n, "users": {"farmer": id, "puppet": id, "assisted": id},
     "queue": {"threshold", "top": [{"user", "role", "strength", "signals"}], "max_honest_strength",
               "margin", "above_threshold": [role, ...]},
     "ratings": {"farmer", "puppet", "assisted"}, "assisted_match_ids": [...], "days": D,
     "assistance": {"assisted": {"decisions", "agreement", "loss_per_decision", "z", "rating", "band"},
                    "honest_seats", "honest_players", "honest_with_z", "max_honest_z",
                    "max_honest_agreement", "regulars": {...}}   (only with --analyse)
     "seconds": {"setup", "play", "rate", "signals", "analyse"}}

The accounts are ``sim<seed>-...``; a seed already used is refused (use another). A tqdm bar on stderr
counts the matches (never in the JSON).
"""

from __future__ import annotations

import json
from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test.utils import override_settings
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
        parser.add_argument("--assisted", type=int, default=15, help="matches of the level-5 member")
        parser.add_argument("--regulars", type=int, default=4,
                            help="honest members (levels 1-4 in turn) who also play round robins: the "
                                 "honest sample --analyse judges")
        parser.add_argument("--regular-rounds", type=int, default=3, help="the regulars' round robins")
        parser.add_argument("--days", type=int, default=None,
                            help="simulated days (default: as few as the pair cap allows the farm)")
        parser.add_argument("--target", type=int, default=50, choices=(50, 100))
        parser.add_argument("--analyse", action="store_true",
                            help="run the assistance analysis (assisted member's and regulars' matches)")
        parser.add_argument("--worlds", type=int, default=None,
                            help="worlds per judged decision for --analyse (FAIRPLAY_ASSISTANCE_WORLDS)")

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
                regulars=options["regulars"], regular_rounds=options["regular_rounds"], days=options["days"],
                target=options["target"], progress=progress)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        finally:
            bar.close()
        assistance = None
        if options["analyse"]:
            worlds = {} if options["worlds"] is None else {"FAIRPLAY_ASSISTANCE_WORLDS": options["worlds"]}
            with override_settings(**worlds):
                simulation.analyse_sample(sample, simulation.assistance_analysis(sample))
            assistance = simulation.assistance_report(sample)
        ratings = dict(PlayerRating.objects.filter(
            user_id__in=[sample.farmer, sample.puppet, sample.assisted]).values_list("user_id", "rating"))
        self.stdout.write(json.dumps({
            "seed": sample.seed, "matches": len(sample.match_ids),
            "users": {"farmer": sample.farmer, "puppet": sample.puppet, "assisted": sample.assisted},
            "queue": simulation.queue_report(sample),
            "ratings": {role: round(ratings.get(pk, 1500.0), 2) for role, pk in (
                ("farmer", sample.farmer), ("puppet", sample.puppet), ("assisted", sample.assisted))},
            "assisted_match_ids": sample.assisted_match_ids, "days": sample.days,
            **({} if assistance is None else {"assistance": assistance}),
            "seconds": sample.seconds,
        }))
