"""Close a user's open table sockets when their session ends: on logout, and when their password changes
(which ends their other sessions: Django checks the session's password hash). Issue 8: a socket opened
before logout kept acting after it.

Each ``MatchConsumer`` (and lobby socket) joins its user's group ``push.groups.sessions_group``; after
the commit of the change, a ``user.session_ended`` message closes every one of them, on every server
process (docs/protocol.md "Connection": close code 4001). A socket whose session is still valid (the
browser that changed the password keeps its session) simply reconnects.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import pre_save
from django.dispatch import receiver

from push.groups import sessions_group
from push.send import send_now


def close_user_sockets(user_id: int) -> None:
    """Tell every open table and lobby socket of ``user_id`` to close (``push.send``: an outage is
    recorded and logged; the socket's next message finds the session gone anyway)."""
    send_now([(sessions_group(user_id), {"type": "user.session_ended"})])


@receiver(user_logged_out, dispatch_uid="games.close_sockets_on_logout")
def _on_logout(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is not None and user.pk is not None:
        user_id = user.pk
        # django.contrib.auth.logout() sends this signal *before* it flushes the session, and outside a
        # transaction on_commit runs at once: a table closed here (4001) could reconnect with the
        # session still in the database, be let in, and need a second reconnect to learn it is logged
        # out (CI, under load: three sockets where one reconnect was due). Flush first; logout()'s own
        # flush of the emptied session then deletes nothing.
        session = getattr(request, "session", None)
        if session is not None:
            session.flush()
        transaction.on_commit(lambda: close_user_sockets(user_id), robust=True)


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="games.close_sockets_on_password")
def _on_password_change(sender: Any, instance: Any, **kwargs: Any) -> None:
    # set_password() keeps the raw password in ``_password`` until the save that stores its hash.
    if instance.pk is not None and getattr(instance, "_password", None) is not None and not kwargs.get("raw"):
        user_id = instance.pk
        transaction.on_commit(lambda: close_user_sockets(user_id), robust=True)
