"""A tournament's results as files: CSV (standings, games) and TRF-16 for Swiss events (``tournaments.trf``).

Exports open once round 1 has started (``current_round >= 1``) or, for an Arena event, once it has run;
a running event's export is *partial*: only the results recorded so far (the TRF: only the finished
rounds), and its file name says ``partial``. docs/tournaments.md "Results and exports".
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from django.urls import reverse

from tournaments import arena_play, selectors, trf
from tournaments.models import (
    ArenaGame,
    Pairing,
    RoundStatus,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A spreadsheet reads a cell starting with one of these as a formula (OWASP "CSV injection")."""


def safe_cell(value: object) -> str:
    """``value`` as text for a CSV cell a spreadsheet will not run: text starting with ``= + - @``, tab
    or CR gets a leading ``'``. Numbers are written by the caller as numbers (never through here), so
    ``-7`` stays a number."""
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def exportable(tournament: Tournament) -> bool:
    """True once the event has results to export: a Swiss event from round 1, an Arena from its start."""
    if tournament.format == TournamentFormat.ARENA:
        return tournament.status in (TournamentStatus.RUNNING, TournamentStatus.FINISHED)
    return tournament.current_round >= 1


def is_partial(tournament: Tournament) -> bool:
    return tournament.status != TournamentStatus.FINISHED


def filename(tournament: Tournament, part: str, ext: str) -> str:
    """``tournament-<id>-<part>[-partial].<ext>``: ASCII only, no quoting trouble in Content-Disposition."""
    return f"tournament-{tournament.pk}-{part}{'-partial' if is_partial(tournament) else ''}.{ext}"


def _csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([cell if isinstance(cell, (int, float)) and not isinstance(cell, bool)
                         else safe_cell("" if cell is None else cell) for cell in row])
    return out.getvalue()


def _replay_url(base: str, match_id: int | None, *, decided: bool) -> str:
    """``base`` + the match's replay (``/replay/<id>/``) once it has a result, its live view
    (``/watch/<id>/``) while in play; empty without a match."""
    if not match_id:
        return ""
    return base + reverse("replays:replay" if decided else "replays:watch", args=[match_id])


STANDINGS_HEADER = ("rank", "player", "points", "buchholz", "sonneborn_berger", "hand_point_diff",
                    "rating_start", "rating_end", "games", "withdrawn", "bot")
GAMES_HEADER = ("round", "board", "player0", "player1", "points0", "points1", "hand_points0",
                "hand_points1", "result", "replay_url")


def swiss_standings_csv(tournament: Tournament) -> str:
    """One row per player of :func:`selectors.standings_of` (ranked; players whose account was closed for
    fair play are left out, as on the page): :data:`STANDINGS_HEADER`. ``rating_end`` is the rating after the
    event (:func:`selectors.ratings_after`, as on the page; empty before the end and for a bot)."""
    played: dict[int, int] = {}
    for p in selectors.pairings_of(tournament):
        if p.points is not None and p.player1_id is not None:
            played[p.player0_id] = played.get(p.player0_id, 0) + 1
            played[p.player1_id] = played.get(p.player1_id, 0) + 1
    rows = []
    for row in selectors.standings_of(tournament):
        line, reg = row.line, row.registration
        end = row.rating_after_shown
        rows.append((line.rank, reg.user.public_name, float(line.score), float(line.buchholz),
                     float(line.sonneborn_berger),
                     line.hand_point_diff, round(line.rating), end, played.get(reg.user_id, 0),
                     int(reg.withdrawn), int(reg.user.is_bot)))
    return _csv(STANDINGS_HEADER, rows)


def _result_word(pairing: Pairing) -> str:
    if pairing.player1_id is None:
        return "bye"
    if pairing.points is None:
        return "playing"
    word = "1-0" if pairing.points[0] > pairing.points[1] else "0-1"
    return word + " forfeit" if pairing.forfeit else word


def swiss_games_csv(tournament: Tournament, base_url: str = "") -> str:
    """One row per board (:data:`GAMES_HEADER`): round, board, the two players (seat 0 first; a bye has
    no ``player1``), points and hand points per seat, ``result`` (``1-0``, ``0-1``, ``+ forfeit``,
    ``bye``, ``playing``), the replay's URL (``base_url`` + ``/replay/<id>/``; ``/watch/<id>/`` while in
    play; empty for a bye or a forfeit)."""
    rows = []
    for p in selectors.pairings_of(tournament):
        points = p.points or [None, None]
        hands = p.hand_points or [None, None]
        rows.append((p.round.number, p.board, p.player0.public_name,
                     p.player1.public_name if p.player1 else "", points[0], points[1], hands[0], hands[1],
                     _result_word(p), _replay_url(base_url, p.match_id, decided=p.points is not None)))
    return _csv(GAMES_HEADER, rows)


ARENA_HEADER = ("rank", "player", "score", "performance", "streak", "games", "wins", "withdrawn", "bot")
ARENA_GAMES_HEADER = ("started_at", "finished_at", "player0", "player1", "points0", "points1",
                      "hand_points0", "hand_points1", "winner", "replay_url")


def arena_standings_csv(tournament: Tournament) -> str:
    """One row per player (:data:`ARENA_HEADER`) in the page's order and ranks
    (:func:`tournaments.arena_play.arena_rows`: score, then performance, then rating, then username;
    players equal on score and performance share a rank). ``performance`` is a whole rating (empty: no
    match with a result yet); ``games``/``wins`` count the finished :class:`ArenaGame` rows."""
    wins: dict[int, int] = {}
    for winner_id in ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=False,
                                              winner__isnull=False).values_list("winner_id", flat=True):
        wins[winner_id] = wins.get(winner_id, 0) + 1
    rows = []
    for row in arena_play.arena_rows(tournament):
        line, r = row.line, row.registration
        performance = None if line.performance is None else round(line.performance)
        rows.append((line.rank, r.user.public_name, r.arena_score, performance, r.arena_streak, row.games,
                     wins.get(r.user_id, 0), int(r.withdrawn), int(r.user.is_bot)))
    return _csv(ARENA_HEADER, rows)


def arena_games_csv(tournament: Tournament, base_url: str = "") -> str:
    """One row per Arena match (:data:`ARENA_GAMES_HEADER`), oldest first; times ISO 8601 UTC."""
    rows = []
    for g in (ArenaGame.objects.filter(tournament=tournament)
              .select_related("player0", "player1", "winner").order_by("started_at", "id")):
        points = g.points or [None, None]
        hands = g.hand_points or [None, None]
        rows.append((g.started_at.isoformat(), g.finished_at.isoformat() if g.finished_at else "",
                     g.player0.public_name, g.player1.public_name, points[0], points[1], hands[0], hands[1],
                     g.winner.public_name if g.winner else "",
                     _replay_url(base_url, g.match_id, decided=g.finished_at is not None)))
    return _csv(ARENA_GAMES_HEADER, rows)


def trf_report(tournament: Tournament) -> trf.Report:
    """The Swiss event as a :class:`trf.Report`: starting ranks = pairing numbers (as the pairing used
    them: ``selectors.swiss_field``), ratings at the start, points and ranks of the finished rounds only
    (a running event's current round is left out), seat 0 = white. A player without a rank in the
    standings (account closed for fair play: left out of them) is ranked after everyone else."""
    field = {p.id: p for p in selectors.swiss_field(tournament)}
    regs = {str(r.user_id): r for r in tournament.registrations.select_related("user")}
    finished = list(tournament.round_set.filter(status=RoundStatus.FINISHED).order_by("number")
                    .values_list("number", flat=True))
    last = max(finished, default=0)
    games: dict[str, dict[int, trf.Game]] = {uid: {} for uid in field}
    points: dict[str, float] = {uid: 0.0 for uid in field}
    for p in selectors.pairings_of(tournament).filter(round__number__lte=last):
        uid0, uid1 = str(p.player0_id), str(p.player1_id) if p.player1_id else None
        k = p.round.number
        scored = p.points or [0, 0]
        points[uid0] += scored[0]
        if uid1 is None:
            games[uid0][k] = trf.Game(0, "-", "U")
            continue
        points[uid1] += scored[1]
        win0 = scored[0] > scored[1]
        codes = ("+", "-") if p.forfeit else ("1", "0")
        games[uid0][k] = trf.Game(field[uid1].number, "w", codes[0] if win0 else codes[1])
        games[uid1][k] = trf.Game(field[uid0].number, "b", codes[1] if win0 else codes[0])
    ranks = {line.line.player: line.line.rank for line in selectors.standings_of(tournament)} if last else {}
    behind = len(ranks) + 1
    players = tuple(
        trf.PlayerLine(
            number=player.number, name=regs[uid].user.public_name, rating=round(player.rating),
            points=points[uid], rank=ranks.get(uid, behind),
            games=tuple(games[uid].get(k, trf.Game(0, "-", "Z")) for k in range(1, last + 1)),
        )
        for uid, player in field.items()
    )
    return trf.Report(
        name=tournament.name_en, players=players,
        rounds=tournament.rounds or tournament.fixed_rounds or last,
        start=tournament.starts_at.date(),
        end=tournament.finished_at.date() if tournament.finished_at else None,
        type="Swiss (gin rummy matches)",
    )
