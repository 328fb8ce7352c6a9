"""ASGI entry point (``daphne config.asgi:application``): HTTP through Django, WebSockets through Channels.

The Django app is built BEFORE importing any routing so that models and settings are ready when consumer
modules import them. WebSockets accept only the site's own origins (scheme, host and port: the served
origin and ``CSRF_TRUSTED_ORIGINS``, ``config.origins``) and carry the session user (guests included) in
``scope["user"]``. Every request and socket is logged once (``web.access_log.AccessLog``). A socket that
fails because the database cannot be reached gets an error frame and close 4503 (``web.unavailable``).
Once all of it is loaded, the garbage collector is tuned for short pauses (``config.gc_tuning``).
"""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.gc_tuning import tune_for_live_play  # noqa: E402
from config.origins import SameOriginValidator  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from config.wsserver import add_reason_phrases, close_instead_of_drop  # noqa: E402
from web.access_log import AccessLog  # noqa: E402
from web.presence import PresenceMiddleware  # noqa: E402
from web.unavailable import SocketUnavailable  # noqa: E402

close_instead_of_drop()  # an oversized frame gets a 1009 close frame, not a dropped connection
add_reason_phrases()  # "429 Too Many Requests", not "429 Unknown Status"

# AccessLog: one log line per response and per socket, through LOGGING (JSON, tokens redacted, request
# id); Daphne's own access log is off (-v 0, web.access_log).
application = AccessLog(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            # SocketUnavailable: with the database down (the session lookup fails first), an error frame
            # and close 4503 ("try again later") instead of an HTTP 500 at the handshake (web.unavailable).
            # PresenceMiddleware: a signed-in player's open socket marks them online (web.presence).
            # The arg-type ignore: Channels' stubs want their own pattern type for Django's URL patterns.
            "websocket": SameOriginValidator(
                SocketUnavailable(AuthMiddlewareStack(PresenceMiddleware(URLRouter(websocket_urlpatterns))))  # type: ignore[arg-type]
            ),
        }
    )
)

# Last: everything loaded so far lives as long as the process; no collection should walk it again, and
# full collections must not pause every socket of this process for 100 ms (config.gc_tuning).
tune_for_live_play()
