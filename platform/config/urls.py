"""Root URLconf: admin, accounts, language switch, the API, the home page, web pages and the apps' pages."""

from __future__ import annotations

from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path

from push import views as push_views

urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    # The bot API (docs/bot-api.md) before the public API's catch-all 404 under api/.
    path("api/v1/bot/", include("botapi.urls")),
    path("api/", include("api.urls")),
    path("internal/push/", push_views.receive, name="push-forward"),
    path("", include("botapi.page_urls")),  # "Write a bot", the BOT upgrade button; before the catch-alls
    path("", include("home.urls")),
    path("", include("web.urls")),
    path("", include("games.urls")),
    path("", include("tournaments.urls")),
    path("", include("clubs.urls")),
    path("", include("replays.urls")),
    path("", include("ratings.urls")),
    path("", include("lobby.urls")),
    path("", include("fairplay.urls")),
]

# 503 while the database cannot be reached, else the 500 page (JSON under /api/): web.unavailable.
handler500 = "web.views.server_error"
# The site's 404 page, with the view's reason when it gave one for the reader (web.errors.NotFound).
handler404 = "web.views.page_not_found"
