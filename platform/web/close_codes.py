"""The WebSocket close codes of every socket of the site (docs/protocol.md), one name each.

RFC 6455 section 7.4.2 leaves 4000-4999 to the application; the site's 44xx/45xx codes mirror the HTTP
status of the same refusal (4404 like 404), so a client reads them as it reads a page's status. A page's
reconnecting socket (``web/socket.js``) treats 4401, 4403 and 4404 as final and reconnects after any
other code.
"""

from __future__ import annotations

SESSION_ENDED_CLOSE_CODE = 4001
"""The session behind the socket ended (logout, another login): not final, the page reconnects and then
learns whether it is still signed in."""
NOT_AUTHENTICATED_CLOSE_CODE = 4401
"""The socket needs a signed-in member (the seek and tournament sockets)."""
PRIVATE_CLOSE_CODE = 4403
"""A spectator may not watch this match (a private replay)."""
NOT_FOUND_CLOSE_CODE = 4404
"""No such match, or a path no socket serves."""
TOO_MANY_SOCKETS_CLOSE_CODE = 4409
"""The user (or guest) holds as many sockets of this kind as allowed already."""
MATCH_FULL_CLOSE_CODE = 4409
"""A spectator socket refused: its match has ``SPECTATORS_PER_MATCH`` spectators already."""
NOT_FINISHED_CLOSE_CODE = 4409
"""A spectator socket refused: the match is not over and its owner hides it until then."""
FLOOD_CLOSE_CODE = 4429
"""Too many messages (a socket past its rate limit)."""
IP_LIMIT_CLOSE_CODE = 4429
"""A socket refused because its IP holds as many (home, spectator) sockets as allowed already."""
UNAVAILABLE_CLOSE_CODE = 4503
"""Service unavailable (the database or Redis unreachable): try again later."""
