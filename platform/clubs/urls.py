"""Club URLs (namespace ``clubs``). ``new`` and ``join`` are reserved slugs (``clubs.services``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from clubs import views

app_name = "clubs"

urlpatterns: list[URLPattern] = [
    path("clubs/", views.club_list, name="list"),
    path("clubs/new/", views.club_new, name="new"),
    path("clubs/join/<str:code>/", views.invite, name="invite"),
    path("clubs/<slug:slug>/", views.club_detail, name="detail"),
    path("clubs/<slug:slug>/edit/", views.club_edit, name="edit"),
    path("clubs/<slug:slug>/join/", views.club_join, name="join"),
    path("clubs/<slug:slug>/leave/", views.club_leave, name="leave"),
    path("clubs/<slug:slug>/delete/", views.club_delete, name="delete"),
    path("clubs/<slug:slug>/invite/renew/", views.invite_renew, name="invite_renew"),
    path("clubs/<slug:slug>/members/<int:user_id>/", views.member_action, name="member"),
]
