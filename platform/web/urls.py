"""Web URLs (namespace ``web``): the favicon and the health check (the home page: ``home.urls``)."""

from django.urls import path

from web import views

app_name = "web"

urlpatterns = [
    path("favicon.ico", views.favicon, name="favicon"),
    path("healthz", views.healthz, name="healthz"),
]
