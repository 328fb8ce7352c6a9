"""Home URLs (namespace ``home``): the site's front door."""

from django.urls import path

from home import views

app_name = "home"

urlpatterns = [
    path("", views.home, name="home"),
]
