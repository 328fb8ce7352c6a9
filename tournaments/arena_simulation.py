"""The Arena side of ``manage.py tournament_simulate --format arena`` and its wave benchmark
(docs/tournaments.md "Arena"). Real services (``arena_play.arena_wave``), real matches played by the
server's driver at engine speed, on a virtual clock.

Simulated people: house bots never meet each other in a real Arena (they would play at engine speed and
run up scores), so a simulated event (``simulation_seed`` set) pairs its bots as if they were people.

Virtual clock: the event starts at the real time of the run and ends ``minutes`` later; the simulation
runs one wave per virtual minute (``now = start + k minutes``). In each minute each match in play ends
with probability 1/2 (drawn from the seed, in a fixed order), so players finish at different times and
are paired again with whoever is waiting, as in a real Arena; the event's own sweep and receiver are
held back meanwhile (the simulation runs the waves itself, on its clock). A match in play at the end is
played out and counts. The run takes about ``minutes x players / 2`` matches of CPU.
"""

from __future__ import annotations

import itertools
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from accounts.services import house_bot_pool
from games import scheduling
from games import services as game_services
from games.models import Match, MatchStatus
from tournaments import arena, arena_play, receivers, services, steps
from tournaments.models import ArenaGame, Registration, Tournament, TournamentFormat, TournamentStatus


@contextmanager
def _waves_held() -> Iterator[list[tuple[str, tuple[int, ...]]]]:
    """Hold back the steps the services and the receiver enqueue (the simulation runs them on its clock)."""
    held: list[tuple[str, tuple[int, ...]]] = []
    modules = (services, receivers, steps)
    saved = [module.step_enqueue for module in modules]

    def hold(name: str, *args: int) -> None:
        held.append((name, args))

    for module in modules:
        module.step_enqueue = hold  # type: ignore[attr-defined]
    try:
        yield held
    finally:
        for module, function in zip(modules, saved, strict=True):
            module.step_enqueue = function  # type: ignore[attr-defined]


def _arena_event(levels: list[int], *, minutes: int, target: int, seed: int, now: datetime) -> Tournament:
    tournament = Tournament.objects.create(
        name_en="Arena simulation", name_pt="Simulação de Arena", starts_at=now, status=TournamentStatus.OPEN,
        format=TournamentFormat.ARENA, duration_minutes=minutes, ends_at=now + timedelta(minutes=minutes),
        match_target=target, min_players=2, max_players=max(2, len(levels)), rated=False,
        simulation_seed=seed, is_simulation=True,
    )
    for level in sorted(set(levels)):
        for bot in house_bot_pool(level=level, count=levels.count(level)):
            Registration.objects.create(tournament=tournament, user=bot)
    return tournament


def run_arena(levels: list[int], *, minutes: int, target: int, seed: int,
              tick: Callable[[], object] = lambda: None) -> dict[str, Any]:
    """Run one simulated Arena; the report (module docstring of the command) with its invariants."""
    rng = random.Random(seed)
    now = timezone.now().replace(microsecond=0)
    wall, cpu = time.perf_counter(), time.process_time()
    waves: list[dict[str, Any]] = []
    max_at_once = 0
    with _waves_held():
        tournament = _arena_event(levels, minutes=minutes, target=target, seed=seed, now=now)
        services.tournament_start(tournament_id=tournament.pk, now=now, bots_only=True)
        for minute in range(minutes + 1000):
            clock = now + timedelta(minutes=minute)
            started = time.perf_counter()
            with scheduling.driving():  # the new matches wait for this loop to play them (below)
                result = arena_play.arena_wave(tournament_id=tournament.pk, now=clock)
            if result.paired or result.recorded:
                waves.append({"minute": minute, "recorded": result.recorded, "paired": result.paired,
                              "wave_seconds": round(time.perf_counter() - started, 4),
                              "pairing_seconds": round(result.pairing_seconds, 5)})
            max_at_once = max(max_at_once, _most_open_per_player(tournament))
            if result.finished:
                break
            in_play = (ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=True)
                       .order_by("wave", "player0__username", "player1__username")
                       .values_list("match_id", flat=True))
            over = clock >= (tournament.ends_at or clock)
            for match_id in list(in_play):
                if over or rng.random() < 0.5:  # this match ends during this minute
                    game_services.match_play_server_moves(match_id=match_id)
                    tick()
    tournament.refresh_from_db()
    report = arena_report(tournament)
    report.update({
        "seed": seed, "minutes": minutes, "target": target, "max_matches_at_once": max_at_once,
        "timings": {"database": connection.vendor, "wall_seconds": round(time.perf_counter() - wall, 3),
                    "cpu_seconds": round(time.process_time() - cpu, 3), "waves": waves},
    })
    return report


def _most_open_per_player(tournament: Tournament) -> int:
    count: dict[int, int] = defaultdict(int)
    for p0, p1 in ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=True).values_list(
            "player0_id", "player1_id"):
        count[p0] += 1
        count[p1] += 1
    active: dict[int, int] = defaultdict(int)
    active_matches = Match.objects.filter(arena_game__tournament=tournament, status=MatchStatus.ACTIVE)
    for p0, p1 in active_matches.values_list("player0_id", "player1_id"):
        active[p0] += 1
        active[p1] += 1
    return max([0, *count.values(), *active.values()])


def arena_report(tournament: Tournament) -> dict[str, Any]:
    """Standings and the invariants recomputed from the stored games: ``immediate_rematches`` (a
    player's two consecutive matches against one opponent), ``score_mismatches`` (players whose score is
    not the sum of their matches' points, or not 2 x wins + 2 x wins on a streak replayed in order)."""
    name = {r.user_id: r.user.username for r in tournament.registrations.select_related("user")}
    history: dict[int, list[tuple[int, bool | None, int]]] = defaultdict(list)
    games = list(ArenaGame.objects.filter(tournament=tournament).order_by("wave", "pk"))
    for game in games:
        assert game.points is not None, "a simulated Arena ends with every match recorded"
        for seat, (me, other) in enumerate(((game.player0_id, game.player1_id),
                                            (game.player1_id, game.player0_id))):
            won = None if game.winner_id is None else game.winner_id == me
            history[me].append((other, won, int(game.points[seat])))
    rematches = sum(1 for rows in history.values() for a, b in itertools.pairwise(rows) if a[0] == b[0])
    mismatches = 0
    bonuses = 0
    for registration in tournament.registrations.all():
        rows = history.get(registration.user_id, [])
        score, match_points, bonus = arena.score_identity([won for _, won, _ in rows])
        bonuses += bonus
        if not (registration.arena_score == sum(p for _, _, p in rows) == score == match_points + bonus):
            mismatches += 1
    standings = [
        {"rank": row.line.rank, "player": name[row.line.player], "score": row.line.score,
         "performance": row.line.performance, "games": row.games}
        for row in arena_play.arena_rows(tournament)
    ]
    return {"format": "arena", "players": len(name), "matches": len(games), "waves": tournament.current_round,
            "status": tournament.status, "winner": name.get(tournament.winner_id or 0),
            "immediate_rematches": rematches, "score_mismatches": mismatches, "streak_bonus_points": bonuses,
            "standings": standings, "tournament": tournament.pk}


def bench_wave(players: int, *, seed: int = 1) -> dict[str, Any]:
    """Time one wave with ``players`` waiting (house bots as simulated people, scores and last opponents
    drawn from ``seed``): ``pairing_seconds`` (``arena.pair_wave`` alone, in the wave) and
    ``wave_seconds`` (the whole database wave: locks, reads, the pairing, every match created, up to the
    commit). Rolled back: nothing is kept."""
    rng = random.Random(seed)
    now = timezone.now()
    per_level = -(-players // 5)
    bots = [bot for level in range(1, 6) for bot in house_bot_pool(level=level, count=per_level)][:players]
    result: dict[str, Any] = {"players": players, "database": connection.vendor}
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name_en="Arena bench", name_pt="Arena bench", starts_at=now, status=TournamentStatus.RUNNING,
            format=TournamentFormat.ARENA, ends_at=now + timedelta(hours=1), rated=False,
            simulation_seed=seed, is_simulation=True, max_players=players)
        Registration.objects.bulk_create([
            Registration(tournament=tournament, user=bot, rating=1500 + rng.gauss(0, 200),
                         arena_score=2 * rng.randrange(0, 15), waiting_since=now - timedelta(seconds=i),
                         last_opponent=bots[rng.randrange(players)])
            for i, bot in enumerate(bots)])
        started, cpu = time.perf_counter(), time.process_time()
        with scheduling.driving():  # nobody plays the 500 matches: they are rolled back
            wave = arena_play.arena_wave(tournament_id=tournament.pk, now=now)
        result.update(wave_seconds=round(time.perf_counter() - started, 3),
                      wave_cpu_seconds=round(time.process_time() - cpu, 3),
                      pairing_seconds=round(wave.pairing_seconds, 4), pairs=wave.paired)
        transaction.set_rollback(True)
    return result
