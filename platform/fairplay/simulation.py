"""A seeded population for the fair-play signals (issue 25; docs/fairplay.md "Simulation";
``manage.py fairplay_simulate``).

:func:`simulate` creates, from one seed:

- ``honest`` members (default 200, ``sim<seed>-h000``...), each playing as a house bot of a level drawn
  from 1..4 plays (its decisions are ``engine.bots.make_bot(level)``'s), in ``rounds`` rounds of rated
  matches against random honest opponents (each round pairs every honest member once); ``regulars`` of
  them (one per level in turn) also play each other ``regular_rounds`` round robins: the honest sample the
  assistance analysis judges;
- a *farmer* and a *puppet*, two accounts of one person seen from the same network and the same device
  (:class:`~fairplay.models.Sighting` rows with the same digests), in the attack the farming limits still
  allow (docs/fairplay.md "Limits that make farming slow"): the puppet resigns every match to the farmer
  at its first turn once each seat has made ``games.conf.rated_min_moves()`` moves of its own (so the
  match is rated), at most ``games.conf.pair_rated_per_day()`` of their matches a day (``farm`` matches
  over several simulated days); the farmer also plays ``farmer_others`` matches against honest members,
  as a level-3 bot plays;
- an *assisted* member whose every decision is level 5's, in ``assisted`` rated matches against honest
  members of the assistance band its rating sits in.

The matches are played over simulated days (sessions :data:`DAY` apart, ending before now): each match's
rows are moved back to its simulated time, each day is rated before the next, and every match is checked
against the pair cap as the site counts it. ``games.services.match_create_seated`` (the simulation's and
the tournaments' way to seat two players) does not check the cap itself; the plan keeps it.

Every match is a real ``games.Match`` created by ``games.services.match_create_seated`` (rated, with a
``simulation_seed``: its deals are the seed's), played by ``games.services.match_play_out_seeded`` (each
move through the engine and the games' own store, the log a full one that replays), the puppet's
resignation through ``games.services.match_resign`` (the real service, with its rules: an early one
would be unrated), rated through ``ratings.services.matches_rate`` (the real path, in the order the
matches finished), and the signals computed by ``fairplay.signals.signals_refresh``. Honest: the
accounts are people to the site (not house bots), and nothing of the collusion or the assistance is
told to the signals; they find it in the database. :func:`analyse_sample` with
:func:`assistance_analysis` runs the assistance analysis (``fairplay.assistance_runs``) on the assisted
member's and the regulars' matches, as the background task would.

The seed fixes the population, the pairings and every match (``engine.deck.sub_seed``); ratings and
signals follow from them.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import OuterRef, Subquery
from django.utils import timezone

from accounts.models import User
from engine.actions import Action
from engine.bots import make_bot
from engine.deck import sub_seed
from engine.view import PlayerView
from fairplay import assistance, assistance_runs, measures, signals
from fairplay.models import PlayerSignal, SeatSignal, Sighting, SightingKind
from games import conf as game_conf
from games import selectors as game_selectors
from games import services as game_services
from games.conf import PAIR_RATED_WINDOW
from games.models import Match, MatchStatus
from ratings import services as rating_services
from ratings.bot_elo import calibrated_elo
from ratings.models import PlayerRating, RatingChange

FARMER_LEVEL = 3
"""The level of the bot that plays the farmer's own moves (against honest members and the puppet)."""
PUPPET_LEVEL = 1
ASSISTED_LEVEL = 5
HONEST_LEVELS = (1, 2, 3, 4)
CAMPUS = 10
"""Honest members seen from one shared network (a campus, a café): sharing it proves nothing alone."""
DAY = PAIR_RATED_WINDOW + timedelta(hours=1)
"""The simulated days' sessions start this far apart (25 h): every match of a session falls within its
first hour, so a pair's matches of one session have left the rolling 24 h of
``games.conf.PAIR_RATED_PER_DAY`` when the next session begins."""
MATCH_GAP = timedelta(seconds=20)
"""Simulated time between two matches' starts within a session (each finishes 15 s after it starts)."""


@dataclass
class Sample:
    """What :func:`simulate` made: user ids by role, each honest member's level, the *regulars* (honest
    members, one per level in turn, who also play each other ``regular_rounds`` round robins: the honest
    sample the assistance analysis looks at), the match ids (in the order played; ``assisted_match_ids``:
    the assisted member's; ``regular_match_ids``: the regulars' round robins), the simulated days and
    the wall seconds of each stage."""

    seed: int
    honest: list[int]
    levels: dict[int, int]
    farmer: int
    puppet: int
    assisted: int
    regulars: list[int] = field(default_factory=list)
    days: int = 1
    match_ids: list[int] = field(default_factory=list)
    assisted_match_ids: list[int] = field(default_factory=list)
    regular_match_ids: list[int] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def role(self, user_id: int) -> str:
        roles = {self.farmer: "farmer", self.puppet: "puppet", self.assisted: "assisted"}
        return roles.get(user_id, "honest")


def _digest(seed: int, *parts: object) -> str:
    return hashlib.sha256("/".join(map(str, ("fairplay-simulation", seed, *parts))).encode()).hexdigest()


def _users(seed: int, names: Sequence[str]) -> list[int]:
    User.objects.bulk_create([User(username=name, password="!") for name in names])
    by_name = dict(User.objects.filter(username__in=names).values_list("username", "pk"))
    return [by_name[name] for name in names]


def _sightings(seed: int, sample: Sample) -> None:
    now = timezone.now()
    rows = []
    for i, user_id in enumerate(sample.honest):
        network = _digest(seed, "campus") if i < CAMPUS else _digest(seed, "ip", user_id)
        rows += [Sighting(user_id=user_id, kind=SightingKind.NETWORK, digest=network, last_seen=now),
                 Sighting(user_id=user_id, kind=SightingKind.DEVICE, digest=_digest(seed, "device", user_id),
                          last_seen=now)]
    for user_id in (sample.farmer, sample.puppet):  # one person, one network, one browser
        rows += [Sighting(user_id=user_id, kind=SightingKind.NETWORK, digest=_digest(seed, "home"),
                          last_seen=now),
                 Sighting(user_id=user_id, kind=SightingKind.DEVICE, digest=_digest(seed, "laptop"),
                          last_seen=now)]
    rows.append(Sighting(user_id=sample.assisted, kind=SightingKind.NETWORK,
                         digest=_digest(seed, "ip", sample.assisted), last_seen=now))
    Sighting.objects.bulk_create(rows, ignore_conflicts=True)


def _chooser(levels: dict[int, int], match_seed: int, *, resigns: int | None = None) -> game_services.Chooser:
    """Each seat's decisions by its level's bot (seeded per decision like a seeded match's house bots);
    ``resigns``: the seat that stops (to resign) at its first turn once BOTH seats have made
    ``games.conf.rated_min_moves()`` moves of their own: the cheapest resignation the site still rates
    (the puppet)."""
    made = [0, 0]
    least = game_conf.rated_min_moves()

    def choose(seat: int, view: PlayerView, seq: int) -> Action | None:
        if seat == resigns and min(made) >= least:
            return None
        made[seat] += 1
        return make_bot(levels[seat], seed=sub_seed(match_seed, "bot", seq)).choose(view)

    return choose


def play_match(seed: int, number: int, users: dict[int, User], seat_levels: tuple[int, int], target: int,
               puppet_seat: int | None = None) -> int:
    """One rated match between ``users`` (seat -> member) whose decisions are the bots of ``seat_levels``,
    to ``target``, seeded by ``sub_seed(seed, "match", number)``; ``puppet_seat``: that seat resigns once
    each seat has made ``games.conf.rated_min_moves()`` moves (through ``games.services.match_resign``).
    Returns the match id (finished, not yet rated)."""
    match_seed = sub_seed(seed, "match", number)
    match = game_services.match_create_seated(player0=users[0], player1=users[1], target=target, rated=True,
                                              simulation_seed=match_seed)
    choose = _chooser({0: seat_levels[0], 1: seat_levels[1]}, match_seed, resigns=puppet_seat)
    game_services.match_play_out_seeded(match_id=match.pk, choose=choose)
    if puppet_seat is not None:
        status = Match.objects.filter(pk=match.pk).values_list("status", flat=True).get()
        if status == MatchStatus.ACTIVE:
            game_services.match_resign(match_id=match.pk, user=users[puppet_seat])
    return int(match.pk)


def _backdate(match_id: int, at: datetime) -> None:
    """Move a played match's times to its simulated ``at`` (started), finished 15 s later. The event log
    is append-only and keeps the real times; the signals and the ratings read the match's."""
    end = at + timedelta(seconds=15)
    Match.objects.filter(pk=match_id).update(created_at=at, started_at=at, finished_at=end, updated_at=end)


def _rate_day(match_ids: list[int]) -> None:
    """Rate one simulated day's matches (``ratings.services.matches_rate``, in the order they finished) and
    give each rating change its match's time, so a rating history reads as the days were played."""
    rating_services.matches_rate(match_ids=match_ids)
    finished = Match.objects.filter(pk=OuterRef("match_id")).values("finished_at")[:1]
    RatingChange.objects.filter(match_id__in=match_ids).update(created_at=Subquery(finished))
    last = (RatingChange.objects.filter(player_id=OuterRef("user_id")).order_by("-created_at")
            .values("created_at")[:1])
    players = RatingChange.objects.filter(match_id__in=match_ids).values("player_id")
    PlayerRating.objects.filter(user_id__in=players).update(last_rated_at=Subquery(last))


def _band(rating: float) -> int:
    """The assistance band (``fairplay.assistance.band_of``, the calibrated Elo as the analysis reads it)
    of ``rating``."""
    elo = {level: float(v) for level, v in calibrated_elo().items()} or None
    return assistance.band_of(rating, elo).level


OPPONENT = -1
"""In the plan, the assisted member's opponent chosen when the match is played (its band's)."""


def simulate(*, seed: int = 1, honest: int = 200, rounds: int = 2, farm: int = 8, farmer_others: int = 4,
             assisted: int = 15, regulars: int = 4, regular_rounds: int = 3, target: int = 50,
             days: int | None = None, progress: Callable[[int, int], None] | None = None) -> Sample:
    """Create the population, play its matches over ``days`` simulated days, rate them and refresh the
    signals (module docstring).

    The days (default: as few as the pair cap allows the farm, ``ceil(farm / PAIR_RATED_PER_DAY)``) are
    sessions :data:`DAY` apart ending before now; the i-th honest round, farmed match, farmer's other
    match, regulars' round robin and assisted match are played on day ``i % days``, each day's in a
    seeded shuffled order, each match's rows moved back to its simulated time (:func:`_backdate`), and
    each day rated before the next (:func:`_rate_day`). Every match is checked against the pair cap
    as the site counts it (``games.selectors.rated_pair_count`` over the 24 h before it). The assisted
    member's opponent is drawn, when its match is played, among the honest members (regulars aside)
    of the assistance band its rating sits in and under the cap with it.

    :param regulars: honest members (levels 1, 2, 3, 4, 1, ... in turn, drawn by the seed) who also play
        each other ``regular_rounds`` round robins (seats alternating): the honest sample that
        :func:`assistance_analysis` looks at (0: none).
    :param progress: called with (matches played, matches planned) after each match.
    :raises ValueError: ``honest`` below 4 or odd, a count below 0, ``target`` not 50 or 100, ``days``
        below 1 or too few for the pair cap, ``regulars`` more than the honest members of a level
        allow, or the seed's accounts exist already (nothing is created).
    :raises RuntimeError: a match of the plan would break the pair cap (a random pairing meeting a pair
        cap; never for the defaults): the matches played before it stay, as a run stopped there would.
    """
    counts = (rounds, farm, farmer_others, assisted, regulars, regular_rounds)
    if honest < 4 or honest % 2 or min(counts) < 0 or target not in (50, 100):
        raise ValueError("honest: an even number from 4; counts 0 or more; target 50 or 100")
    cap = game_conf.pair_rated_per_day()
    days = max(1, math.ceil(farm / cap) if cap else 1) if days is None else days
    if days < 1 or max(math.ceil(farm / days), math.ceil(regular_rounds / days)) > cap:
        raise ValueError(f"{days} day(s): a pair may play {cap} rated matches a day "
                         "(GAMES_PAIR_RATED_PER_DAY)")
    prefix = f"sim{seed}-"
    if User.objects.filter(username__startswith=prefix).exists():
        raise ValueError(f"the accounts of seed {seed} exist already ({prefix}...)")
    started = time.perf_counter()
    rng = random.Random(seed)
    levels_drawn = [rng.choice(HONEST_LEVELS) for _ in range(honest)]
    by_level = {lv: [i for i, d in enumerate(levels_drawn) if d == lv] for lv in HONEST_LEVELS}
    picked: list[int] = []
    for k in range(regulars):
        pool = [i for i in by_level[HONEST_LEVELS[k % len(HONEST_LEVELS)]] if i not in picked]
        if not pool:
            raise ValueError(f"{regulars} regulars: too few honest members of a level")
        picked.append(rng.choice(pool))
    ids = _users(seed, [f"{prefix}h{i:03d}" for i in range(honest)] + [
        f"{prefix}farmer", f"{prefix}puppet", f"{prefix}assisted"])
    honest_ids, (farmer, puppet, assisted_id) = ids[:honest], ids[honest:]
    sample = Sample(seed=seed, honest=honest_ids, levels=dict(zip(honest_ids, levels_drawn, strict=True)),
                    farmer=farmer, puppet=puppet, assisted=assisted_id,
                    regulars=[honest_ids[i] for i in picked], days=days)
    _sightings(seed, sample)
    # The plan, day by day: (seat 0, seat 1, puppet's seat or None).
    plan: list[list[tuple[int, int, int | None]]] = [[] for _ in range(days)]
    for r in range(rounds):
        order = list(honest_ids)
        rng.shuffle(order)
        plan[r % days] += [(order[i], order[i + 1], None) for i in range(0, honest, 2)]
    for i in range(farm):  # seats alternate: the puppet resigns from either
        plan[i % days].append((farmer, puppet, 1) if i % 2 == 0 else (puppet, farmer, 0))
    for i in range(farmer_others):
        plan[i % days].append((farmer, rng.choice(honest_ids), None))
    for r in range(regular_rounds):
        for i, a in enumerate(sample.regulars):
            for b in sample.regulars[i + 1:]:
                plan[r % days].append((a, b, None) if r % 2 == 0 else (b, a, None))
    for i in range(assisted):
        plan[i % days].append((OPPONENT, assisted_id, None) if i % 2 == 0 else (assisted_id, OPPONENT, None))
    for day in plan:
        rng.shuffle(day)
    levels = {**sample.levels, farmer: FARMER_LEVEL, puppet: PUPPET_LEVEL, assisted_id: ASSISTED_LEVEL}
    users = User.objects.in_bulk(ids)
    candidates = [u for u in honest_ids if u not in set(sample.regulars)]
    sample.seconds["setup"] = round(time.perf_counter() - started, 2)
    total, number, rate_seconds = sum(map(len, plan)), 0, 0.0
    first = timezone.now() - days * DAY
    regular_set = set(sample.regulars)
    for d, day in enumerate(plan):
        day_ids: list[int] = []
        for k, (a, b, puppet_seat) in enumerate(day):
            at = first + d * DAY + k * MATCH_GAP
            since = at - PAIR_RATED_WINDOW
            if a == OPPONENT:
                a = _opponent(rng, assisted_id, candidates, since, cap)
            if b == OPPONENT:
                b = _opponent(rng, assisted_id, candidates, since, cap)
            if game_selectors.rated_pair_count(user_id=a, other_id=b, since=since) >= cap:
                raise RuntimeError(f"the plan breaks the pair cap: users {a} and {b} on day {d}")
            match_id = play_match(seed, number, {0: users[a], 1: users[b]}, (levels[a], levels[b]), target,
                                  puppet_seat)
            _backdate(match_id, at)
            number += 1
            day_ids.append(match_id)
            sample.match_ids.append(match_id)
            if assisted_id in (a, b):
                sample.assisted_match_ids.append(match_id)
            elif a in regular_set and b in regular_set:
                sample.regular_match_ids.append(match_id)
            if progress is not None:
                progress(number, total)
        mark = time.perf_counter()
        _rate_day(day_ids)
        rate_seconds += time.perf_counter() - mark
    sample.seconds["rate"] = round(rate_seconds, 2)
    sample.seconds["play"] = round(time.perf_counter() - started - sample.seconds["setup"] - rate_seconds, 2)
    mark = time.perf_counter()
    signals.signals_refresh()
    sample.seconds["signals"] = round(time.perf_counter() - mark, 2)
    return sample


def _opponent(rng: random.Random, assisted_id: int, candidates: list[int], since: datetime, cap: int) -> int:
    """The assisted member's opponent: a seeded draw among ``candidates`` whose rating's band is the
    assisted member's (:func:`_band`) and who have not met it ``cap`` times since ``since`` (all of
    ``candidates`` under the cap when no one shares its band)."""
    ratings = dict(PlayerRating.objects.filter(user_id__in=[*candidates, assisted_id])
                   .values_list("user_id", "rating"))
    own = _band(ratings.get(assisted_id, 1500.0))
    met = game_selectors.rated_pair_counts(user_ids=[assisted_id, *candidates], since=since)
    free = [u for u in candidates if met.get((min(u, assisted_id), max(u, assisted_id)), 0) < cap]
    same = [u for u in free if _band(ratings.get(u, 1500.0)) == own]
    return rng.choice(same or free)


def assistance_analysis(sample: Sample) -> Callable[[list[int]], dict[str, Any]]:
    """The analysis :func:`analyse_sample` takes: each match id through
    ``fairplay.assistance_runs.assistance_match`` (``why = "sample"``: both person seats judged and
    stored), then ``fairplay.assistance_runs.player_refresh`` of every player seen (each one's
    rolling figure in the band of their final rating). Returns ``{"matches", "seats", "players"}``."""

    def analyse(match_ids: list[int]) -> dict[str, Any]:
        seats = [row for pk in match_ids
                 for row in assistance_runs.assistance_match(match_id=pk, why=assistance_runs.SAMPLE)]
        players = sorted({row.player_id for row in seats})
        for user_id in players:
            assistance_runs.player_refresh(user_id=user_id)
        return {"matches": len(match_ids), "seats": len(seats), "players": players}

    return analyse


def analyse_sample(sample: Sample, analyse: Callable[[list[int]], Any]) -> Any:
    """Run ``analyse`` (e.g. :func:`assistance_analysis`) over the assisted member's matches then the
    regulars' (the honest sample), then refresh the signals so the players' ``assistance_z`` is folded
    into their strengths. Returns what ``analyse`` returned."""
    mark = time.perf_counter()
    result = analyse(sample.assisted_match_ids + sample.regular_match_ids)
    sample.seconds["analyse"] = round(time.perf_counter() - mark, 2)
    signals.signals_refresh()
    return result


def assistance_report(sample: Sample) -> dict[str, Any]:
    """The assisted member's assistance figures (``decisions``, ``agreement``, ``loss_per_decision``,
    ``z``, its rating and band) and the honest analysed ones: seats analysed, players, the largest z
    and agreement among them (None: nobody analysed enough), the players with a z."""
    seats = SeatSignal.objects.filter(match_id__in=sample.match_ids)
    rows = {r.user_id: r for r in PlayerSignal.objects.filter(user_id__in=seats.values("player_id"))}
    rating = dict(PlayerRating.objects.filter(user_id__in=rows).values_list("user_id", "rating"))

    def figures(user_id: int) -> dict[str, Any]:
        r = rows.get(user_id)
        if r is None:
            return {}
        rated = rating.get(user_id, 1500.0)
        return {"decisions": r.decisions, "agreement": None if r.agreement is None else round(r.agreement, 4),
                "loss_per_decision": None if r.loss_per_decision is None else round(r.loss_per_decision, 3),
                "z": r.assistance_z, "rating": round(rated, 2), "band": _band(rated)}

    honest = set(sample.honest)
    mine = [u for u in rows if u in honest]
    zs = [z for z in (rows[u].assistance_z for u in mine) if z is not None]
    agreements = [a for a in (rows[u].agreement for u in mine) if a is not None]
    return {
        "assisted": figures(sample.assisted),
        "honest_seats": seats.filter(player_id__in=honest).count(),
        "honest_players": len(mine),
        "honest_with_z": len(zs),
        "max_honest_z": max(zs, default=None),
        "max_honest_agreement": None if not agreements else round(max(agreements), 4),
        "regulars": {str(u): {"level": sample.levels[u], **figures(u)} for u in sample.regulars},
    }


def queue_report(sample: Sample, *, top: int = 5) -> dict[str, Any]:
    """The queue as the simulation left it: the ``top`` strongest players (user, role, strength, reasons'
    signals), the strongest honest member and the margin between :data:`measures.THRESHOLD` and it."""
    rows = list(PlayerSignal.objects.filter(user_id__in=[*sample.honest, sample.farmer, sample.puppet,
                                                         sample.assisted]).order_by("-strength", "user_id"))
    honest = set(sample.honest)
    best_honest = max((r.strength for r in rows if r.user_id in honest), default=0.0)
    return {
        "threshold": measures.THRESHOLD,
        "top": [{"user": r.user_id, "role": sample.role(r.user_id), "strength": r.strength,
                 "signals": [reason["signal"] for reason in r.reasons]} for r in rows[:top]],
        "max_honest_strength": best_honest,
        "margin": round(measures.THRESHOLD - best_honest, 4),
        "above_threshold": [sample.role(r.user_id) for r in rows if r.strength >= measures.THRESHOLD],
    }
