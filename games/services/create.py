"""Creating and starting matches: a match against a house bot, a friend's table and its join, a match
seated between any two users (tournaments, pools, simulations), and :func:`start_match`, which deals
hand 1 of any of them (``games.rematch`` starts its rematches with it too).

Seeded matches (``simulation_seed``): package docstring of ``games.services``.
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections.abc import Callable, Collection
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, Q
from django.utils import timezone

from accounts.models import Standing, User
from accounts.selectors import house_bot_get
from engine.deck import sub_seed
from engine.events import Event
from engine.match import cut_for_deal
from engine.rules import PRESETS, RuleSet
from games import bot_events, conf
from games.live import LiveMatch, load
from games.models import Match, MatchStatus
from games.selectors import rated_pair_count, rated_pair_counts
from games.services.errors import GameError, MatchInProgress, RatedRefused
from games.services.play import broadcast_on_commit, cache_on_commit, deal_hand, refresh_match, store_events


def _random_seat(seed: int | None) -> int:
    """Seat 0 or 1 at random: a secure draw for a real match (``seed`` None), else one drawn from the
    simulation seed (module docstring, "Seeded matches")."""
    if seed is None:
        return secrets.randbelow(2)
    return random.Random(sub_seed(seed, "first-dealer")).randrange(2)



def _rules(rules_preset: str, target: int) -> RuleSet:
    if rules_preset not in PRESETS:
        raise GameError("bad_field", f"unknown rule preset {rules_preset!r}; presets: {', '.join(PRESETS)}")
    if target not in conf.TARGETS:
        raise GameError("bad_field", f"target must be 50 or 100, got {target!r}")
    return PRESETS[rules_preset].replace(target=target)


def start_match(match: Match, *, first_dealer: int) -> LiveMatch:
    """Seat the first dealer, deal hand 1 and store it (match row saved by the caller); returns the
    engine state after the deal. Under rules whose ``first_dealer`` is ``cut`` the players cut for the
    deal instead (``engine.match.cut_for_deal``, a secure shuffle per round) and the cut is stored
    first, so the log shows why that seat deals."""
    cut = None
    seed = match.simulation_seed
    if RuleSet.from_dict(match.rules).first_dealer == "cut":
        cut, first_dealer = cut_for_deal(None if seed is None else random.Random(sub_seed(seed, "cut")))
    match.first_dealer = first_dealer
    match.status = MatchStatus.ACTIVE
    match.started_at = timezone.now()
    match.scores = [0, 0]
    match.timeout_strikes = [0, 0]
    live = load(match).clone()
    first: list[tuple[Event, dict[str, Any]]] = [] if cut is None else [(live.state.cut(cut), {})]
    store_events(match, live, [*first, deal_hand(live, seed)])
    cache_on_commit(match, live)
    refresh_match(match, live, dealt=True)
    bot_events.announce(match, "start")  # a BOT account's event stream: matchStart
    return live


def _create_once(*, user: User, submission: uuid.UUID | None, create: Callable[[], Match]) -> Match:
    """``create()`` (which stores ``submission`` on the new match), unless ``user`` already created a
    match from that form submission: then that match, unchanged.

    Two racing POSTs of one form (a double click): the second's INSERT waits for the first's row, fails
    on the ``(player0, submission)`` unique constraint inside a savepoint, and returns the first's match.
    ``submission`` None (a client without the form's token) creates every time.
    """
    if submission is None:
        return create()
    existing = Match.objects.filter(player0=user, submission=submission).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            return create()
    except IntegrityError:
        existing = Match.objects.filter(player0=user, submission=submission).first()
        if existing is None:
            raise
        return existing


def active_rated_match_id(*, user_id: int) -> int | None:
    """The id of the active match that keeps ``user_id`` from starting another rated one, or None.

    A person: an active rated match they are seated in (either seat; the oldest), whoever the opponent
    (a BOT account too). A BOT account (``User.bot_account``, docs/bot-api.md) plays up to
    ``conf.bot_active_matches()`` matches at once, rated or not: its oldest active match once it plays
    that many, else None. One query, whoever the user."""
    cap = conf.bot_active_matches()
    bot = Exists(User.objects.filter(pk=user_id, bot_account=True))
    rows = list(Match.objects.filter(Q(player0_id=user_id) | Q(player1_id=user_id), status=MatchStatus.ACTIVE)
                .filter(Q(rated=True) | bot).annotate(bot=bot).order_by("pk").values_list("pk", "bot")[:cap])
    if not rows:
        return None
    first, is_bot_account = rows[0]
    if not is_bot_account:
        return int(first)
    return int(first) if len(rows) >= cap else None


def waiting_rated_table_id(*, user_id: int) -> int | None:
    """The id of a rated friend table ``user_id`` opened that still waits for its second player, or None."""
    return (Match.objects.filter(player0_id=user_id, status=MatchStatus.WAITING, rated=True)
            .order_by("pk").values_list("pk", flat=True).first())


def lock_people(*users: User | None) -> dict[int, str]:
    """Lock the rows of the people among ``users`` (FOR NO KEY UPDATE, in id order, so two writes that
    lock the same two players cannot deadlock: the lock ``match_create_vs_bot``, the lobby's
    ``lock_users`` and a resignation's free-abort count take) and return their standing as stored now
    (``{user id: Standing}``: a moderator's mark made after the request loaded the user counts).
    House bots and None are skipped. Inside the caller's transaction."""
    ids = sorted({u.pk for u in users if u is not None and not getattr(u, "is_bot", False)})
    if not ids:
        return {}
    return dict(User.objects.select_for_update(no_key=True).filter(pk__in=ids).order_by("pk")
                .values_list("pk", "standing"))


def pair_rated_cap(*, user_id: int, other_id: int) -> int:
    """The daily cap of rated matches between ``user_id`` and ``other_id``: ``games.conf.pair_cap`` (two
    BOT accounts: ``GAMES_BOT_PAIR_RATED_PER_DAY``; else the people's ``GAMES_PAIR_RATED_PER_DAY``). One
    query."""
    bots = User.objects.filter(pk__in=(user_id, other_id), bot_account=True).count()
    return conf.pair_cap(both_bot_accounts=bots == 2 and user_id != other_id)


def pair_rated_full(*, user_id: int, other_id: int, now: Any = None) -> bool:
    """Whether ``user_id`` and ``other_id`` have started their daily cap (:func:`pair_rated_cap`) of
    rated matches against each other within ``games.conf.PAIR_RATED_WINDOW`` before ``now`` (default:
    the clock), so no further rated one may start now (``games.selectors.rated_pair_count`` counts)."""
    since = (now or timezone.now()) - conf.PAIR_RATED_WINDOW
    cap = pair_rated_cap(user_id=user_id, other_id=other_id)
    return rated_pair_count(user_id=user_id, other_id=other_id, since=since) >= cap


def pairs_at_rated_cap(*, user_ids: Collection[int], now: Any = None) -> set[tuple[int, int]]:
    """The pairs ``(lower id, higher id)`` among ``user_ids`` for which :func:`pair_rated_full` holds now:
    what a rated pool's wave never pairs (``lobby.matching.pair_wave``'s ``avoid``). Two queries (the
    counts, and which users are BOT accounts when a pair has reached the people's cap)."""
    since = (now or timezone.now()) - conf.PAIR_RATED_WINDOW
    counts = rated_pair_counts(user_ids=user_ids, since=since)
    people_cap = conf.pair_rated_per_day()
    over = {pair: n for pair, n in counts.items() if n >= min(people_cap, conf.bot_pair_rated_per_day())}
    if not over:
        return set()
    bots = set(User.objects.filter(pk__in={u for pair in over for u in pair}, bot_account=True)
               .values_list("pk", flat=True))
    return {pair for pair, n in over.items()
            if n >= conf.pair_cap(both_bot_accounts=pair[0] in bots and pair[1] in bots)}


def check_rated_free(*, user: User, opponent: User | None = None, own_table: bool = False) -> None:
    """Raise the first fair-play limit that refuses ``user`` a rated match (against ``opponent``, a
    person or a house bot, when known) now, or return (docs/fairplay.md "Limits that make farming slow"):

    1. ``account_marked`` / ``opponent_marked``: an account not in good standing plays casual only;
    2. ``match_in_progress`` (:class:`MatchInProgress`, for ``user``) / ``opponent_in_rated_match``:
       one active rated match per person;
    3. ``rated_table_waiting`` (``own_table``: ``user`` opens a rated table): one waiting rated friend
       table per person;
    4. ``pair_rated_limit``: the two people's daily cap (:func:`pair_rated_full`).

    Locks both people's rows first (:func:`lock_people`), so two racing requests of either (two tabs, two
    joins) are serialized and the second sees what the first created. Call inside the transaction that
    then creates the match. Tournament pairings never call it (Swiss decides them).

    :raises RatedRefused: the codes above (``said()``: the message in the reader's language).
    :raises MatchInProgress: ``user`` is seated in an active rated match.
    """
    standing = lock_people(user, opponent)
    if standing.get(user.pk, Standing.GOOD) != Standing.GOOD:
        raise RatedRefused("account_marked")
    person = opponent if opponent is not None and not getattr(opponent, "is_bot", False) else None
    if person is not None and standing.get(person.pk, Standing.GOOD) != Standing.GOOD:
        raise RatedRefused("opponent_marked", name=person.public_name)
    if (active := active_rated_match_id(user_id=user.pk)) is not None:
        raise MatchInProgress(active)
    if person is not None and active_rated_match_id(user_id=person.pk) is not None:
        raise RatedRefused("opponent_in_rated_match", name=person.public_name)
    if own_table and (table := waiting_rated_table_id(user_id=user.pk)) is not None:
        raise RatedRefused("rated_table_waiting", match_id=table)
    if person is not None and pair_rated_full(user_id=user.pk, other_id=person.pk):
        raise RatedRefused("pair_rated_limit", name=person.public_name,
                           limit=pair_rated_cap(user_id=user.pk, other_id=person.pk))


@transaction.atomic
def match_create_vs_bot(
    *, user: User, level: int, rules_preset: str, target: int, rated: bool = True,
    submission: uuid.UUID | None = None, one_active: bool = False, turn_timer: int | None = None,
    via_api: bool = False,
) -> Match:
    """Create and start a match of ``user`` (seat 0) against the house bot of ``level`` (seat 1).

    The first dealer is random, or the bot for a preset whose ``first_dealer`` is ``computer``. A
    member's match is rated (with a :data:`games.conf.RATED_TURN_TIMER` turn timer) unless ``rated`` is
    False; a guest's never is.

    :param submission: the create form's one-time token: a repeat returns the match it created
        (see ``_create_once``).
    :param turn_timer: seconds per action (15..600), or None: a rated match's
        :data:`games.conf.RATED_TURN_TIMER`, a casual one's none (the bot API's ``match/house/`` gives
        every BOT account's match one).
    :param one_active: refuse a rated match while ``user`` is seated in another active rated match
        (lichess's rule; the site's forms pass True): the user's row is locked first, so two racing
        requests (two tabs, Back then Start again) are serialized and the second sees the first's match.
    :param via_api: the bot API's ``match/house/`` calls (a BOT account's match, with a turn timer);
        False (the site's pages) refuses a BOT account (``bot_api_only``: :func:`check_not_bot_account`).
    :raises GameError: ``bad_field`` (level not 1..5, unknown preset, target not 50/100, timer),
        ``not_authenticated`` (anonymous or bot user), ``bot_api_only``, ``no_bot`` (house bots not
        created).
    :raises RatedRefused: ``account_marked``: a rated match for an account not in good standing (casual
        stays open to it; docs/fairplay.md).
    :raises MatchInProgress: ``one_active`` and a rated match of ``user`` is active (not a repeat of
        the submission that created it: that returns it).
    """
    check_person(user)
    if not via_api:
        check_not_bot_account(user)
    if type(level) is not int or not 1 <= level <= 5:
        raise GameError("bad_field", f"bot level must be 1..5, got {level!r}")
    rules = _rules(rules_preset, target)
    _check_turn_timer(turn_timer)
    try:
        bot = house_bot_get(level=level)
    except User.DoesNotExist:
        raise GameError("no_bot", f"house bot {level} is missing: run manage.py ensure_house_bots") from None
    rated = bool(rated) and not user.is_guest
    # FOR NO KEY UPDATE: serializes this player's creates without blocking inserts that merely
    # reference the user (their foreign keys take KEY SHARE). On SQLite the IMMEDIATE transaction
    # already serializes writers. The standing is read under the lock: a mark made since counts.
    if rated and lock_people(user).get(user.pk, Standing.GOOD) != Standing.GOOD:
        raise RatedRefused("account_marked")

    def create() -> Match:
        if rated and one_active and (active := active_rated_match_id(user_id=user.pk)) is not None:
            raise MatchInProgress(active)
        match = Match.objects.create(
            rules=rules.to_dict(), preset=rules_preset, player0=user, player1=bot, bot_level=level,
            bot_seats=[1], status=MatchStatus.ACTIVE, scores=[0, 0], timeout_strikes=[0, 0], rated=rated,
            turn_timer_seconds=turn_timer or (conf.RATED_TURN_TIMER if rated else None),
            submission=submission,
        )
        first = 1 if rules.first_dealer == "computer" else secrets.randbelow(2)
        start_match(match, first_dealer=first)
        match.save()
        return match

    return _create_once(user=user, submission=submission, create=create)


@transaction.atomic
def table_create(
    *, user: User, rules_preset: str, target: int, turn_timer: int | None, rated: bool = True,
    submission: uuid.UUID | None = None,
) -> Match:
    """Create a private table of ``user`` (seat 0) waiting for a friend; share ``/t/<invite_token>/``.

    :param turn_timer: seconds per action (15..600) or None for no timer (a rated table gets
        :data:`games.conf.RATED_TURN_TIMER`).
    :param rated: the creator's "rated" switch; a guest's table is never rated, and a table stops being
        rated when a guest joins it (docs/ratings.md).
    :param submission: the create form's one-time token: a repeat returns the table it created.
    :raises GameError: ``bad_field`` (preset, target, timer), ``not_authenticated``, ``bot_api_only``
        (a BOT account: :func:`check_not_bot_account`).
    :raises RatedRefused: a rated table: ``account_marked``, ``rated_table_waiting`` (one waiting rated
        table per member), see :func:`check_rated_free`.
    :raises MatchInProgress: a rated table while ``user`` is seated in an active rated match.
    """
    check_person(user)
    check_not_bot_account(user)
    rules = _rules(rules_preset, target)
    _check_turn_timer(turn_timer)
    rated = bool(rated) and not user.is_guest
    if rated and turn_timer is None:
        turn_timer = conf.RATED_TURN_TIMER

    def create() -> Match:
        if rated:
            lock_people(user)
            # a racing POST of the same form committed its table while this one waited for the lock:
            # that table is this submission's (_create_once), not a second waiting table to refuse
            twin = Match.objects.filter(player0=user, submission=submission).first() if submission else None
            if twin is not None:
                return twin
            check_rated_free(user=user, own_table=True)
        return Match.objects.create(
            rules=rules.to_dict(), preset=rules_preset, player0=user, status=MatchStatus.WAITING,
            invite_token=secrets.token_urlsafe(24), turn_timer_seconds=turn_timer, scores=[0, 0],
            timeout_strikes=[0, 0], rated=rated, submission=submission,
        )

    return _create_once(user=user, submission=submission, create=create)


def _check_turn_timer(turn_timer: int | None) -> None:
    if turn_timer is not None and (
        type(turn_timer) is not int or not conf.TURN_TIMER_RANGE[0] <= turn_timer <= conf.TURN_TIMER_RANGE[1]
    ):
        raise GameError("bad_field", f"turn timer must be empty or 15..600 seconds, got {turn_timer!r}")


@transaction.atomic
def match_create_seated(
    *, player0: User, player1: User, rules_preset: str = "classic", target: int = 100,
    turn_timer: int | None = None, rated: bool = False, simulation_seed: int | None = None,
    first_clock_grace: int | None = None, private_event: bool = False,
) -> Match:
    """Create and start a match between any two different users: two people, a person and a house bot
    (either seat), or two house bots (tournaments seat their pairings with this).

    A house bot seat is moved by the server (its human-like pause when a person plays it; at engine
    speed between two bots), and a late person's automatic move is played at the turn deadline, with or
    without an open table (``games.scheduling``). The first dealer is random, or the bot for a preset
    whose ``first_dealer`` is ``computer`` (seat 0 when both are bots).

    :param turn_timer: seconds per action (15..600) or None for no timer (a rated match gets
        :data:`games.conf.RATED_TURN_TIMER`).
    :param rated: the result moves Elo (docs/ratings.md); ignored (not rated) when a seat is a guest or
        both are bots.
    :param simulation_seed: only for simulations (``manage.py tournament_simulate``), never for a
        match people play: an int ``0 .. 2**63 - 1`` from which the first dealer, the cut, every deal
        and the bots' choices are drawn (module docstring, "Seeded matches"); None (the default): secure
        randomness.
    :param first_clock_grace: seconds (0..600) or None (the default: clocks start with each turn). Given
        (tournament boards), each person's FIRST clock starts when that person opens the table
        (``server_moves.match_seat_arrived``) or this many seconds after now, whichever comes first: a
        turn of a seat that has not connected yet gets
        ``turn_deadline = max(turn start, now + grace) + timer`` (``Match.first_clock_until`` /
        ``first_clock_waiting``). Server-driven: the automatic move
        still comes at that deadline when nobody connects.
    :param private_event: played for a private event (``Match.private_event``): never public; who besides
        its players may see it is asked through ``games.signals.private_match_asked``.
    :raises GameError: ``bad_field`` (same user twice, preset, target, timer, seed, grace),
        ``not_authenticated`` (an anonymous or inactive user).
    """
    players = (player0, player1)
    for user in players:
        if not getattr(user, "is_bot", False):
            check_person(user)
            if not user.is_active:
                raise GameError("not_authenticated", f"user {user.pk} is not active")
    if player0.pk == player1.pk:
        raise GameError("bad_field", "a match needs two different players")
    rules = _rules(rules_preset, target)
    _check_turn_timer(turn_timer)
    if simulation_seed is not None and (
        type(simulation_seed) is not int or not 0 <= simulation_seed <= conf.MAX_SIMULATION_SEED
    ):
        raise GameError("bad_field", f"simulation seed must be an int 0..2**63-1, got {simulation_seed!r}")
    if first_clock_grace is not None and (
        type(first_clock_grace) is not int or not 0 <= first_clock_grace <= conf.TURN_TIMER_RANGE[1]
    ):
        raise GameError("bad_field",
                        f"first clock grace must be empty or 0..600 seconds, got {first_clock_grace!r}")
    bot_seats = [seat for seat, user in enumerate(players) if user.is_bot]
    rated = bool(rated) and len(bot_seats) < 2 and not any(user.is_guest for user in players)
    if rated and turn_timer is None:
        turn_timer = conf.RATED_TURN_TIMER
    held = first_clock_grace is not None and turn_timer is not None
    match = Match.objects.create(
        rules=rules.to_dict(), preset=rules_preset, player0=player0, player1=player1,
        bot_level=players[bot_seats[0]].bot_level if len(bot_seats) == 1 else None, bot_seats=bot_seats,
        status=MatchStatus.ACTIVE, turn_timer_seconds=turn_timer, scores=[0, 0], timeout_strikes=[0, 0],
        rated=rated, simulation_seed=simulation_seed,
        first_clock_until=timezone.now() + timedelta(seconds=first_clock_grace or 0) if held else None,
        first_clock_waiting=[seat for seat in (0, 1) if seat not in bot_seats] if held else [],
        private_event=bool(private_event),
    )
    first = bot_seats[0] if rules.first_dealer == "computer" and bot_seats else _random_seat(simulation_seed)
    start_match(match, first_dealer=first)
    match.save()
    return match


def match_create_bot_vs_bot(
    *, bot0: User, bot1: User, rules_preset: str = "classic", target: int = 100,
    turn_timer: int | None = None, simulation_seed: int | None = None,
) -> Match:
    """Create and start a match between two house-bot accounts (``bot0`` at seat 0): the server plays
    it out right after the commit at ``conf.bot_vs_bot_delay()`` s a move (0: engine speed), without any
    socket, every action stored in the event log like any other match (``games.tasks.play_server_moves``
    with a worker; in-process otherwise).
    The returned match is active; it is ``finished`` once played out (wait for ``status``, or listen to
    the ``match_<id>`` group). Being both bots, it is never meant to be rated.

    :param simulation_seed: see :func:`match_create_seated` (simulations only).
    :raises GameError: ``bad_field`` (not two different house bots, preset, target, timer, seed).
    """
    if not (getattr(bot0, "is_bot", False) and getattr(bot1, "is_bot", False)):
        raise GameError("bad_field", "both players of a bot-vs-bot match must be house bots")
    return match_create_seated(player0=bot0, player1=bot1, rules_preset=rules_preset, target=target,
                               turn_timer=turn_timer, simulation_seed=simulation_seed)


def table_join(*, user: User, token: str) -> Match:
    """Seat ``user`` at the waiting table with ``token`` and deal hand 1 (random first dealer).

    Idempotent for a player already seated there (returns the match unchanged).

    :raises GameError: ``no_such_match`` (unknown token), ``table_full`` (someone else joined),
        ``match_over`` (finished/aborted), ``not_authenticated``, ``bot_api_only`` (a BOT account:
        :func:`check_not_bot_account`).
    :raises RatedRefused: a member joining a rated table: ``account_marked``, ``opponent_marked``,
        ``opponent_in_rated_match`` (the host is playing another rated match), ``pair_rated_limit``
        (:func:`check_rated_free`, under the table's row lock then both players' rows).
    :raises MatchInProgress: a member joining a rated table while seated in an active rated match.
    """
    check_person(user)
    check_not_bot_account(user)
    with transaction.atomic():
        match = (Match.objects.select_for_update(of=("self",)).select_related("player0")
                 .filter(invite_token=token).first())
        if match is None:
            raise GameError("no_such_match", "no table with that link")
        if match.seat_of(user.pk) is not None:
            return match
        if match.status in (MatchStatus.FINISHED, MatchStatus.ABORTED):
            raise GameError("match_over", "this table is closed")
        if match.player1_id is not None:
            raise GameError("table_full", "both seats at this table are taken")
        if match.rated and not user.is_guest:
            check_rated_free(user=user, opponent=match.player0)
        match.player1 = user
        if user.is_guest:
            match.rated = False  # a match with a guest is never rated
        live = start_match(match, first_dealer=secrets.randbelow(2))
        match.save()
        broadcast_on_commit(match, live)
    return match


def check_person(user: User) -> None:
    if not getattr(user, "is_authenticated", False) or getattr(user, "is_bot", False):
        raise GameError("not_authenticated", "log in or play as a guest first")


def check_not_bot_account(user: User) -> None:
    """A BOT account (``User.bot_account``) starts and joins matches only through the bot API
    (docs/bot-api.md), never from the site's pages (a house bot, a friend table, a rematch): those have
    no turn timer to bound its absence, and its browser never plays. :raises GameError: ``bot_api_only``."""
    if getattr(user, "bot_account", False):
        raise GameError("bot_api_only", "a BOT account plays only through the bot API (/api/v1/bot/),"
                                        " not from the site's pages")

