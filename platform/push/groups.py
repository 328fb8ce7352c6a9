"""Names of the channel-layer groups, each built here and nowhere else.

Who joins which group, and what is sent on it (docs/protocol.md):

=======================================  ===========================================  ==================
group                                    members                                      messages
=======================================  ===========================================  ==================
:func:`match_group` ``match_<id>``       every table socket of a match (both seats)   card-free notices
:func:`seat_group` ``match_<id>_seat<s>``  the table sockets of seat ``s`` only        that seat's state
:func:`watch_group` ``watch_<id>``       a live match's spectators                    ``match.update``
:func:`sessions_group` ``user_<id>``     every table and lobby socket of one user     session ended
:func:`tournament_group`                 a tournament's page                          ``tournament.changed``
:func:`tournament_banner_group`          one user's site-wide tournament banner       ``tournament.changed``
:data:`LOBBY_GROUP` ``lobby_seeks``      every ``ws/lobby/`` socket                   ``lobby.changed``
:func:`lobby_user_group`                 one user's ``ws/lobby/`` sockets             ``lobby.go``
:func:`notice_group` ``notices_<id>``    one user's ``ws/notices/`` sockets           ``notice.push``
:func:`pool_group` / :func:`entry_group`  a pool's waiting screens / one entry's      ``pool.*``
:func:`analysis_group`                   a match's analysis sockets                   ``analysis.progress``
:func:`bot_events_group`                 one BOT account's event streams (bot API)    ``bot.match``
:data:`HOME_GROUP` ``home``              the home page's live numbers                 ``home.update``
=======================================  ===========================================  ==================

A seat's ``state`` carries that seat's cards: it goes to :func:`seat_group` only, never to a group
another seat or a spectator is in.
"""

from __future__ import annotations

LOBBY_GROUP = "lobby_seeks"
HOME_GROUP = "home"


def match_group(match_id: int) -> str:
    """Both seats' table sockets of match ``match_id``: card-free notices (chat, presence, rematch,
    rating, spectator count)."""
    return f"match_{match_id}"


def seat_group(match_id: int, seat: int) -> str:
    """The table sockets of the player at ``seat`` (0 or 1): the only group that gets that seat's
    ``state`` (its cards)."""
    return f"match_{match_id}_seat{seat}"


def watch_group(match_id: int) -> str:
    """A match's spectators: card-free ``match.update`` notices only."""
    return f"watch_{match_id}"


def sessions_group(user_id: int) -> str:
    """Every table and lobby socket of one user: closed when the user's session ends (logout, a new
    password)."""
    return f"user_{user_id}"


def tournament_group(tournament_id: int) -> str:
    """A tournament's page sockets."""
    return f"tournament_{tournament_id}"


def tournament_banner_group(user_id: int) -> str:
    """One user's site-wide tournament banner sockets (their rounds starting)."""
    return f"user_{user_id}_tournaments"


def lobby_user_group(user_id: int) -> str:
    """One user's ``ws/lobby/`` sockets."""
    return f"lobby_user_{user_id}"


def notice_group(user_id: int) -> str:
    """One user's ``ws/notices/`` sockets (one per open page of the site)."""
    return f"notices_{user_id}"


def pool_group(pool_id: int) -> str:
    """Every waiting screen of one quick-pairing pool (the count of players waiting)."""
    return f"pool_{pool_id}"


def entry_group(entry_id: int) -> str:
    """The waiting screen(s) of one pool entry (paired, left)."""
    return f"pool_entry_{entry_id}"


def analysis_group(match_id: int) -> str:
    """The sockets following the computer analysis of match ``match_id``."""
    return f"analysis_{match_id}"


def bot_events_group(user_id: int) -> str:
    """One BOT account's event streams (``botapi.streams``, docs/bot-api.md "The event stream"): told
    when a match of the account starts or ends (card-free: the stream reads the rest itself)."""
    return f"bot_events_{user_id}"
