"""A seeded population for the fair-play signals (issue 25; docs/fairplay.md "Simulation";
``manage.py fairplay_simulate``).

:func:`simulate` creates, from one seed:

- ``honest`` members (default 200, ``sim<seed>-h000``...), each playing as a house bot of a level drawn
  from 1..4 plays (its decisions are ``engine.bots.make_bot(level)``'s), in ``rounds`` rounds of rated
  matches against random honest opponents (each round pairs every honest member once);
- a *farmer* and a *puppet*, two accounts of one person seen from the same network and the same device
  (:class:`~fairplay.models.Sighting` rows with the same digests): the puppet makes
  :data:`PUPPET_ACTIONS` actions then resigns every match to the farmer (``farm`` matches); the farmer
  also plays ``farmer_others`` matches against honest members, as a level-3 bot plays;
- an *assisted* member whose every decision is level 5's, in ``assisted`` rated matches against honest
  members.

Every match is a real ``games.Match`` created by ``games.services.match_create_seated`` (rated, with a
``simulation_seed``: its deals are the seed's), played by ``games.services.match_play_out_seeded`` (each
move through the engine and the games' own store, the log a full one that replays), the puppet's
resignation through ``games.services.match_resign`` (the real service, with its rules), rated through
``ratings.services.matches_rate`` (the real path, in the order the matches finished), and the signals
computed by ``fairplay.signals.signals_refresh``. Honest: the accounts are people to the site (not house
bots), and nothing of the collusion is told to the signals; they find it in the database.

The seed fixes the population, the pairings and every match (``engine.deck.sub_seed``); ratings and
signals follow from them.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from accounts.models import User
from engine.actions import Action
from engine.bots import make_bot
from engine.deck import sub_seed
from engine.view import PlayerView
from fairplay import measures, signals
from fairplay.models import PlayerSignal, Sighting, SightingKind
from games import services as game_services
from games.models import Match, MatchStatus
from ratings import services as rating_services

PUPPET_ACTIONS = 4
"""The puppet's own actions before it resigns (about two turns: fewer than
``measures.EARLY_RESIGN_ACTIONS``, and both seats have moved, so the resignation is not an abort)."""
FARMER_LEVEL = 3
"""The level of the bot that plays the farmer's own moves (against honest members and the puppet)."""
PUPPET_LEVEL = 1
ASSISTED_LEVEL = 5
HONEST_LEVELS = (1, 2, 3, 4)
CAMPUS = 10
"""Honest members seen from one shared network (a campus, a café): sharing it proves nothing alone."""


@dataclass
class Sample:
    """What :func:`simulate` made: user ids by role, each honest member's level, the match ids (in the
    order played; ``assisted_match_ids``: the assisted member's, for the assistance analysis) and the
    wall seconds of each stage."""

    seed: int
    honest: list[int]
    levels: dict[int, int]
    farmer: int
    puppet: int
    assisted: int
    match_ids: list[int] = field(default_factory=list)
    assisted_match_ids: list[int] = field(default_factory=list)
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
    ``resigns``: the seat that stops after :data:`PUPPET_ACTIONS` actions of its own (the puppet)."""
    made = [0, 0]

    def choose(seat: int, view: PlayerView, seq: int) -> Action | None:
        if seat == resigns and made[seat] >= PUPPET_ACTIONS:
            return None
        made[seat] += 1
        return make_bot(levels[seat], seed=sub_seed(match_seed, "bot", seq)).choose(view)

    return choose


def play_match(seed: int, number: int, users: dict[int, User], seat_levels: tuple[int, int], target: int,
          puppet_seat: int | None = None) -> int:
    """One rated match between ``users`` (seat -> member) whose decisions are the bots of ``seat_levels``,
    to ``target``, seeded by ``sub_seed(seed, "match", number)``; ``puppet_seat``: that seat resigns after
    :data:`PUPPET_ACTIONS` actions (through ``games.services.match_resign``). Returns the match id
    (finished, not yet rated)."""
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


def simulate(*, seed: int = 1, honest: int = 200, rounds: int = 2, farm: int = 8, farmer_others: int = 4,
             assisted: int = 4, target: int = 50,
             progress: Callable[[int, int], None] | None = None) -> Sample:
    """Create the population, play its matches, rate them and refresh the signals (module docstring).

    :param progress: called with (matches played, matches planned) after each match.
    :raises ValueError: ``honest`` below 4 or odd, a count below 0, ``target`` not 50 or 100, or the
        seed's accounts exist already (nothing is created).
    """
    if honest < 4 or honest % 2 or min(rounds, farm, farmer_others, assisted) < 0 or target not in (50, 100):
        raise ValueError("honest: an even number from 4; counts 0 or more; target 50 or 100")
    prefix = f"sim{seed}-"
    if User.objects.filter(username__startswith=prefix).exists():
        raise ValueError(f"the accounts of seed {seed} exist already ({prefix}...)")
    started = time.perf_counter()
    rng = random.Random(seed)
    ids = _users(seed, [f"{prefix}h{i:03d}" for i in range(honest)] + [
        f"{prefix}farmer", f"{prefix}puppet", f"{prefix}assisted"])
    honest_ids, (farmer, puppet, assisted_id) = ids[:honest], ids[honest:]
    sample = Sample(seed=seed, honest=honest_ids, levels={u: rng.choice(HONEST_LEVELS) for u in honest_ids},
                    farmer=farmer, puppet=puppet, assisted=assisted_id)
    _sightings(seed, sample)
    # The plan: (seat 0, seat 1, puppet's seat or None), shuffled so the farming is spread among the rest.
    plan: list[tuple[int, int, int | None]] = []
    for _ in range(rounds):
        order = list(honest_ids)
        rng.shuffle(order)
        plan += [(order[i], order[i + 1], None) for i in range(0, honest, 2)]
    for i in range(farm):  # seats alternate: the puppet resigns from either
        plan.append((farmer, puppet, 1) if i % 2 == 0 else (puppet, farmer, 0))
    plan += [(farmer, rng.choice(honest_ids), None) for _ in range(farmer_others)]
    plan += [(rng.choice(honest_ids), assisted_id, None) for _ in range(assisted)]
    rng.shuffle(plan)
    levels = {**sample.levels, farmer: FARMER_LEVEL, puppet: PUPPET_LEVEL, assisted_id: ASSISTED_LEVEL}
    users = User.objects.in_bulk(ids)
    sample.seconds["setup"] = round(time.perf_counter() - started, 2)
    for number, (a, b, puppet_seat) in enumerate(plan):
        match_id = play_match(seed, number, {0: users[a], 1: users[b]}, (levels[a], levels[b]), target,
                         puppet_seat)
        sample.match_ids.append(match_id)
        if assisted_id in (a, b):
            sample.assisted_match_ids.append(match_id)
        if progress is not None:
            progress(number + 1, len(plan))
    sample.seconds["play"] = round(time.perf_counter() - started - sample.seconds["setup"], 2)
    mark = time.perf_counter()
    rating_services.matches_rate(match_ids=sample.match_ids)
    sample.seconds["rate"] = round(time.perf_counter() - mark, 2)
    mark = time.perf_counter()
    signals.signals_refresh()
    sample.seconds["signals"] = round(time.perf_counter() - mark, 2)
    return sample


def analyse_sample(sample: Sample, analyse: Callable[[list[int]], Any]) -> Any:
    """The assistance analysis's hook: ``analyse`` (the analysis of a list of match ids, written by the
    assistance part of issue 25) run over the sample's rated matches, the assisted member's first, then
    the signals refreshed so its ``assistance_z`` is folded into the strengths. Returns what ``analyse``
    returned."""
    others = [pk for pk in sample.match_ids if pk not in set(sample.assisted_match_ids)]
    result = analyse(sample.assisted_match_ids + others)
    signals.signals_refresh()
    return result


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
