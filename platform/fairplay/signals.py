"""The pair and player signals computed from the database (docs/fairplay.md "Collusion and pair signals",
"Player signals"): :func:`signals_refresh` (the ``fairplay.signals_refresh`` task) recomputes the
:class:`~fairplay.models.PairSignal` and :class:`~fairplay.models.PlayerSignal` rows of the players
active in the window, in batches; the arithmetic is ``fairplay.measures``'.

Sources, all read only: ``games.models.Match`` (rated, finished, in the window: the last
``measures.WINDOW_DAYS`` days by ``finished_at``), the event log (``games.models.MatchEvent``: the
``hand_end`` events' results, the players' own actions before a resignation), ``ratings.models.RatingChange``
(transfers, drops), ``tournaments.models.Registration`` (``joined_at``), ``fairplay.models.Sighting``
(another part of the site writes them) and open ``fairplay.models.Report`` rows.

Idempotent: a refresh over unchanged data writes the same rows (``updated_at`` aside); rows are upserted
(``INSERT ... ON CONFLICT``), never duplicated, and a pair that no longer has a rated match together in the
window loses its row. Only this module's columns of ``PlayerSignal`` are written: ``decisions``,
``agreement``, ``loss_per_decision`` and ``assistance_z`` belong to the assistance analysis, which writes
them; ``assistance_z`` is read here and folded into the strength.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from accounts.models import User
from fairplay import measures
from fairplay.models import PairSignal, PlayerSignal, Report, ReportStatus, Sighting, SightingKind
from games.models import Match, MatchEvent, MatchStatus, ResultReason
from ratings.models import RatingChange
from tournaments.models import Registration

BATCH = 500
"""Players per transaction of a refresh."""

PLAYER_COLUMNS = ("strength", "reasons", "abandoned", "early_resigns", "drops_before_tournaments",
                  "open_reports", "updated_at")
"""The ``PlayerSignal`` columns a refresh writes (the others are the assistance analysis')."""

PAIR_COLUMNS = ("matches", "share_low", "share_high", "transferred", "resign_share", "high_deadwood_knocks",
                "overlap", "same_network", "same_device", "strength", "reasons", "updated_at")


@dataclass(slots=True)
class _Row:
    """A finished match in the window: ``players`` (seat 0, seat 1; None for an empty seat), ``people``:
    both seats members (not house bots)."""

    pk: int
    players: tuple[int, int | None]
    winner: int | None
    reason: str
    day: date
    rated: bool
    people: bool


@dataclass(slots=True)
class _Batch:
    """What a batch reads: the matches of its players (and of their opponents, for their shares and days)."""

    rows: dict[int, _Row] = field(default_factory=dict)


def active_player_ids(*, now: datetime | None = None) -> list[int]:
    """Ids of the members to refresh: a rated match (or a resigned one, which the site may have unrated)
    finished in the window, an open report against them, or a queue row with a strength above 0 (to clear
    it once its evidence left the window). Ascending."""
    since = (now or timezone.now()) - timedelta(days=measures.WINDOW_DAYS)
    rated = Match.objects.filter(Q(rated=True) | Q(result_reason=ResultReason.RESIGN),
                                 status=MatchStatus.FINISHED, finished_at__gte=since)
    ids = set(rated.values_list("player0_id", flat=True)) | set(rated.values_list("player1_id", flat=True))
    ids |= set(Report.objects.filter(status=ReportStatus.OPEN).values_list("reported_id", flat=True))
    ids |= set(PlayerSignal.objects.filter(strength__gt=0).values_list("user_id", flat=True))
    bots = set(User.objects.filter(pk__in=ids, is_bot=True).values_list("pk", flat=True))
    return sorted(pk for pk in ids if pk is not None and pk not in bots)


def signals_refresh(*, now: datetime | None = None, user_ids: Iterable[int] | None = None,
                    batch: int = BATCH) -> dict[str, int]:
    """Recompute the signals of ``user_ids`` (default :func:`active_player_ids`), ``batch`` players per
    transaction. Returns ``{"players": n, "pairs": m}``: the rows written."""
    now = now or timezone.now()
    ids = sorted(set(user_ids)) if user_ids is not None else active_player_ids(now=now)
    written = {"players": 0, "pairs": 0}
    for start in range(0, len(ids), batch):
        with transaction.atomic():
            players, pairs = _refresh(ids[start:start + batch], now)
        written["players"] += players
        written["pairs"] += pairs
    return written


def _matches(user_ids: Sequence[int], since: datetime) -> dict[int, _Row]:
    """The finished matches of ``user_ids`` in the window (rated or not: an early resignation the site made
    unrated still counts as one: :func:`_early_resigned`), by id."""
    bots = set(User.objects.filter(is_bot=True).values_list("pk", flat=True))
    query = (Match.objects.filter(status=MatchStatus.FINISHED, finished_at__gte=since)
             .filter(Q(player0_id__in=user_ids) | Q(player1_id__in=user_ids))
             .values_list("pk", "player0_id", "player1_id", "winner", "result_reason", "finished_at",
                          "rated"))
    rows = {}
    for pk, p0, p1, winner, reason, finished, rated in query:
        people = p1 is not None and p0 not in bots and p1 not in bots
        assert finished is not None  # a finished match always has finished_at (the filter above)
        rows[pk] = _Row(pk, (p0, p1), winner, reason, finished.astimezone(UTC).date(), rated, people)
    return rows


def _refresh(chunk: list[int], now: datetime) -> tuple[int, int]:
    since = now - timedelta(days=measures.WINDOW_DAYS)
    mine = _matches(chunk, since)
    opponents = {p for r in mine.values() if r.people for p in r.players if p is not None} - set(chunk)
    everyone = {**mine, **(_matches(sorted(opponents), since) if opponents else {})}
    # A match resigned early counts as rated even if the site unrated it for that (the farming limits may):
    # it is the pair's evidence all the same.
    early = _early_resigned(everyone.values())
    rated_count: dict[int, int] = defaultdict(int)
    days: dict[int, set[date]] = defaultdict(set)
    for r in everyone.values():
        if r.rated or r.pk in early:
            for p in r.players:
                if p is not None:
                    rated_count[p] += 1
                    days[p].add(r.day)
    together: dict[tuple[int, int], list[_Row]] = defaultdict(list)
    for r in mine.values():
        if (r.rated or r.pk in early) and r.people:
            a, b = r.players
            assert b is not None
            together[(min(a, b), max(a, b))].append(r)
    pair_ids = [r.pk for rows in together.values() for r in rows]
    hands = _hand_ends(pair_ids)
    deltas = _deltas(pair_ids)
    shared = _shared_sightings({p for pair in together for p in pair})
    names = dict(User.objects.filter(pk__in={p for pair in together for p in pair})
                 .values_list("pk", "username"))  # the notes name the other player
    pairs: list[PairSignal] = []
    strongest: dict[int, tuple[float, str]] = {}
    for (low, high), rows in sorted(together.items()):
        figures = _pair_figures(low, high, rows, rated_count, days, hands, deltas, shared)
        reasons = measures.pair_reasons(figures)
        value = measures.strength(reasons)
        pairs.append(PairSignal(
            low_id=low, high_id=high, matches=figures.matches, share_low=figures.share_low,
            share_high=figures.share_high, transferred=figures.transferred, resign_share=figures.resign_share,
            high_deadwood_knocks=figures.high_deadwood_knocks, overlap=figures.overlap,
            same_network=figures.same_network, same_device=figures.same_device, strength=value,
            reasons=reasons, updated_at=now,
        ))
        for me, other in ((low, high), (high, low)):
            if value > strongest.get(me, (0.0, ""))[0]:
                strongest[me] = (value, f"pair with {names.get(other, f'user {other}')}")
    # The pairs of this batch's players that no longer met in the window.
    stale = [pk for pk, low, high in PairSignal.objects.filter(Q(low_id__in=chunk) | Q(high_id__in=chunk))
             .values_list("pk", "low_id", "high_id") if (low, high) not in together]
    if stale:
        PairSignal.objects.filter(pk__in=stale).delete()
    if pairs:
        PairSignal.objects.bulk_create(pairs, update_conflicts=True, unique_fields=("low", "high"),
                                       update_fields=PAIR_COLUMNS)
    early_counts: dict[int, int] = defaultdict(int)
    for pk in mine.keys() & early.keys():
        early_counts[early[pk]] += 1
    players = _player_rows(chunk, mine, since, now, strongest, early_counts)
    PlayerSignal.objects.bulk_create(players, update_conflicts=True, unique_fields=("user",),
                                     update_fields=PLAYER_COLUMNS)
    return len(players), len(pairs)


def _hand_ends(match_ids: Sequence[int]) -> dict[int, list[tuple[str, int | None]]]:
    """Per match, its hands' (kind, knocker's deadwood) from the ``hand_end`` events (engine
    ``HandResult``: kind ``knock``, ``gin``, ``big_gin``, ``undercut`` or ``dead``)."""
    ends: dict[int, list[tuple[str, int | None]]] = defaultdict(list)
    query = (MatchEvent.objects.filter(match_id__in=match_ids, type="hand_end").order_by("match_id", "seq")
             .values_list("match_id", "payload__result__kind", "payload__result__knocker_deadwood"))
    for match_id, kind, dw in query:
        ends[match_id].append((str(kind), None if dw is None else int(dw)))
    return ends


def _deltas(match_ids: Sequence[int]) -> dict[tuple[int, int], float]:
    """(match id, player id) -> the player's Elo change in that match (``RatingChange.delta``)."""
    return {(m, p): d for m, p, d in RatingChange.objects.filter(match_id__in=match_ids)
            .values_list("match_id", "player_id", "delta")}


def _shared_sightings(user_ids: set[int]) -> dict[tuple[int, int], set[str]]:
    """(low, high) -> the sighting kinds (``ip``, ``device``) the two users have a digest of in common."""
    by_digest: dict[tuple[str, str], set[int]] = defaultdict(set)
    for user_id, kind, digest in Sighting.objects.filter(user_id__in=user_ids).values_list(
            "user_id", "kind", "digest"):
        by_digest[(kind, digest)].add(user_id)
    shared: dict[tuple[int, int], set[str]] = defaultdict(set)
    for (kind, _digest), users in by_digest.items():
        for a, b in itertools.combinations(sorted(users), 2):
            shared[(a, b)].add(kind)
    return shared


def _pair_figures(low: int, high: int, rows: list[_Row], rated_count: dict[int, int],
                  days: dict[int, set[date]], hands: dict[int, list[tuple[str, int | None]]],
                  deltas: dict[tuple[int, int], float], shared: dict[tuple[int, int], set[str]]
                  ) -> measures.PairFigures:
    n = len(rows)
    ended = [h for r in rows for h in hands.get(r.pk, [])]
    high_knocks = sum(1 for kind, dw in ended
                      if kind == "undercut" and dw is not None and dw >= measures.HIGH_DEADWOOD)
    met = {r.day for r in rows}
    either = days[low] | days[high]
    kinds = shared.get((low, high), set())
    return measures.PairFigures(
        matches=n,
        share_low=round(n / rated_count[low], 4) if rated_count[low] else 0.0,
        share_high=round(n / rated_count[high], 4) if rated_count[high] else 0.0,
        transferred=round(measures.transfer([deltas.get((r.pk, high), 0.0) for r in rows],
                                            [deltas.get((r.pk, low), 0.0) for r in rows]), 2),
        resign_share=round(sum(1 for r in rows if r.reason == ResultReason.RESIGN) / n, 4),
        hands=len(ended),
        high_deadwood_knocks=round(high_knocks / len(ended), 4) if ended else 0.0,
        overlap=round(len(met) / len(either), 4) if either else 0.0,
        same_network=SightingKind.NETWORK in kinds,
        same_device=SightingKind.DEVICE in kinds,
    )


def _early_resigned(rows: Iterable[_Row]) -> dict[int, int]:
    """Match id -> the resigner, for the matches between people of ``rows`` resigned before the resigner
    made ``measures.EARLY_RESIGN_ACTIONS`` actions of its own (the log's ``action`` rows of its seat, the
    timer's automatic moves left out), rated or not."""
    resigned = {r.pk: r for r in rows
                if r.people and r.reason == ResultReason.RESIGN and r.winner is not None}
    if not resigned:
        return {}
    own = dict(((m, s), c) for m, s, c in MatchEvent.objects.filter(
        match_id__in=list(resigned), type="action", auto=False, seat__isnull=False)
        .values_list("match_id", "seat").annotate(c=Count("pk")).values_list("match_id", "seat", "c"))
    early: dict[int, int] = {}
    for pk, r in resigned.items():
        assert r.winner is not None
        seat = 1 - r.winner
        player = r.players[seat]
        if own.get((pk, seat), 0) < measures.EARLY_RESIGN_ACTIONS and player is not None:
            early[pk] = player
    return early


def _drops(chunk: list[int], since: datetime, now: datetime) -> dict[int, tuple[int, float]]:
    """Player id -> (registrations after a drop, the largest drop) (``measures.worst_drop``), over the
    registrations in the window."""
    joined: dict[int, list[float]] = defaultdict(list)
    for user_id, at in Registration.objects.filter(user_id__in=chunk, joined_at__gte=since,
                                                   joined_at__lte=now).values_list("user_id", "joined_at"):
        joined[user_id].append(at.timestamp())
    if not joined:
        return {}
    changes: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for user_id, at, delta in RatingChange.objects.filter(
            player_id__in=list(joined), created_at__gte=since - timedelta(hours=measures.DROP_HOURS)
    ).values_list("player_id", "created_at", "delta"):
        changes[user_id].append((at.timestamp(), delta))
    return {user_id: measures.worst_drop(changes[user_id], times) for user_id, times in joined.items()}


def _player_rows(chunk: list[int], mine: dict[int, _Row], since: datetime, now: datetime,
                 strongest: dict[int, tuple[float, str]], early: dict[int, int]) -> list[PlayerSignal]:
    rows = list(mine.values())
    abandoned: dict[int, int] = defaultdict(int)
    for r in rows:
        if r.rated and r.reason in (ResultReason.LEFT, ResultReason.TIMEOUT) and r.winner is not None:
            loser = r.players[1 - r.winner]
            if loser is not None:
                abandoned[loser] += 1
    drops = _drops(chunk, since, now)
    reporters = dict(Report.objects.filter(reported_id__in=chunk, status=ReportStatus.OPEN)
                     .values_list("reported_id")
                     # each report the site filed itself (no reporter: a BOT's pause) counts as a reporter
                     .annotate(n=Count("reporter_id", distinct=True)
                               + Count("pk", filter=Q(reporter__isnull=True)))
                     .values_list("reported_id", "n"))
    assistance = dict(PlayerSignal.objects.filter(user_id__in=chunk).values_list("user_id", "assistance_z"))
    out = []
    for user_id in chunk:
        drop_count, worst = drops.get(user_id, (0, 0.0))
        pair, note = strongest.get(user_id, (0.0, ""))
        figures = measures.PlayerFigures(
            abandoned=abandoned[user_id], early_resigns=early.get(user_id, 0), drops=drop_count,
            worst_drop=round(worst, 2), reporters=reporters.get(user_id, 0),
            assistance_z=assistance.get(user_id), pair=pair, pair_note=note,
        )
        reasons = measures.player_reasons(figures)
        out.append(PlayerSignal(
            user_id=user_id, strength=measures.strength(reasons), reasons=reasons,
            abandoned=figures.abandoned, early_resigns=figures.early_resigns,
            drops_before_tournaments=figures.drops, open_reports=figures.reporters, updated_at=now,
        ))
    return out
