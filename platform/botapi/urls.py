"""Bot API URLs (namespace ``botapi``), mounted at ``/api/v1/bot/`` (docs/bot-api.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from botapi import challenge_views, pool_views, streams, views

app_name = "botapi"

urlpatterns: list[URLPattern | URLResolver] = [
    path("pool/<slug:slug>/join/", pool_views.PoolJoinView.as_view(), name="pool_join"),
    path("pool/<slug:slug>/leave/", pool_views.PoolLeaveView.as_view(), name="pool_leave"),
    path("account/", views.AccountView.as_view(), name="account"),
    path("account/upgrade/", views.UpgradeView.as_view(), name="upgrade"),
    path("match/house/", views.HouseView.as_view(), name="house"),
    path("match/<int:match_id>/action/", views.ActionView.as_view(), name="action"),
    path("match/<int:match_id>/resign/", views.ResignView.as_view(), name="resign"),
    path("challenge/<int:challenge_id>/accept/", challenge_views.ChallengeAcceptView.as_view(),
         name="challenge_accept"),
    path("challenge/<int:challenge_id>/decline/", challenge_views.ChallengeDeclineView.as_view(),
         name="challenge_decline"),
    path("challenge/<int:challenge_id>/cancel/", challenge_views.ChallengeCancelView.as_view(),
         name="challenge_cancel"),
    path("challenge/<str:username>/", challenge_views.ChallengeCreateView.as_view(), name="challenge"),
    path("stream/events/", streams.stream_events, name="stream_events"),
    path("match/<int:match_id>/stream/", streams.match_stream, name="match_stream"),
]
