"""Replay reads: who may watch, a match's replay record (the file of docs/replay-format.md) and the
viewer's data, rebuilt from the event log and verified by the engine.

A replay is never read from snapshots: the match's events are re-run through the engine twice, by
``games.live.rebuild`` (the same path live play uses) and by ``engine.replay_format.verify`` on the
exported record (the same check a downloaded file gets); both must agree with each other and with the
results stored on the match row. A log that does not re-run is reported as
:class:`ReplayFailed` with the ``seq`` of the first bad event ("failed verification at event N").
Built replays are cached under a digest of everything the build reads and checks: the event rows
(seq, type, payload, auto) and the match row's rules, first dealer and stored result. Events are
append-only, but a row edited behind that guard (a restored dump, a manual repair) changes the digest,
so a cached replay is never served for a log that no longer matches it: the page re-runs the log and
reports the failed verification. Reading the rows for the digest is one query; the build it saves
re-runs the engine twice.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import Q
from django.http import QueryDict

from accounts.models import User
from engine.cards import card_name, card_names
from engine.errors import EngineError
from engine.events import Event
from engine.replay_format import (
    HandReplay,
    ReplayVerificationError,
    VerifiedReplay,
    record_from_events,
    verify,
)
from engine.rules import RuleSet
from games.live import ENGINE_TYPES, cache_get, engine_event, rebuild
from games.models import Match, MatchEvent, MatchStatus, ResultReason
from games.signals import answers, private_match_asked
from replays.models import ReplayAccess
from web.errors import ApplicationError

CACHE_VERSION = 3
"""Bump when the viewer's data changes shape (old cache entries are then never read)."""
CACHE_SECONDS = 7 * 24 * 3600


class ReplayRefused(ApplicationError):
    """No replay for this request: ``code`` ``no_such_match`` (404: no such match, or one the requester
    may not see), ``not_finished`` (409: a live match's replay opens when it ends), ``private`` (403: a
    private match's player asking to watch it live)."""


class ReplayFailed(Exception):
    """The match's record does not re-run: ``event`` is the seq of the first bad event."""

    def __init__(self, event: int, reason: str) -> None:
        super().__init__(f"failed verification at event {event}: {reason}")
        self.event = event
        self.reason = reason


# --------------------------------------------------------------------------------------------- access


def _is_tournament(match: Match) -> bool:
    """Whether a tournament pairing played this match (``tournaments.Pairing.match``, reverse
    ``tournament_pairing``; the lookup raises an AttributeError subclass when there is none)."""
    return hasattr(match, "tournament_pairing")


def public_by_rule(match: Match) -> bool:
    """Whether ``match`` is public whatever its owner chose: tournament and rated matches, and a
    registered member's bot matches (no "make it private" for these). Never a private event's match
    (``Match.private_event``): that one is never public at all (:func:`is_public`)."""
    if getattr(match, "private_event", False):
        return False
    if _is_tournament(match) or getattr(match, "rated", False):
        return True
    return match.bot_level is not None and not match.player0.is_guest and not match.player0.is_bot


def is_public(match: Match, access: ReplayAccess | None) -> bool:
    """Whether anyone may watch ``match`` (its replay once finished; live at ``/watch/``): those
    :func:`public_by_rule`, and matches their owner made public; never a private event's match
    (``Match.private_event``: who may see it is :func:`may_see`'s question to the event's app)."""
    if getattr(match, "private_event", False):
        return False
    if access is not None and access.public:
        return True
    return public_by_rule(match)


def public_matches_q() -> Q:
    """:func:`is_public` as a filter on ``Match`` (the same rules, for lists of matches): made public,
    a tournament pairing's, rated, or a registered member's bot match; never a private event's."""
    return (
        Q(replay_access__public=True) | Q(tournament_pairing__isnull=False) | Q(rated=True)
        | Q(bot_level__isnull=False, player0__is_guest=False, player0__is_bot=False)
    ) & Q(private_event=False)


def watchable_q(*, viewer_id: int | None) -> Q:
    """Matches whose replay (once finished) the user ``viewer_id`` (None: anonymous) may open without a
    token: the public ones and those the viewer played (:func:`check_can_watch`)."""
    if viewer_id is None:
        return public_matches_q()
    return public_matches_q() | Q(player0_id=viewer_id) | Q(player1_id=viewer_id)


def access_get(match: Match) -> ReplayAccess | None:
    """The match's sharing settings, or None when never set."""
    return ReplayAccess.objects.filter(match_id=match.pk).first()


def may_see(match: Match, user: User | Any, token: str | None = None, session: Any = None) -> bool:
    """Whether ``user`` (maybe anonymous) holding the share ``token`` (or None), with the request's or
    socket's ``session`` (or None), may know that ``match`` exists: its players, anyone when it is public
    (:func:`is_public`), whoever holds its link's token. A private event's match
    (``Match.private_event``): its players and whoever the event's app vouches for
    (``games.signals.private_match_asked``: the event's players, organisers, club members, code holders
    in ``session``); a share token or "make it public" opens it to nobody else.

    Everyone else gets the answer of a match that does not exist, whatever the match's state (live,
    finished, waiting for its second player): a refusal that differed would tell a stranger that a private
    match exists and whether it is still in play. The one rule of every path that takes a match id
    (:func:`check_can_watch`; the table's page and socket ask it through
    ``games.signals.outsider_may_see``: ``replays.receivers``).
    """
    if user is not None and user.is_authenticated and match.seat_of(user.pk) is not None:
        return True
    if match.private_event:
        return any(answers(private_match_asked, match=match, user=user, session=session))
    access = access_get(match)
    return is_public(match, access) or token_matches(token, access)


def check_can_watch(*, match: Match | None, user: User | Any, token: str | None, live: bool = False,
                    session: Any = None) -> None:
    """Whether ``user`` (maybe anonymous) holding ``token`` (or None) may open ``match``'s replay
    (``live=False``) or watch it live (``live=True``: public matches only).

    A match the user may not see (:func:`may_see`) is refused as ``no_such_match`` in every state, so
    the codes ``not_finished`` and ``private`` only reach those who may see it: a live match's players,
    or anyone when it is public, get ``not_finished``; a private match's players asking to watch it
    live get ``private``. A private event's match may be watched live by whoever may see it
    (``session``: the request's or socket's session, for a code event's holders).

    :raises ReplayRefused: see its codes.
    """
    if match is None or match.status == MatchStatus.ABORTED or match.first_dealer is None:
        raise ReplayRefused("no_such_match", "no such match")
    if not may_see(match, user, token, session):
        raise ReplayRefused("no_such_match", "no such match")
    if live:
        if not match.private_event and not is_public(match, access_get(match)):
            raise ReplayRefused("private", "this match is not public")
        return
    if match.status != MatchStatus.FINISHED:
        raise ReplayRefused("not_finished", "the match is still being played: its replay opens when it ends")


def share_token(params: QueryDict) -> str | None:
    """The share token a request gives: the one ``token`` value of ``params`` (a query string or a form,
    as Django parses it), or None when it is missing or given more than once (which one was meant?).

    The value is taken exactly as sent, never trimmed or changed in case: ``<token>%20`` is not the
    token (:func:`_token_matches`). The one reading of the token for every path: the replay page, its
    file and analysis (form and file), the API's replay and the analysis socket.
    """
    values = params.getlist("token")
    return values[0] if len(values) == 1 else None


def token_matches(given: object, access: ReplayAccess | None) -> bool:
    """Whether ``given`` is ``access``' share token (``access`` None: the match has none)."""
    return access is not None and _token_matches(given, access.token)


def _token_matches(given: object, stored: object) -> bool:
    """Whether ``given`` (from the request: maybe None or not a string) is the share token ``stored``.

    Compared in constant time (``hmac.compare_digest``): the time an answer takes says nothing about how
    much of a guessed token was right. A missing, empty, non-ASCII or over-64-character token never matches.
    """
    if not isinstance(given, str) or not isinstance(stored, str) or not given or not stored:
        return False
    if len(given) > 64 or not given.isascii():
        return False
    return hmac.compare_digest(given.encode("ascii"), stored.encode("utf-8"))


# --------------------------------------------------------------------------------------------- build


@dataclass(slots=True)
class _Row:
    """The fields of a ``MatchEvent`` row the replay reads (``games.live.rebuild`` takes these too)."""

    seq: int
    type: str
    payload: Any
    auto: bool


@dataclass(slots=True)
class _Log:
    rows: list[_Row]
    engine_rows: list[_Row]
    events: list[Event]


def _rows(match: Match) -> list[_Row]:
    return [_Row(*r) for r in MatchEvent.objects.filter(match_id=match.pk).order_by("seq")
            .values_list("seq", "type", "payload", "auto")]


def log_digest(match: Match, rows: list[_Row]) -> str:
    """SHA-256 (hex) of what a replay is built from and checked against: the event ``rows`` and the
    match row's rules, first dealer and stored result (the cache key of :func:`replay_build`)."""
    content = [
        match.rules, match.first_dealer, match.status, match.scores, match.winner, match.result_reason,
        [[r.seq, r.type, r.payload, r.auto] for r in rows],
    ]
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _log(match: Match, rows: list[_Row] | None = None) -> _Log:
    """The match's log (``rows`` when already read), checked for gaps and parsed into engine events.
    :raises ReplayFailed: a missing row, or a row that is no engine event."""
    rows = _rows(match) if rows is None else rows
    engine_rows = [r for r in rows if r.type in ENGINE_TYPES]
    events: list[Event] = []
    for expected, row in enumerate(rows, start=1):
        if row.seq != expected:
            raise ReplayFailed(expected, f"event {expected} is missing from the log")
    if len(rows) != match.last_seq:
        raise ReplayFailed(len(rows) + 1, f"the log holds {len(rows)} events, the match {match.last_seq}")
    for row in engine_rows:
        try:
            events.append(engine_event(row.payload))
        except EngineError as exc:
            raise ReplayFailed(row.seq, str(exc)) from None
        if row.type != row.payload.get("type"):
            raise ReplayFailed(row.seq, f"a {row.type} row holds a {row.payload.get('type')} event")
        if row.type == "deal":
            for key in ("salt", "commitment"):
                if not isinstance(row.payload.get(key), str):
                    raise ReplayFailed(row.seq, f"the deal has no {key}")
    return _Log(rows, engine_rows, events)


def _players(match: Match) -> list[dict[str, Any]]:
    return [
        {"seat": s, "name": u.public_name if u is not None else "?", "bot_level": u.bot_level if u else None}
        for s, u in enumerate((match.player0, match.player1))
    ]


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds").replace("+00:00", "Z")


def _record(match: Match, log: _Log) -> dict[str, Any]:
    assert match.first_dealer is not None
    deals = [r for r in log.engine_rows if r.type == "deal"]
    secrets = [(str(r.payload["salt"]), str(r.payload["commitment"])) for r in deals]
    return record_from_events(
        rules=RuleSet.from_dict(match.rules), first_dealer=match.first_dealer, events=log.events,
        secrets=secrets, players=_players(match),
        match={
            "id": match.pk, "preset": match.preset, "started_at": _iso(match.started_at),
            "finished_at": _iso(match.finished_at), "result_reason": match.result_reason or None,
        },
        auto=lambda i: bool(log.engine_rows[i].auto),
        timeout=match.result_reason == ResultReason.TIMEOUT,
    )


def _verified(
    match: Match, log: _Log, *, frames: bool, live_cache: bool = True
) -> tuple[dict[str, Any], VerifiedReplay]:
    """Re-run the log (``games.live.rebuild`` and the record's verification) and compare with the
    match row; ``live_cache``: take live play's own state of the match when ``games.live`` still holds
    it (it is the rebuild of the same committed rows). :raises ReplayFailed: the first bad event's seq."""
    try:
        record = _record(match, log)
    except (EngineError, ValueError) as exc:
        raise ReplayFailed(log.engine_rows[0].seq if log.engine_rows else 1, str(exc)) from None
    try:
        verified = verify(record, frames=frames)
    except ReplayVerificationError as exc:
        # engine log number k is the k-th engine row; 0 (the header) is the first event
        index = max(exc.event, 1) - 1
        seq = log.engine_rows[index].seq if index < len(log.engine_rows) else match.last_seq + 1
        raise ReplayFailed(seq, exc.reason) from None
    live = cache_get(match.pk, match.last_seq) if live_cache else None
    if live is None:
        try:
            live = rebuild(match, log.rows)  # type: ignore[arg-type]  # _Row has the fields it reads
        except (EngineError, ValueError) as exc:
            raise ReplayFailed(match.last_seq, f"the live rebuild disagrees: {exc}") from None
    state = verified.state
    if live.state != state:
        raise ReplayFailed(match.last_seq, "the live rebuild and the record disagree")
    if list(state.final_scores or ()) != list(match.scores or ()) or state.winner != match.winner:
        raise ReplayFailed(
            match.last_seq,
            f"the stored result ({match.scores}, winner seat {match.winner}) disagrees with the rules "
            f"({list(state.final_scores or ())}, winner seat {state.winner})",
        )
    # a loss on time and a claimed win over a player who left are stored as the engine's resignation
    resigned = match.result_reason in (ResultReason.TIMEOUT, ResultReason.LEFT)
    reason = "resign" if resigned else match.result_reason
    if reason != verified.end["reason"]:
        raise ReplayFailed(match.last_seq, f"the stored end ({match.result_reason}) disagrees with the log")
    return record, verified


def match_record(*, match: Match) -> dict[str, Any]:
    """The replay file of a finished ``match`` (verified before it is given out).

    :raises ReplayFailed: the log does not re-run.
    """
    record, _ = _verified(match, _log(match), frames=False)
    return record


def hand_summary(h: HandReplay, before: list[int]) -> dict[str, Any]:
    """What the viewer shows of a hand it has not loaded (its line in the hand list, the scores)::

        {"number", "dealer", "steps" (its number of actions: the last step), "scores_before",
         "knock_limit", "multiplier", "scores_after", "result" (HandResult.to_dict() or None)}
    """
    return {
        "number": h.number, "dealer": h.dealer, "steps": len(h.actions), "scores_before": before,
        "knock_limit": h.knock_limit, "multiplier": h.multiplier,
        "scores_after": list(h.scores_after), "result": h.result,
    }


def hand_view(
    summary: dict[str, Any], h: HandReplay, frames: list[dict[str, Any]], arrangements: list[dict[str, Any]]
) -> dict[str, Any]:
    """A whole hand as the viewer draws it: ``summary`` (:func:`hand_summary`) and ``"deck"`` (card
    names), ``"arrangements"``, ``"salt"``, ``"commitment"``, ``"limit_card"`` (two_deck rules: the second
    deck's card, else None), ``"frames"`` (``engine.replay_format.frame``)."""
    return {
        **summary, "result": h.result, "deck": card_names(h.deck), "arrangements": arrangements,
        "salt": h.salt, "commitment": h.commitment,
        "limit_card": None if h.limit_card is None else card_name(h.limit_card), "frames": frames,
    }


_BRIEF_RESULT = ("kind", "knocker", "winner", "points")


def _end_reason(record: dict[str, Any], end: dict[str, Any]) -> str:
    """How the match ended, as the viewer says it: ``target``, ``resign``, ``timeout`` (a resignation on
    time), or ``left`` (the engine's resignation of a player who left the table, claimed by the other:
    the record's ``match.result_reason``, docs/protocol.md "Leaving")."""
    if end.get("timeout"):
        return "timeout"
    if end["reason"] == "resign" and (record.get("match") or {}).get("result_reason") == ResultReason.LEFT:
        return "left"
    return str(end["reason"])


def viewer_data(verified: VerifiedReplay, *, whole: bool = True) -> dict[str, Any]:
    """What the replay page's JavaScript draws, from a verified record (site match or uploaded file)::

        {"match": {"id", "preset", "rules", "target", "players": [{"seat", "name", "is_bot", "bot_level",
                   "bot_account" (False: a file does not say; :func:`replay_build` sets a site match's)}],
                   "winner", "reason" (target/resign/timeout/left), "scores" (final), "hand_scores",
                   "hands_won"},
         "hands": [hand_view(...) of each hand]}

    ``whole=False`` (an opened file, whose hands load one at a time): each hand is its
    :func:`hand_summary` only, its ``result`` cut to what the hand list shows (``kind``, ``knocker``,
    ``winner``, ``points``: a third of a dead hand's size); ``verified`` needs no frames.
    """
    record = verified.record
    rules = RuleSet.from_dict(record["rules"])
    hands = []
    before = [0, 0]
    for h in verified.hands:
        summary = hand_summary(h, before)
        if whole:
            hands.append(hand_view(summary, h, h.frames, h.arrangements))
        else:
            brief = None if h.result is None else {k: h.result[k] for k in _BRIEF_RESULT}
            hands.append({**summary, "result": brief})
        before = list(h.scores_after)
    end = verified.end
    return {
        "match": {
            "id": (record.get("match") or {}).get("id"),
            "preset": (record.get("match") or {}).get("preset") or rules.name,
            "rules": record["rules"], "target": rules.target,
            "players": [
                {"seat": p["seat"], "name": p["name"], "is_bot": p.get("bot_level") is not None,
                 "is_guest": False, "bot_level": p.get("bot_level"), "bot_account": False}
                for p in record["players"]
            ],
            "winner": end["winner"], "reason": _end_reason(record, end),
            "scores": list(end["final_scores"]), "hand_scores": list(end["scores"]),
            "hands_won": list(verified.state.hands_won),
        },
        "hands": hands,
    }


def _cache_key(match: Match, rows: list[_Row]) -> str:
    return f"replay:{CACHE_VERSION}:{match.pk}:{match.last_seq}:{log_digest(match, rows)}"


_JSON_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


@dataclass(frozen=True, slots=True)
class Built:
    """A built replay: ``json`` is :func:`viewer_data` as JSON text, safe inside a ``<script>``
    element (``<``, ``>`` and ``&`` escaped as ``json_script`` does); ``steps``: the last step of each
    hand (its number of actions), for checking a ``?hand=&step=`` position without parsing it."""

    json: str
    steps: list[int]

    @property
    def data(self) -> dict[str, Any]:
        """The viewer's data as Python values."""
        loaded: dict[str, Any] = json.loads(self.json)
        return loaded


def built_of(data: dict[str, Any]) -> Built:
    """:class:`Built` of :func:`viewer_data`'s result."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_JSON_ESCAPES)
    return Built(text, [h["steps"] for h in data["hands"]])


def replay_build(*, match: Match, use_cache: bool = True) -> Built:
    """The viewer's data of a finished ``match`` (:func:`viewer_data`), cached after the first build
    under the digest of its log (:func:`log_digest`: an edited row is a cache miss).

    :raises ReplayFailed: the log does not re-run (never cached, so a repaired log is read again).
    """
    rows = _rows(match)
    key = _cache_key(match, rows)
    if use_cache:
        hit = cache.get(key)
        if isinstance(hit, Built):
            return hit
    _, verified = _verified(match, _log(match, rows), frames=True, live_cache=use_cache)
    data = viewer_data(verified)
    # The record names its players only; a site match's seats say which is a BOT account (marked BOT on
    # the replay as at the table; an account never stops being one, so the cached build stays right).
    for player, user in zip(data["match"]["players"], (match.player0, match.player1), strict=False):
        player["bot_account"] = bool(user is not None and user.bot_account)
    built = built_of(data)
    if use_cache:
        cache.set(key, built, CACHE_SECONDS)
    return built


def replay_check(*, match: Match) -> None:
    """Re-run ``match``'s log without any cache (``verify_replays``). :raises ReplayFailed:."""
    _verified(match, _log(match), frames=False, live_cache=False)


def replay_cache_forget(*, match: Match) -> None:
    """Drop the cached replay of ``match``'s log as it is stored now (an entry built from other
    contents is unreachable already: its digest differs)."""
    cache.delete(_cache_key(match, _rows(match)))


def finished_matches(*, since: Any = None, match_id: int | None = None) -> Any:
    """Finished matches to verify, oldest first (``since``: finished at or after that datetime)."""
    qs = Match.objects.filter(status=MatchStatus.FINISHED).select_related("player0", "player1")
    if since is not None:
        qs = qs.filter(Q(finished_at__gte=since))
    if match_id is not None:
        qs = qs.filter(pk=match_id)
    return qs.order_by("finished_at", "id")
