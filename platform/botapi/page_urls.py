"""The bot API's web pages (namespace ``botpages``), mounted at the site's root: ``upgrade``
(``/accounts/bot/upgrade/``, POST)."""

from __future__ import annotations

from django.urls import URLPattern, path

from botapi import page_views

app_name = "botpages"

urlpatterns: list[URLPattern] = [
    path("accounts/bot/upgrade/", page_views.upgrade, name="upgrade"),
]
