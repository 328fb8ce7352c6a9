"""Running the assistance signal (docs/fairplay.md "Assistance signal") on one finished match, and
choosing which matches are analysed. The arithmetic is ``fairplay.assistance`` (framework-free); here the
database around it.

- :func:`why_analyse`: should a finished match be analysed, and why: ``reported`` when either player has
  an open :class:`~fairplay.models.Report` (every match of a reported player), ``sample`` when it falls
  in the background sample (``FAIRPLAY_SAMPLE_RATE``, :func:`fairplay.assistance.in_sample` salted with
  the secret key), else None.
  Only finished rated matches with a person in a seat are ever analysed.
- :func:`assistance_match`: judge each person's seat of a match (``fairplay.assistance.tally_seat`` over
  the replay file ``replays.selectors.match_record`` builds from the event log) and store one
  :class:`~fairplay.models.SeatSignal` per seat, then refresh that player's figures. Idempotent: a seat
  already analysed by this method version is not judged again (unique ``(match, seat)``).
- :func:`player_refresh`: a player's rolling figure and its z-score in their rating band, written to the
  four assistance columns of :class:`~fairplay.models.PlayerSignal` and nothing else (``strength`` and
  ``reasons`` belong to ``fairplay.signals_refresh``).
- :func:`reported_backlog`: the rated matches of a reported player still to analyse (the report hook).

Who calls it: the Celery tasks ``fairplay.tasks.assistance_match`` and ``fairplay.tasks.assistance_reported``
(``fairplay.tasks``); ``fairplay.receivers`` enqueues the first after a match finishes.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db.models import Q

from accounts.models import User
from engine.analysis import positions
from fairplay import assistance
from fairplay.models import PlayerSignal, Report, ReportStatus, SeatSignal
from games.models import Match, MatchStatus
from ratings.bot_elo import calibrated_elo
from ratings.selectors import rating_get
from replays import selectors as replay_selectors

log = logging.getLogger(__name__)

SAMPLE = "sample"
REPORTED = "reported"

SAMPLE_RATE = 0.1
"""Default share of finished rated matches analysed in the background (``FAIRPLAY_SAMPLE_RATE``). A match
costs about 7 s of engine time (two seats of at most 40 judged discards), so at 10% one background core
keeps up with some 80 rated matches finished a minute (docs/fairplay.md)."""


def sample_rate() -> float:
    """The setting ``FAIRPLAY_SAMPLE_RATE`` (0..1) or :data:`SAMPLE_RATE`."""
    return float(getattr(settings, "FAIRPLAY_SAMPLE_RATE", SAMPLE_RATE))


def sample_salt() -> str:
    """The sample's secret salt: the site's ``SECRET_KEY`` (players cannot compute which of their matches
    are sampled; a new key draws another sample, which is harmless)."""
    return str(settings.SECRET_KEY)


def judged_decisions() -> int:
    """Discard decisions judged per seat: the setting ``FAIRPLAY_ASSISTANCE_DECISIONS`` (tests judge a
    few) or :data:`fairplay.assistance.MAX_DECISIONS`."""
    return int(getattr(settings, "FAIRPLAY_ASSISTANCE_DECISIONS", assistance.MAX_DECISIONS))


def judge_worlds() -> int:
    """Worlds per judged decision: the setting ``FAIRPLAY_ASSISTANCE_WORLDS`` (tests use few) or
    :data:`fairplay.assistance.JUDGE_WORLDS`."""
    return int(getattr(settings, "FAIRPLAY_ASSISTANCE_WORLDS", assistance.JUDGE_WORLDS))


def person_seats(match: Match) -> list[int]:
    """The seats (0/1) of ``match`` held by people: not a house bot's seat, not an empty one."""
    bots = set(match.bot_seats or [])
    seats = []
    for seat, user in enumerate((match.player0, match.player1)):
        if seat not in bots and user is not None and not user.is_bot:
            seats.append(seat)
    return seats


def eligible(match: Match) -> bool:
    """A finished rated match with at least one person in a seat."""
    return match.status == MatchStatus.FINISHED and match.rated and bool(person_seats(match))


def has_open_report(user_ids: list[int]) -> bool:
    """Whether any of ``user_ids`` has an open report against them (whatever its reason)."""
    return Report.objects.filter(reported_id__in=user_ids, status=ReportStatus.OPEN).exists()


def why_analyse(match: Match) -> str | None:
    """``"reported"``, ``"sample"`` or None (module docstring)."""
    if not eligible(match):
        return None
    players = [match.player0_id, match.player1_id]
    people = [players[seat] for seat in person_seats(match)]
    if has_open_report([p for p in people if p is not None]):
        return REPORTED
    return SAMPLE if assistance.in_sample(match.pk, sample_rate(), sample_salt()) else None


def _moves(record: dict[str, Any]) -> dict[int, tuple[list[Any], list[tuple[int, int]]]]:
    """Seat -> its decisions ``(view, action)`` in the order played (forced and timer moves left out), and
    each one's ``(hand, step)``."""
    moves: dict[int, tuple[list[Any], list[tuple[int, int]]]] = {0: ([], []), 1: ([], [])}
    for pos in positions(record):
        if pos.is_decision:
            moves[pos.seat][0].append((pos.view, pos.action))
            moves[pos.seat][1].append((pos.hand, pos.step))
    return moves


def assistance_match(*, match_id: int, why: str = SAMPLE) -> list[SeatSignal]:
    """Analyse the person seats of match ``match_id`` and refresh their players (module docstring).

    Returns the match's :class:`SeatSignal` rows of this method version (those already there included);
    ``[]`` when the match is missing or not eligible, or its record fails verification (logged: a
    match the rules reject is never judged).
    """
    match = Match.objects.select_related("player0", "player1").filter(pk=match_id).first()
    if match is None or not eligible(match):
        return []
    seats = person_seats(match)
    done = {s.seat: s for s in SeatSignal.objects.filter(match=match, version=assistance.METHOD_VERSION)}
    todo = [seat for seat in seats if seat not in done]
    if todo:
        try:
            record = replay_selectors.match_record(match=match)
        except replay_selectors.ReplayFailed as exc:
            log.warning("match %s: not analysed, its record fails at event %s: %s", match_id, exc.event,
                        exc.reason)
            return []
        moves = _moves(record)
        for seat in todo:
            player_id = match.player0_id if seat == 0 else match.player1_id
            assert player_id is not None  # person_seats: a person holds it
            played, places = moves[seat]
            tally = assistance.tally_seat(played, most=judged_decisions(), worlds=judge_worlds(),
                                          places=places)
            row, _ = SeatSignal.objects.update_or_create(
                match=match, seat=seat,
                defaults={"player_id": player_id,
                          "decisions": tally.decisions, "agreed": tally.agreed, "loss": round(tally.loss, 3),
                          "why": why, "version": assistance.METHOD_VERSION,
                          "flagged": [list(place) for place in tally.flagged]},
            )
            done[seat] = row
    for seat in seats:
        player_refresh(user_id=done[seat].player_id)
    return [done[seat] for seat in seats]


def player_refresh(*, user_id: int) -> PlayerSignal:
    """Recompute ``user_id``'s assistance columns from their last ``WINDOW`` seat signals (newest first)
    and their current rating's band; only those four columns are written."""
    rows = (SeatSignal.objects.filter(player_id=user_id, version=assistance.METHOD_VERSION)
            .order_by("-analysed_at", "-id").values_list("decisions", "agreed", "loss")[: assistance.WINDOW])
    figure = assistance.rolling(list(rows))
    user = User.objects.get(pk=user_id)
    elo = {level: float(v) for level, v in calibrated_elo().items()} or None
    band = assistance.band_of(rating_get(user=user).rating, elo)
    z = assistance.z_score(figure, band)
    signal, _ = PlayerSignal.objects.update_or_create(
        user_id=user_id,
        defaults={"decisions": figure.decisions, "agreement": figure.agreement,
                  "loss_per_decision": figure.loss_per_decision,
                  "assistance_z": None if z is None else round(z, 3)},
    )
    return signal


def reported_backlog(*, user_id: int, limit: int = assistance.WINDOW) -> list[int]:
    """The ids of ``user_id``'s latest ``limit`` finished rated matches not yet analysed by this method
    version, newest first (what a report of them has analysed: every match of a reported player)."""
    theirs = Q(player0_id=user_id) | Q(player1_id=user_id)
    analysed = (SeatSignal.objects.filter(player_id=user_id, version=assistance.METHOD_VERSION)
                .values("match_id"))
    rows = (Match.objects.filter(theirs, status=MatchStatus.FINISHED, rated=True).exclude(pk__in=analysed)
            .order_by("-finished_at", "-id").values_list("pk", flat=True))
    return list(rows[:limit])
