"""Rating reads (HackSoft selectors): a player's rating, the boards, a profile, a match's changes.

Ranks are positions on the all-time board of established players: by rating (exact), ties by the
earlier account first. Boards list people only; house bots have their own table (:func:`bots_board`), and
BOT accounts (programs playing through the bot API, docs/bot-api.md) their own board (:func:`bot_board`),
where the house bots stand as anchors.
Hidden players (``PlayerRating.hidden``: marked or closed for a fair-play violation) are on no board,
count in no rank, and have no rank themselves (docs/fairplay.md).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple
from urllib.parse import quote

from django.core.cache import cache
from django.core.paginator import Page
from django.db import connection
from django.db.models import Case, Count, F, FloatField, Func, Q, QuerySet, Subquery, Sum, Value, When, Window
from django.db.models.functions import Coalesce, Lower, RowNumber
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone

from accounts.models import BOT_LEVELS, Standing, User
from accounts.services import house_bot_username
from ratings import chart, elo
from ratings.bot_elo import calibrated_elo
from ratings.models import PlayerRating, RatingBucket, RatingChange, RatingRefund
from web import paging

TABS = ("all", "30d")
"""Board tabs: ``all`` (all time) and ``30d`` (players rated in the last 30 days)."""
PER_PAGE = 50
RECENT_DAYS = 30
HISTORY_POINTS = 500
"""Most rated matches drawn on a profile's chart (the latest ones)."""
LAST_MATCHES = 20
BOARD_COUNT_SECONDS = 60
SEARCH_CAP = 1000
"""Most players a name search pages through: past it the board says to type more of the name."""


def bot_rating(level: int) -> int:
    """The fixed rating of the house bot of ``level`` (its calibrated Elo, data/bot_elo.json);
    1500 for a level the file does not list."""
    return calibrated_elo().get(level, int(elo.INITIAL_RATING))


def seat_rating_expr(prefix: str) -> Case:
    """SQL (an annotation on a query of matches): the rating of the user at ``prefix`` (``"player0"``,
    ``"player1"``): a house bot's fixed Elo (:func:`bot_rating`), else the member's current rating
    (exact, a LEFT JOIN of its rating row), else 1500 (never rated). The rule of the home page's live
    match and of ``/watch/`` (``replays.selectors.live_matches``)."""
    member = F(f"{prefix}__rating__rating")
    bots = [When(**{f"{prefix}__bot_level": level}, then=Value(float(bot_rating(level))))
            for level in BOT_LEVELS]
    return Case(*bots, default=Coalesce(member, Value(elo.INITIAL_RATING)), output_field=FloatField())


@dataclass(frozen=True, slots=True)
class RatingInfo:
    """A member's rating: ``rating`` exact, ``shown`` rounded; counts; ``provisional`` below 10 matches."""

    rating: float
    rated_matches: int
    wins: int
    losses: int
    peak: float

    @property
    def shown(self) -> int:
        return elo.shown(self.rating)

    @property
    def provisional(self) -> bool:
        return elo.is_provisional(self.rated_matches)


def rating_get(*, user: User) -> RatingInfo:
    """The current rating of ``user`` (1500 and no matches when never rated; a bot's fixed rating)."""
    if user.is_bot:
        fixed = float(bot_rating(user.bot_level or 0))
        return RatingInfo(fixed, elo.PROVISIONAL_MATCHES, 0, 0, fixed)
    row = PlayerRating.objects.filter(user_id=user.pk).first()
    if row is None:
        return RatingInfo(elo.INITIAL_RATING, 0, 0, 0, elo.INITIAL_RATING)
    return RatingInfo(row.rating, row.rated_matches, row.wins, row.losses, row.peak)


# --------------------------------------------------------------------------------------------- boards


def _bot_account_ids() -> QuerySet[User, Any]:
    """The ids of the BOT accounts, as a subquery (a NOT IN over it is one hashed subplan: a join of the
    board with the users would cost a lookup per skipped row of a deep page)."""
    return User.objects.filter(bot_account=True).values("pk")


def _board(*, tab: str, provisional: bool, now: datetime | None = None) -> QuerySet[PlayerRating]:
    """The people's board ``tab``: rated, not hidden, not a BOT account (they have :func:`bot_board`)."""
    qs = PlayerRating.objects.filter(rated_matches__gt=0, hidden=False).exclude(
        user_id__in=_bot_account_ids())
    if not provisional:
        qs = qs.filter(rated_matches__gte=elo.PROVISIONAL_MATCHES)
    if tab == "30d":
        qs = qs.filter(last_rated_at__gte=(now or timezone.now()) - timedelta(days=RECENT_DAYS))
    return qs


def _search(qs: QuerySet[PlayerRating], search: str) -> QuerySet[PlayerRating]:
    """Players whose username or display name starts with ``search``, ignoring case: ``lower(name) LIKE
    'prefix%'``, which the indexes of migration 0002 serve on PostgreSQL (Django's ``istartswith``,
    ``UPPER(name) LIKE``, read every member)."""
    prefix = search.lower()
    return qs.alias(username_lower=Lower("user__username"), display_lower=Lower("user__display_name")).filter(
        Q(username_lower__startswith=prefix) | Q(display_lower__startswith=prefix)
    )


def _ahead(qs: QuerySet[PlayerRating], rating: float, user_id: int) -> QuerySet[PlayerRating]:
    return qs.filter(Q(rating__gt=rating) | Q(rating=rating, user_id__lt=user_id))


@dataclass
class Board:
    """One page of a board: ``rows`` (dicts for the template), ``page`` (Django ``Page``), ``count``."""

    rows: list[dict[str, Any]]
    page: Page[PlayerRating]
    count: int
    me_on_page: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def provisional_match_exists(*, tab: str, search: str) -> bool:
    """Whether a provisional player (fewer than ``elo.PROVISIONAL_MATCHES`` rated matches) on board
    ``tab`` has a name starting with ``search`` (as :func:`board_page` searches; "" = False): the
    rankings say so when the board without provisional players finds nobody."""
    if not search:
        return False
    board = _board(tab=tab, provisional=True).filter(rated_matches__lt=elo.PROVISIONAL_MATCHES)
    return _search(board, search).exists()


def board_page(
    *, tab: str, provisional: bool, search: str, page: int, viewer_id: int | None = None,
    per_page: int = PER_PAGE,
) -> Board:
    """Page ``page`` (1-based) of board ``tab`` (:data:`TABS`), established players only unless
    ``provisional``, filtered by name prefix ``search`` ("" = all). Rows: ``rank`` (position on this
    board), ``user_id``, ``username``, ``name``, ``rating`` (shown), ``rated_matches``, ``wins``,
    ``losses``, ``provisional``, ``me``; on the ``30d`` tab also ``change`` (shown points),
    ``wins_30d``, ``losses_30d``. ``extra["search_capped"]`` = :data:`SEARCH_CAP` when more players
    than that match ``search`` (then only the first :data:`SEARCH_CAP` are paged).

    :raises web.paging.NoSuchPage: ``page`` is past the last page (page 1 always exists, maybe empty).
    """
    now = timezone.now()
    base = _board(tab=tab, provisional=provisional, now=now)
    columns = ("rating", "rated_matches", "wins", "losses", "user__username", "user__display_name")
    extra: dict[str, Any] = {}
    source: Any
    if search:
        # The players found first, through the name indexes (at most SEARCH_CAP + 1 of them), then their
        # order in Python: ORDER BY rating over the join let the planner walk the whole board probing
        # each player's name when it over-counted a prefix's players (60 ms for "seed-00100").
        found = list(_search(base, search).values_list("user_id", "rating")[:SEARCH_CAP + 1])
        if len(found) <= SEARCH_CAP:
            found.sort(key=lambda f: (-f[1], f[0]))
            source, count = [pk for pk, _rating in found], len(found)
        else:
            # So many names start like this that walking the board in order finds a page fast; the
            # pages stop at SEARCH_CAP players (the template says so).
            source = _search(base, search).values_list("user_id", flat=True).order_by(
                "-rating", "user_id")[:SEARCH_CAP]
            count = SEARCH_CAP
            extra["search_capped"] = SEARCH_CAP
    else:
        # The page's user ids first (an index-only scan of the board's index, however deep the page),
        # then their rows: an OFFSET over the join read every skipped player's row (300 ms at page 900).
        source = base.values_list("user_id", flat=True).order_by("-rating", "user_id")
        count = _board_count(tab=tab, provisional=provisional, base=base)
    # The page's ids are read past its end by one (web.paging), never cut to ``count``: on the 30-day
    # board that is a minute-old number, and Django's Paginator slicing to it hid the players who joined
    # the board since (a trial found "Nobody on this board yet" above its own row).
    current = paging.page_of(source, page=page, per_page=per_page, count=count)
    ids = list(current.object_list)
    order = {pk: i for i, pk in enumerate(ids)}
    items = sorted(PlayerRating.objects.filter(user_id__in=ids).select_related("user").only(*columns),
                   key=lambda r: order[r.user_id])
    if search:
        ranks = _ranks(base, items, tab=tab, provisional=provisional)
    else:
        ranks = {pk: current.start_index() + i for i, pk in enumerate(ids)}
    recent: dict[int, Mapping[str, Any]] = {}
    if tab == "30d" and items:
        recent = {
            row["player_id"]: row for row in RatingChange.objects.filter(
                player_id__in=[r.user_id for r in items],
                created_at__gte=now - timedelta(days=RECENT_DAYS),
            ).values("player_id").annotate(
                change=Sum("delta"), wins_30d=Count("id", filter=Q(won=True)),
                losses_30d=Count("id", filter=Q(won=False)),
            ).order_by()
        }
    rows = []
    for r in items:
        row: dict[str, Any] = {
            "rank": ranks[r.user_id], "user_id": r.user_id, "username": r.user.username,
            "profile_url": profile_url(r.user.username),
            "name": r.user.display_name or r.user.username, "rating": elo.shown(r.rating),
            "rated_matches": r.rated_matches, "wins": r.wins, "losses": r.losses,
            "provisional": elo.is_provisional(r.rated_matches), "me": r.user_id == viewer_id,
        }
        if tab == "30d":
            got = recent.get(r.user_id, {})
            row["change"] = elo.shown(got.get("change") or 0.0)
            row["wins_30d"] = got.get("wins_30d", 0)
            row["losses_30d"] = got.get("losses_30d", 0)
        rows.append(row)
    return Board(rows=rows, page=current, count=current.paginator.count,
                 me_on_page=any(row["me"] for row in rows), extra=extra)


def _board_count(*, tab: str, provisional: bool, base: QuerySet[PlayerRating]) -> int:
    """How many players board ``tab`` has: exact on the all-time boards (a sum over the rating buckets,
    ~1,300 rows); on the 30-day board a count cached for :data:`BOARD_COUNT_SECONDS` (it is the page's
    costliest query there: ~5 ms at 53,000 players), which :func:`board_page` only ever raises."""
    if tab == "all":
        # The buckets count every rated player, BOT accounts too (the triggers see no user): take those
        # on this board away, in the same query.
        column = "everyone" if provisional else "established"
        bots = (PlayerRating.objects.filter(rated_matches__gte=1 if provisional else elo.PROVISIONAL_MATCHES,
                                            hidden=False, user_id__in=_bot_account_ids())
                .order_by().values("hidden").annotate(n=Count("pk")).values("n"))
        return int(RatingBucket.objects.aggregate(
            n=Coalesce(Sum(column), 0) - Coalesce(Subquery(bots[:1]), 0))["n"] or 0)
    key = f"ratings:board-count:{tab}:{int(provisional)}"
    count = cache.get(key)
    if count is None:
        count = base.count()
        cache.set(key, count, BOARD_COUNT_SECONDS)
    return int(count)


def _ranks(board: QuerySet[PlayerRating], rows: list[PlayerRating], *, tab: str,
           provisional: bool) -> dict[int, int]:
    """Each row's rank on ``board`` (1 = first), in one query: :func:`ranks_of` on the all-time boards;
    on the 30-day board (which no bucket counts: it changes as time passes), the board's row numbers
    (``ROW_NUMBER()`` over the board's index order, from the top down to the lowest of ``rows``), kept
    for ``rows`` only."""
    if not rows:
        return {}
    if tab == "all":
        return ranks_of([(r.user_id, r.rating) for r in rows], provisional=provisional)
    numbered = board.filter(rating__gte=min(r.rating for r in rows)).annotate(
        position=Window(RowNumber(), order_by=(F("rating").desc(), F("user_id").asc()))
    ).values("user_id", "position")
    sql, params = numbered.query.sql_with_params()
    ids = [r.user_id for r in rows]
    # The row numbers must be taken over the whole board before keeping these ids: hence the outer query
    # (a filter on the queryset itself would go inside, before ROW_NUMBER()).
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT user_id, position FROM ({sql}) numbered "
                       f"WHERE user_id IN ({', '.join(['%s'] * len(ids))})", [*params, *ids])
        return dict(cursor.fetchall())


def ranks_of(players: list[tuple[int, float]], *, provisional: bool = False) -> dict[int, int]:
    """The all-time rank (1 = first: by rating, ties by the lower user id) of each ``(user_id, rating)``
    of ``players``, every one a player on that board (established, or any rated player when
    ``provisional``); one query whatever their number.

    rank = 1 + the board's players in the :class:`~ratings.models.RatingBucket` rows above the player's
    whole Elo point (a window sum over the bucket table, ~1,300 rows) + those ahead of it inside its own
    point (an index range scan of that point's players: about a hundred at the crowded middle of the
    board). Exact: the buckets are kept by triggers in every writing transaction (migration 0003). The
    buckets count BOT accounts too (they are on no people's board): those ahead are taken away (a BOT
    account's own rank here is meaningless: :func:`rank_get` gives them none).
    """
    if not players:
        return {}
    column, board = ("everyone", "p.rated_matches > 0 AND NOT p.hidden") if provisional else (
        "established", f"p.rated_matches >= {elo.PROVISIONAL_MATCHES} AND NOT p.hidden")
    # CAST: a float bound client-side is a numeric literal on PostgreSQL, and float8 = numeric compares
    # as numeric, which no rating index serves.
    values = ", ".join(["(%s, CAST(%s AS DOUBLE PRECISION), %s)"] * len(players))
    users, user_pk = User._meta.db_table, User._meta.pk.column
    sql = f"""
        WITH f(user_id, rating, bucket) AS (VALUES {values}),
        above(bucket, n) AS (
            SELECT bucket, SUM({column}) OVER (ORDER BY bucket DESC) - {column} FROM ratings_ratingbucket
            WHERE bucket >= (SELECT MIN(bucket) FROM f)
        )
        SELECT f.user_id, 1 + COALESCE(above.n, 0) + (
            SELECT COUNT(*) FROM ratings_playerrating p
            WHERE {board} AND p.rating >= f.bucket AND p.rating < f.bucket + 1
              AND (p.rating > f.rating OR (p.rating = f.rating AND p.user_id < f.user_id))
        )
        - (
            SELECT COUNT(*) FROM ratings_playerrating p JOIN {users} u ON u.{user_pk} = p.user_id
            WHERE u.bot_account AND {board}
              AND (p.rating > f.rating OR (p.rating = f.rating AND p.user_id < f.user_id))
        )
        FROM f LEFT JOIN above ON above.bucket = f.bucket
    """
    params: list[int | float] = []
    for user_id, rating in players:
        params += [user_id, rating, math.floor(rating)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {user_id: int(rank) for user_id, rank in cursor.fetchall()}


def rank_get(*, user_id: int, tab: str = "all", provisional: bool = False) -> int | None:
    """Position of ``user_id`` on board ``tab`` (provisional players shown or not), or None when the
    player is not on it (never rated, provisional while hidden, not rated in the last 30 days)."""
    row = _board(tab=tab, provisional=provisional).filter(user_id=user_id).only("rating").first()
    if row is None:
        return None
    if tab == "all":
        return ranks_of([(user_id, row.rating)], provisional=provisional)[user_id]
    return _ahead(_board(tab=tab, provisional=provisional), row.rating, user_id).count() + 1


def bots_board() -> list[dict[str, Any]]:
    """The house bots with their fixed ratings, weakest first: ``level``, ``username``, ``name``,
    ``rating``."""
    names = [house_bot_username(level) for level in BOT_LEVELS]  # not the tournaments' extra bot accounts
    return [
        {"level": u.bot_level, "username": u.username, "name": u.public_name,
         "rating": bot_rating(u.bot_level or 0)}
        for u in User.objects.filter(is_bot=True, username__in=names).order_by("bot_level")
        .only("username", "bot_level", "is_bot", "display_name")
    ]


BOT_BOARD_MAX = 2000
"""Most BOT accounts the BOT board lists (by rating): it is built whole, in Python."""


def bot_board() -> list[dict[str, Any]]:
    """The BOT ranking (docs/bot-api.md): every rated BOT account (provisional ones too, marked: a new
    program's first ten matches are the board's news) and the house bots as anchors at their fixed
    Elo, interleaved by rating, highest first (ties: a BOT account before an anchor, then the lower id).

    Rows: ``rank`` (position among the BOT accounts; None for an anchor), ``user_id``, ``username``,
    ``name``, ``profile_url``, ``rating`` (shown), ``rated_matches``, ``wins``, ``losses``,
    ``provisional``, ``anchor`` (a house bot), ``house_bot_level`` (1..5 for an anchor, else None),
    ``bot_account``. Anchors' counts are None (their rating is fixed, not won). Two queries."""
    rated = (PlayerRating.objects.filter(rated_matches__gt=0, hidden=False, user__bot_account=True)
             .select_related("user").only("rating", "rated_matches", "wins", "losses", "user__username",
                                          "user__display_name", "user__bot_account", "user__is_bot",
                                          "user__bot_level")
             .order_by("-rating", "user_id")[:BOT_BOARD_MAX])
    rows: list[tuple[tuple[float, int, int], dict[str, Any]]] = []
    for r in rated:
        rows.append(((-r.rating, 0, r.user_id), {
            "user_id": r.user_id, "username": r.user.username, "name": r.user.public_name,
            "profile_url": profile_url(r.user.username), "rating": elo.shown(r.rating),
            "rated_matches": r.rated_matches, "wins": r.wins, "losses": r.losses,
            "provisional": elo.is_provisional(r.rated_matches), "anchor": False, "house_bot_level": None,
            "bot_account": True,
        }))
    for bot in bots_board():
        rows.append(((-float(bot["rating"]), 1, bot["level"]), {
            "user_id": None, "username": bot["username"], "name": bot["name"],
            "profile_url": profile_url(bot["username"]), "rating": bot["rating"],
            "rated_matches": None, "wins": None, "losses": None, "provisional": False, "anchor": True,
            "house_bot_level": bot["level"], "bot_account": False,
        }))
    rows.sort(key=lambda kv: kv[0])
    board, rank = [], 0
    for _key, row in rows:
        if not row["anchor"]:
            rank += 1
        board.append({"rank": None if row["anchor"] else rank, **row})
    return board


# --------------------------------------------------------------------------------------------- profile


# Characters reverse() leaves unquoted in a path argument (django.urls.resolvers: RFC 3986's
# sub-delimiters and "/~:@").
_PATH_SAFE = "!$&'()*+,;=/~:@"


@functools.cache
def _profile_prefix() -> str:
    return reverse("ratings:profile", args=["-"]).removesuffix("-/")


def profile_url(username: str) -> str:
    """``reverse("ratings:profile", args=[username])`` without a resolver walk per call (50 a board
    page: ~3 ms of its time)."""
    return f"{_profile_prefix()}{quote(username, safe=_PATH_SAFE)}/"


def replay_url(match_id: int) -> str | None:
    """Link to the replay of match ``match_id`` once the replays app serves ``/replay/<id>/``, else
    None (the hook the profile's match list uses)."""
    return f"/replay/{match_id}/" if _replay_served() else None


@functools.cache
def _replay_served() -> bool:
    # Once per process (the URLconf does not change while it runs): resolving per row of the profile's
    # match list cost ~0.15 ms each.
    try:
        resolve("/replay/1/")
    except Resolver404:
        return False
    return True


class EpochSeconds(Func):
    """Seconds since 1970-01-01 UTC of a datetime column, as a float (PostgreSQL, SQLite).

    The chart needs one number per point: a ``datetime`` per row (parsed by the driver, then
    ``localtime()`` and a localized date each) cost about a tenth of the profile page at 500 points.
    """

    output_field = FloatField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        # ::float8: EXTRACT returns numeric (PostgreSQL 14+), which psycopg would make a Decimal per row.
        return self.as_sql(compiler, connection, template="EXTRACT(EPOCH FROM %(expressions)s)::float8",
                           **extra)

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        # Django stores an aware datetime as UTC text, 'YYYY-MM-DD HH:MM:SS[.ffffff]': whole seconds from
        # strftime('%s'), plus the fraction as written (julianday() would round it to ~0.1 ms).
        template = ("(CAST(strftime('%%%%s', %(expressions)s) AS REAL)"
                    " + COALESCE(CAST(NULLIF(substr(%(expressions)s, 20), '') AS REAL), 0.0))")
        return self.as_sql(compiler, connection, template=template, **extra)


class ChartPoint(NamedTuple):
    """One rated match on a profile's chart: ``x``/``y`` in SVG units (:mod:`ratings.chart`), the
    shown ratings ``rating`` (after) and ``before``, ``change`` (their difference, points),
    ``match_id``, ``won``, the ``opponent``'s public name, ``at`` (seconds since 1970, UTC). A private
    event's match shown to another than its player has ``match_id`` None and ``opponent`` ``""``: the
    rating moved, and nothing says where or against whom."""

    x: float
    y: float
    rating: int
    before: int
    change: int
    match_id: int | None
    won: bool
    opponent: str
    at: float


_CHART_COLUMNS = ("match_id", "before", "after", "won", "at", "opponent__username", "opponent__display_name",
                  "opponent__is_bot", "opponent__bot_level", "match__result_reason", "match__private_event",
                  "opponent__bot_account")


def _public_name(username: str | None, display_name: str | None, is_bot: bool | None,
                 bot_level: int | None) -> str:
    """``User.public_name`` from a row's columns ("?" once the opponent is deleted)."""
    if username is None:
        return "?"
    if not is_bot:
        return display_name or username
    bot = User(username=username, display_name=display_name or "", is_bot=True, bot_level=bot_level)
    return bot.public_name


def profile_get(*, user: User, own: bool = False) -> dict[str, Any] | None:
    """Everything the profile page of member or house bot ``user`` shows (None for a guest): ``user``;
    ``info`` (:class:`RatingInfo`); ``rank`` (all-time, established only; None otherwise);
    ``record``: ``{"members": (wins, losses), "bots": (wins, losses)}``; ``chart`` (:mod:`ratings.chart`,
    with ``chart_points``: one :class:`ChartPoint` per rated match drawn, oldest first);
    ``matches``: the last :data:`LAST_MATCHES` rated matches (``match_id``, ``opponent``, ``won``,
    ``before``, ``after``, ``change``, ``at``, ``replay_url``, ``result_reason``); ``is_bot``;
    ``closed``: the account was closed for a fair-play violation (its history is frozen); ``refunds``:
    :func:`refunds_of`. 6 queries for a member.

    ``own``: the viewer is ``user``. For anyone else ``matches`` leaves out the matches played for a
    private event (``games.models.Match.private_event``: who may see those is the event's question,
    which this layer cannot ask); the chart keeps their rating points, which name no event."""
    if user.is_guest:
        return None
    info = rating_get(user=user)
    if user.is_bot:
        return {"user": user, "info": info, "is_bot": True, "rank": None, "record": None,
                "chart": None, "chart_points": [], "matches": [], "capped": False}
    record = record_get(user_id=user.pk)
    rows = list(
        RatingChange.objects.filter(player_id=user.pk).order_by("-created_at", "-id")
        .annotate(at=EpochSeconds("created_at")).values_list(*_CHART_COLUMNS)[:HISTORY_POINTS]
    )
    rows.reverse()  # oldest first
    drawn = chart.build([r[2] for r in rows], start=rows[0][1] if rows else None)
    names: dict[str | None, str] = {}  # one name per distinct opponent, not per row
    shown = elo.shown
    points = []
    for xy, (match_id, before, after, won, at, username_, display, is_bot, level, _reason, private,
             _bot_account) in zip(drawn.points[1:], rows, strict=True):
        shown_before, shown_after = shown(before), shown(after)
        if private and not own:
            points.append(ChartPoint(xy.x, xy.y, shown_after, shown_before, shown_after - shown_before,
                                     None, won, "", at))
            continue
        name = names.get(username_)
        if name is None:
            name = names[username_] = _public_name(username_, display, is_bot, level)
        points.append(ChartPoint(xy.x, xy.y, shown_after, shown_before, shown_after - shown_before,
                                 match_id, won, name, at))
    matches = []
    for (match_id, before, after, won, at, username_, *_rest, reason, private, bot_account), point in zip(
        reversed(rows[-LAST_MATCHES:]), reversed(points[-LAST_MATCHES:]), strict=True
    ):
        if private and not own:
            continue
        matches.append({
            "match_id": match_id, "won": won, "opponent": point.opponent, "opponent_username": username_,
            "opponent_url": None if username_ is None else profile_url(username_),
            "before": point.before, "after": point.rating, "change": elo.shown_change(before, after),
            "at": datetime.fromtimestamp(at, tz=UTC), "replay_url": replay_url(match_id),
            "result_reason": reason, "opponent_bot_account": bool(bot_account),
        })
    # rank_get() without its first query: the rating is at hand. A marked or closed account has no
    # rank (its row is hidden: docs/fairplay.md); its standing is on the user row already read.
    hidden = user.standing != Standing.GOOD
    rank = None if info.provisional or hidden else ranks_of([(user.pk, info.rating)])[user.pk]
    return {
        "user": user, "info": info, "is_bot": False, "rank": rank, "record": record, "chart": drawn,
        "closed": user.standing == Standing.CLOSED, "refunds": refunds_of(user_id=user.pk),
        "chart_points": points, "matches": matches, "capped": info.rated_matches > len(rows),
        "peak_shown": elo.shown(info.peak), "chart_width": chart.WIDTH, "chart_height": chart.HEIGHT,
        "chart_left": chart.PAD_LEFT,
    }


REFUNDS_SHOWN = 20
"""Most refunds a profile lists (the latest)."""


def refunds_of(*, user_id: int, limit: int = REFUNDS_SHOWN) -> list[dict[str, Any]]:
    """A member's rating refunds (``RatingRefund``), newest first, at most ``limit``: ``match_id``,
    ``points`` (exact Elo points given back), ``change`` (shown: ``+12``), ``before``/``after`` (shown),
    ``at`` (datetime). The closed opponent is not named (docs/fairplay.md)."""
    rows = RatingRefund.objects.filter(player_id=user_id).order_by("-created_at", "-id").values_list(
        "match_id", "points", "before", "after", "created_at")[:limit]
    return [{"match_id": match_id, "points": points, "change": elo.shown_change(before, after),
             "before": elo.shown(before), "after": elo.shown(after), "at": at}
            for match_id, points, before, after, at in rows]


def record_get(*, user_id: int) -> dict[str, list[int]]:
    """A member's rated results by opponent type: ``{"members": [wins, losses], "bots": [wins, losses]}``
    (one grouped query)."""
    record = {"members": [0, 0], "bots": [0, 0]}
    for row in RatingChange.objects.filter(player_id=user_id).values("opponent_is_bot", "won").annotate(
        n=Count("id")
    ).order_by():
        record["bots" if row["opponent_is_bot"] else "members"][0 if row["won"] else 1] = row["n"]
    return record


def bot_record_get(*, user_id: int) -> dict[str, list[int]]:
    """A house bot's rated results, from its opponents' side of them: every rated match has one
    ``RatingChange`` per member seat, so the rows whose ``opponent`` is the bot are its rated matches (a
    bot's own seat gets none: its rating is fixed; bot-against-bot matches are never rated). Same shape
    as :func:`record_get`, ``"bots"`` always ``[0, 0]`` (one grouped query)."""
    record = {"members": [0, 0], "bots": [0, 0]}
    rows = RatingChange.objects.filter(opponent_id=user_id).values("won").annotate(n=Count("id")).order_by()
    for row in rows:
        record["members"][1 if row["won"] else 0] = row["n"]  # the member won: the bot lost
    return record


def history_of(*, user_id: int) -> QuerySet[RatingChange, Mapping[str, Any]]:
    """A member's rating changes, newest first, as ``values()`` dicts (one query per slice):
    ``match_id``, ``before``, ``after``, ``delta`` (exact Elo points), ``k``, ``opponent_rating``,
    ``won``, ``created_at``, ``opponent__username`` (None once deleted), ``opponent__display_name``,
    ``opponent__is_bot``, ``opponent__bot_level``, ``opponent__is_guest``, ``opponent__bot_account``."""
    return (
        RatingChange.objects.filter(player_id=user_id)
        .values("match_id", "before", "after", "delta", "k", "opponent_rating", "won", "created_at",
                "opponent__username", "opponent__display_name", "opponent__is_bot", "opponent__bot_level",
                "opponent__is_guest", "opponent__bot_account")
        .order_by("-created_at", "-id")
    )


def public_name_of(change: dict[str, Any]) -> str:
    """``User.public_name`` of a :func:`history_of` row's opponent from its values() columns ("?" once
    deleted)."""
    if change["opponent__username"] is None:
        return "?"
    return User(username=change["opponent__username"], display_name=change["opponent__display_name"],
                is_bot=change["opponent__is_bot"], bot_level=change["opponent__bot_level"]).public_name


def match_rating_get(*, match_id: int, user_id: int) -> dict[str, Any] | None:
    """The ``rating`` message (docs/protocol.md) of ``user_id`` for match ``match_id``, or None while the
    match is not rated (yet)."""
    change = RatingChange.objects.filter(match_id=match_id, player_id=user_id).first()
    if change is None:
        return None
    return rating_message(change)


def rating_message(change: RatingChange) -> dict[str, object]:
    """The ``rating`` WebSocket message of one seat (docs/protocol.md)."""
    return {
        "type": "rating",
        "match_id": change.match_id,
        "before": elo.shown(change.before),
        "after": elo.shown(change.after),
        "change": elo.shown_change(change.before, change.after),
        "delta": round(change.delta, 2),
        "k": change.k,
        "opponent_rating": elo.shown(change.opponent_rating),
        "won": change.won,
    }
