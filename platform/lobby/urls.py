"""The lobby's URLs (namespace ``lobby``): pools (``/play/``), open challenges (``/lobby/``) and direct
challenges (``/challenges/``); each part keeps its own patterns in its own module."""

from __future__ import annotations

from django.urls import URLPattern

from lobby import challenge_urls, pool_urls, seek_urls

app_name = "lobby"

urlpatterns: list[URLPattern] = [*pool_urls.urlpatterns, *seek_urls.urlpatterns, *challenge_urls.urlpatterns]
