"""Account URLs (namespace ``accounts``): ``signup``, ``login``, ``logout`` (POST), ``guest`` (POST),
``tokens`` (the API tokens page), ``token_revoke`` (POST)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views
from accounts.forms import LoginForm

app_name = "accounts"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="accounts/login.html", authentication_form=LoginForm),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("guest/", views.play_as_guest, name="guest"),
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke_view, name="token_revoke"),
]
