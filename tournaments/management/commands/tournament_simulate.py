"""``manage.py tournament_simulate --players N --rounds R --seed S --json``: a whole Swiss tournament of
house bots through the real services and tasks (Celery eager), bot-vs-bot matches at engine speed.

``--seed`` fixes the field (bot levels, drawn uniformly from ``--levels``, default 1..5) and every
deal (seeded decks); the bots' own choices are seeded by match id and seq.
Prints JSON: ``{"players": N, "rounds": [{"number", "seconds", "pairings": [{"board", "players":
[a, b], "points": [1, 0], "hand_points": [x, y]}], "bye": name | null}], "standings": [{"rank",
"player", "level", "score", "buchholz", "sonneborn_berger", "hand_point_diff", "rating"}],
"seconds": total}``. A tqdm bar on stderr counts finished matches (not in the JSON).
"""

from __future__ import annotations

import json
import logging
import random
import time
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from tqdm import tqdm

from accounts.services import house_bot_pool
from engine.deck import seeded_deck
from games import services as game_services
from games.models import Match, MatchStatus
from games.signals import match_finished
from tournaments import selectors, services
from tournaments.models import Registration, Tournament, TournamentStatus

_UNSET = object()


class Command(BaseCommand):
    help = "Simulate a Swiss tournament of house bots through the real services and tasks; JSON out."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--rounds", type=int, required=True)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--target", type=int, default=50, choices=(50, 100))
        parser.add_argument("--levels", default="1,2,3,4,5",
                            help="bot levels to draw the field from, e.g. 1,2,3 (level 5 samples: slow)")
        parser.add_argument("--json", action="store_true", help="print the result as JSON (the default)")

    def handle(self, *args: Any, **options: Any) -> None:
        players, rounds, seed = options["players"], options["rounds"], options["seed"]
        if not 2 <= players <= 500:
            raise CommandError("--players must be 2..500")
        if not 1 <= rounds <= 15:
            raise CommandError("--rounds must be 1..15")
        try:
            pool = sorted({int(level) for level in options["levels"].split(",")})
        except ValueError:
            raise CommandError("--levels must be bot levels 1..5, e.g. 1,2,3") from None
        if not pool or not set(pool) <= {1, 2, 3, 4, 5}:
            raise CommandError("--levels must be bot levels 1..5, e.g. 1,2,3")
        rng = random.Random(seed)
        levels = [rng.choice(pool) for _ in range(players)]
        deals = random.Random(seed * 7919 + 1)
        original_deck = game_services.new_deck
        game_services.new_deck = lambda: seeded_deck(deals.getrandbits(48))  # type: ignore[assignment]
        eager = current_app.conf.task_always_eager
        current_app.conf.task_always_eager = True
        # Server moves through the Celery driver (eager: the task plays a bot-vs-bot match out in this
        # process, synchronously) rather than in-process timer threads racing on the database.
        saved = {name: getattr(settings, name, _UNSET) for name in ("GAMES_SERVER_MOVES_IN_PROCESS",)}
        settings.GAMES_SERVER_MOVES_IN_PROCESS = False
        logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
        bar = tqdm(total=players // 2 * rounds, desc="matches", unit="match", file=self.stderr._out,
                   disable=None)

        def tick(sender: Any, **kwargs: Any) -> None:
            bar.update(1)

        match_finished.connect(tick, dispatch_uid="tournament_simulate.tick")
        started = time.perf_counter()
        try:
            tournament = self._run(levels, rounds, options["target"])
        finally:
            match_finished.disconnect(dispatch_uid="tournament_simulate.tick")
            bar.close()
            current_app.conf.task_always_eager = eager
            for name, value in saved.items():
                if value is _UNSET:
                    delattr(settings, name)
                else:
                    setattr(settings, name, value)
            game_services.new_deck = original_deck  # type: ignore[assignment]
        elapsed = time.perf_counter() - started
        self.stdout.write(json.dumps(self._report(tournament, elapsed), ensure_ascii=False))

    def _run(self, levels: list[int], rounds: int, target: int) -> Tournament:
        now = timezone.now()
        tournament = Tournament.objects.create(
            name_en="Simulation", name_pt="Simulação", starts_at=now, status=TournamentStatus.OPEN,
            match_target=target, fixed_rounds=rounds, min_players=2, max_players=max(2, len(levels)),
        )
        for level in sorted(set(levels)):
            for bot in house_bot_pool(level=level, count=levels.count(level)):
                Registration.objects.create(tournament=tournament, user=bot)
        services.tournament_start(tournament_id=tournament.pk, now=now, bots_only=True)
        # The server plays each bot-vs-bot match out at engine speed (games' server-move driver, called
        # here as its worker would); each match's end records its round (eager task), whose end pairs
        # the next one. The due steps of the sweep pick up anything a step left.
        for _ in range(rounds * 20 + 10):
            tournament.refresh_from_db()
            if tournament.status == TournamentStatus.FINISHED:
                break
            active = Match.objects.filter(tournament_pairing__round__tournament=tournament,
                                          status=MatchStatus.ACTIVE).values_list("pk", flat=True)
            for match_id in list(active):
                game_services.match_play_server_moves(match_id=match_id)
            for name, tid in services.tournaments_due():
                if tid == tournament.pk:
                    services.step_enqueue(name, tid)
        tournament.refresh_from_db()
        if tournament.status != TournamentStatus.FINISHED:
            raise CommandError(f"the tournament did not finish (status {tournament.status})")
        return tournament

    def _report(self, tournament: Tournament, elapsed: float) -> dict[str, Any]:
        name = {r.user_id: r.user.username for r in tournament.registrations.select_related("user")}
        level = {r.user_id: r.user.bot_level for r in tournament.registrations.select_related("user")}
        rounds = []
        for round_ in selectors.rounds_of(tournament):
            boards = list(round_.pairings.order_by("board"))
            rounds.append({
                "number": round_.number,
                "seconds": round((round_.finished_at - round_.started_at).total_seconds(), 3)
                if round_.finished_at else None,
                "pairings": [
                    {"board": p.board, "players": [name[p.player0_id], name[p.player1_id]],
                     "points": p.points, "hand_points": p.hand_points}
                    for p in boards if p.player1_id is not None
                ],
                "bye": next((name[p.player0_id] for p in boards if p.player1_id is None), None),
            })
        standings = [
            {"rank": row.line.rank, "player": name[int(row.line.player)],
             "level": level[int(row.line.player)],
             "score": row.line.score, "buchholz": row.line.buchholz,
             "sonneborn_berger": row.line.sonneborn_berger, "hand_point_diff": row.line.hand_point_diff,
             "rating": row.line.rating}
            for row in selectors.standings_of(tournament)
        ]
        return {"tournament": tournament.pk, "players": len(name), "rounds": rounds, "standings": standings,
                "seconds": round(elapsed, 3)}
