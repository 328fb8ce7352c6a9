"""``manage.py tournament_simulate --players N --rounds R --seed S --json``: a whole Swiss tournament of
house bots through the real services and tasks (Celery eager), bot-vs-bot matches at engine speed
(``GAMES_BOT_VS_BOT_DELAY`` is 0 while it runs).

Reproducible: ``--seed`` fixes the field (bot levels, drawn uniformly from ``--levels``, default 1..5)
and is stored as the tournament's ``simulation_seed``, from which every match is seeded by its round
and board (first dealer, cut, deals, the bots' choices: ``games.services`` "Seeded matches"); players
equal on score and rating are ordered by name, never by row id. The same arguments give the same JSON
on SQLite and on PostgreSQL, on a fresh database or a used one, except ``tournament`` (the row's id)
and ``timings``.

Prints JSON::

    {"seed": S, "players": N, "target": T, "levels": [1, 2],
     "rounds": [{"number", "pairings": [{"board", "players": [a, b], "points": [1, 0],
                                         "hand_points": [x, y]}], "bye": name | null}],
     "standings": [{"rank", "player", "level", "score", "buchholz", "sonneborn_berger",
                    "hand_point_diff", "rating"}],
     "tournament": id,
     "timings": {"database": "sqlite" | "postgresql", "wall_seconds", "cpu_seconds",
                 "rounds": [{"number", "wall_seconds", "cpu_seconds", "pairing_seconds",
                             "pairing_cpu_seconds", "matches", "moves"}]}}

``--format arena --minutes M [--players N]``: a simulated Arena instead (``tournaments.arena_simulation``:
house bots as simulated people, a virtual clock of one wave a minute); prints ``{"format": "arena",
"players", "matches", "waves", "winner", "immediate_rematches": 0, "score_mismatches": 0,
"max_matches_at_once": 1, "streak_bonus_points", "standings": [{"rank", "player", "score",
"performance", "games"}], "timings": {..., "waves": [{"minute", "recorded", "paired", "wave_seconds",
"pairing_seconds"}]}}``. ``--bench-wave N``: one Arena wave with N players waiting, timed (pairing alone
and the whole database wave), rolled back; prints ``{"players", "pairs", "pairing_seconds",
"wave_seconds", "wave_cpu_seconds", "database"}``.

``timings``: a round's wall and CPU seconds run from the start of its ``pair_round`` task to the commit
that closes it (its pairing, every match played out, the records); ``pairing_seconds`` (wall) and
``pairing_cpu_seconds`` are those of its pairing step up to the round's row (the field read and
``swiss.pair_round``); ``moves`` counts the round's player actions (bot moves).
CPU is this process's (every thread), so on PostgreSQL the database server's own CPU is not in it;
the totals also hold the setup (bot accounts, registrations) and the finish. A tqdm bar on stderr
counts finished matches (never in the JSON).
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

from celery import current_app
from celery.signals import task_prerun
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.models.signals import post_save
from django.utils import timezone
from tqdm import tqdm

from accounts.services import house_bot_pool
from games import services as game_services
from games.models import Match, MatchEvent, MatchStatus
from games.signals import match_finished
from tournaments import arena_simulation, selectors, services
from tournaments.models import Registration, Round, RoundStatus, Tournament, TournamentStatus

_UNSET = object()


class _Clock:
    """Wall (``perf_counter``) and CPU (``process_time``) stamps of each round's start, pairing and
    end, taken from the ``pair_round`` task's start and the round row's saves."""

    def __init__(self) -> None:
        self.pending: tuple[float, float] | None = None
        self.start: dict[int, tuple[float, float]] = {}
        self.paired: dict[int, tuple[float, float]] = {}
        self.end: dict[int, tuple[float, float]] = {}

    @staticmethod
    def now() -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    def task_started(self, sender: Any = None, **kwargs: Any) -> None:
        if getattr(sender, "name", "") == "tournaments.tasks.pair_round":
            self.pending = self.now()

    def round_saved(self, sender: Any, instance: Round, created: bool, **kwargs: Any) -> None:
        stamp = self.now()
        if created:
            self.start[instance.number] = self.pending or stamp
            self.paired[instance.number] = stamp
            self.pending = None
        elif instance.status == RoundStatus.FINISHED and instance.number not in self.end:
            self.end[instance.number] = stamp


def _levels(given: str, players: int, seed: int) -> tuple[list[int], list[int]]:
    """``(pool, levels)``: the bot levels ``--levels`` names (sorted, each 1..5) and one drawn per player
    from ``seed``. :raises CommandError: a bad seed or level list."""
    if not 0 <= seed <= game_services.MAX_SIMULATION_SEED:
        raise CommandError("--seed must be 0..2**63-1")
    try:
        pool = sorted({int(level) for level in given.split(",")})
    except ValueError:
        raise CommandError("--levels must be bot levels 1..5, e.g. 1,2,3") from None
    if not pool or not set(pool) <= {1, 2, 3, 4, 5}:
        raise CommandError("--levels must be bot levels 1..5, e.g. 1,2,3")
    rng = random.Random(seed)
    return pool, [rng.choice(pool) for _ in range(players)]


@contextmanager
def _engine_speed() -> Iterator[None]:
    """Run a simulation's matches in this process at engine speed, then put the settings back.

    Server moves go through the Celery driver, eager (the task plays a bot-vs-bot match out in this
    process, synchronously), rather than in-process timer threads racing on the database; bot-vs-bot
    moves have no watchable pace (games/conf.py: nobody watches a simulation, and an eager task would
    not wait for a countdown anyway)."""
    saved = {name: getattr(settings, name, _UNSET)
             for name in ("GAMES_SERVER_MOVES_IN_PROCESS", "GAMES_BOT_VS_BOT_DELAY")}
    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    settings.GAMES_SERVER_MOVES_IN_PROCESS = False
    settings.GAMES_BOT_VS_BOT_DELAY = 0
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
    try:
        yield
    finally:
        current_app.conf.task_always_eager = eager
        for name, value in saved.items():
            if value is _UNSET:
                delattr(settings, name)
            else:
                setattr(settings, name, value)


class Command(BaseCommand):
    help = ("Simulate a Swiss (or, --format arena, an Arena) tournament of house bots through the real "
            "services and tasks; JSON out.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=None, help="Swiss: required; Arena: default 16")
        parser.add_argument("--rounds", type=int, default=None, help="Swiss: required")
        parser.add_argument("--format", default="swiss", choices=("swiss", "arena"))
        parser.add_argument("--minutes", type=int, default=10,
                            help="Arena: its duration in virtual minutes (one wave a minute), 1..240")
        parser.add_argument("--bench-wave", type=int, default=None, metavar="N",
                            help="time one Arena wave with N players waiting (2..1000) and exit")
        parser.add_argument("--seed", type=int, default=1, help="0..2**63-1; the same seed, the same JSON")
        parser.add_argument("--target", type=int, default=50, choices=(50, 100))
        parser.add_argument("--levels", default="1,2,3,4,5",
                            help="bot levels to draw the field from, e.g. 1,2,3 (level 5 samples: slow)")
        parser.add_argument("--json", action="store_true", help="print the result as JSON (the default)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["bench_wave"] is not None:
            if not 2 <= options["bench_wave"] <= 1000:
                raise CommandError("--bench-wave must be 2..1000")
            bench = arena_simulation.bench_wave(options["bench_wave"], seed=options["seed"])
            self.stdout.write(json.dumps(bench))
            return
        if options["format"] == "arena":
            self._handle_arena(options)
            return
        players, rounds, seed = options["players"], options["rounds"], options["seed"]
        if players is None or rounds is None:
            raise CommandError("a Swiss simulation needs --players and --rounds")
        if not 2 <= players <= 500:
            raise CommandError("--players must be 2..500")
        if not 1 <= rounds <= 15:
            raise CommandError("--rounds must be 1..15")
        pool, levels = _levels(options["levels"], players, seed)
        # stderr's wrapped stream: private, so Django's stubs know it only as some attribute.
        stream = cast(TextIO, self.stderr._out)
        bar = tqdm(total=players // 2 * rounds, desc="matches", unit="match", file=stream, disable=None)

        def tick(sender: Any, **kwargs: Any) -> None:
            bar.update(1)

        clock = _Clock()
        match_finished.connect(tick, dispatch_uid="tournament_simulate.tick")
        task_prerun.connect(clock.task_started, dispatch_uid="tournament_simulate.clock", weak=False)
        post_save.connect(clock.round_saved, sender=Round, dispatch_uid="tournament_simulate.clock",
                          weak=False)
        started = clock.now()
        try:
            with _engine_speed():
                tournament = self._run(levels, rounds, options["target"], seed)
        finally:
            match_finished.disconnect(dispatch_uid="tournament_simulate.tick")
            task_prerun.disconnect(dispatch_uid="tournament_simulate.clock")
            post_save.disconnect(sender=Round, dispatch_uid="tournament_simulate.clock")
            bar.close()
        ended = clock.now()
        report = self._report(tournament, seed=seed, target=options["target"], pool=pool)
        report["timings"] = self._timings(tournament, clock, started, ended)
        self.stdout.write(json.dumps(report, ensure_ascii=False))

    def _handle_arena(self, options: dict[str, Any]) -> None:
        """``--format arena``: one simulated Arena (``tournaments.arena_simulation``), JSON out."""
        players, minutes, seed = options["players"] or 16, options["minutes"], options["seed"]
        if not 2 <= players <= 500:
            raise CommandError("--players must be 2..500")
        if not 1 <= minutes <= 240:
            raise CommandError("--minutes must be 1..240")
        pool, levels = _levels(options["levels"], players, seed)
        stream = cast(TextIO, self.stderr._out)
        bar = tqdm(desc="matches", unit="match", file=stream, disable=None)
        try:
            with _engine_speed():
                report = arena_simulation.run_arena(levels, minutes=minutes, target=options["target"],
                                                    seed=seed, tick=lambda: bool(bar.update(1)))
        finally:
            bar.close()
        report["levels"] = pool
        if report["status"] != TournamentStatus.FINISHED:
            raise CommandError(f"the Arena did not finish (status {report['status']})")
        self.stdout.write(json.dumps(report, ensure_ascii=False))

    def _run(self, levels: list[int], rounds: int, target: int, seed: int) -> Tournament:
        now = timezone.now()
        tournament = Tournament.objects.create(
            name_en="Simulation", name_pt="Simulação", starts_at=now, status=TournamentStatus.OPEN,
            match_target=target, fixed_rounds=rounds, min_players=2, max_players=max(2, len(levels)),
            simulation_seed=seed, is_simulation=True,  # off the public lists (docs/tournaments.md)
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
            for match_id in sorted(active):
                game_services.match_play_server_moves(match_id=match_id)
            for name, tid in services.tournaments_due():
                if tid == tournament.pk:
                    services.step_enqueue(name, tid)
        tournament.refresh_from_db()
        if tournament.status != TournamentStatus.FINISHED:
            raise CommandError(f"the tournament did not finish (status {tournament.status})")
        return tournament

    def _report(self, tournament: Tournament, *, seed: int, target: int, pool: list[int]) -> dict[str, Any]:
        name = {r.user_id: r.user.username for r in tournament.registrations.select_related("user")}
        level = {r.user_id: r.user.bot_level for r in tournament.registrations.select_related("user")}
        rounds = []
        for round_ in selectors.rounds_of(tournament):
            boards = list(round_.pairings.order_by("board"))
            rounds.append({
                "number": round_.number,
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
        return {"seed": seed, "players": len(name), "target": target, "levels": pool, "rounds": rounds,
                "standings": standings, "tournament": tournament.pk}

    def _timings(self, tournament: Tournament, clock: _Clock, started: tuple[float, float],
                 ended: tuple[float, float]) -> dict[str, Any]:
        rounds = []
        for number in sorted(clock.end):
            start, end = clock.start[number], clock.end[number]
            matches = Match.objects.filter(tournament_pairing__round__tournament=tournament,
                                           tournament_pairing__round__number=number)
            moves = MatchEvent.objects.filter(match__in=matches, type="action").count()
            rounds.append({
                "number": number,
                "wall_seconds": round(end[0] - start[0], 3),
                "cpu_seconds": round(end[1] - start[1], 3),
                "pairing_seconds": round(clock.paired[number][0] - start[0], 3),
                "pairing_cpu_seconds": round(clock.paired[number][1] - start[1], 3),
                "matches": matches.count(),
                "moves": moves,
            })
        return {"database": connection.vendor, "wall_seconds": round(ended[0] - started[0], 3),
                "cpu_seconds": round(ended[1] - started[1], 3), "rounds": rounds}
