"""Match reads: one player's ``state`` payload (docs/protocol.md), hand reveals, recent matches.

Everything a player receives is built here from that player's ``PlayerView`` (engine) plus public
match data; the opponent's concealed cards and the stock order of a hand in play are never read into
a payload. A finished hand is revealed in full (both hands, the deck order and its salt).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, F, Q, QuerySet
from django.db.models.functions import Coalesce
from django.urls import reverse

from accounts.models import User
from engine.actions import ActionKind
from engine.cards import card_name, card_names, sort_by_rank
from engine.deck import verify_commitment
from engine.events import DealEvent, HandEndEvent
from engine.hand import HandState
from engine.melds import best_arrangement, deadwood_after_discards
from engine.phase import Phase
from games import conf, payloads, signals
from games.live import DealRow, LiveMatch, engine_event, load
from games.models import Match, MatchEvent, MatchStatus

_KNOCKS = (ActionKind.KNOCK, ActionKind.BIG_GIN)
_DISCARDS = (ActionKind.DISCARD, ActionKind.KNOCK)


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def match_get(*, match_id: int) -> Match | None:
    """The match with its players loaded, or None."""
    # order_by(): no ORDER BY for a primary-key lookup (first() would compile Match's default ordering)
    return next(iter(Match.objects.select_related("player0", "player1").filter(pk=match_id).order_by()), None)


def _moves(hand: HandState, seat: int, deal_row: DealRow | None, auto: set[int]) -> list[dict[str, Any]]:
    """``hand``'s actions as ``seat`` may see them (``PlayerView.history``: the opponent's stock draws
    unnamed while the hand is in play), each ``{"seat", "action", "card", "auto"}``. The k-th action of
    a hand is stored at seq ``deal seq + 1 + k`` (nothing else is logged between a deal and its hand's
    last action), which is how ``auto`` (played by the turn timer) is found."""
    start = deal_row.seq if deal_row is not None else None
    return [
        {
            "seat": e.seat, "action": str(e.action), "card": None if e.card is None else card_name(e.card),
            "auto": start is not None and start + 1 + k in auto,
        }
        for k, e in enumerate(hand.view(seat).history)
    ]


def event_of(match: Match) -> dict[str, Any] | None:
    """:func:`_tournament`, for the table's page: the event whose board ``match`` is, or None."""
    return _tournament(match)


def _tournament(match: Match) -> dict[str, Any] | None:
    """``{"id", "url"}`` of the tournament whose Swiss pairing or Arena game plays ``match`` (its page),
    or None. One query. (An Arena match's end must lead back to the Arena too, never to a "Play again"
    against its house bot outside the event.)"""
    tournament_id = (
        Match.objects.filter(pk=match.pk)
        .annotate(event=Coalesce("tournament_pairing__round__tournament_id", "arena_game__tournament_id"))
        .values_list("event", flat=True).first()
    )
    if tournament_id is None:
        return None
    return {"id": tournament_id, "url": reverse("tournaments:detail", args=[tournament_id])}


def _abandon(match: Match) -> dict[str, Any] | None:
    """Why a match ended without a result (status ``aborted``, ``result_reason`` ``abandoned``): its
    ``abandon`` marker's ``{"why", "seat", "seats"}`` (``why``: ``idle``/``player`` a casual bot match,
    ``both_away`` the timers, ``left`` claimed because ``seat`` left, ``gone`` the server ended it with
    ``seats`` gone), or None for any other match. One query, only for such a match."""
    if match.status != MatchStatus.ABORTED or match.result_reason != "abandoned":
        return None
    payload = (MatchEvent.objects.filter(match_id=match.pk, type="abandon").order_by("-seq")
               .values_list("payload", flat=True).first()) or {}
    return {"why": payload.get("why"), "seat": payload.get("seat"), "seats": payload.get("seats")}


PROTOCOL_VERSION = 2
"""Version of the table socket's ``state`` frames (docs/protocol.md "state"), sent in each as ``v``.
1 (no ``v``): every state whole. 2: the match's rules and the last hand only when the client may not
hold them (``games.consumers`` leaves out, per socket, what that socket was sent already)."""


def match_state_payload(
    *, match: Match, seat: int, invite_url: str | None = None, live: LiveMatch | None = None,
    full: bool = False,
) -> dict[str, Any]:
    """The ``state`` message for the player at ``seat`` (docs/protocol.md "state").

    Reads no event row when the match's engine state is cached (``games.live``) or given.

    :param invite_url: absolute join link to show while the table waits (creator only).
    :param live: the engine state of ``match`` at ``match.last_seq`` when the caller holds it (a write
        that just stored it); else it is loaded.
    :param full: the whole state (a page, a socket's first state, a ``sync``, the consumer's own reads).
        False (a write's broadcast): without ``match.rules`` (fixed for the match: every socket got them
        in its first state) and, unless it is new at this seq, without ``last_hand``; ``last_hand_no``
        always names the last hand, so the consumer knows whether its socket holds it (else it reads the
        whole state for that socket).
    """
    if live is None and match.first_dealer is not None:
        live = load(match)
    deals, auto = (live.deals, live.auto_seqs) if live is not None else ([], set())
    state = live.state if live is not None else None
    hand_number = state.hand_number if state is not None else 0
    hands_won = list(state.hands_won) if state is not None else [0, 0]
    payload: dict[str, Any] = {
        "type": "state",
        "v": PROTOCOL_VERSION,
        "seq": match.last_seq,
        "match": {
            "id": match.pk,
            "status": match.status,
            "preset": match.preset,
            "rules": match.rules,
            "target": match.rules.get("target"),
            "you": seat,
            "players": [payloads.player(match.player0, 0), payloads.player(match.player1, 1)],
            "scores": list(match.scores or [0, 0]),
            "hands_won": hands_won,
            "hand_number": hand_number,
            "winner": match.winner,
            "result_reason": match.result_reason or None,
            "rated": match.rated,
            "unrated_why": match.unrated_why or None,
            "turn_timer_seconds": match.turn_timer_seconds,
            "turn_deadline": _iso(match.turn_deadline),
            "timeout_strikes": list(match.timeout_strikes or [0, 0]),
            "auto_moves_to_lose": conf.TIMEOUT_STRIKES_TO_LOSE if match.turn_timer_seconds else None,
            "invite_url": invite_url if match.status == MatchStatus.WAITING and seat == 0 else None,
            # Looked up only once over (the match-end screen's link): the moves' hot path stays one query.
            "tournament": _tournament(match) if match.status in (MatchStatus.FINISHED, MatchStatus.ABORTED)
            else None,
            "abandon": _abandon(match),
        },
        "hand": None,
        "last_hand_no": None,
        "last_hand": None,
    }
    if not full:
        del payload["match"]["rules"]
    if state is not None and match.status in (MatchStatus.FINISHED, MatchStatus.ABORTED):
        # The match-end screen's per-hand summary: every finished hand (public once the match is over).
        payload["match"]["hands"] = [
            {"hand": e.hand, "kind": e.result["kind"], "winner": e.result["winner"],
             "points": e.result["points"], "scores": list(e.scores)}
            for e in state.events if isinstance(e, HandEndEvent)
        ]
    if live is None or state is None or state.hand is None:
        return payload
    current = state.hand
    if current.is_over or state.is_over:
        # The match ended with this hand (by the target, or a resignation mid-hand): show it all.
        payload["last_hand"] = _reveal(current, deals[0] if deals else None, state.scores, match)
        payload["last_hand"]["moves"] = _moves(current, seat, deals[0] if deals else None, auto)
        payload["last_hand_no"] = payload["last_hand"]["number"]
        return payload
    if match.status == MatchStatus.ACTIVE:
        payload["hand"] = _hand_payload(live, seat, deals[0] if deals else None)
        payload["hand"]["moves"] = _moves(current, seat, deals[0] if deals else None, auto)
    if live.previous_hand is not None and len(deals) > 1:
        payload["last_hand_no"] = deals[1].hand
        if full or not current.history or deals[1].hand is None:
            # new at this seq: the write that ended it dealt this hand, which has no move yet
            payload["last_hand"] = _previous_hand(live, match, seat)
        else:
            del payload["last_hand"]
    return payload


def _previous_hand(live: LiveMatch, match: Match, seat: int) -> dict[str, Any]:
    """The ``last_hand`` of a state in a hand after the first: the full reveal of the hand that ended
    before the current one was dealt, with its moves as ``seat`` sees them (a shallow copy: its lists
    are shared, do not mutate them).

    Built once per hand and seat (and hand pause, which sets ``show_until``) and kept in
    ``live.previous_memo``, which every state of the current hand shares: the ended hand no longer
    changes, and building its reveal (both hands' arrangements, the deck's names, the moves) was a
    third of the CPU of a state (issue 9, scripts/bench_action)."""
    previous, deals = live.previous_hand, live.deals
    assert previous is not None and len(deals) > 1
    key = ("last_hand", seat, conf.hand_pause_seconds())
    hit = live.previous_memo.get(key)
    if hit is None:
        hit = _reveal(previous, deals[1], _scores_after_previous(live), match, deal_after=deals[0])
        hit["moves"] = _moves(previous, seat, deals[1], live.auto_seqs)
        live.previous_memo[key] = hit
    return dict(hit)


def match_seat_payloads(*, match: Match, live: LiveMatch | None) -> list[dict[str, Any]]:
    """Both players' ``state`` messages ``[seat 0, seat 1]`` for ``match`` (players loaded) at
    ``match.last_seq``, with ``live`` its engine state at that seq (None before the match started):
    what a write broadcasts after its commit, built once per update from the state it holds. Each
    payload goes to its own seat only (``push.groups.seat_group``)."""
    return [match_state_payload(match=match, seat=seat, live=live) for seat in (0, 1)]


def _hand_payload(live: LiveMatch, seat: int, deal_row: DealRow | None) -> dict[str, Any]:
    view = live.state.view(seat)
    arrangement = best_arrangement(view.hand)
    melded = {c for m in arrangement.melds for c in m.cards}
    ordered = [c for m in arrangement.melds for c in m.cards] + sort_by_rank(
        [c for c in view.hand if c not in melded]
    )
    after = None
    if view.phase is Phase.DISCARD and view.is_my_turn and len(view.hand) == 11:
        # Only the cards a legal discard/knock may throw: never the card just taken (rules.md).
        allowed = {a.card for a in view.legal_actions if a.card is not None and a.kind in _DISCARDS}
        after = {card_name(c): dw for c, dw in deadwood_after_discards(view.hand).items() if c in allowed}
    last = view.history[-1] if view.history else None
    return {
        "number": view.hand_number,
        "dealer": view.dealer,
        "phase": view.phase.value,
        "to_act": view.current_player,
        "your_turn": view.is_my_turn,
        "cards": card_names(ordered),
        "melds": [m.names() for m in arrangement.melds],
        "deadwood_cards": card_names(arrangement.unmatched),
        "deadwood": arrangement.deadwood,
        "deadwood_if_discarded": after,
        "legal_actions": [str(a) for a in view.legal_actions],
        "can_knock": any(a.kind in _KNOCKS for a in view.legal_actions),
        "opponent_card_count": view.opponent_hand_size,
        "stock_count": view.stock_size,
        "discard_pile": card_names(view.discard_pile),
        "upcard": None if view.upcard is None else card_name(view.upcard),
        "first_upcard": None if view.first_upcard is None else card_name(view.first_upcard),
        "taken_card": None if view.taken_card is None else card_name(view.taken_card),
        "knock_limit": view.knock_limit,
        "limit_card": _limit_card(live),
        "multiplier": view.multiplier,
        "commitment": None if deal_row is None else deal_row.commitment,
        "last_action": None if last is None else {
            "seat": last.seat, "action": str(last.action),
            "card": None if last.card is None else card_name(last.card),
        },
    }


def _limit_card(live: LiveMatch) -> str | None:
    """The card turned from the second deck that sets this hand's knock limit (two_deck rules; public
    from the deal on, recorded in the deal event), or None under other rules."""
    hand = live.state.hand
    return None if hand is None or hand.limit_card is None else card_name(hand.limit_card)


def _scores_after_previous(live: LiveMatch) -> list[int]:
    """Scores right after the previous hand: the current hand has not scored yet."""
    return list(live.state.scores)


def _reveal(
    hand: HandState, deal_row: DealRow | None, scores: Any, match: Match,
    deal_after: DealRow | None = None,
) -> dict[str, Any]:
    """``games.payloads.reveal`` of an ended hand, or of the last hand of a finished match, and when it
    ended (``ended_at``: the next deal, else the match's end) and the hand pause's end (``show_until``)."""
    ended_at = deal_after.created_at if deal_after is not None else (match.finished_at or match.updated_at)
    return {
        **payloads.reveal(hand, deal_row, scores),
        "ended_at": _iso(ended_at),
        "show_until": _iso(ended_at + timedelta(seconds=conf.hand_pause_seconds()) if ended_at else None),
    }


def hand_reveal(*, match: Match, hand_number: int) -> dict[str, Any] | None:
    """Deck, salt and commitment of hand ``hand_number`` of ``match`` if that hand has ENDED, else
    None (a hand in play stays secret). ``valid`` checks the commitment."""
    rows = list(MatchEvent.objects.filter(match_id=match.pk, seq__lte=match.last_seq)
                .filter(Q(type="deal") | Q(type="hand_end") | Q(type="match_end")).order_by("seq"))
    deal = next((r for r in rows if r.type == "deal" and r.payload.get("hand") == hand_number), None)
    if deal is None:
        return None
    ended = any(r.type == "hand_end" and r.payload.get("hand") == hand_number for r in rows) or (
        match.status in (MatchStatus.FINISHED, MatchStatus.ABORTED)
    )
    if not ended:
        return None
    event = engine_event(deal.payload)
    assert isinstance(event, DealEvent)
    salt, commitment = deal.payload["salt"], deal.payload["commitment"]
    return {
        "hand": hand_number, "deck": card_names(event.deck), "salt": salt, "commitment": commitment,
        "valid": verify_commitment(event.deck, salt, commitment),
    }


def matches_recent_for(*, user: User, limit: int = 50) -> list[dict[str, Any]]:
    """The ``limit`` most recent matches of ``user``, newest first, as rows for ``my_matches.html``
    (docs/protocol.md "Template context")."""
    qs: QuerySet[Match] = (
        Match.objects.filter(Q(player0=user) | Q(player1=user))
        .select_related("player0", "player1").order_by("-created_at", "-id")[:limit]
    )
    rows = []
    for m in qs:
        seat = m.seat_of(user.pk)
        assert seat is not None
        opponent = m.player1 if seat == 0 else m.player0
        scores = list(m.scores or [0, 0])
        if m.status == MatchStatus.FINISHED:
            result = "won" if m.winner == seat else "lost"
        elif m.status == MatchStatus.ACTIVE:
            result = "in_progress"
        else:
            result = str(m.status)
        rows.append({
            "id": m.pk,
            "url": reverse("games:table", args=[m.pk]),
            "opponent": opponent.public_name if opponent is not None else None,
            "opponent_is_bot": bool(opponent and opponent.is_bot),
            "bot_level": m.bot_level,
            "preset": m.preset,
            "target": m.rules.get("target"),
            "status": m.status,
            "my_score": scores[seat] if len(scores) == 2 else 0,
            "opponent_score": scores[1 - seat] if len(scores) == 2 else 0,
            "result": result,
            "result_reason": m.result_reason or None,
            "can_end": m.status == MatchStatus.ACTIVE and m.is_casual,
            "created_at": m.created_at,
            "finished_at": m.finished_at,
        })
    return rows


MATCH_RESULTS = ("won", "lost")
OPPONENT_KINDS = ("member", "bot")


def matches_finished_of(
    *, user_id: int, result: str | None = None, opponent: str | None = None, rated: bool | None = None,
    tournament: bool | None = None,
) -> QuerySet[Match]:
    """The finished matches of the user ``user_id``, newest finished first (ties: higher id first), with
    both players loaded and ``tournament_id`` annotated (the tournament whose pairing played it, or None).

    Filters (None: any): ``result`` ``won``/``lost`` (for this user), ``opponent`` ``member``/``bot``
    (a house bot sat in the other seat; a guest counts as a member), ``rated``, ``tournament`` (played
    for a tournament pairing). One query per slice, whatever the number of rows.
    """
    qs = Match.objects.filter(Q(player0_id=user_id) | Q(player1_id=user_id), status=MatchStatus.FINISHED)
    if result is not None:
        won = Q(player0_id=user_id, winner=0) | Q(player1_id=user_id, winner=1)
        qs = qs.filter(won if result == "won" else ~won)
    if opponent is not None:
        bot = Q(player0_id=user_id, player1__is_bot=True) | Q(player1_id=user_id, player0__is_bot=True)
        qs = qs.filter(bot if opponent == "bot" else ~bot)
    if rated is not None:
        qs = qs.filter(rated=rated)
    if tournament is not None:
        qs = qs.filter(tournament_pairing__isnull=not tournament)
    return (
        qs.select_related("player0", "player1")
        .annotate(tournament_id=F("tournament_pairing__round__tournament_id"))
        .order_by(F("finished_at").desc(nulls_last=True), "-id")
    )


def seats_moved(*, match_id: int) -> set[int]:
    """The seats (0, 1) that made a move of their own in match ``match_id``: an action that is not the
    turn timer's automatic move. A resignation is not a move: until both seats moved, a resignation
    aborts a rated match (``games.services.match_resign``)."""
    return {
        seat for seat in MatchEvent.objects.filter(match_id=match_id, type="action", auto=False,
                                                   seat__isnull=False)
        .values_list("seat", flat=True).distinct() if seat is not None
    }


def own_moves(*, match_id: int) -> dict[int, int]:
    """``{seat: how many moves of its own}`` in match ``match_id`` (the actions :func:`seats_moved`
    counts: not the turn timer's); a seat that has not moved is absent. A rated match resigned before
    each seat made ``games.conf.rated_min_moves()`` is not rated (``games.services.match_resign``)."""
    rows = (MatchEvent.objects.filter(match_id=match_id, type="action", auto=False, seat__isnull=False)
            .values("seat").annotate(n=Count("pk")).values_list("seat", "n"))
    return {int(seat): int(n) for seat, n in rows if seat is not None}


def rated_pair_count(*, user_id: int, other_id: int, since: datetime) -> int:
    """How many rated matches ``user_id`` and ``other_id`` started against each other (either seats)
    since ``since``: those still rated (in play or finished) and those that started rated and ended
    unrated by an early resignation (``Match.unrated_why``); not those aborted (no result: a free abort,
    ``games.aborts``). What ``games.conf.pair_rated_per_day()`` caps."""
    pair = Q(player0_id=user_id, player1_id=other_id) | Q(player0_id=other_id, player1_id=user_id)
    return (Match.objects.filter(pair, started_at__gte=since)
            .filter(Q(rated=True) | ~Q(unrated_why=""))
            .exclude(status=MatchStatus.ABORTED).count())


def rated_pair_counts(*, user_ids: Collection[int], since: datetime) -> dict[tuple[int, int], int]:
    """``{(lower id, higher id): count}`` of :func:`rated_pair_count` for every pair among ``user_ids``
    that has one (absent: none), in one query (a pool's wave)."""
    ids = list(user_ids)
    counts: dict[tuple[int, int], int] = {}
    if len(ids) < 2:
        return counts
    rows = (Match.objects.filter(player0_id__in=ids, player1_id__in=ids, started_at__gte=since)
            .filter(Q(rated=True) | ~Q(unrated_why="")).exclude(status=MatchStatus.ABORTED)
            .values_list("player0_id", "player1_id"))
    for a, b in rows:
        key = (min(a, b), max(a, b))
        counts[key] = counts.get(key, 0) + 1
    return counts


def seats_acted(*, match_id: int) -> set[int]:
    """The seats (0, 1) that did something themselves in match ``match_id``: a move of their own
    (:func:`seats_moved`) or a resignation (one that aborted the match is stored as an ``abort`` marker
    and does not count). A tournament reads it to tell a player who came from a no-show: unlike
    :func:`seats_moved`, a player who came and resigned came."""
    return {
        seat for seat in MatchEvent.objects.filter(match_id=match_id, type__in=("action", "resign"),
                                                   auto=False, seat__isnull=False)
        .values_list("seat", flat=True).distinct() if seat is not None
    }


def aborter_seat(*, match_id: int) -> int | None:
    """The seat whose resignation aborted match ``match_id`` (its ``abort`` marker: a rated match
    resigned before both seats moved), or None when no resignation aborted it."""
    seat = MatchEvent.objects.filter(match_id=match_id, type="abort").values_list("seat", flat=True).first()
    return None if seat is None else int(seat)


def may_see(match: Match, user: User | Any, session: Any = None) -> bool:
    """Whether ``user`` (maybe anonymous; ``session``: the request's or socket's session, or None) may know
    that ``match`` exists: its players, and whoever an app above says may (``signals.outsider_may_see``:
    ``replays`` knows which matches are public). The table's page and socket refuse anyone else as they
    refuse a match that does not exist."""
    if user is not None and user.is_authenticated and match.seat_of(user.pk) is not None:
        return True
    return any(signals.answers(signals.outsider_may_see, match=match, user=user, session=session))


def seat_rating(*, match_id: int, user_id: int) -> dict[str, Any] | None:
    """The ``rating`` message (docs/protocol.md) of ``user_id`` for match ``match_id``, or None while the
    match is not rated (yet): the first answer to ``signals.seat_rating_asked`` (``ratings`` answers)."""
    found = signals.answers(signals.seat_rating_asked, match_id=match_id, user_id=user_id)
    return next((message for message in found if message is not None), None)
