"""The lobby's refusals: one code each, with its message in English (logs, the API, docs/protocol.md)
and, through :func:`text`, in the reader's language (pages and sockets).

Raise :class:`games.services.GameError` (``code``, English message) from services; show
``text(code, **params)`` to people. A code missing here is a bug: :func:`text` raises ``KeyError``.
"""

from __future__ import annotations

from typing import Any

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_noop as N_

from games.services import GameError

MESSAGES: dict[str, str] = {
    # shared by pools, open challenges and direct challenges (lobby.busy)
    "not_authenticated": N_("log in or play as a guest first"),
    "guest_rated": N_("guests play casual games only: sign up to play rated"),
    "match_in_progress": N_("finish your rated match {match_id} first"),
    # {pool}: lobby.labels.pool_label_lazy of the pool the player waits in
    "already_waiting": N_("you are already waiting in the pool {pool}: cancel that first"),
    "already_seeking": N_("you already have an open challenge: cancel that first"),
    # fair play (lobby.busy; docs/fairplay.md "Limits that make farming slow")
    "account_marked": N_("your account is under fair-play review: you may play casual matches only"),
    "opponent_marked": N_("{name} may play casual matches only for now"),
    # {limit}: games.conf.pair_rated_per_day()
    "pair_rated_limit": N_("you and {name} have started {limit} rated matches against each other in the"
                           " last 24 hours, the most a day allows: play casual, or rated again tomorrow"),
    # {reason}, {wait}: lazy strings of lobby.playbans.refusal_params ("you left a rated match", "4 minutes")
    "playban": N_("{reason}: you can pair again in {wait}"),
    "bad_frame": N_("malformed message: {detail}"),
    # pools (quick pairing: lobby.pools, lobby.pool_consumers; docs/protocol.md "Pool socket")
    "no_such_pool": N_("there is no open pool {slug}"),
    "not_your_entry": N_("you are not waiting in this pool"),
    "pool_sockets": N_("at most {limit} pool connections per player: close another tab"),
    "pool_ip_limit": N_("at most {limit} pool connections per address: close another tab"),
    "pool_rate_limited": N_("too many messages; this one was ignored"),
    # who may enter a pool (lobby.pools.check_door; docs/lobby.md "Who may join", docs/bot-api.md)
    "bots_pool_only": N_("this pool is for BOT accounts only"),
    "people_only": N_("BOT accounts play through the bot API, in the BOT pool: people's pools and open"
                      " challenges are for people"),
    "bot_api_only": N_("a BOT account joins the BOT pool through the bot API, not from the browser"),
    # not a code: challenge_blocked's sentence when a BOT account challenges a person who has not turned
    # on BOT challenges (lobby.challenges, refuse_as; docs/bot-api.md "Who plays whom")
    "challenge_blocked_bot": N_("{name} does not accept challenges from BOT accounts"),
    # open challenges (the lobby's seeks: lobby.seeks, lobby.seek_consumers; docs/lobby.md "Open challenges")
    "seek_not_found": N_("no such open challenge"),
    "seek_taken": N_("someone else accepted this challenge first"),
    "seek_gone": N_("this challenge was withdrawn"),
    "seek_expired": N_("this challenge has expired"),
    "seek_own": N_("this is your own challenge: wait for someone to accept it"),
    "seek_out_of_range": N_("this challenge is for ratings {range}: yours is {rating}"),
    "seek_guest_range": N_("this challenge is for rated players in a rating range: sign up to get a rating"),
    "seek_creator_busy": N_("the creator of this challenge is playing a rated match now"),
    "seek_not_yours": N_("only its creator may cancel a challenge"),
    "bad_settings": N_("invalid match settings: {detail}"),
    "too_many_sockets": N_("at most {limit} pages open with this socket per account: close one"),
    "rate_limited": N_("too many messages: this one was ignored"),
    # direct challenges (lobby.challenges, lobby.notice_consumers; docs/lobby.md "Direct challenges")
    "challenge_self": N_("you cannot challenge yourself"),
    "challenge_guest": N_("guests cannot be challenged: they have no profile"),
    "challenge_bot": N_("house bots are not challenged: play one from Play a bot"),
    "challenge_blocked": N_("{name} does not accept challenges"),
    "challenge_target_busy": N_("{name} is playing a match now: try again later"),
    "challenge_pending": N_("you have already challenged {name}: wait for the answer"),
    "challenge_limit": N_("you have {limit} challenges waiting for an answer already"),
    "challenge_not_found": N_("no such challenge"),
    "challenge_answered": N_("this challenge was answered already"),
    "challenge_withdrawn": N_("this challenge was withdrawn"),
    "challenge_expired": N_("this challenge has expired"),
    "challenger_busy": N_("{name} is playing a rated match now"),
}


def text(code: str, **params: Any) -> str:
    """The message of ``code`` in the active language, with ``params`` filled in (``str.format``)."""
    return gettext(MESSAGES[code]).format(**params)


def refuse(code: str, **params: Any) -> GameError:
    """A :class:`GameError` for ``code`` with its English message (``raise refuse("playban", minutes=5)``);
    ``params`` are kept on it (``.params``) so a socket can say it in the reader's language (:func:`said`)."""
    with translation.override("en"):  # lazy parameters (a pool's label, a playban's reason) in English
        error = GameError(code, MESSAGES[code].format(**params))
    error.params = params  # type: ignore[attr-defined]
    return error


def refuse_as(code: str, key: str, **params: Any) -> GameError:
    """:func:`refuse` with the message of ``key`` (another entry of :data:`MESSAGES`) under ``code``: one
    code, a more precise sentence (``refuse_as("challenge_blocked", "challenge_blocked_bot", name=...)``)."""
    error = refuse(key, **params)
    error.code = code
    error.message_key = key  # type: ignore[attr-defined]
    return error


def said(error: GameError) -> str:
    """``error``'s message in the active language: :func:`text` for a lobby code raised by :func:`refuse`
    (or :func:`refuse_as`: its own sentence), else its own (English) message."""
    params = getattr(error, "params", None)
    key = getattr(error, "message_key", error.code)
    if key in MESSAGES and params is not None:
        return text(key, **params)
    return error.message


def said_params(error: GameError) -> dict[str, Any]:
    """``error``'s parameters as a socket frame may carry them (JSON): lazy strings (a pool's label, a
    playban's reason and wait) said in the active language; {} for an error without parameters."""
    params = getattr(error, "params", None) or {}
    return {key: str(value) if isinstance(value, Promise) else value for key, value in params.items()}
