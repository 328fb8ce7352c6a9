"""Root URLconf: admin, accounts, language switch, web pages and the games app."""

from __future__ import annotations

from importlib.util import find_spec

from django.apps import apps
from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path

urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("web.urls")),
]

# The games app is being built in parallel: include its URLs as soon as its urls module exists.
if apps.is_installed("games") and find_spec("games.urls") is not None:
    urlpatterns.append(path("", include("games.urls")))
