"""Show a moderator's warning once (``fairplay.models.Notice``): on the next page a warned member loads,
as a ``django.contrib.messages`` warning, which the base template shows (docs/fairplay.md).

Cost per request of a signed-in member: one cache read (``fairplay.services.notice_cache_key``); the
database only when the key says a warning is waiting (set, with no expiry, when the warning commits).
Should the cache lose the key first, the warning waits for the member's next log-in, which looks in the
database once (:func:`flag_on_login`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from fairplay.models import Notice
from fairplay.services import notice_cache_key, notices_take


class FairplayNoticeMiddleware:
    """After ``AuthenticationMiddleware`` and ``MessageMiddleware``; pages only (not ``/api/``, not
    static files), GET requests only (a warning is read on a page, not eaten by a form's POST)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if (request.method == "GET" and user is not None and user.is_authenticated
                and not request.path.startswith(("/api/", "/static/", "/admin/"))):
            self._show(request, user.pk)
        return self.get_response(request)

    @staticmethod
    def _show(request: HttpRequest, user_id: int) -> None:
        if not cache.get(notice_cache_key(user_id)):
            return
        for notice in notices_take(user_id=user_id):
            text = _("A moderator warned you about fair play on this site: play your own games, fairly. "
                     "Another violation may close your account.")
            if notice.message:
                text = f"{text} {notice.message}"
            messages.warning(request, text)


def flag_on_login(sender: object, request: HttpRequest, user: Any, **kwargs: object) -> None:
    """``user_logged_in`` receiver: set the member's notice key when a warning is waiting (a key the
    cache lost, e.g. a restart of Redis without persistence)."""
    if Notice.objects.filter(user_id=user.pk, seen_at__isnull=True).exists():
        cache.set(notice_cache_key(user.pk), 1, None)
