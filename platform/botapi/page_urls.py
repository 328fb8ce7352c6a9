"""Pages about the bot API (namespace ``botpages``): "Write a bot" (``/developers/bots/``), ``upgrade``
(``/accounts/bot/upgrade/``, POST: the tokens page's button)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from botapi import page_views

app_name = "botpages"

urlpatterns: list[URLPattern | URLResolver] = [
    path("developers/bots/", page_views.write_bot, name="write_bot"),
    path("accounts/bot/upgrade/", page_views.upgrade, name="upgrade"),
]
